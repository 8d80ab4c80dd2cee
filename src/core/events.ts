// The events the loop emits: a typed union, the only thing an interface sees of a run.
// Public and versioned: docs/events.schema.json documents it and a test keeps the
// two in step (see event-schema.ts). Bump EVENT_SCHEMA_VERSION on incompatible changes.
import type { AssistantMessage, ImageContent, ModelError, ModelErrorKind, QueueItem, Refusal, TextContent, Usage } from './types.js';

export interface Stats {
  usage: Usage;
  turns: number;
  toolCalls: number;
  toolErrors: number;
  compactions: number;
  wallTimeMs: number;
}

/** What one run did (also stored in the session as a `run` entry). */
export interface LastRun {
  runId: string;
  startedAt: string;
  durationMs: number;
  stopReason: string;
  turns: number;
  toolCalls: number;
  toolErrors: number;
  usage: Usage;
}

export interface SessionStats {
  session: Stats;
  activePath: Stats;
  lastRun: LastRun | null;
}

/**
 * 2: run_settled/run_end `stopReason: "refused"` and `run_settled.refusal`; error kind
 * `invalid_response`; `rawArguments` on tool calls. A refusal used to settle as `completed`.
 * Additive in 2: `queue_update`, `steer_delivered`, `follow_up_delivered`, `run_settled.undelivered`,
 * `compaction_start`, `compaction_end`.
 * 3: `stopReason: "loop_detected"` (a client that switches over stop reasons must know it);
 * `permission_request` and `permission_decision`.
 * Additive in 3: `run_settled.cacheHitShare`; `usage.costUnknown`; `stopReason: "budget"` with
 * `run_settled.budget` (only with a budget the client set: --max-cost, budget.maxCostUsd); a
 * `context_overflow` error's `contextWindow` and `requestTokens` (what the provider stated);
 * `image` blocks ({type, data (base64), mimeType}) in `tool_end.result.content`; `tool_update`
 * (a running tool's latest output: bash's tail), which a client may ignore.
 */
export const EVENT_SCHEMA_VERSION = 3;

/** Why a compaction was made: the context neared the window, the provider said it overflowed, or someone asked. */
export type CompactionReason = 'threshold' | 'overflow' | 'manual';

/** How a run ended. */
export type RunStopReason = 'completed' | 'refused' | 'aborted' | 'error' | 'max_turns' | 'loop_detected' | 'budget';

/** Why a run stopped for its budget (stopReason `budget`): the limit, what was spent, what the next request could have cost (US dollars). */
export interface BudgetStop {
  maxCostUsd: number;
  spentUsd: number;
  nextRequestUsd: number;
}

export interface ToolResultSummary {
  content: (TextContent | ImageContent)[];
  isError: boolean;
  details?: Record<string, unknown>;
}

export type EventBody =
  | {
      type: 'run_start';
      runId: string;
      /** The session, or null with `--no-session`. */
      session: { id: string; file: string | null } | null;
      cwd: string;
      provider: string;
      model: string;
      prompt: string;
      /** The session entry that holds the prompt. */
      promptEntryId: string;
      maxTurns: number;
    }
  | {
      type: 'turn_start';
      turn: number;
      /** What the model is about to see: how many messages, and how many of each role. */
      messageCount: number;
      roles: { user: number; assistant: number; toolResult: number };
      compacted: boolean;
    }
  | { type: 'text_delta'; turn: number; delta: string }
  | { type: 'thinking_delta'; turn: number; delta: string }
  | { type: 'toolcall_start'; turn: number; index: number; toolCallId: string; name: string }
  | { type: 'message_end'; turn: number; entryId: string; message: AssistantMessage }
  | {
      type: 'tool_start';
      turn: number;
      toolCallId: string;
      name: string;
      arguments: Record<string, unknown>;
      /** The arguments as the model sent them, when they could not be parsed (the call is answered with an error). */
      rawArguments?: string;
    }
  /** A running tool's latest output (bash: the last lines so far), at most a few times a second; additive in 3. */
  | { type: 'tool_update'; toolCallId: string; name: string; tail: string }
  | {
      type: 'tool_end';
      turn: number;
      toolCallId: string;
      name: string;
      result: ToolResultSummary;
      /** The session entry that holds the result. */
      entryId: string;
      durationMs: number;
    }
  | { type: 'turn_end'; turn: number; toolCalls: number }
  /**
   * A call needs the user's approval: the front end (a terminal prompt, an RPC client's
   * `permission_response`, the SDK's onPermissionRequest) answers; an abort cancels the wait.
   */
  | {
      type: 'permission_request';
      requestId: string;
      toolCallId: string;
      tool: string;
      arguments: Record<string, unknown>;
      risk: 'read' | 'write' | 'execute';
      /** Why it asks: the rule or default that said "ask". */
      reason: string;
      /** The rule an "always" answer would grant for the rest of the session. */
      suggestedRule: string;
    }
  /** Whether a call may run, and what decided it (a rule with its source, a default, an approval, the user). */
  | {
      type: 'permission_decision';
      toolCallId: string;
      tool: string;
      decision: 'allow' | 'deny';
      /** The rule that decided, or null for a default. */
      rule: string | null;
      /** Where the decision came from: default, config, flag, session, user, hook, read-only, … */
      source: string;
      /** True when someone was asked. */
      asked: boolean;
      reason: string;
    }
  /** A compaction starts: why, and how big the context is. */
  | { type: 'compaction_start'; reason: CompactionReason; tokensBefore: number }
  /**
   * A compaction ended. ok: a summary entry (entryId) now stands in for `summarizedEntries` entries.
   * Not ok: nothing was summarized or lost; `error` says why (a side record is in the session).
   */
  | {
      type: 'compaction_end';
      reason: CompactionReason;
      ok: boolean;
      tokensBefore: number;
      tokensAfter: number | null;
      summarizedEntries: number;
      readFiles: string[];
      modifiedFiles: string[];
      error: string | null;
      entryId: string | null;
    }
  /** The messages waiting to be delivered changed (sent, delivered, cancelled or handed back). */
  | { type: 'queue_update'; items: QueueItem[] }
  /** A steer became a user message (entryId), after the tool batch and before the next request. */
  | { type: 'steer_delivered'; id: string; entryId: string; text: string }
  /** A follow-up became a user message (entryId) when the run would have ended; the run goes on. */
  | { type: 'follow_up_delivered'; id: string; entryId: string; text: string }
  | { type: 'retry'; turn: number; attempt: number; delayMs: number; kind: ModelErrorKind; message: string }
  | { type: 'warning'; message: string }
  | { type: 'run_end'; turns: number; stopReason: RunStopReason }
  | {
      type: 'run_settled';
      stopReason: RunStopReason;
      error: ModelError | null;
      /** Set when stopReason is `refused`: a refusal or content filter ended the response. */
      refusal: Refusal | null;
      /** Steers and follow-ups that were not delivered (an abort or a failure ended the run): handed back, never dropped. */
      undelivered: QueueItem[];
      usage: Usage;
      /** The run's prompt tokens read from the provider's cache: cacheRead / (input + cacheRead + cacheWrite); null without prompt tokens. */
      cacheHitShare: number | null;
      turns: number;
      toolCalls: number;
      toolErrors: number;
      durationMs: number;
      /** The active leaf after the run, or null without entries. */
      leafId: string | null;
      /** Totals for the whole session, its active path and this run. */
      stats: SessionStats;
      /** Set when stopReason is `budget`. */
      budget?: BudgetStop;
    };

/** Every event carries the schema version, a sequence number (monotonic within a run) and a time (ms since epoch). */
export type AgentEvent = EventBody & { schemaVersion: number; seq: number; time: number };

export type AgentEventType = AgentEvent['type'];

export type EventListener = (event: AgentEvent) => void;

/** Makes the emit function of one run: it stamps seq, version and time, then hands the event to every listener. */
/** A listener that throws cannot break the run: its error goes to `onListenerError`. */
export function createEmitter(
  listeners: readonly EventListener[],
  opts: { now?: () => number; onListenerError?: (err: unknown, event: AgentEvent) => void } = {},
): (body: EventBody) => AgentEvent {
  const now = opts.now ?? Date.now;
  let seq = 0;
  return (body) => {
    const event = { ...body, schemaVersion: EVENT_SCHEMA_VERSION, seq: seq++, time: now() } as AgentEvent;
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (err) {
        opts.onListenerError?.(err, event);
      }
    }
    return event;
  };
}
