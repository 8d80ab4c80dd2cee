// Whether a file from outside the workspace may speak for the user: the ownership rule for the
// context files above the workspace, in the spirit of git's safe.directory (the owner) and ssh's
// StrictModes (who can write). A file and the folder it is in are safe when each is
//   - owned by the user or by root (uid 0): a shared machine's other users, or a folder a
//     package unpacked as another uid, cannot put instructions in our system prompt;
//   - not writable by everyone (o+w): a sticky world-writable folder such as /tmp (1777) counts,
//     since anyone may create the AGENTS.md there that is not yet there;
//   - not writable by its group, unless the group is the user's own primary group: as Debian's
//     ssh allows for user private groups (umask 002 makes folders 0775 there), where the group
//     is the user alone. A machine whose primary group is shared (`users`) should not make the
//     folders above its projects group-writable.
// Where the platform has no uids (Windows), no check is made.
import { statSync } from 'node:fs';
import { dirname } from 'node:path';

export interface User {
  uid: number;
  gid: number;
}

/** The user this process runs as; null where the platform has no uids. */
export function currentUser(): User | null {
  return typeof process.getuid === 'function' && typeof process.getgid === 'function' ? { uid: process.getuid(), gid: process.getgid() } : null;
}

/** The fields of a stat the rule reads. */
export interface Owned {
  uid: number;
  gid: number;
  mode: number;
}

/** Mode bits as `ls` and chmod write them: "1777", "0775". */
export function octalMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/** Why `st` (a file or folder, called `what` in the message) is not safe for `user`; undefined when it is. Pure. */
export function unsafeOwnership(what: string, st: Owned, user: User): string | undefined {
  if (st.uid !== user.uid && st.uid !== 0) return `${what} is owned by uid ${st.uid}, not by you (uid ${user.uid}) or root`;
  if (st.mode & 0o002) return `${what} is writable by every user (mode ${octalMode(st.mode)})`;
  if (st.mode & 0o020 && st.gid !== user.gid) return `${what} is writable by its group (gid ${st.gid}, mode ${octalMode(st.mode)}), which is not your own group`;
  return undefined;
}

/**
 * Why a context file found at `path` (real path `real`, stat `st` of the opened file) is not
 * safe: the file, the folder it was found in, and the folder of its real path when a symlink
 * leads elsewhere. undefined when all are safe. A folder that cannot be stat'ed is unsafe.
 */
export function unsafeContextFile(path: string, real: string, st: Owned, user: User): string | undefined {
  const file = unsafeOwnership(path === real ? 'the file' : `the file it links to (${real})`, st, user);
  if (file) return file;
  for (const dir of new Set([dirname(path), dirname(real)])) {
    let dst: Owned;
    try {
      dst = statSync(dir);
    } catch (err) {
      return `its folder ${dir} cannot be checked (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
    }
    const why = unsafeOwnership(`its folder ${dir}`, dst, user);
    if (why) return why;
  }
  return undefined;
}
