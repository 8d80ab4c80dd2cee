// One writer per session file: an advisory lock file (FILE.lock) created with O_EXCL and
// holding the owner's pid. A lock whose pid is dead (a crash, SIGKILL) is stale and taken
// over. Readers (listing, export, trace) never take it.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';

export class SessionLockedError extends Error {
  override name = 'SessionLockedError';
  constructor(
    readonly sessionLabel: string,
    readonly pid: number,
  ) {
    super(`session ${sessionLabel} is in use by pid ${pid}`);
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
}

function readLock(path: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : undefined;
  } catch {
    return undefined; // missing, or half-written by a process that died mid-write
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

/**
 * Takes the lock of `file` for this process, or throws SessionLockedError naming the holder.
 * The lock is released by `release()` and, as a last resort, when the process exits.
 */
export function acquireSessionLock(file: string, sessionLabel: string): SessionLock {
  const path = `${file}.lock`;
  const me: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLock(path);
      if (holder && holder.pid !== process.pid && (holder.host !== me.host || pidAlive(holder.pid))) {
        throw new SessionLockedError(sessionLabel, holder.pid);
      }
      // Stale (dead pid), unreadable, or our own leftover: remove it and try again.
      try {
        unlinkSync(path);
      } catch {
        /* someone else removed it first */
      }
      continue;
    }
    writeSync(fd, JSON.stringify(me));
    closeSync(fd);
    // Two processes that cleared the same stale lock: only the one whose pid is in the file holds it.
    const now = readLock(path);
    if (now && now.pid !== process.pid) throw new SessionLockedError(sessionLabel, now.pid);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.off('exit', release);
      if (readLock(path)?.pid === process.pid) {
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
  const holder = readLock(path);
  throw new SessionLockedError(sessionLabel, holder?.pid ?? -1);
}
