// The entry tree as data (pure: a store in, plain objects out): what `tree --json`, the SDK's
// session.tree() and RPC's get_tree return. One line of description per entry.
import type { SessionStats } from '../core/events.js';
import { preview, textOf } from '../core/types.js';
import { isContentEntry, type CompactionFailedEntry, type ContentEntry } from './entries.js';
import type { SessionStore } from './store.js';

export function describeEntry(e: ContentEntry): { kind: string; text: string } {
  if (e.type === 'compaction') {
    const n = e.summarizedIds?.length;
    return { kind: 'compaction', text: `[summary${n !== undefined ? ` of ${n} ${n === 1 ? 'entry' : 'entries'}` : ''}${e.reason ? `, ${e.reason}` : ''}] ${e.summary}` };
  }
  if (e.type === 'branch_summary') return { kind: 'branch', text: `[summary of a left branch: ${e.summarizedIds.length} entries] ${e.summary}` };
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
      .filter(isContentEntry)
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
    /** Compactions that were tried and failed (nothing was summarized), with the leaf they were tried at. */
    failedCompactions: store
      .entries()
      .filter((e): e is CompactionFailedEntry => e.type === 'compaction_failed')
      .map((e) => ({ id: e.id, targetId: e.targetId, reason: e.reason, error: e.error, tokensBefore: e.tokensBefore, timestamp: e.timestamp })),
  };
}

/** What `tree --json`, session.tree() and RPC get_tree return. */
export type TreeJson = ReturnType<typeof treeJson>;
