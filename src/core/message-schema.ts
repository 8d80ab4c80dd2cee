// The messages of a conversation and what they carry (content blocks, usage, a refusal, a model
// error, a queued message), declared once as TypeBox schemas: the types in types.ts are `Static`
// of them, and the same schemas are parts of the events (event-schema.ts), of the session entries
// (session/entry-kinds/) and of the RPC protocol, whose JSON Schemas in docs/ are generated from them.
import type { TLiteral, TUnion } from 'typebox';
import { Type } from './type-builders.js';

export const Str = Type.String();
export const Int = Type.Integer({ minimum: 0 });

/** A union of string literals: `lits('a', 'b')` is the schema of `'a' | 'b'`. */
export function lits<const T extends readonly string[]>(...values: T): TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }> {
  return Type.Union(values.map((v) => Type.Literal(v))) as never;
}

export const Text = Type.Object({ type: Type.Literal('text'), text: Str });

/** An image in a user message or a tool result: its bytes in base64 and its media type. */
export const Image = Type.Object({
  type: Type.Literal('image'),
  /** The image's bytes, base64 (no data: prefix); the media type is image/png, image/jpeg, image/gif or image/webp. */
  data: Type.String({ description: 'base64' }),
  mimeType: Str,
});

export const Thinking = Type.Object({
  type: Type.Literal('thinking'),
  thinking: Str,
  /** Provider signature (Anthropic) that must accompany the block when it is sent back. */
  signature: Type.Optional(Str),
});

export const ToolCallSchema = Type.Object({
  type: Type.Literal('toolCall'),
  /** Provider-issued (or generated) id; the matching result carries it. */
  id: Str,
  name: Str,
  /** Parsed arguments. When the raw text was not valid JSON this is `{}` and `argumentsError` says why. */
  arguments: Type.UnknownRecord(),
  /** Set when the streamed arguments could not be parsed; the call is never run. */
  argumentsError: Type.Optional(Str),
  /** The argument text exactly as the model streamed it, kept whenever it could not be parsed (with `argumentsError`). */
  rawArguments: Type.Optional(Type.String({ description: 'the argument text as streamed, kept when it could not be parsed' })),
});

export const UsageSchema = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  /** Cost in US dollars of what was priced (0 when nothing was). */
  cost: Type.Number({ description: 'US dollars' }),
  /** Some of these tokens had no known price (a model missing from the table, without configured prices): `cost` leaves them out, and displays say "cost unknown". */
  costUnknown: Type.Optional(Type.Boolean({ description: 'true: some tokens had no known price; cost leaves them out (additive in 3)' })),
});

/** Why an assistant message ended. */
export const StopReasonSchema = lits('stop', 'toolUse', 'length', 'contentFilter', 'error', 'aborted');

/**
 * Why a response was refused: by the model itself (Anthropic `stop_reason: "refusal"`, an OpenAI
 * `refusal` with no answer) or by the provider's content filter (`finish_reason: "content_filter"`).
 */
export const RefusalSchema = Type.Object(
  {
    reason: lits('refusal', 'content_filter'),
    /** The provider's category, when it gives one (Anthropic `stop_details.category`). */
    category: Type.Optional(Str),
    /** The provider's or the model's explanation, when there is one. */
    explanation: Type.Optional(Str),
  },
  { description: 'A refusal by the model, or the provider content filter, with the provider category and explanation when given' },
);

export const UserMessageSchema = Type.Object({ role: Type.Literal('user'), content: Type.Array(Type.Union([Text, Image])) });

export const Assistant = Type.Object({
  role: Type.Literal('assistant'),
  content: Type.Array(Type.Union([Text, Thinking, ToolCallSchema])),
  stopReason: StopReasonSchema,
  usage: UsageSchema,
  model: Type.Optional(Str),
  provider: Type.Optional(Str),
  /** Present when stopReason is `error` or `aborted`. */
  errorMessage: Type.Optional(Str),
  /** Present when stopReason is `contentFilter`: who refused, and why when the provider says. */
  refusal: Type.Optional(RefusalSchema),
});

export const ToolResultMessageSchema = Type.Object({
  role: Type.Literal('toolResult'),
  toolCallId: Str,
  toolName: Str,
  content: Type.Array(Type.Union([Text, Image])),
  isError: Type.Boolean(),
  details: Type.Optional(Type.UnknownRecord()),
});

/** A message of the conversation, as stored and as projected for the model. */
export const MessageSchema = Type.Union([UserMessageSchema, Assistant, ToolResultMessageSchema]);

/** The kinds of model failure the loop can tell apart (`invalid_response`: the provider sent something that is not a valid stream frame: broken JSON, not an object). */
export const ModelErrorKindSchema = lits('auth', 'rate_limit', 'overloaded', 'server', 'context_overflow', 'network', 'invalid_response', 'bad_request', 'aborted', 'unknown');

export const ModelErrorSchema = Type.Object({
  kind: ModelErrorKindSchema,
  message: Str,
  retryable: Type.Boolean(),
  status: Type.Optional(Type.Number()),
  retryAfterMs: Type.Optional(Type.Number()),
  /** On a `context_overflow`: the model's window, when the provider's error states it. */
  contextWindow: Type.Optional(Type.Number({ description: 'context_overflow: the window the provider stated (additive in 3)' })),
  /** On a `context_overflow`: the rejected request's input tokens, when the provider's error states them. */
  requestTokens: Type.Optional(Type.Number({ description: "context_overflow: the rejected request's input tokens, as the provider counted them (additive in 3)" })),
});

/** A message sent while a run is in progress: a steer (after the current tool batch) or a follow-up (when the run would end). */
export const QueueKindSchema = lits('steer', 'follow_up');
export const QueueItemSchema = Type.Object({ id: Str, kind: QueueKindSchema, text: Str });
