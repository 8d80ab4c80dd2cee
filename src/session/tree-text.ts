// The entry tree as text and JSON (pure: a store in, text out). Chains print flat; a fork in
// the tree indents its branches. Iterative, so a 100,000-entry chain cannot overflow the stack.
import type { SessionStats, Stats } from '../core/events.js';
import { preview } from '../core/types.js';
import type { ContentEntry } from './entries.js';
import type { SessionStore } from './store.js';
import { kindOf } from './entry-kinds/index.js';
import { describeEntry } from './tree-json.js';
import { costText } from '../core/cost-text.js';

export function formatTree(store: SessionStore, width = 72): string {
  const active = new Set(store.activePath().map((e) => e.id));
  const leaf = store.leafId;
  const lines: string[] = [];
  // Side records (a failed compaction) are shown under the node they concern: their kind's treeNote.
  const notes = new Map<string | null, string[]>();
  for (const e of store.entries()) {
    const note = kindOf(e).treeNote?.(e, width);
    if (note) notes.set(note.at, [...(notes.get(note.at) ?? []), note.text]);
  }
  type Item = { entry: ContentEntry; first: string; rest: string };
  const stack: Item[] = [];
  const pushKids = (kids: readonly ContentEntry[], prefix: string) => {
    for (let i = kids.length - 1; i >= 0; i--) {
      const last = i === kids.length - 1;
      stack.push({ entry: kids[i], first: prefix + (last ? '└─ ' : '├─ '), rest: prefix + (last ? '   ' : '│  ') });
    }
  };
  const roots = store.children(null);
  if (roots.length === 1) stack.push({ entry: roots[0], first: '', rest: '' });
  else pushKids(roots, '');
  while (stack.length) {
    let { entry, first, rest } = stack.pop()!;
    for (;;) {
      const { kind, text } = describeEntry(entry);
      const mark = active.has(entry.id) ? '*' : ' ';
      const label = store.labelOf(entry.id);
      const tags = [label ? `[label: ${label}]` : '', entry.id === leaf ? '◀ leaf' : ''].filter(Boolean).join(' ');
      lines.push(`${first}${mark} ${entry.id} ${kind.padEnd(10)} ${JSON.stringify(preview(text, width))}${tags ? ' ' + tags : ''}`);
      for (const note of notes.get(entry.id) ?? []) lines.push(`${rest}    ${note}`);
      const kids = store.children(entry.id);
      if (kids.length === 1) {
        entry = kids[0];
        first = rest;
        continue;
      }
      pushKids(kids, rest);
      break;
    }
  }
  if (lines.length === 0) lines.push('(no entries yet)');
  return lines.join('\n') + '\n';
}

function statsLine(label: string, s: Stats): string {
  const u = s.usage;
  return `${label.padEnd(12)} ${s.turns} turns · ${s.toolCalls} tool calls (${s.toolErrors} failed) · ${s.compactions} compactions · tokens ${u.input} in / ${u.output} out / ${u.cacheRead} cache read / ${u.cacheWrite} cache write · ${costText(u)} · ${(s.wallTimeMs / 1000).toFixed(1)} s`;
}

export function formatStats(store: SessionStore, stats: SessionStats): string {
  const lines = [
    `Session ${store.id}${store.name ? ` "${store.name}"` : ''} (${store.file ?? 'in memory'})`,
    `${store.entries().length} entries · ${store.branchCount()} branches · leaf ${store.leafId ?? '(none)'}`,
    statsLine('session:', stats.session),
    statsLine('active path:', stats.activePath),
  ];
  const r = stats.lastRun;
  if (r) {
    lines.push(
      `${'last run:'.padEnd(12)} ${r.stopReason} · ${r.turns} turns · ${r.toolCalls} tool calls (${r.toolErrors} failed) · tokens ${r.usage.input} in / ${r.usage.output} out · ${costText(r.usage)} · ${(r.durationMs / 1000).toFixed(1)} s`,
    );
  }
  return lines.join('\n') + '\n\n';
}
