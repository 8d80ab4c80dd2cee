// The entry tree as data (pure: a store in, plain objects out): what `tree --json`, the SDK's
// session.tree() and RPC's get_tree return. One line of description per entry.
import type { SessionStats } from '../core/events.js';
import { preview, textOf } from '../core/types.js';
import type { ContentEntry } from './entries.js';
import type { SessionStore } from './store.js';

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

/** What `tree --json`, session.tree() and RPC get_tree return. */
export type TreeJson = ReturnType<typeof treeJson>;
