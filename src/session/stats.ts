// Session statistics, computed from entries (pure): tokens, cost, turns, tool calls and
// failures, compactions and wall time, for the whole session, the active path and the last run.
import type { LastRun, SessionStats, Stats } from '../core/events.js';
import { emptyUsage, textOf } from '../core/types.js';
import type { RunEntry, SessionEntry, SessionSnapshot } from './entries.js';
import type { SessionStore } from './store.js';
import { compactionKind, messageKind, runKind } from './entry-kinds/index.js';

export type { LastRun, SessionStats, Stats };

function empty(): Stats {
  return { usage: emptyUsage(), turns: 0, toolCalls: 0, toolErrors: 0, compactions: 0, wallTimeMs: 0 };
}

/** Counts content entries; wall time comes from the given run entries. */
export function statsOf(entries: Iterable<SessionEntry>, runs: readonly RunEntry[]): Stats {
  const s = empty();
  for (const e of entries) {
    if (compactionKind.is(e)) s.compactions++;
    if (!messageKind.is(e)) continue;
    const m = e.message;
    if (m.role === 'assistant') {
      s.turns++;
      const u = m.usage;
      s.usage.input += u?.input ?? 0;
      s.usage.output += u?.output ?? 0;
      s.usage.cacheRead += u?.cacheRead ?? 0;
      s.usage.cacheWrite += u?.cacheWrite ?? 0;
      s.usage.cost += u?.cost ?? 0;
      if (u?.costUnknown) s.usage.costUnknown = true;
    } else if (m.role === 'toolResult') {
      s.toolCalls++;
      if (m.isError) s.toolErrors++;
    }
  }
  for (const r of runs) s.wallTimeMs += r.durationMs;
  return s;
}

export function sessionStats(store: SessionStore): SessionStats {
  const all = store.entries();
  const runs = all.filter((e): e is RunEntry => runKind.is(e));
  const path = store.activePath();
  const onPath = new Set(path.map((e) => e.id));
  const pathRuns = runs.filter((r) => r.leafId !== null && onPath.has(r.leafId));
  const last = runs.at(-1);
  return {
    session: statsOf(all, runs),
    activePath: statsOf(path, pathRuns),
    lastRun: last
      ? {
          runId: last.runId,
          startedAt: last.startedAt,
          durationMs: last.durationMs,
          stopReason: last.stopReason,
          turns: last.turns,
          toolCalls: last.toolCalls,
          toolErrors: last.toolErrors,
          usage: last.usage,
        }
      : null,
  };
}

/** The shape of the session now, for the listing to read from the file's tail. */
export function snapshotOf(store: SessionStore, stats: SessionStats = sessionStats(store)): SessionSnapshot {
  let first: string | null = null;
  for (const e of store.entries()) {
    if (messageKind.is(e) && e.message.role === 'user') {
      first = textOf(e.message.content).slice(0, 200);
      break;
    }
  }
  const { session, activePath } = stats;
  return { entries: store.entries().length, branches: store.branchCount(), name: store.name, firstUserMessage: first, stats: { session, activePath } };
}

/** The context size at the last response on the active path: its input (incl. cache) and output tokens. */
export function lastContextTokens(store: SessionStore): number | null {
  const path = store.activePath();
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    if (!messageKind.is(e) || e.message.role !== 'assistant') continue;
    const u = e.message.usage;
    const total = u.input + u.cacheRead + u.cacheWrite + u.output;
    if (total > 0) return total;
  }
  return null;
}
