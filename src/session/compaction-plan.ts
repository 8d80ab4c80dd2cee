// Planning a compaction, purely: when to compact (relative to the model's window), where to cut
// (never orphaning a tool result; a cut inside a turn splits it into background and current
// task), what the summarizer reads (each message bounded), and how to chunk that text so that
// no summarizer request can overflow. The summarizing call itself is injected (agent/compactor.ts).
import { textWithImages } from '../core/image.js';
import type { Message } from '../core/types.js';
import { isContentEntry, type BranchSummaryEntry, type CompactionEntry, type ContentEntry, type FileLists, type SessionEntry } from './entries.js';
import { collectFileLists, type FileTracker } from './file-lists.js';
import type { SessionStore } from './store.js';
import { estimateMessageTokens, estimateTextTokens, MESSAGE_OVERHEAD_TOKENS } from './tokens.js';
import { branchSummaryKind, compactionKind, messageKind } from './entry-kinds/index.js';

export interface CompactionSettings {
  /** The model's context window. */
  contextWindow: number;
  /** Compact when the context leaves fewer free tokens than this ("when"). */
  reserveTokens: number;
  /** Keep at least this many tokens of the newest messages as they are ("how much"). */
  keepRecentTokens: number;
}

/** Thresholds relative to the window: reserve min(16,384, 25%), keep min(20,000, 40%); either may be set. */
export function compactionSettings(contextWindow: number, set: { reserveTokens?: number; keepRecentTokens?: number } = {}): CompactionSettings {
  return {
    contextWindow,
    reserveTokens: set.reserveTokens ?? Math.min(16_384, Math.floor(contextWindow * 0.25)),
    keepRecentTokens: set.keepRecentTokens ?? Math.min(20_000, Math.floor(contextWindow * 0.4)),
  };
}

export function shouldCompact(contextTokens: number, s: CompactionSettings): boolean {
  return contextTokens > s.contextWindow - s.reserveTokens;
}

/** What a compaction of the active path will summarize and keep. */
export interface CompactionPlan {
  /** The latest compaction on the path, whose summary is updated rather than rewritten. */
  previous: CompactionEntry | undefined;
  /** Whole turns before the cut (since the previous compaction's kept part). */
  history: ContentEntry[];
  /** The beginning of the turn the cut falls into (empty when the cut is at a user message). */
  turnPrefix: ContentEntry[];
  /** Where the original text resumes. */
  firstKeptEntryId: string;
  /** Everything the summary stands in for: history then turnPrefix. */
  summarizedIds: string[];
  /** The previous compaction's lists plus the files of the summarized entries. */
  files: FileLists;
}

/** Why there is no plan: nothing to summarize yet, everything fits in the part kept, or the newest unit is all there is. */
export type PlanFailure = 'empty' | 'fits' | 'one_unit';

export type PlanResult = { ok: true; plan: CompactionPlan } | { ok: false; reason: string; code?: PlanFailure };

const isUserTurnStart = (e: ContentEntry) => (messageKind.is(e) && e.message.role === 'user') || branchSummaryKind.is(e);
/**
 * Where the kept part may begin: a user message (a turn starts), or an assistant message that
 * calls tools (a tool-call unit starts). Never a tool result (it would lose its call), nor an
 * assistant answer without calls (it would lose the question it answers).
 */
const isValidCut = (e: ContentEntry) => isUserTurnStart(e) || (messageKind.is(e) && e.message.role === 'assistant' && e.message.content.some((c) => c.type === 'toolCall'));

/** The entries the model sees after the latest compaction: its kept part, then what follows it. */
export function liveEntries(path: readonly ContentEntry[]): { previous: CompactionEntry | undefined; live: ContentEntry[] } {
  let c = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (compactionKind.is(path[i])) {
      c = i;
      break;
    }
  }
  if (c < 0) return { previous: undefined, live: path.filter((e) => !compactionKind.is(e)) };
  const previous = path[c] as CompactionEntry;
  let kept = path.findIndex((e, i) => i < c && e.id === previous.firstKeptEntryId);
  if (kept < 0) kept = c;
  return { previous, live: [...path.slice(kept, c), ...path.slice(c + 1)].filter((e) => !compactionKind.is(e)) };
}

function entryTokens(e: ContentEntry): number {
  if (messageKind.is(e)) return estimateMessageTokens(e.message);
  return estimateTextTokens(e.summary) + MESSAGE_OVERHEAD_TOKENS;
}

/**
 * Plans a compaction of `path` (the active path): walk back from the newest entry until
 * `keepRecentTokens` are covered, then snap forward to the nearest valid cut (a user message, or
 * an assistant message that starts a tool-call unit). A cut at such an assistant message falls
 * inside a turn: the turn's beginning is summarized apart from the history.
 */
export function planCompaction(path: readonly (ContentEntry | SessionEntry)[], keepRecentTokens: number, cwd?: string, tracker?: FileTracker): PlanResult {
  const content = path.filter(isContentEntry);
  const { previous, live } = liveEntries(content);
  if (live.length < 2) return { ok: false, reason: 'there is nothing to summarize yet', code: 'empty' };
  let kept = 0;
  let cut = live.length;
  while (cut > 0 && kept < keepRecentTokens) kept += entryTokens(live[--cut]);
  if (kept < keepRecentTokens) {
    return { ok: false, reason: `nothing to summarize: everything since the last compaction (about ${kept} tokens) fits in the part kept as it is (keepRecentTokens ${keepRecentTokens})`, code: 'fits' };
  }
  // Snap forward to a valid cut; the newest entry is always kept.
  while (cut < live.length && !isValidCut(live[cut])) cut++;
  if (cut >= live.length) {
    // Even the newest unit is over the budget: keep it alone, from the valid cut that starts it.
    cut = live.length - 1;
    while (cut > 0 && !isValidCut(live[cut])) cut--;
  }
  if (cut <= 0) return { ok: false, reason: 'everything since the last compaction is one unit that must be kept whole', code: 'one_unit' };
  let turnStart = cut;
  while (turnStart > 0 && !isUserTurnStart(live[turnStart])) turnStart--;
  const history = isUserTurnStart(live[cut]) ? live.slice(0, cut) : live.slice(0, turnStart);
  const turnPrefix = isUserTurnStart(live[cut]) ? [] : live.slice(turnStart, cut);
  const summarized = [...history, ...turnPrefix];
  return {
    ok: true,
    plan: {
      previous,
      history,
      turnPrefix,
      firstKeptEntryId: live[cut].id,
      summarizedIds: summarized.map((e) => e.id),
      files: collectFileLists(summarized, previous?.details, cwd, tracker),
    },
  };
}

/**
 * Undoes the latest compaction on the active path: the leaf moves back to the entry before it, so
 * the next request sees the original messages (nothing is deleted: the compaction stays on its
 * branch). Returns the compaction and the new leaf; undefined when the path has no compaction.
 */
export function uncompact(store: SessionStore): { compactionId: string; leafId: string | null } | undefined {
  const path = store.activePath();
  let at = path.length - 1;
  while (at >= 0 && !compactionKind.is(path[at])) at--;
  if (at < 0) return undefined;
  const leafId = path[at].parentId;
  store.checkout(leafId);
  store.sync();
  return { compactionId: path[at].id, leafId };
}

/** The entries of a branch being left: from after the common ancestor of the old leaf and the target, to the old leaf. */
export function leftBranch(oldPath: readonly ContentEntry[], targetPath: readonly ContentEntry[]): ContentEntry[] {
  const onTarget = new Set(targetPath.map((e) => e.id));
  let i = oldPath.length;
  while (i > 0 && !onTarget.has(oldPath[i - 1].id)) i--;
  return oldPath.slice(i);
}

// ---- what the summarizer reads ----

export interface SerializeLimits {
  /** A tool result is cut to this many characters. */
  toolResultChars: number;
  /** A thinking block is cut to this many characters. */
  thinkingChars: number;
  /** Any one message is cut to this many characters. */
  messageChars: number;
}

export const DEFAULT_SERIALIZE_LIMITS: SerializeLimits = { toolResultChars: 2_000, thinkingChars: 2_000, messageChars: 12_000 };

/** Text cut to `max` characters for the summarizer, with a note of how much was cut. */
function cutForSummary(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters cut for the summary]`;
}

/** Tool output keeps its end too: the error at the bottom of a long log is what the next steps need. */
function cutKeepingEnd(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.floor(max * 0.4);
  const head = max - tail;
  return `${text.slice(0, head)}\n[… ${text.length - max} characters cut for the summary …]\n${text.slice(text.length - tail)}`;
}

/** One block of text per entry, as the summarizer reads it. */
export function serializeEntry(e: ContentEntry | BranchSummaryEntry, limits: SerializeLimits = DEFAULT_SERIALIZE_LIMITS): string {
  if (compactionKind.is(e)) return `[earlier summary]\n${cutForSummary(e.summary, limits.messageChars)}`;
  if (branchSummaryKind.is(e)) return `[summary of a branch that was left]\n${cutForSummary(e.summary, limits.messageChars)}`;
  return serializeMessage(e.message, limits);
}

export function serializeMessage(m: Message, limits: SerializeLimits = DEFAULT_SERIALIZE_LIMITS): string {
  if (m.role === 'user') return `[user]\n${cutForSummary(textWithImages(m.content), limits.messageChars)}`;
  if (m.role === 'toolResult') return `[tool result: ${m.toolName}${m.isError ? ', failed' : ''}]\n${cutKeepingEnd(textWithImages(m.content), limits.toolResultChars)}`;
  const parts: string[] = [];
  for (const c of m.content) {
    if (c.type === 'text') parts.push(`[assistant]\n${cutForSummary(c.text, limits.messageChars)}`);
    else if (c.type === 'thinking') parts.push(`[assistant thinking]\n${cutForSummary(c.thinking, limits.thinkingChars)}`);
    else if (c.type === 'toolCall') parts.push(`[assistant calls ${c.name}] ${cutForSummary(c.rawArguments ?? JSON.stringify(c.arguments), limits.messageChars)}`);
  }
  if (m.errorMessage) parts.push(`[the response failed: ${cutForSummary(m.errorMessage, 500)}]`);
  return parts.join('\n') || '[assistant: empty response]';
}

/** `text` cut (with a note) so that its estimate fits in `budgetTokens`. */
export function fitToTokens(text: string, budgetTokens: number): string {
  let fitted = text;
  for (let estimate = estimateTextTokens(fitted); estimate > budgetTokens; estimate = estimateTextTokens(fitted)) {
    const keep = Math.max(0, Math.floor(((fitted.length * budgetTokens) / estimate) * 0.9) - 80);
    fitted = cutForSummary(text, keep);
    if (keep === 0) break;
  }
  return fitted;
}

/**
 * Groups blocks into chunks of at most `budgetTokens` each (estimated), in order. A block that is
 * alone over the budget is cut to fit, so that no chunk, and no request made of it, can overflow.
 */
export function chunkBlocks(blocks: readonly string[], budgetTokens: number): string[] {
  return groupBlocks(blocks, budgetTokens).map((group) => group.join('\n\n'));
}

/** The same grouping, keeping the blocks of each group apart. */
export function groupBlocks(blocks: readonly string[], budgetTokens: number): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const whole of blocks) {
    // One estimate per block; only a block over the budget is cut (and estimated again).
    let block = whole;
    let tokens = estimateTextTokens(block) + 2;
    if (tokens > budgetTokens) {
      block = fitToTokens(whole, budgetTokens - 2);
      tokens = estimateTextTokens(block) + 2;
    }
    if (size + tokens > budgetTokens && current.length > 0) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(block);
    size += tokens;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
