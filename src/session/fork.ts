// Fork: a new session file holding the path root → entry of another session, with the labels on
// that path and the file checkpoints of its entries (their objects linked into the fork's own
// store first, so no entry ever names a missing object). Entry ids are kept, so both sessions name
// the shared past the same way.
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { checkpointDirOf, CheckpointStore } from './checkpoint-store.js';
import { SESSION_FORMAT_VERSION, type CheckpointEntry, type LabelEntry, type SessionEntry, type SessionHeader } from './entries.js';
import { checkpointKind } from './entry-kinds/index.js';
import { makePrivateDir, openPrivateFile } from './private-fs.js';
import { SessionFileError } from './session-file.js';
import { SessionStore } from './store.js';

/** Writes a whole new session file atomically; refuses to replace an existing file. */
export function writeNewSessionFile(file: string, header: SessionHeader, entries: readonly SessionEntry[]): void {
  makePrivateDir(dirname(file));
  const tmp = `${file}.writing-${process.pid}-${randomUUID().slice(0, 8)}`;
  const fd = openPrivateFile(tmp, 'wx');
  try {
    writeSync(fd, [header, ...entries].map((e) => JSON.stringify(e)).join('\n') + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file); // fails if the file exists: nothing is ever overwritten
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new SessionFileError(`${file}: already exists; refusing to overwrite it`);
    throw err;
  } finally {
    unlinkSync(tmp);
  }
}

export function forkSession(source: SessionStore, entryId: string, file: string, opts: { cwd: string; now?: Date; id?: string }): SessionStore {
  const target = source.get(entryId);
  if (!target) throw new Error(`entry "${entryId}" is not in session ${source.id}`);
  const path = source.pathTo(entryId);
  if (path.length === 0 || path[path.length - 1].id !== entryId) {
    throw new Error(`entry "${entryId}" is a ${target.type} entry; fork from a message or compaction`);
  }
  const now = (opts.now ?? new Date()).toISOString();
  const header: SessionHeader = {
    type: 'session',
    version: SESSION_FORMAT_VERSION,
    id: opts.id ?? randomUUID(),
    cwd: opts.cwd,
    timestamp: now,
    parentSession: { id: source.id, path: source.file ?? '', entryId },
  };
  const used = new Set(path.map((e) => e.id));
  const checkpoints = source.entries().filter((e): e is CheckpointEntry => checkpointKind.is(e) && used.has(e.entryId));
  for (const c of checkpoints) used.add(c.id);
  if (checkpoints.length > 0 && source.file) {
    const blobs = checkpoints.flatMap((c) => c.files.flatMap((f) => [f.before, f.after].flatMap((s) => (s.kind === 'file' ? [s.blob] : []))));
    new CheckpointStore(checkpointDirOf(source.file)).linkInto(checkpointDirOf(file), blobs);
  }
  const labels: LabelEntry[] = [];
  for (const e of path) {
    const label = source.labelOf(e.id);
    if (label === undefined) continue;
    let id: string;
    do id = randomBytes(4).toString('hex');
    while (used.has(id));
    used.add(id);
    labels.push({ type: 'label', id, parentId: null, timestamp: now, targetId: e.id, label });
  }
  writeNewSessionFile(file, header, [...path, ...labels, ...checkpoints]);
  return SessionStore.open(file);
}
