// Nothing left behind: the journal of the temp files and folders a run may leave behind when it
// is killed (`kill -9`, a crash, a power cut), and the sweep that removes those of dead runs.
//
// - An atomic write's temp file (file-io.ts) is named `.NAME.PID.RANDOM.tmp`, beside its target;
//   bash's private output folder of a run without a session is `mini-agent-bash-PID-RANDOM` in the
//   system temp folder, removed when the process exits (RunTempDirs).
// - Before either is created, one small file is written in the journal folder (the state home's
//   `tmp-journal/`): named `PID-START-RANDOM` (START: the process's start time, ms), holding the
//   path. It is removed once the temp file has been renamed (or removed), or the folder removed.
// - The next start (a new tool set, app/tools.ts) lists the journal folder: a run that ended
//   cleanly left it empty, so this is one readdir of an empty or missing folder, and the workspace
//   is never walked. For each entry of a dead run (its pid is no live process: kill(pid, 0) says
//   ESRCH; or it is this process's pid with another start time, as when every run is pid 7 in a
//   container), the path is removed when its name has the shape above with that pid, and the
//   other temp files of dead writers in the same folder go too. Paths of any other shape are
//   never removed. A pid reused by a live process keeps its entries until that process is gone.
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** An atomic write's temp file: `.NAME.PID.RANDOM.tmp`. */
export const TEMP_FILE = /^\..*\.(\d+)\.[0-9a-f]{8}\.tmp$/s;
/** bash's private output folder: `mini-agent-bash-PID-RANDOM`. */
export const TEMP_DIR = /^mini-agent-bash-(\d+)-[0-9a-f]{8}$/;
const ENTRY = /^(\d+)-(\d+)-[0-9a-f]{8}$/;
/** This process's start, as journal entries name it. */
const START = String(Math.round(performance.timeOrigin));

/** The temp file name for an atomic write of `target`, carrying the writer's pid. */
export function tempFileFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Whether a process with this pid runs (EPERM: it does, as another user's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The journal of one tool set: records paths that may be left behind, and forgets them. Best effort: a journal that cannot be written never stops a write. */
export class LeftoverJournal {
  private made = false;

  constructor(readonly dir: string) {}

  /** Records `path` before it is created; returns what forgets it (call once it is gone or renamed). */
  record(path: string): () => void {
    const entry = join(this.dir, `${process.pid}-${START}-${randomBytes(4).toString('hex')}`);
    try {
      if (!this.made) mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.made = true;
      const fd = openSync(entry, 'wx', 0o600);
      try {
        writeSync(fd, path);
      } finally {
        closeSync(fd);
      }
    } catch {
      return () => undefined;
    }
    return () => {
      try {
        unlinkSync(entry);
      } catch {
        /* already gone */
      }
    };
  }
}

/** What a sweep removed (paths), for tests and notes. */
export interface SweepResult {
  removed: string[];
}

/**
 * Removes what dead runs left behind, as the journal in `dir` names it (see the top of this file).
 * Cheap when the journal is empty or missing; never throws.
 */
export function sweepLeftovers(dir: string, alive: (pid: number) => boolean = pidAlive): SweepResult {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { removed };
  }
  const dead = (pid: number, start?: string) => (pid === process.pid ? start !== undefined && start !== START : !alive(pid));
  const swept = new Set<string>();
  for (const name of names) {
    const m = ENTRY.exec(name);
    if (!m || !dead(Number(m[1]), m[2])) continue;
    const entry = join(dir, name);
    let path = '';
    try {
      path = readFileSync(entry, 'utf8');
    } catch {
      /* unreadable: only the entry goes */
    }
    if (path !== '') {
      if (removeIfOurs(path, Number(m[1]))) removed.push(path);
      const folder = dirname(path);
      if (!swept.has(folder)) {
        swept.add(folder);
        removed.push(...sweepFolder(folder, dead));
      }
    }
    try {
      unlinkSync(entry);
    } catch {
      /* gone meanwhile */
    }
  }
  return { removed };
}

/** Removes `path` when its name is a temp file or folder of `pid`; true when something was removed. */
function removeIfOurs(path: string, pid: number): boolean {
  const name = basename(path);
  const file = TEMP_FILE.exec(name);
  const folder = TEMP_DIR.exec(name);
  if (Number((file ?? folder)?.[1]) !== pid) return false;
  try {
    if (file) unlinkSync(path);
    else rmSync(path, { recursive: true, force: true });
    return true;
  } catch {
    return false; // already gone
  }
}

/** The temp files in `folder` whose writer is dead (not this process's), removed. */
function sweepFolder(folder: string, dead: (pid: number) => boolean): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = TEMP_FILE.exec(name) ?? TEMP_DIR.exec(name);
    if (!m || Number(m[1]) === process.pid || !dead(Number(m[1]))) continue;
    if (removeIfOurs(join(folder, name), Number(m[1]))) removed.push(join(folder, name));
  }
  return removed;
}

/**
 * The private folders of one tool set (bash's full-output files when the run has no session
 * folder): each `mini-agent-bash-PID-RANDOM` (0700) in the system temp folder, journaled, and
 * removed with what it holds when the process exits (an exit hook, there while a folder is).
 */
export class RunTempDirs {
  private readonly dirs = new Map<string, () => void>();
  private readonly onExit = () => this.removeAll();

  constructor(
    private readonly parent: string,
    private readonly journal?: LeftoverJournal,
  ) {}

  /** A new private folder; throws when it cannot be made. */
  make(): string {
    for (let n = 0; ; n++) {
      const dir = join(this.parent, `mini-agent-bash-${process.pid}-${randomBytes(4).toString('hex')}`);
      const forget = this.journal?.record(dir) ?? (() => undefined);
      try {
        mkdirSync(dir, { mode: 0o700 }); // never follows a link; EEXIST when taken
        chmodSync(dir, 0o700); // mkdir applies the umask
      } catch (err) {
        forget();
        if ((err as NodeJS.ErrnoException).code === 'EEXIST' && n < 100) continue;
        throw err;
      }
      if (this.dirs.size === 0) process.on('exit', this.onExit);
      this.dirs.set(dir, forget);
      return dir;
    }
  }

  /** Removes every folder made (synchronously: it runs in the exit hook too). */
  removeAll(): void {
    for (const [dir, forget] of this.dirs) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        /* best effort */
      }
      forget();
    }
    this.dirs.clear();
    process.off('exit', this.onExit);
  }
}
