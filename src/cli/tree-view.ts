// The entry tree as text and JSON (pure: a store in, text out). Chains print flat; a fork in
// the tree indents its branches. Iterative, so a 100,000-entry chain cannot overflow the stack.
import type { SessionStats, Stats } from '../core/events.js';
import { textOf } from '../core/types.js';
import type { ContentEntry } from '../session/entries.js';
import type { SessionStore } from '../session/store.js';
import { preview } from './render.js';

export function describeEntry(e: ContentEntry): { kind: string; text: string } {
  if (e.type === 'compaction') return { kind: 'compaction', text: `[summary] ${e.summary}` };
  const m = e.message;
  if (m.role === 'user') return { kind: 'user', text: textOf(m.content) };
  if (m.role === 'toolResult') return { kind: `result`, text: `${m.isError ? '✗' : '✓'} ${m.toolName}: ${textOf(m.content)}` };
  const calls = m.content.flatMap((c) =>
    c.type !== 'toolCall' ? [] : [c.argumentsError ? `→ ${c.name}(✗ ${preview(c.rawArguments ?? '', 40)})` : `→ ${c.name}(${preview(JSON.stringify(c.arguments), 40)})`],
  );
  const text = textOf(m.content);
  const failed = m.stopReason === 'error' || m.stopReason === 'aborted' ? ` [${m.stopReason}${m.errorMessage ? `: ${m.errorMessage}` : ''}]` : '';
  return { kind: 'assistant', text: [text, ...calls].filter(Boolean).join(' ') + failed };
}

export function formatTree(store: SessionStore, width = 72): string {
  const active = new Set(store.activePath().map((e) => e.id));
  const leaf = store.leafId;
  const lines: string[] = [];
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
  return `${label.padEnd(12)} ${s.turns} turns · ${s.toolCalls} tool calls (${s.toolErrors} failed) · ${s.compactions} compactions · tokens ${u.input} in / ${u.output} out / ${u.cacheRead} cache read / ${u.cacheWrite} cache write · $${u.cost.toFixed(4)} · ${(s.wallTimeMs / 1000).toFixed(1)} s`;
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
    lines.push(`${'last run:'.padEnd(12)} ${r.stopReason} · ${r.turns} turns · ${r.toolCalls} tool calls (${r.toolErrors} failed) · tokens ${r.usage.input} in / ${r.usage.output} out · $${r.usage.cost.toFixed(4)} · ${(r.durationMs / 1000).toFixed(1)} s`);
  }
  return lines.join('\n') + '\n\n';
}

export function treeJson(store: SessionStore, stats: SessionStats) {
  const active = new Set(store.activePath().map((e) => e.id));
  return {
    session: { id: store.id, file: store.file, name: store.name, cwd: store.header.cwd, parentSession: store.header.parentSession ?? null },
    leafId: store.leafId,
    branches: store.branchCount(),
    stats,
    entries: store
      .entries()
      .filter((e): e is ContentEntry => e.type === 'message' || e.type === 'compaction')
      .map((e) => {
        const { kind, text } = describeEntry(e);
        return {
          id: e.id,
          parentId: e.parentId,
          type: e.type,
          kind,
          preview: preview(text, 120),
          timestamp: e.timestamp,
          label: store.labelOf(e.id) ?? null,
          active: active.has(e.id),
          children: store.children(e.id).map((c) => c.id),
        };
      }),
  };
}
