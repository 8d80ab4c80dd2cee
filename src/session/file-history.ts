// The files of the session tree (issue 26): what each file the agent changed was at any entry,
// read from the `checkpoint` entries. Pure: entries in, states out; the contents stay in the
// checkpoint store. A file's state at an entry is the `after` of the last checkpoint touching it
// on the path from the root to that entry; a file no checkpoint on that path touches is as it was
// before the agent first changed it anywhere in the session (the `before` of its first checkpoint).
// What the agent last left on disk is the `after` of the latest checkpoint touching it, in the
// file's order, whatever the branch: a file that no longer holds it was changed outside the agent.
import type { CheckpointEntry, ContentEntry, FileState, SessionEntry } from './entries.js';
import { checkpointKind } from './entry-kinds/index.js';

export interface FileHistory {
  /** Every file a checkpoint names, in the order they were first changed. */
  files: string[];
  /** Each file's state at the end of `path` (root → an entry). */
  statesAt(path: readonly ContentEntry[]): Map<string, FileState>;
  /** Each file's state as the agent last left it (the latest checkpoint's `after`). */
  latest(): Map<string, FileState>;
}

export function fileHistory(entries: readonly SessionEntry[]): FileHistory {
  const byEntry = new Map<string, CheckpointEntry[]>();
  const first = new Map<string, FileState>();
  const last = new Map<string, FileState>();
  for (const e of entries) {
    if (!checkpointKind.is(e)) continue;
    byEntry.set(e.entryId, [...(byEntry.get(e.entryId) ?? []), e]);
    for (const f of e.files) {
      if (!first.has(f.path)) first.set(f.path, f.before);
      last.set(f.path, f.after);
    }
  }
  return {
    files: [...first.keys()],
    statesAt(path) {
      const states = new Map(first);
      for (const entry of path) for (const c of byEntry.get(entry.id) ?? []) for (const f of c.files) states.set(f.path, f.after);
      return states;
    },
    latest: () => new Map(last),
  };
}

/** Two states of a path are the same (a file: the same bytes and mode). */
export function sameFileState(a: FileState, b: FileState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'file' && b.kind === 'file') return a.blob === b.blob && a.mode === b.mode;
  if (a.kind === 'symlink' && b.kind === 'symlink') return a.target === b.target;
  if (a.kind === 'too_big' && b.kind === 'too_big') return a.size === b.size && a.mode === b.mode;
  return a.kind === 'absent' || a.kind === 'other';
}
