// Private by default. Conversations hold the contents of files that were read and the output of
// commands, so everything mini-agent creates for itself is readable by its owner only: folders
// 0700, files 0600 (sessions, locks, traces, recordings). The modes are set explicitly after
// creation, so neither a permissive umask (000) widens them nor a strict one narrows them.
// Files and folders that already exist are never re-permissioned: `findExposed` reports them.
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Permission bits are not meaningful there. */
const NO_MODES = process.platform === 'win32';

/** Creates `dir` and any missing parents as 0700 (only the ones it creates). */
export function makePrivateDir(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined || NO_MODES) return;
  // mkdir applies the umask; set the exact mode on every folder created, from the deepest up.
  for (let d = dir; ; d = dirname(d)) {
    chmodSync(d, PRIVATE_DIR_MODE);
    if (d === first || dirname(d) === d) break;
  }
}

/**
 * Opens a new file for writing with mode 0600 (`flags`: 'wx' to refuse an existing file, 'w' to
 * truncate one). An existing file keeps its mode: only a file this call creates is made private.
 */
export function openPrivateFile(file: string, flags: 'wx' | 'w'): number {
  let existed = false;
  if (flags === 'w') {
    try {
      existed = statSync(file).isFile();
    } catch {
      /* new */
    }
  }
  const fd = openSync(file, flags, PRIVATE_FILE_MODE);
  if (!existed && !NO_MODES) {
    try {
      fchmodSync(fd, PRIVATE_FILE_MODE);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }
  return fd;
}

/** True when group or others have any access (read, write or search) to the file or folder. */
export function othersHaveAccess(stat: Pick<Stats, 'mode'>): boolean {
  return !NO_MODES && (stat.mode & 0o077) !== 0;
}

/** The paths among `paths` that others can access (missing ones are skipped). */
export function findExposed(paths: Iterable<string>): string[] {
  const exposed: string[] = [];
  for (const p of paths) {
    try {
      if (othersHaveAccess(statSync(p))) exposed.push(p);
    } catch {
      /* gone or unreadable: nothing to report */
    }
  }
  return exposed;
}

/** The octal mode of a stat, e.g. "0644". */
export function modeString(stat: Pick<Stats, 'mode'>): string {
  return '0' + (stat.mode & 0o777).toString(8);
}
