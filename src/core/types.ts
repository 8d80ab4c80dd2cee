// Core types shared by every block. No I/O, no imports from other blocks.
import type { Static } from 'typebox';
import type {
  Assistant,
  Image,
  MessageSchema,
  ModelErrorKindSchema,
  ModelErrorSchema,
  QueueItemSchema,
  QueueKindSchema,
  RefusalSchema,
  StopReasonSchema,
  Text,
  Thinking,
  ToolCallSchema,
  ToolResultMessageSchema,
  UsageSchema,
  UserMessageSchema,
} from './message-schema.js';

// The message types are `Static` of their schemas (message-schema.ts): declared once.
export type TextContent = Static<typeof Text>;
/** An image, inline: base64 bytes and their media type (image/png, image/jpeg, image/gif, image/webp). */
export type ImageContent = Static<typeof Image>;
export type ThinkingContent = Static<typeof Thinking>;
export type ToolCall = Static<typeof ToolCallSchema>;

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
export type StopReason = Static<typeof StopReasonSchema>;
export type Usage = Static<typeof UsageSchema>;
/** Why a response was refused: by the model itself or by the provider's content filter. */
export type Refusal = Static<typeof RefusalSchema>;
/** A message sent while a run is in progress: a steer (after the current tool batch) or a follow-up (when the run would end). */
export type QueueKind = Static<typeof QueueKindSchema>;
export type QueueItem = Static<typeof QueueItemSchema>;

export type UserMessage = Static<typeof UserMessageSchema>;
export type AssistantMessage = Static<typeof Assistant>;
export type ToolResultMessage = Static<typeof ToolResultMessageSchema>;
export type Message = Static<typeof MessageSchema>;

/** The kinds of model failure the loop can tell apart. */
export type ModelErrorKind = Static<typeof ModelErrorKindSchema>;
export type ModelError = Static<typeof ModelErrorSchema>;

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
