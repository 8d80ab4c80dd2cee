// Core types shared by every block. No I/O, no imports from other blocks.

export interface TextContent {
  type: 'text';
  text: string;
}

/** An image, inline: base64 bytes and their media type (image/png, image/jpeg, image/gif, image/webp). */
export interface ImageContent {
  type: 'image';
  /** The image's bytes, base64 (no data: prefix). */
  data: string;
  mimeType: string;
}

export interface ThinkingContent {
  type: 'thinking';
  thinking: string;
  /** Provider signature (Anthropic) that must accompany the block when it is sent back. */
  signature?: string;
}

export interface ToolCall {
  type: 'toolCall';
  /** Provider-issued (or generated) id; the matching result carries it. */
  id: string;
  name: string;
  /** Parsed arguments. When the raw text was not valid JSON this is `{}` and `argumentsError` says why. */
  arguments: Record<string, unknown>;
  /** Set when the streamed arguments could not be parsed; the call is never run. */
  argumentsError?: string;
  /** The argument text exactly as the model streamed it, kept whenever it could not be parsed (with `argumentsError`). */
  rawArguments?: string;
}

/**
 * A tool as the model sees it: a name, a description and a JSON Schema for the arguments.
 * The contract between tools/ (which define them) and model/ (which sends them), so it lives here.
 */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** Where a tool that is not built in comes from (`mcp:SERVER`); never sent to the provider. */
  source?: string;
}

export type AssistantContent = TextContent | ThinkingContent | ToolCall;

/** Why an assistant message ended. */
export type StopReason = 'stop' | 'toolUse' | 'length' | 'contentFilter' | 'error' | 'aborted';

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Cost in US dollars of what was priced (0 when nothing was). */
  cost: number;
  /** Some of these tokens had no known price (a model missing from the table, without configured prices): `cost` leaves them out, and displays say "cost unknown". */
  costUnknown?: boolean;
}

/**
 * Why a response was refused: by the model itself (Anthropic `stop_reason: "refusal"`, an OpenAI
 * `refusal` with no answer) or by the provider's content filter (`finish_reason: "content_filter"`).
 */
export interface Refusal {
  reason: 'refusal' | 'content_filter';
  /** The provider's category, when it gives one (Anthropic `stop_details.category`). */
  category?: string;
  /** The provider's or the model's explanation, when there is one. */
  explanation?: string;
}

/** A message sent while a run is in progress: a steer (after the current tool batch) or a follow-up (when the run would end). */
export type QueueKind = 'steer' | 'follow_up';

export interface QueueItem {
  id: string;
  kind: QueueKind;
  text: string;
}

export interface UserMessage {
  role: 'user';
  content: (TextContent | ImageContent)[];
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContent[];
  stopReason: StopReason;
  usage: Usage;
  model?: string;
  provider?: string;
  /** Present when stopReason is `error` or `aborted`. */
  errorMessage?: string;
  /** Present when stopReason is `contentFilter`: who refused, and why when the provider says. */
  refusal?: Refusal;
}

export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  isError: boolean;
  details?: Record<string, unknown>;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** The kinds of model failure the loop can tell apart. */
export type ModelErrorKind =
  | 'auth'
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'context_overflow'
  | 'network'
  /** The provider sent something that is not a valid stream frame (broken JSON, not an object). */
  | 'invalid_response'
  | 'bad_request'
  | 'aborted'
  | 'unknown';

export interface ModelError {
  kind: ModelErrorKind;
  message: string;
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  /** On a `context_overflow`: the model's window, when the provider's error states it. */
  contextWindow?: number;
  /** On a `context_overflow`: the rejected request's input tokens, when the provider's error states them. */
  requestTokens?: number;
}

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    cost: a.cost + b.cost,
    ...(a.costUnknown || b.costUnknown ? { costUnknown: true } : {}),
  };
}

/** A JSON object: not null, not an array. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function textOf(content: ReadonlyArray<{ type: string; text?: string }>): string {
  let out = '';
  for (const c of content) if (c.type === 'text' && c.text !== undefined) out += c.text;
  return out;
}

/** Text on one line (whitespace runs become one space), cut to `max` characters with an ellipsis. */
export function preview(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

export function toolCallsOf(message: AssistantMessage): ToolCall[] {
  return message.content.filter((c): c is ToolCall => c.type === 'toolCall');
}

export function userMessage(text: string): UserMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/**
 * Every kind of error a command can end in, declared once: RPC and ACP send the kind with an error
 * answer, and a front end's process exits with the code app/exit-codes.ts gives the kind.
 */
export const ERROR_KINDS = [
  /** An argument is wrong: a bad flag or input file, an empty prompt, an unknown format. */
  'invalid_argument',
  /** The command conflicts with a run in progress (branch, fork, switch, set_model while running). */
  'busy',
  /** Nothing by that name or id: a session, an entry, a permission request that is not waiting. */
  'not_found',
  /** A prefix or label that matches more than one. */
  'ambiguous',
  /** Another live process writes that session. */
  'locked',
  /** A session file that must not be used (bad header, newer format). */
  'session_file',
  /** A session handle whose session is no longer the agent's (after a fork, new or switch). */
  'stale_session',
  /** The agent was closed. */
  'closed',
  /** A compaction or branch summary could not be made; nothing was summarized or lost. */
  'compaction_failed',
  /** Any error without a kind: a bug; the message says what happened. */
  'internal',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** An error with a kind a front end can act on; anything else is `internal`. The kind is decided by the thrower, never guessed from text. */
export class KindedError extends Error {
  constructor(
    readonly kind: Exclude<ErrorKind, 'internal'>,
    message: string,
  ) {
    super(message);
  }
}

/** The kinds of a mistake the user made. */
export type UsageErrorKind = Extract<ErrorKind, 'invalid_argument' | 'not_found' | 'ambiguous' | 'locked'>;

/** Thrown for errors the user caused (bad flags, malformed files); the front ends map them to the usage exit code. */
export class UsageError extends KindedError {
  override name = 'UsageError';
  constructor(message: string, kind: UsageErrorKind = 'invalid_argument') {
    super(kind, message);
  }
}
