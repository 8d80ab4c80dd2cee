// Opening sessions for the CLI: which file (--session, -c, --resume, new, --fork), the writer's
// lock, migration of older files, and --branch. Readers use SessionStore.open directly.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { UsageError } from '../core/types.js';
import { forkSession } from '../session/fork.js';
import { acquireSessionLock, SessionLockedError, type SessionLock } from '../session/lock.js';
import { migrateIfNeeded } from '../session/migrate.js';
import { makePrivateDir } from '../session/private-fs.js';
import { readHeader } from '../session/session-file.js';
import { SessionStore } from '../session/store.js';
import type { RunArgs } from './args.js';
import { newSessionFile } from '../session/paths.js';
import { continueSession, resolveEntry, resolveSession } from './resolve.js';

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
  let lock: SessionLock;
  try {
    lock = acquireSessionLock(file, sessionLabel(file));
  } catch (err) {
    if (err instanceof SessionLockedError) throw new UsageError(err.message);
    throw err;
  }
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

export function openSessionForRun(args: RunArgs, cwd: string, env: NodeJS.ProcessEnv): OpenedSession {
  if (args.noSession) return { store: SessionStore.inMemory({ cwd }), notes: [] };
  let file: string | undefined;
  if (args.session) file = resolve(args.session);
  else if (args.continue) file = continueSession(cwd, env);
  else if (args.resume) file = resolveSession(args.resume, cwd, env);
  // Branching or forking needs entries: a missing file is an error, not a new session.
  if ((args.branch || args.fork) && file && !existsSync(file)) throw new UsageError(`session file not found: ${args.session ?? file}`);

  if (args.fork) {
    const source = SessionStore.open(file!); // read only: the parent is not written, not locked
    const entryId = resolveEntry(source, args.fork);
    const id = randomUUID();
    const target = newSessionFile(cwd, id, new Date(), env);
    forkSession(source, entryId, target, { cwd, id });
    const opened = openForWrite(target, cwd);
    return { ...opened, notes: [...opened.notes, `forked session ${source.id} at ${entryId} into ${id} (${target})`], moved: { kind: 'fork', entryId } };
  }

  if (!file) {
    const id = randomUUID();
    const created = newSessionFile(cwd, id, new Date(), env);
    makePrivateDir(dirname(created));
    const lock = acquireSessionLock(created, id); // before the file exists, so no one else can take it first
    try {
      return { store: SessionStore.create(created, { cwd, id }), lock, notes: [] };
    } catch (err) {
      lock.release();
      throw err;
    }
  }
  if (!existsSync(dirname(file))) throw new UsageError(`cannot create session ${args.session}: folder ${dirname(file)} does not exist`);
  const opened = openForWrite(file, cwd);
  if (args.branch) {
    let entryId: string;
    try {
      entryId = resolveEntry(opened.store, args.branch);
    } catch (err) {
      opened.lock.release();
      throw err;
    }
    opened.store.checkout(entryId);
    return { ...opened, moved: { kind: 'branch', entryId } };
  }
  return opened;
}
