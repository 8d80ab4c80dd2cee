// The entry tree as data (pure: a store in, plain objects out): what `tree --json`, the SDK's
// session.tree() and RPC's get_tree return. One line of description per entry.
import type { SessionStats } from '../core/events.js';
import { preview } from '../core/types.js';
import { isContentEntry, type ContentEntry } from './entries.js';
import { failedCompactionsOf } from './entry-kinds/compaction-failed.js';
import { kindOf } from './entry-kinds/index.js';
import type { TreeLine } from './entry-kinds/parts.js';
import type { SessionStore } from './store.js';
import type { TreeJson } from './tree-schema.js';

export type { TreeJson };

/** The line that describes a node in `tree`: its kind's `describe`. */
export function describeEntry(e: ContentEntry): TreeLine {
  return kindOf(e).describe!(e);
}

export function treeJson(store: SessionStore, stats: SessionStats): TreeJson {
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
    failedCompactions: failedCompactionsOf(store.entries()).map((e) => ({ id: e.id, targetId: e.targetId, reason: e.reason, error: e.error, tokensBefore: e.tokensBefore, timestamp: e.timestamp })),
  };
}
