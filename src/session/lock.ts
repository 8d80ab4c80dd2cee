// One writer per session file: an advisory lock file (FILE.lock) holding the owner's pid,
// created atomically (hard link of a complete file, which fails if the lock exists). A lock
// whose pid is dead (a crash, SIGKILL) is stale and taken over, one process at a time.
// Readers (listing, export, trace) never take it.
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { UsageError } from '../core/types.js';
import { openPrivateFile } from './private-fs.js';

/** Another live process writes this session. A usage error: nothing ran, and the user can wait or pick another session. */
export class SessionLockedError extends UsageError {
  override name = 'SessionLockedError';
  constructor(
    readonly sessionLabel: string,
    readonly pid: number,
  ) {
    super(`session ${sessionLabel} is in use by pid ${pid}`, 'locked');
  }
}

export interface SessionLock {
  readonly path: string;
  release(): void;
}

interface LockInfo {
  pid: number;
  host: string;
  since: string;
  /** Tells this holder from another one of the same process. */
  token?: string;
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const info = JSON.parse(text) as LockInfo;
    return typeof info?.pid === 'number' ? info : undefined;
  } catch {
    return undefined; // damaged (or written by an older mini-agent that died mid-write)
  }
}

function readLock(path: string): LockInfo | undefined {
  try {
    return parseLock(readFileSync(path, 'utf8'));
  } catch {
    return undefined; // missing
  }
}

/** True when `pid` is a live process on this machine. */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** Waits `ms` milliseconds without returning to the event loop (taking the lock is synchronous). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Removes the lock at `path` if it is still stale. Only one process at a time may do this (it
 * holds PATH.break, created with O_EXCL), and it decides on a fresh read: without that, a
 * process that read the dead holder's pid a moment ago could delete the lock another process
 * has just taken in its place, and both would write. Returns false when another process is
 * breaking the lock right now (try again shortly).
 */
function breakStaleLock(path: string, me: LockInfo): boolean {
  const breaker = `${path}.break`;
  let fd: number;
  try {
    fd = openPrivateFile(breaker, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // A breaker that died in the middle (it holds this for microseconds) leaves an old file.
    try {
      if (Date.now() - statSync(breaker).mtimeMs > 5_000) unlinkSync(breaker);
    } catch {
      /* gone already */
    }
    return false;
  }
  closeSync(fd);
  try {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return true; // gone already: try again
    }
    const holder = parseLock(text);
    const stale = holder === undefined || holder.pid === process.pid || (holder.host === me.host && !pidAlive(holder.pid));
    // A lock file is written whole before it appears (see below), so an unreadable one is damaged, not in progress.
    if (stale) {
      try {
        unlinkSync(path);
      } catch {
        /* already gone */
      }
    }
  } finally {
    unlinkSync(breaker);
  }
  return true;
}

/**
 * The lock files this process holds. A lock file names only a pid, so without this a second
 * agent in the same process (the SDK allows several) would take its own process's lock as a
 * leftover and write the same session. This set is the in-process half of the lock.
 */
const heldHere = new Map<string, string>(); // lock path → token

/**
 * Takes the lock of `file` for this process, or throws SessionLockedError naming the holder.
 * The lock is released by `release()` and, as a last resort, when the process exits.
 */
export function acquireSessionLock(file: string, sessionLabel: string): SessionLock {
  const path = `${file}.lock`;
  const held = heldHere.get(path);
  if (held !== undefined) {
    // Held by another agent of this process, unless its lock file was taken from it since.
    if (readLock(path)?.token === held) throw new SessionLockedError(sessionLabel, process.pid);
    heldHere.delete(path);
  }
  const token = randomBytes(8).toString('hex');
  const me: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString(), token };
  // The lock file appears with its content already in it (written to a private file, then
  // hard-linked into place, which fails if the lock exists): no one ever reads a half-made lock.
  const mine = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  const fd = openPrivateFile(mine, 'wx'); // 0600, like everything mini-agent keeps for itself
  try {
    writeSync(fd, JSON.stringify(me));
  } finally {
    closeSync(fd);
  }
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      try {
        linkSync(mine, path);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = readLock(path);
      if (holder && holder.pid !== process.pid && (holder.host !== me.host || pidAlive(holder.pid))) {
        throw new SessionLockedError(sessionLabel, holder.pid);
      }
      // Stale (dead pid), unreadable, or this process's leftover (not in heldHere): remove it (safely) and try again.
      if (!breakStaleLock(path, me)) pause(5);
      if (attempt === 199) throw new SessionLockedError(sessionLabel, readLock(path)?.pid ?? -1);
    }
  } finally {
    try {
      unlinkSync(mine);
    } catch {
      /* already gone */
    }
  }
  heldHere.set(path, token);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    if (heldHere.get(path) === token) heldHere.delete(path);
    process.off('exit', release);
    if (readLock(path)?.token === token) {
      try {
        unlinkSync(path);
      } catch {
        /* already gone */
      }
    }
  };
  process.on('exit', release);
  return { path, release };
}
