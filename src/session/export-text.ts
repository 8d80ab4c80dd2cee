// Export as Markdown (the active path, readable) and JSONL (header + every entry). Pure:
// a store in, a string out, and the same store always gives the same text (no clock reads).
import type { Stats } from '../core/events.js';
import { textWithImages } from '../core/image.js';
import type { AssistantMessage, ToolCall, ToolResultMessage } from '../core/types.js';
import { isContentEntry, type BranchSummaryEntry, type CompactionEntry, type CompactionFailedEntry, type ContentEntry } from './entries.js';
import { failedCompactionsOf } from './entry-kinds/compaction-failed.js';
import { sessionStats } from './stats.js';
import type { SessionStore } from './store.js';
import { costText } from '../core/cost-text.js';
import { branchSummaryKind, compactionKind, messageKind } from './entry-kinds/index.js';

/** Lines of a tool result shown in Markdown; the rest is counted, not shown. */
export const RESULT_LINES = 20;
/** Characters of one tool-result line shown in Markdown. */
const LINE_CHARS = 400;
/** Tool arguments up to this many characters print inline; longer ones get a block. */
const INLINE_ARGS = 120;

export function exportJsonl(store: SessionStore): string {
  return [store.header, ...store.entries()].map((e) => JSON.stringify(e)).join('\n') + '\n';
}

/** The distinct `model (provider)` names of the given entries' assistant messages, in order. */
export function modelsOf(entries: Iterable<ContentEntry>): string[] {
  const seen = new Set<string>();
  for (const e of entries) {
    if (!messageKind.is(e) || e.message.role !== 'assistant') continue;
    const { model, provider } = e.message;
    if (!model && !provider) continue;
    seen.add(model && provider ? `${model} (${provider})` : (model ?? provider)!);
  }
  return [...seen];
}

export function exportMarkdown(store: SessionStore): string {
  const path = store.activePath();
  const stats = sessionStats(store);
  const contentCount = store.entries().filter(isContentEntry).length;
  const branches = store.branchCount();
  const h = store.header;
  const out: string[] = [];
  out.push(`# ${store.name ? escapeInline(store.name) : `Session ${escapeInline(store.id)}`}`);
  const meta: string[] = [`**Session:** ${codeSpan(store.id)}`, `**Created:** ${escapeInline(h.timestamp)}`, `**Workspace:** ${codeSpan(h.cwd)}`];
  if (h.parentSession) meta.push(`**Forked from:** session ${codeSpan(h.parentSession.id)} at entry ${codeSpan(h.parentSession.entryId)}`);
  const models = modelsOf(path);
  if (models.length) meta.push(`**Model:** ${models.map(escapeInline).join(', ')}`);
  meta.push(`**Active path:** ${path.length} of ${contentCount} entries · ${branches} ${branches === 1 ? 'branch' : 'branches'} · leaf ${store.leafId ? codeSpan(store.leafId) : '(none)'}`);
  meta.push(...statsLines(stats.activePath));
  if (branches > 1) meta.push(`**Whole session:** ${statsSummary(stats.session)}`);
  out.push(meta.map((m) => `- ${m}`).join('\n'), '---');
  if (path.length === 0) out.push('_(no messages yet)_');
  const kept = keptFrom(path);
  const failures = new Map<string | null, CompactionFailedEntry[]>();
  for (const e of failedCompactionsOf(store.entries())) failures.set(e.targetId, [...(failures.get(e.targetId) ?? []), e]);
  path.forEach((entry, i) => {
    out.push(...entryBlock(store, entry, i < kept));
    for (const f of failures.get(entry.id) ?? []) out.push(failureNote(f));
  });
  // Blocks are separated by one blank line; text inside a block (tool output) is kept as it is.
  return out.join('\n\n') + '\n';
}

function statsLines(s: Stats): string[] {
  const u = s.usage;
  const lines = [
    `**Tokens:** ${u.input} in · ${u.output} out · ${u.cacheRead} cache read · ${u.cacheWrite} cache write`,
    `**Cost:** ${costText(u)}`,
    `**Turns:** ${s.turns} · **Tool calls:** ${s.toolCalls} (${s.toolErrors} failed) · **Compactions:** ${s.compactions}`,
  ];
  if (s.wallTimeMs > 0) lines.push(`**Run time:** ${(s.wallTimeMs / 1000).toFixed(1)} s`);
  return lines;
}

function statsSummary(s: Stats): string {
  return `${s.turns} turns · ${s.toolCalls} tool calls (${s.toolErrors} failed) · ${s.usage.input} in / ${s.usage.output} out tokens · ${costText(s.usage)}`;
}

/** The index on the path of the first entry the last compaction kept (entries before it were summarized). */
function keptFrom(path: readonly ContentEntry[]): number {
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    if (!compactionKind.is(e)) continue;
    const k = path.findIndex((p) => p.id === e.firstKeptEntryId);
    return k >= 0 && k < i ? k : i;
  }
  return 0;
}

function heading(store: SessionStore, level: string, title: string, entry: ContentEntry, summarized: boolean): string {
  const label = store.labelOf(entry.id);
  const parts = [title, codeSpan(entry.id)];
  if (label !== undefined) parts.push(`label: **${escapeInline(label)}**`);
  if (entry.id === store.leafId) parts.push('leaf');
  if (summarized) parts.push('_summarized_');
  return `${level} ${parts.join(' · ')}`;
}

function entryBlock(store: SessionStore, entry: ContentEntry, summarized: boolean): string[] {
  if (compactionKind.is(entry)) return [heading(store, '##', 'Compaction', entry, summarized), compactionQuote(entry)];
  if (branchSummaryKind.is(entry)) return [heading(store, '##', 'Branch summary', entry, summarized), branchSummaryQuote(entry)];
  const m = entry.message;
  if (m.role === 'user') {
    const text = textWithImages(m.content);
    return [heading(store, '##', 'User', entry, summarized), text.trim() === '' ? '_(empty message)_' : safeText(text)];
  }
  if (m.role === 'toolResult') {
    const title = m.isError ? `✗ ${escapeInline(m.toolName)} failed` : `✓ ${escapeInline(m.toolName)} result`;
    return [heading(store, '###', title, entry, summarized), ...resultBlock(m)];
  }
  return [heading(store, '##', 'Assistant', entry, summarized), ...assistantBlock(m)];
}

function compactionQuote(e: CompactionEntry): string {
  const tokens = e.tokensBefore !== undefined ? ` (${e.tokensBefore} tokens before${e.tokensAfter !== undefined ? `, ${e.tokensAfter} after` : ''})` : '';
  const what = e.summarizedIds ? ` (${e.summarizedIds.length} entries${e.reason ? `, ${e.reason}` : ''})` : '';
  const head = `**Compacted${what}:** the model sees this summary instead of the entries before ${codeSpan(e.firstKeptEntryId)}${tokens}.`;
  return quote(head, e.summary);
}

function branchSummaryQuote(e: BranchSummaryEntry): string {
  return quote(`**Left branch** (leaf ${codeSpan(e.fromId)}, ${e.summarizedIds.length} entries): the model sees this summary of the work done there.`, e.summary);
}

function quote(head: string, text: string): string {
  const body = safeText(text).split('\n');
  return [`> ${head}`, '>', ...body.map((l) => (l === '' ? '>' : `> ${l}`))].join('\n');
}

function failureNote(f: CompactionFailedEntry): string {
  return `> ⚠ **Compaction failed** (${escapeInline(f.reason)}, ${f.tokensBefore} tokens): ${escapeInline(f.error)}; nothing was summarized.`;
}

function assistantBlock(m: AssistantMessage): string[] {
  const out: string[] = [];
  for (const c of m.content) {
    if (c.type === 'text') {
      if (c.text.trim() !== '') out.push(safeText(c.text));
    } else if (c.type === 'thinking') {
      const n = c.thinking.length;
      if (n === 0) {
        out.push('_Thinking (redacted)_');
        continue;
      }
      out.push(`<details><summary>Thinking (${n} ${n === 1 ? 'char' : 'chars'})</summary>`, safeText(c.thinking), '</details>');
    } else if (c.type === 'toolCall') {
      out.push(...toolCallBlock(c));
    }
  }
  if (m.stopReason === 'error' || m.stopReason === 'aborted') {
    out.push(`> ✗ **${m.stopReason}**${m.errorMessage ? `: ${escapeInline(m.errorMessage)}` : ''}`);
  } else if (m.stopReason === 'length' || m.stopReason === 'contentFilter') {
    out.push(`_(stopped: ${m.stopReason === 'length' ? 'output length limit' : 'content filter'})_`);
  }
  if (out.length === 0) out.push('_(empty response)_');
  return out;
}

function toolCallBlock(c: ToolCall): string[] {
  const name = `**→ ${escapeInline(c.name)}**`;
  if (c.argumentsError) {
    const head = `${name} ✗ invalid arguments: ${escapeInline(c.argumentsError)}`;
    return c.rawArguments ? [`${head}; as sent by the model:`, ...fencedExcerpt(c.rawArguments, '')] : [head];
  }
  const json = JSON.stringify(c.arguments ?? {});
  if (json.length <= INLINE_ARGS) return [`${name} ${codeSpan(json)}`];
  return [name, ...fencedExcerpt(JSON.stringify(c.arguments, null, 2), 'json')];
}

function resultBlock(m: ToolResultMessage): string[] {
  const text = textWithImages(m.content);
  return text === '' ? ['_(no output)_'] : fencedExcerpt(text, '');
}

/** The first RESULT_LINES lines of `text` in a fence that no backtick run inside can close (blocks). */
function fencedExcerpt(text: string, info: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  const shown = lines.slice(0, RESULT_LINES).map((l) => (l.length > LINE_CHARS ? `${l.slice(0, LINE_CHARS)}… (${l.length - LINE_CHARS} more chars)` : l));
  const fence = '`'.repeat(Math.max(3, longestRun(shown.join('\n'), '`') + 1));
  const out = [[fence + info, ...shown, fence].join('\n')];
  const more = lines.length - shown.length;
  if (more > 0) out.push(`_… ${more} more ${more === 1 ? 'line' : 'lines'}_`);
  return out;
}

function longestRun(s: string, ch: string): number {
  let best = 0;
  let cur = 0;
  for (const c of s) {
    cur = c === ch ? cur + 1 : 0;
    if (cur > best) best = cur;
  }
  return best;
}

/** Inline text (names, labels, messages of one line): Markdown punctuation escaped, newlines flattened. */
export function escapeInline(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').replace(/[\\`*_[\]{}<>#|~!&]/g, (c) => `\\${c}`);
}

/** An inline code span that holds any text: the backtick run around it is longer than any inside. */
export function codeSpan(s: string): string {
  const flat = s.replace(/\n/g, ' ');
  const ticks = '`'.repeat(longestRun(flat, '`') + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || (flat.startsWith(' ') && flat.endsWith(' ') && flat.trim() !== '') ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/**
 * Message text is Markdown already, so it is kept, with two repairs that stop one message from
 * breaking the rest of the transcript: an unclosed code fence is closed, and `<` that could start
 * an HTML tag outside code becomes `&lt;` (a `</details>` or `<script>` in a message stays text).
 */
export function safeText(text: string): string {
  const out: string[] = [];
  let open: { ch: string; len: number } | null = null;
  const trimmed = text.replace(/\r\n?/g, '\n').replace(/^([ \t]*\n)+/, '').replace(/\s+$/, '');
  for (const line of trimmed.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      if (m && m[1][0] === open.ch && m[1].length >= open.len && m[2].trim() === '') open = null;
      out.push(line);
    } else if (m && !(m[1][0] === '`' && m[2].includes('`'))) {
      open = { ch: m[1][0], len: m[1].length };
      out.push(line);
    } else {
      out.push(escapeTagsOutsideCode(line));
    }
  }
  if (open) out.push(open.ch.repeat(open.len));
  return out.join('\n');
}

/** Escapes tag-like `<` outside inline code spans (a backtick run closed by an equal run on the line). */
function escapeTagsOutsideCode(line: string): string {
  const esc = (s: string) => s.replace(/<(?=[A-Za-z/!?])/g, '&lt;');
  let out = '';
  let i = 0;
  while (i < line.length) {
    const start = line.indexOf('`', i);
    if (start < 0) break;
    let end = start;
    while (line[end] === '`') end++;
    const run = line.slice(start, end);
    const close = findRun(line, run, end);
    if (close < 0) {
      out += esc(line.slice(i, end));
      i = end;
      continue;
    }
    out += esc(line.slice(i, start)) + line.slice(start, close + run.length);
    i = close + run.length;
  }
  return out + esc(line.slice(i));
}

/** The index of the next backtick run of exactly `run`'s length at or after `from`, or -1. */
function findRun(line: string, run: string, from: number): number {
  for (let k = line.indexOf(run, from); k >= 0; k = line.indexOf(run, k + 1)) {
    if (line[k - 1] !== '`' && line[k + run.length] !== '`') return k;
    while (line[k + 1] === '`') k++;
  }
  return -1;
}
