// When the context no longer fits: plan a compaction that keeps less (halving the part kept,
// down to the newest unit of the current turn) instead of giving up because "everything fits in
// the part kept"; and when even that is not enough, name the message that is too big. Pure.
import { isContentEntry, type ContentEntry, type SessionEntry } from './entries.js';
import { liveEntries, planCompaction, type PlanResult } from './compaction-plan.js';
import type { FileTracker } from './file-lists.js';
import { estimateMessageTokens, estimateTextTokens } from './tokens.js';
import { messageKind } from './entry-kinds/index.js';

/** Below this many tokens, halving the part kept stops and only the newest unit is kept. */
const SMALLEST_KEEP = 256;

/**
 * Plans with `keepRecentTokens`; when `mustFit` and the plan found everything fits in the part
 * kept, plans again keeping half as much, and so on down to keeping only the newest unit (0).
 * Returns the plan and the part kept it was made with.
 */
export function planToFit(path: readonly (ContentEntry | SessionEntry)[], keepRecentTokens: number, mustFit: boolean, cwd?: string, tracker?: FileTracker): { planned: PlanResult; keepRecentTokens: number } {
  let keep = Math.max(0, Math.floor(keepRecentTokens));
  let planned = planCompaction(path, keep, cwd, tracker);
  // A walk back that used up everything ends on the first entry ("one unit"): keeping less may still cut.
  while (mustFit && !planned.ok && (planned.code === 'fits' || planned.code === 'one_unit') && keep > 0) {
    keep = keep < SMALLEST_KEEP * 2 ? 0 : Math.floor(keep / 2);
    planned = planCompaction(path, keep, cwd, tracker);
  }
  return { planned, keepRecentTokens: keep };
}

/** The largest message of the current turn (from its user message on): entry id, role and estimated tokens. */
export function largestOfCurrentTurn(path: readonly (ContentEntry | SessionEntry)[]): { id: string; role: string; tokens: number } | undefined {
  const content = path.filter(isContentEntry);
  const { live } = liveEntries(content);
  let start = live.length - 1;
  while (start > 0 && !(messageKind.is(live[start]) && (live[start] as { message: { role: string } }).message.role === 'user')) start--;
  let best: { id: string; role: string; tokens: number } | undefined;
  for (const e of live.slice(Math.max(0, start))) {
    const tokens = messageKind.is(e) ? estimateMessageTokens(e.message) : estimateTextTokens(e.summary);
    const role = messageKind.is(e) ? e.message.role : e.type;
    if (!best || tokens > best.tokens) best = { id: e.id, role, tokens };
  }
  return best;
}

/** Why the context cannot be made to fit: the current turn alone is too big, and which message makes it so. */
export function currentTurnTooBig(path: readonly (ContentEntry | SessionEntry)[], contextWindow: number, why: string): string {
  const big = largestOfCurrentTurn(path);
  const which = big ? `; its largest message is entry ${big.id} (${big.role}, about ${big.tokens} tokens)` : '';
  return `the current turn does not fit the model's window (${contextWindow} tokens) even with everything before it summarized (${why})${which}`;
}
