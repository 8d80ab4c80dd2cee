// Compacting a session: the plan (session/compaction-plan.ts) and the summarizer (an injected
// call, by default the session's own model) put together. A summary is appended only when it is
// whole; on any failure nothing is appended but a side record (on a cancel, not even that), and
// nothing is lost.
import type { CompactionReason, EventBody } from '../core/events.js';
import { textOf, userMessage, type Message, type ToolSpec } from '../core/types.js';
import type { ModelAdapter } from '../model/adapter.js';
import { chunkBlocks, compactionSettings, groupBlocks, leftBranch, planCompaction, serializeEntry, type CompactionPlan, type CompactionSettings } from '../session/compaction-plan.js';
import { currentTurnTooBig, planToFit } from '../session/compaction-fit.js';
import type { CompactionEntry, ContentEntry, FileLists } from '../session/entries.js';
import { collectFileLists, formatFileLists, stripFileLists, type FileTracker } from '../session/file-lists.js';
import { filesTouched } from '../tools/descriptions.js';
import { projectMessages, summaryMessage } from '../session/projector.js';
import { answerInterruptedCalls } from '../session/repair.js';
import type { SessionStore } from '../session/store.js';
import * as prompts from '../session/summary-prompts.js';
import { contextTokens, estimateRequestTokens, estimateTextTokens } from '../session/tokens.js';
import { compactionKind, messageKind } from '../session/entry-kinds/index.js';

/** The SDK's planCompaction: session/compaction-plan.ts's, with the tools' own word on the files each call touched unless a tracker is given. */
export const planCompactionWithTools: typeof planCompaction = (path, keepRecentTokens, cwd, tracker = filesTouched) => planCompaction(path, keepRecentTokens, cwd, tracker);

/** One summarizer request: returns the summary text, or throws (its message becomes the error). */
export type Summarizer = (request: { systemPrompt: string; prompt: string; signal: AbortSignal }) => Promise<string>;

/** The session's model as a summarizer: one request without tools, its text is the summary. */
export function modelSummarizer(model: ModelAdapter): Summarizer {
  return async ({ systemPrompt, prompt, signal }) => {
    for await (const event of model.stream({ messages: [userMessage(prompt)], tools: [], systemPrompt, signal })) {
      if (event.type === 'done') {
        if (event.message.stopReason === 'length') throw new Error('the summary was cut off by the output token limit');
        return textOf(event.message.content);
      }
      if (event.type === 'error') throw new Error(`the summary request failed (${event.error.kind}): ${event.error.message}`);
    }
    throw new Error('the summary request ended without a response');
  };
}

export interface CompactionConfig {
  /** Off: no compaction at all, the overflow path included. */
  enabled: boolean;
  settings: CompactionSettings;
  summarize: Summarizer;
  /** provider/model of the summarizer, recorded in the entry. */
  model: string;
  /**
   * A window the provider stated (an overflow error): the app records it in the session and
   * returns the settings for it. Without it, the default settings for that window are used.
   */
  learnWindow?: (contextWindow: number) => CompactionSettings;
  /** Called before each request with the context's size (the app asks the server for an unknown model's window, once). */
  prepare?: (signal: AbortSignal, contextTokens: number) => Promise<void>;
  /** The files each call touched, as its tool says (the agent's own tools first); default: the built-in tools by name. */
  files?: FileTracker;
}

export interface CompactRequest {
  store: SessionStore;
  config: CompactionConfig;
  reason: CompactionReason;
  focus?: string;
  cwd: string;
  signal: AbortSignal;
  emit: (event: EventBody) => void;
  /** For the token counts: what each request sends besides the messages. */
  systemPrompt?: string;
  tools?: readonly ToolSpec[];
  /** Keep this many recent tokens instead of the settings' (an overflow keeps less each time). */
  keepRecentTokens?: number;
  /**
   * The context no longer fits the window (the provider said so, or the estimate is over it): keep
   * less until a plan is found, and as a last resort accept a summary without its headings.
   */
  mustFit?: boolean;
}

export type CompactOutcome = { ok: true; entry: CompactionEntry; tokensBefore: number; tokensAfter: number; keepRecentTokens: number } | { ok: false; error: string; tokensBefore: number };

/** The summarizer's output budget: room for a full summary, never more than a fifth of its window. */
export function summaryOutputTokens(window: number): number {
  return Math.max(256, Math.min(8_192, Math.floor(window * 0.2)));
}

/** Compacts the active path of `store`. Never throws: a failure is an outcome, an event and a side record. */
export async function compactSession(req: CompactRequest): Promise<CompactOutcome> {
  const { store, config, reason, emit } = req;
  const extra = { systemPrompt: req.systemPrompt, tools: req.tools };
  const path = store.activePath();
  const projected = projectMessages(path);
  const tokensBefore = contextTokens(path, projected, extra).tokens;
  emit({ type: 'compaction_start', reason, tokensBefore });
  const fail = (error: string): CompactOutcome => {
    // A cancel (the run's or /compact's signal) is not a failure: nothing at all is written.
    if (!req.signal.aborted) {
      store.append({ type: 'compaction_failed', targetId: store.leafId, reason, error, tokensBefore, model: config.model });
      store.sync();
    }
    emit({ type: 'compaction_end', reason, ok: false, tokensBefore, tokensAfter: null, summarizedEntries: 0, readFiles: [], modifiedFiles: [], error, entryId: null });
    return { ok: false, error, tokensBefore };
  };
  const mustFit = req.mustFit === true;
  const fit = planToFit(path, req.keepRecentTokens ?? config.settings.keepRecentTokens, mustFit, req.cwd, config.files ?? filesTouched);
  const planned = fit.planned;
  if (!planned.ok) return fail(mustFit && planned.code !== 'fits' ? currentTurnTooBig(path, config.settings.contextWindow, planned.reason) : planned.reason);
  const plan = planned.plan;
  const warnings: string[] = [];
  if (fit.keepRecentTokens !== (req.keepRecentTokens ?? config.settings.keepRecentTokens)) {
    warnings.push(`kept only the newest ${fit.keepRecentTokens} tokens as they are (the context did not fit the window)`);
  }
  const ctx = { warnings, mustFit };
  let summary: string;
  try {
    summary = await summarizePlan(plan, config, req.focus, req.signal, ctx);
  } catch (err) {
    return fail(req.signal.aborted ? 'the compaction was aborted' : (err as Error).message);
  }
  // Entries appended while the summarizer ran extend the path after the cut: they stay as they
  // are. Only a move of the leaf to another branch makes the plan stale.
  const now = store.activePath();
  if (!now.some((e) => e.id === plan.firstKeptEntryId)) return fail('the conversation moved to another branch while it was being summarized');
  const keptMessages = projectMessages(keptEntries(now, plan.firstKeptEntryId));
  let tokensAfter = estimateRequestTokens([summaryMessage(summary), ...keptMessages], extra);
  // Never backwards: a summary whose context would not be smaller than the one it replaces (both
  // estimated, so that they compare) is asked again, shorter, or refused.
  const found = estimateRequestTokens(projected, extra);
  if (tokensAfter >= found) {
    const room = found - estimateRequestTokens(keptMessages, extra) - 32;
    const first = tokensAfter;
    if (room < 64) return fail(`refused: the summary would leave ${tokensAfter} tokens, not fewer than the ${found} before, and the part kept leaves no room for one`);
    try {
      summary = await summarizePlan(plan, config, req.focus, req.signal, { ...ctx, maxWords: Math.max(40, Math.floor(room * 0.5)) });
    } catch (err) {
      return fail(req.signal.aborted ? 'the compaction was aborted' : `refused: the summary would leave ${first} tokens, not fewer than the ${found} before, and asking again for a shorter one failed: ${(err as Error).message}`);
    }
    tokensAfter = estimateRequestTokens([summaryMessage(summary), ...keptMessages], extra);
    if (tokensAfter >= found) return fail(`refused: the summary would leave ${tokensAfter} tokens, not fewer than the ${found} before (also when asked for one under ${Math.floor(room * 0.5)} words)`);
    warnings.push(`the first summary would have left ${first} tokens, not fewer than the ${found} before; it was asked again, shorter`);
  }
  if (req.signal.aborted) return fail('the compaction was aborted'); // cancelled once summarized: nothing is written
  for (const message of warnings) emit({ type: 'warning', message: `compaction: ${message}` });
  // tokensBefore may be the provider's count (reported usage); the count after is scaled alike, so the two compare.
  if (tokensBefore !== found && found > 0) tokensAfter = Math.round((tokensAfter * tokensBefore) / found);
  const entry = store.append({
    type: 'compaction',
    summary,
    firstKeptEntryId: plan.firstKeptEntryId,
    tokensBefore,
    tokensAfter,
    summarizedIds: plan.summarizedIds,
    details: plan.files,
    reason,
    model: config.model,
    ...(warnings.length > 0 ? { warnings } : {}),
  }) as CompactionEntry;
  store.sync();
  emit({
    type: 'compaction_end',
    reason,
    ok: true,
    tokensBefore,
    tokensAfter,
    summarizedEntries: plan.summarizedIds.length,
    readFiles: plan.files.readFiles,
    modifiedFiles: plan.files.modifiedFiles,
    error: null,
    entryId: entry.id,
  });
  return { ok: true, entry, tokensBefore, tokensAfter, keepRecentTokens: fit.keepRecentTokens };
}

export type BranchSummaryOutcome = { ok: true; entryId: string; summarizedEntries: number } | { ok: false; error: string };

/**
 * Leaves the current branch for `targetId` and appends, on the new branch, a summary of the work
 * done on the one left (from the common ancestor to the old leaf). On failure nothing moves: a side
 * record says what went wrong.
 */
export async function summarizeBranch(req: { store: SessionStore; config: CompactionConfig; targetId: string; cwd: string; signal: AbortSignal }): Promise<BranchSummaryOutcome> {
  const { store, config } = req;
  const oldPath = store.activePath();
  const left = leftBranch(oldPath, store.pathTo(req.targetId)).filter((e) => !compactionKind.is(e));
  if (left.length === 0) {
    store.checkout(req.targetId);
    store.sync();
    return { ok: true, entryId: req.targetId, summarizedEntries: 0 };
  }
  const files = collectFileLists(left, undefined, req.cwd, req.config.files ?? filesTouched);
  let summary: string;
  try {
    const text = await summarizeEntries(left, CONVERSATION, { window: config.settings.contextWindow, summarize: config.summarize, signal: req.signal });
    const list = formatFileLists(files);
    summary = list ? `${text}\n\n${list}` : text;
  } catch (err) {
    const error = req.signal.aborted ? 'the branch summary was aborted' : (err as Error).message;
    const tokensBefore = left.reduce((n, e) => n + (messageKind.is(e) ? estimateRequestTokens([e.message]) : estimateTextTokens(e.summary)), 0);
    store.append({ type: 'compaction_failed', targetId: store.leafId, reason: 'branch', error, tokensBefore, model: config.model });
    store.sync();
    return { ok: false, error };
  }
  const fromId = oldPath.at(-1)!.id;
  // On the new branch, calls of the target without results are answered first, so that the
  // summary (a user message to the model) never sits between a call and its result.
  store.checkout(req.targetId);
  answerInterruptedCalls(store);
  const entry = store.append({ type: 'branch_summary', summary, fromId, summarizedIds: left.map((e) => e.id), details: files, model: config.model });
  store.sync();
  return { ok: true, entryId: entry.id, summarizedEntries: left.length };
}

function keptEntries(path: readonly ContentEntry[], firstKeptEntryId: string): ContentEntry[] {
  const i = path.findIndex((e) => e.id === firstKeptEntryId);
  return path.slice(i).filter((e) => !compactionKind.is(e));
}

/** The summary text for a plan: the (updated) background, the current task if the cut split a turn, and the file lists. */
export async function summarizePlan(plan: CompactionPlan, config: CompactionConfig, focus: string | undefined, signal: AbortSignal, how: { warnings?: string[]; mustFit?: boolean; maxWords?: number } = {}): Promise<string> {
  const previous = plan.previous ? stripFileLists(plan.previous.summary) : undefined;
  const window = config.settings.contextWindow;
  const common = { window, summarize: config.summarize, signal, warnings: how.warnings ?? [], mustFit: how.mustFit, maxWords: how.maxWords };
  let background = previous;
  if (plan.history.length > 0) {
    background = await summarizeEntries(plan.history, CONVERSATION, { ...common, previous, focus, maxWords: plan.turnPrefix.length > 0 && how.maxWords ? Math.ceil(how.maxWords / 2) : how.maxWords });
  }
  let summary = background ?? '';
  if (plan.turnPrefix.length > 0) {
    const turn = await summarizeEntries(plan.turnPrefix, TURN, { ...common, focus, maxWords: how.maxWords ? Math.ceil(how.maxWords / 2) : undefined });
    summary = prompts.mergeTurnSummary(background, turn);
  }
  if (summary.trim() === '') throw new Error('the summary came back empty');
  const files = formatFileLists(plan.files);
  return files ? `${summary.trim()}\n\n${files}` : summary.trim();
}

interface Format {
  sections: readonly string[];
  single(conversation: string, previous: string | undefined, focus: string | undefined): string;
  merge(parts: readonly string[], previous: string | undefined, focus: string | undefined): string;
}

const CONVERSATION: Format = {
  sections: prompts.SUMMARY_SECTIONS,
  single: (c, previous, focus) => (previous ? prompts.updatePrompt(previous, c, focus) : prompts.initialPrompt(c, focus)),
  merge: (parts, previous, focus) => prompts.mergePrompt(parts, previous, focus),
};

const TURN: Format = {
  sections: prompts.TURN_SECTIONS,
  single: (c) => prompts.turnPrefixPrompt(c),
  merge: (parts) => prompts.turnPrefixPrompt(parts.map((p, i) => `[part ${i + 1} of the task so far, summarized]\n${p}`).join('\n\n')),
};

interface SummarizeContext {
  previous?: string;
  focus?: string;
  window: number;
  summarize: Summarizer;
  signal: AbortSignal;
  /** What was accepted short of the checks goes here (recorded in the compaction entry). */
  warnings?: string[];
  /** The context no longer fits: a summary without its headings is accepted rather than none. */
  mustFit?: boolean;
  /** A length limit for the final summary (asked again when the first was too long). */
  maxWords?: number;
}

/**
 * Summarizes entries in one request when they fit the summarizer's window, else map-reduce:
 * each chunk summarized alone, then the partial summaries merged (in rounds, if even they do not
 * fit together). Every request is checked against the window before it is sent.
 */
async function summarizeEntries(entries: readonly ContentEntry[], format: Format, ctx: SummarizeContext): Promise<string> {
  const blocks = entries.map((e) => serializeEntry(e));
  const frame = (text: string) => estimateTextTokens(prompts.SUMMARY_SYSTEM_PROMPT) + estimateTextTokens(text) + 64;
  // What a request may hold besides the conversation: the instructions, and the previous summary.
  const overhead = frame(format.single('', ctx.previous, ctx.focus));
  const budget = ctx.window - summaryOutputTokens(ctx.window) - overhead;
  if (budget < 512) throw new Error(`the summarizer's window (${ctx.window} tokens) is too small to summarize anything`);
  const chunks = chunkBlocks(blocks, budget);
  if (chunks.length === 1) return ask(format.single(chunks[0], ctx.previous, ctx.focus), format.sections, ctx);
  // Map: each chunk on its own (the previous summary joins at the merge).
  const mapBudget = ctx.window - summaryOutputTokens(ctx.window) - frame(format.single('', undefined, ctx.focus));
  let parts: string[] = [];
  for (const chunk of chunkBlocks(blocks, mapBudget)) parts.push(await ask(format.single(chunk, undefined, ctx.focus), format.sections, ctx));
  // Reduce: merge groups that fit, until one summary is left.
  for (let round = 0; ; round++) {
    const mergeOverhead = frame(format.merge([], ctx.previous, ctx.focus));
    const groups = groupBlocks(parts, ctx.window - summaryOutputTokens(ctx.window) - mergeOverhead);
    if (groups.length === 1) return ask(format.merge(groups[0], ctx.previous, ctx.focus), format.sections, ctx);
    if (round >= 8) throw new Error('the partial summaries do not converge into one that fits the window');
    const next: string[] = [];
    for (const group of groups) next.push(await ask(format.merge(group, undefined, ctx.focus), format.sections, ctx));
    parts = next;
  }
}

/**
 * One summarizer request; its answer must have the format's sections (matched tolerantly). An
 * answer without them is asked for once more with a format reminder; when the context no longer
 * fits (`mustFit`), a non-empty answer without them is accepted, with a warning, rather than none.
 */
async function ask(base: string, sections: readonly string[], ctx: SummarizeContext): Promise<string> {
  const prompt = ctx.maxWords ? base + prompts.lengthLimit(ctx.maxWords) : base;
  const size = estimateRequestTokens([userMessage(prompt + prompts.formatReminder('x'.repeat(120), sections))] as Message[], { systemPrompt: prompts.SUMMARY_SYSTEM_PROMPT });
  if (size + summaryOutputTokens(ctx.window) > ctx.window) {
    throw new Error(`refusing a summary request of ${size} tokens: it would not fit the summarizer's window of ${ctx.window}`);
  }
  if (ctx.signal.aborted) throw new Error('the compaction was aborted');
  const first = await ctx.summarize({ systemPrompt: prompts.SUMMARY_SYSTEM_PROMPT, prompt, signal: ctx.signal });
  const problem = prompts.summaryProblem(first, sections);
  if (!problem) return first.trim();
  if (ctx.signal.aborted) throw new Error('the compaction was aborted');
  let second: string | undefined;
  let retryFailed: string | undefined;
  try {
    second = await ctx.summarize({ systemPrompt: prompts.SUMMARY_SYSTEM_PROMPT, prompt: prompt + prompts.formatReminder(problem, sections), signal: ctx.signal });
    if (!prompts.summaryProblem(second, sections)) return second.trim();
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    retryFailed = (err as Error).message;
  }
  const usable = [second, first].find((s) => s !== undefined && s.trim() !== '');
  if (ctx.mustFit && usable !== undefined) {
    ctx.warnings?.push(`accepted a summary that lacks headings (${problem}, also after a format reminder): the context no longer fits the window and the only other outcome was to stop`);
    return usable.trim();
  }
  throw new Error(`${problem}${retryFailed ? ` (asking again with a format reminder failed: ${retryFailed})` : ' (also after a retry with a format reminder)'}`);
}

/** Re-exported for the loop and the app layer. */
export { compactionSettings };
export type { FileLists };
