// Opening the session an agent works in, for every front end: which file (new, continue, resume,
// a named file, in memory), the writer's lock, migration of older files, fork and branch.
// Readers (listing, tree, export) use SessionStore.open directly and never lock.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { UsageError } from '../core/types.js';
import { forkSession } from '../session/fork.js';
import { acquireSessionLock, type SessionLock } from '../session/lock.js';
import { migrateIfNeeded } from '../session/migrate.js';
import { makePrivateDir } from '../session/private-fs.js';
import { readHeader } from '../session/session-file.js';
import { SessionStore } from '../session/store.js';
import { sessionFileIn, type SessionPlace } from '../session/paths.js';
import { continueSession, resolveEntry, resolveSession } from '../session/resolve.js';

/**
 * Which session an agent works in: a new file, the most recently used one of the workspace, one
 * resolved by id, id prefix or name, a file path (created when missing), or none (in memory).
 */
export type SessionChoice = 'new' | 'continue' | 'memory' | { resume: string } | { file: string };

export interface OpenSessionOptions {
  /** The workspace, the home folder and the workspace's sessions folder (resolved once, by the caller). */
  place: SessionPlace;
  session?: SessionChoice;
  /** Continue from this entry (id, prefix or label) of the chosen session: a new branch. */
  branch?: string;
  /** Copy root → this entry into a new session and continue there. */
  fork?: string;
}

export interface OpenedSession {
  store: SessionStore;
  lock?: SessionLock;
  /** What happened on the way (migration, branch, fork), for stderr. */
  notes: string[];
  /** Set when --branch or --fork moved or created something. */
  moved?: { kind: 'branch' | 'fork'; entryId: string };
}

function sessionLabel(file: string): string {
  const id = readHeader(file)?.id;
  return typeof id === 'string' ? id : basename(file);
}

/** Takes the lock, migrates an older file, and opens it for appending. */
export function openForWrite(file: string, cwd: string): { store: SessionStore; lock: SessionLock; notes: string[] } {
  const lock = acquireSessionLock(file, sessionLabel(file)); // SessionLockedError is a usage error
  try {
    const notes: string[] = [];
    const migrated = migrateIfNeeded(file);
    if (migrated) notes.push(`migrated ${file} from session format ${migrated.from} to ${migrated.to}; the original is kept as ${migrated.backup}`);
    // A missing or empty file is a new session (it gets a header); anything else must load.
    return { store: SessionStore.openOrCreate(file, { cwd }), lock, notes };
  } catch (err) {
    lock.release();
    throw err;
  }
}

export function openSession(opts: OpenSessionOptions): OpenedSession {
  const { place } = opts;
  const { cwd } = place;
  const choice = opts.session ?? 'new';
  if (typeof choice === 'object' && 'resume' in choice && choice.resume === '') throw new UsageError('resume needs a session: a path, an id, a unique id prefix or a name');
  if (opts.branch === '' || opts.fork === '') throw new UsageError(`${opts.branch === '' ? 'branch' : 'fork'} needs an entry: an id, a unique id prefix or a label`);
  if (choice === 'memory' || choice === 'new') {
    if (opts.branch !== undefined || opts.fork !== undefined) {
      throw new UsageError(`${opts.branch !== undefined ? 'branch' : 'fork'} needs an existing session (continue, resume or a file), not ${choice === 'new' ? 'a new one' : 'an in-memory one'}`);
    }
  }
  if (opts.branch !== undefined && opts.fork !== undefined) throw new UsageError('branch and fork cannot be used together');
  if (choice === 'memory') return { store: SessionStore.inMemory({ cwd }), notes: [] };
  let file: string | undefined;
  let named: string | undefined;
  if (typeof choice === 'object' && 'file' in choice) {
    if (choice.file === '') throw new UsageError('a session file path must not be empty');
    file = resolve(cwd, choice.file);
    named = choice.file;
  } else if (choice === 'continue') file = continueSession(place);
  else if (typeof choice === 'object' && 'resume' in choice) file = resolveSession(choice.resume, place);
  // Branching or forking needs entries: a missing file is an error, not a new session.
  if ((opts.branch || opts.fork) && file && !existsSync(file)) throw new UsageError(`session file not found: ${named ?? file}`);

  if (opts.fork) {
    const source = SessionStore.open(file!); // read only: the parent is not written, not locked
    const entryId = resolveEntry(source, opts.fork);
    const opened = forkInto(source, entryId, place);
    return { ...opened, moved: { kind: 'fork', entryId } };
  }

  if (!file) return createNew(place);
  if (!existsSync(dirname(file))) throw new UsageError(`cannot create session ${named ?? file}: folder ${dirname(file)} does not exist`);
  const opened = openForWrite(file, cwd);
  if (opts.branch) {
    let entryId: string;
    try {
      entryId = resolveEntry(opened.store, opts.branch);
    } catch (err) {
      opened.store.close();
      opened.lock.release();
      throw err;
    }
    opened.store.checkout(entryId);
    return { ...opened, moved: { kind: 'branch', entryId } };
  }
  return opened;
}

/** A new session file in the workspace's sessions folder, locked before it exists. */
export function createNew(place: SessionPlace): OpenedSession & { lock: SessionLock } {
  const { cwd } = place;
  const id = randomUUID();
  const created = sessionFileIn(place.sessions, id, new Date());
  makePrivateDir(dirname(created));
  const lock = acquireSessionLock(created, id); // before the file exists, so no one else can take it first
  try {
    return { store: SessionStore.create(created, { cwd, id }), lock, notes: [] };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** Copies root → entryId of `source` into a new session file of this workspace and opens it for writing. */
export function forkInto(source: SessionStore, entryId: string, place: SessionPlace): OpenedSession & { lock: SessionLock } {
  const { cwd } = place;
  const id = randomUUID();
  const target = sessionFileIn(place.sessions, id, new Date());
  forkSession(source, entryId, target, { cwd, id });
  const opened = openForWrite(target, cwd);
  return { ...opened, notes: [...opened.notes, `forked session ${source.id} at ${entryId} into ${id} (${target})`] };
}
