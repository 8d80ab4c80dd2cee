// Export as Markdown (the active path, readable) and JSONL (header + every entry). Pure:
// a store in, a string out, and the same store always gives the same text (no clock reads).
import type { Stats } from '../core/events.js';
import { costText } from '../core/cost-text.js';
import { textWithImages } from '../core/image.js';
import { isContentEntry, type ContentEntry } from './entries.js';
import { compactionKind, kindOf, messageKind } from './entry-kinds/index.js';
import { codeSpan, escapeInline } from './markdown-text.js';
import { sessionStats } from './stats.js';
import type { SessionStore } from './store.js';

// The Markdown helpers, here as before (the export's tests and callers import them from this module).
export { codeSpan, escapeInline, RESULT_LINES, safeText } from './markdown-text.js';

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
  // Side records (a failed compaction) are shown under the node they concern: their kind's markdownNote.
  const notes = new Map<string | null, string[]>();
  for (const e of store.entries()) {
    const note = kindOf(e).markdownNote?.(e);
    if (note) notes.set(note.at, [...(notes.get(note.at) ?? []), note.text]);
  }
  path.forEach((entry, i) => {
    out.push(...entryBlock(store, entry, i < kept));
    out.push(...(notes.get(entry.id) ?? []));
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
  const { level, title, body } = kindOf(entry).markdown!(entry, textWithImages);
  return [heading(store, level, title, entry, summarized), ...body];
}
