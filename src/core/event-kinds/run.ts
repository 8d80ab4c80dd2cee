// The events of a run as a whole: it starts, retries a request, warns, ends, settles; and the
// totals a settled run reports (also stored in the session as `run` entries, answered by RPC get_stats).
import type { Static } from 'typebox';
import { Type } from '../type-builders.js';
import { Int, lits, ModelErrorKindSchema, ModelErrorSchema, QueueItemSchema, RefusalSchema, Str, UsageSchema } from '../message-schema.js';
import { ev } from './parts.js';

export const StatsSchema = Type.Object({
  usage: UsageSchema,
  turns: Int,
  toolCalls: Int,
  toolErrors: Int,
  compactions: Int,
  wallTimeMs: Type.Number(),
});
export type Stats = Static<typeof StatsSchema>;

/** What one run did (also stored in the session as a `run` entry). */
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
export type LastRun = Static<typeof LastRunSchema>;

export const SessionStatsSchema = Type.Object({
  session: StatsSchema,
  activePath: StatsSchema,
  lastRun: Type.Union([LastRunSchema, Type.Null()]),
});
export type SessionStats = Static<typeof SessionStatsSchema>;

/** How a run ended. */
export const RunStopReasonSchema = lits('completed', 'refused', 'aborted', 'error', 'max_turns', 'loop_detected', 'budget');
export type RunStopReason = Static<typeof RunStopReasonSchema>;

/** Why a run stopped for its budget (stopReason `budget`): the limit, what was spent, what the next request could have cost (US dollars). */
export const BudgetStopSchema = Type.Object(
  { maxCostUsd: Type.Number(), spentUsd: Type.Number(), nextRequestUsd: Type.Number() },
  { description: 'stopReason "budget": the budget (--max-cost), what the run had spent, and what the next request could have cost (additive in 3)' },
);
export type BudgetStop = Static<typeof BudgetStopSchema>;

export const RunStart = ev(
  'run_start',
  {
    runId: Str,
    /** The session, or null with `--no-session`. */
    session: Type.Union([Type.Object({ id: Str, file: Type.Union([Str, Type.Null()]) }), Type.Null()]),
    cwd: Str,
    provider: Str,
    model: Str,
    prompt: Str,
    /** The session entry that holds the prompt. */
    promptEntryId: Str,
    maxTurns: Int,
  },
  'First event of a run: which session, model and prompt.',
);
export const Retry = ev('retry', { turn: Int, attempt: Int, delayMs: Type.Number(), kind: ModelErrorKindSchema, message: Str }, 'A failed request will be retried after delayMs.');
export const Warning = ev('warning', { message: Str }, 'Something the user should know; the run goes on.');
export const RunEnd = ev('run_end', { turns: Int, stopReason: RunStopReasonSchema }, 'The loop stopped.');
export const RunSettled = ev(
  'run_settled',
  {
    stopReason: RunStopReasonSchema,
    error: Type.Union([ModelErrorSchema, Type.Null()]),
    /** Set when stopReason is `refused`: a refusal or content filter ended the response. */
    refusal: Type.Union([RefusalSchema, Type.Null()]),
    /** Steers and follow-ups that were not delivered (an abort or a failure ended the run): handed back, never dropped. */
    undelivered: Type.Array(QueueItemSchema, { description: 'steers and follow-ups not delivered (abort, failure): handed back' }),
    usage: UsageSchema,
    /** The run's prompt tokens read from the provider's cache: cacheRead / (input + cacheRead + cacheWrite); null without prompt tokens. */
    cacheHitShare: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: "the run's prompt tokens read from the provider's cache: cacheRead / (input + cacheRead + cacheWrite); null without prompt tokens (additive in 3)",
    }),
    turns: Int,
    toolCalls: Int,
    toolErrors: Int,
    durationMs: Type.Number(),
    /** The active leaf after the run, or null without entries. */
    leafId: Type.Union([Str, Type.Null()]),
    /** Totals for the whole session, its active path and this run. */
    stats: SessionStatsSchema,
    /** Set when stopReason is `budget`. */
    budget: Type.Optional(BudgetStopSchema),
  },
  'Last event of a run: the session is flushed; stop reason, error and usage totals.',
);
