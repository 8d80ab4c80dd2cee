// The JSON Schema of the events, written with TypeBox. docs/events.schema.json is
// generated from it (`npm run docs:schema`), a test checks that the file is current
// and that real runs emit only valid events, and the type assertions at the bottom
// make the build fail if this schema and the TypeScript union in events.ts drift apart.
import { Type } from './type-builders.js';
import type { Static, TLiteral, TUnion } from 'typebox';
import type { AgentEvent } from './events.js';
import type { AssistantMessage, ModelError, Usage } from './types.js';

export const Str = Type.String();
export const Int = Type.Integer({ minimum: 0 });
export const Text = Type.Object({ type: Type.Literal('text'), text: Str });
/** An image in a user message or a tool result: its bytes in base64 and its media type. */
export const Image = Type.Object({ type: Type.Literal('image'), data: Type.String({ description: 'base64' }), mimeType: Str });
const Thinking = Type.Object({ type: Type.Literal('thinking'), thinking: Str, signature: Type.Optional(Str) });
const ToolCall = Type.Object({
  type: Type.Literal('toolCall'),
  id: Str,
  name: Str,
  arguments: Type.UnknownRecord(),
  argumentsError: Type.Optional(Str),
  rawArguments: Type.Optional(Type.String({ description: 'the argument text as streamed, kept when it could not be parsed' })),
});
export const UsageSchema = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  cost: Type.Number({ description: 'US dollars' }),
  costUnknown: Type.Optional(Type.Boolean({ description: 'true: some tokens had no known price; cost leaves them out (additive in 3)' })),
});
export function lits<const T extends readonly string[]>(...values: T): TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }> {
  return Type.Union(values.map((v) => Type.Literal(v))) as never;
}
const StopReason = lits('stop', 'toolUse', 'length', 'contentFilter', 'error', 'aborted');
const ErrorKind = lits('auth', 'rate_limit', 'overloaded', 'server', 'context_overflow', 'network', 'invalid_response', 'bad_request', 'aborted', 'unknown');
export const RefusalSchema = Type.Object(
  {
    reason: lits('refusal', 'content_filter'),
    category: Type.Optional(Str),
    explanation: Type.Optional(Str),
  },
  { description: 'A refusal by the model, or the provider content filter, with the provider category and explanation when given' },
);
export const Assistant = Type.Object({
  role: Type.Literal('assistant'),
  content: Type.Array(Type.Union([Text, Thinking, ToolCall])),
  stopReason: StopReason,
  usage: UsageSchema,
  model: Type.Optional(Str),
  provider: Type.Optional(Str),
  errorMessage: Type.Optional(Str),
  refusal: Type.Optional(RefusalSchema),
});
const ModelErrorSchema = Type.Object({
  kind: ErrorKind,
  message: Str,
  retryable: Type.Boolean(),
  status: Type.Optional(Type.Number()),
  retryAfterMs: Type.Optional(Type.Number()),
  contextWindow: Type.Optional(Type.Number({ description: 'context_overflow: the window the provider stated (additive in 3)' })),
  requestTokens: Type.Optional(Type.Number({ description: 'context_overflow: the rejected request\'s input tokens, as the provider counted them (additive in 3)' })),
});
export const LastRunSchema = Type.Object({
  runId: Str,
  startedAt: Str,
  durationMs: Type.Number(),
  stopReason: Str,
  turns: Int,
  toolCalls: Int,
  toolErrors: Int,
  usage: UsageSchema,
});
export const StatsSchema = Type.Object({
  usage: UsageSchema,
  turns: Int,
  toolCalls: Int,
  toolErrors: Int,
  compactions: Int,
  wallTimeMs: Type.Number(),
});
export const SessionStatsSchema = Type.Object({
  session: StatsSchema,
  activePath: StatsSchema,
  lastRun: Type.Union([
    LastRunSchema,
    Type.Null(),
  ]),
});
export const CompactionReasonSchema = lits('threshold', 'overflow', 'manual');
export const QueueItemSchema = Type.Object({ id: Str, kind: lits('steer', 'follow_up'), text: Str });
const RunStop = lits('completed', 'refused', 'aborted', 'error', 'max_turns', 'loop_detected', 'budget');
const BudgetStopSchema = Type.Object(
  { maxCostUsd: Type.Number(), spentUsd: Type.Number(), nextRequestUsd: Type.Number() },
  { description: 'stopReason "budget": the budget (--max-cost), what the run had spent, and what the next request could have cost (additive in 3)' },
);

const common = {
  schemaVersion: Type.Integer({ minimum: 1 }),
  seq: Type.Integer({ minimum: 0, description: 'monotonic within a run, starting at 0' }),
  time: Type.Number({ description: 'ms since the Unix epoch' }),
};
const ev = <T extends string, P extends Record<string, any>>(type: T, props: P, description: string) =>
  Type.Object({ type: Type.Literal(type), ...props, ...common }, { description, additionalProperties: false });

export const AgentEventSchema = Type.Union(
  [
    ev('run_start', {
      runId: Str,
      session: Type.Union([Type.Object({ id: Str, file: Type.Union([Str, Type.Null()]) }), Type.Null()]),
      cwd: Str,
      provider: Str,
      model: Str,
      prompt: Str,
      promptEntryId: Str,
      maxTurns: Int,
    }, 'First event of a run: which session, model and prompt.'),
    ev('turn_start', {
      turn: Int,
      messageCount: Int,
      roles: Type.Object({ user: Int, assistant: Int, toolResult: Int }),
      compacted: Type.Boolean(),
    }, 'A model request is about to be sent; counts describe the projected messages.'),
    ev('text_delta', { turn: Int, delta: Str }, 'An increment of answer text (never the whole text so far).'),
    ev('thinking_delta', { turn: Int, delta: Str }, 'An increment of reasoning text, kept apart from the answer.'),
    ev('toolcall_start', { turn: Int, index: Int, toolCallId: Str, name: Str }, 'The model began a tool call.'),
    ev('message_end', { turn: Int, entryId: Str, message: Assistant }, 'The assistant message is complete and stored.'),
    ev('tool_start', {
      turn: Int,
      toolCallId: Str,
      name: Str,
      arguments: Type.UnknownRecord(),
      rawArguments: Type.Optional(Str),
    }, 'A tool starts (a call with unparseable arguments is answered with an error; rawArguments holds what the model sent).'),
    ev('tool_update', { toolCallId: Str, name: Str, tail: Str }, "A running tool's latest output (bash: the last lines so far), at most a few times a second (additive in 3)."),
    ev('tool_end', {
      turn: Int,
      toolCallId: Str,
      name: Str,
      result: Type.Object({
        content: Type.Array(Type.Union([Text, Image])),
        isError: Type.Boolean(),
        details: Type.Optional(Type.UnknownRecord()),
      }),
      entryId: Str,
      durationMs: Type.Number(),
    }, 'A tool finished; its result is stored as entryId.'),
    ev('turn_end', { turn: Int, toolCalls: Int }, 'A turn finished.'),
    ev('permission_request', {
      requestId: Str,
      toolCallId: Str,
      tool: Str,
      arguments: Type.UnknownRecord(),
      risk: lits('read', 'write', 'execute'),
      reason: Str,
      suggestedRule: Str,
    }, 'A call needs approval; the front end answers (RPC: the permission_response command). An abort cancels the wait.'),
    ev('permission_decision', {
      toolCallId: Str,
      tool: Str,
      decision: lits('allow', 'deny'),
      rule: Type.Union([Str, Type.Null()]),
      source: Str,
      asked: Type.Boolean(),
      reason: Str,
    }, 'Whether a call may run, and the rule (or default, approval, answer) that decided.'),
    ev('compaction_start', { reason: CompactionReasonSchema, tokensBefore: Type.Number() }, 'A compaction starts: why, and the context size in tokens.'),
    ev('compaction_end', {
      reason: CompactionReasonSchema,
      ok: Type.Boolean(),
      tokensBefore: Type.Number(),
      tokensAfter: Type.Union([Type.Number(), Type.Null()]),
      summarizedEntries: Int,
      readFiles: Type.Array(Str),
      modifiedFiles: Type.Array(Str),
      error: Type.Union([Str, Type.Null()]),
      entryId: Type.Union([Str, Type.Null()]),
    }, 'A compaction ended: the summary entry and what it stands in for, or (ok: false) why nothing was compacted.'),
    ev('queue_update', { items: Type.Array(QueueItemSchema) }, 'The steers and follow-ups waiting to be delivered changed.'),
    ev('steer_delivered', { id: Str, entryId: Str, text: Str }, 'A steer became a user message, after the tool batch and before the next request.'),
    ev('follow_up_delivered', { id: Str, entryId: Str, text: Str }, 'A follow-up became a user message when the run would have ended; the run goes on.'),
    ev('retry', { turn: Int, attempt: Int, delayMs: Type.Number(), kind: ErrorKind, message: Str }, 'A failed request will be retried after delayMs.'),
    ev('warning', { message: Str }, 'Something the user should know; the run goes on.'),
    ev('run_end', { turns: Int, stopReason: RunStop }, 'The loop stopped.'),
    ev('run_settled', {
      stopReason: RunStop,
      error: Type.Union([ModelErrorSchema, Type.Null()]),
      refusal: Type.Union([RefusalSchema, Type.Null()]),
      undelivered: Type.Array(QueueItemSchema, { description: 'steers and follow-ups not delivered (abort, failure): handed back' }),
      usage: UsageSchema,
      cacheHitShare: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: "the run's prompt tokens read from the provider's cache: cacheRead / (input + cacheRead + cacheWrite); null without prompt tokens (additive in 3)" }),
      turns: Int,
      toolCalls: Int,
      toolErrors: Int,
      durationMs: Type.Number(),
      leafId: Type.Union([Str, Type.Null()]),
      stats: SessionStatsSchema,
      budget: Type.Optional(BudgetStopSchema),
    }, 'Last event of a run: the session is flushed; stop reason, error and usage totals.'),
  ],
  {
    $id: 'https://mini-agent.dev/schemas/events.schema.json',
    title: 'mini-agent event',
    description: 'One line of `mini-agent --json` output, or of a --trace file.',
  },
);

/** The document written to docs/events.schema.json. */
export function eventJsonSchema(): Record<string, unknown> {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...JSON.parse(JSON.stringify(AgentEventSchema)) };
}

// ---- compile-time checks: the schema and the TypeScript types must agree ----
/** Mutual assignability: every value of one type is a value of the other. */
export type Equals<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type Assert<T extends true> = T;
/** The members of union U whose `type` is K. */
export type ByType<U, K> = U extends { type: K } ? U : never;
export type _UsageMatches = Assert<Equals<Static<typeof UsageSchema>, Usage>>;
export type _AssistantMatches = Assert<Equals<Static<typeof Assistant>, AssistantMessage>>;
export type _ErrorMatches = Assert<Equals<Static<typeof ModelErrorSchema>, ModelError>>;
export type _EventsMatch = Assert<
  Equals<
    { [K in AgentEvent['type']]: Omit<ByType<AgentEvent, K>, never> },
    { [K in Static<typeof AgentEventSchema>['type']]: Omit<ByType<Static<typeof AgentEventSchema>, K>, never> }
  >
>;
