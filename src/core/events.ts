// The events the loop emits: a typed union, the only thing an interface sees of a run.
// Public and versioned: each event is declared once, as a TypeBox schema (event-kinds/, listed in
// event-schema.ts), and the types here are `Static` of those schemas; docs/events.schema.json is
// generated from the same list. Bump EVENT_SCHEMA_VERSION on incompatible changes.
import type { Static } from 'typebox';
import type { AgentEventSchema } from './event-schema.js';
import type { stamp } from './event-kinds/parts.js';

export type { CompactionReason } from './event-kinds/compaction.js';
export type { BudgetStop, LastRun, RunStopReason, SessionStats, Stats } from './event-kinds/run.js';
export type { ToolResultSummary } from './event-kinds/tools.js';

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

/** An event as emitted: its fields, then the schema version, a sequence number (monotonic within a run) and a time (ms since epoch). */
export type AgentEvent = Static<typeof AgentEventSchema>;

/** Each member of a union of events without the stamp. */
type Unstamped<E> = E extends unknown ? Omit<E, keyof typeof stamp> : never;
/** An event before the emitter stamps it: what the loop hands to `emit`. */
export type EventBody = Unstamped<AgentEvent>;

export type AgentEventType = AgentEvent['type'];

export type EventListener = (event: AgentEvent) => void;

/** Makes the emit function of one run: it stamps seq, version and time, then hands the event to every listener. */
/** A listener that throws cannot break the run: its error goes to `onListenerError`. */
export function createEmitter(listeners: readonly EventListener[], opts: { now?: () => number; onListenerError?: (err: unknown, event: AgentEvent) => void } = {}): (body: EventBody) => AgentEvent {
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
