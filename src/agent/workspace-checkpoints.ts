// Checkpoints of the calls that declare no files (bash, and any tool of risk `execute`; issue 26).
// Such a call may change any file, so the workspace is scanned before and after it: the
// .gitignore-aware walk of the search tools (ignored and hidden paths are left out), with an lstat
// of each file and symlink. A file whose size, times, inode or mode differ after the call changed;
// its content is captured then. To know what it was before, every file's state is kept in the
// checkpoint store the first time a scan sees it, and again whenever a later scan finds it changed
// (by the agent's file tools, or outside the agent between calls): so the first such call of a
// session pays for reading the workspace once, and later ones only for what changed.
//
// A walk stats every file, which costs about 5 µs a file. So each scanned folder is also watched
// (fs.watch, inotify on Linux): while no event has come from the workspace since the last scan,
// that scan still holds, and a call during which nothing happened needs no walk at all. Events are
// only a hint to walk; what changed is always decided by a walk. Where watching is not possible
// (no watches left), every call walks twice.
//
// A workspace with more than `maxFiles` files outside .gitignore is not scanned at all: a warning
// says so once, and its calls are not checkpointed. Safety first where the scan cannot tell: a path
// that leaves the scan but is still on disk (a new .gitignore rule) is not taken as deleted, and a
// path that joins it while the ignore rules changed is taken as created only when its inode
// changed during the call.
import { lstatSync, realpathSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { checkpointDirOf, CheckpointStore } from '../session/checkpoint-store.js';
import type { FileChange, FileState } from '../session/entries.js';
import { sameFileState } from '../session/file-history.js';
import { newWalkStats, walkTree } from '../tools/walk.js';

/** Workspaces with more files than this (outside .gitignore), or more bytes in the files a checkpoint keeps, are not scanned. */
export const WORKSPACE_SCAN_MAX_FILES = 10_000;
export const WORKSPACE_SCAN_MAX_BYTES = 256 * 1024 * 1024;
/** File times are coarse (a kernel tick): a file changed this close to a scan is compared by content too. */
const RACY_MS = 50;
const NEVER = new AbortController().signal;

type Hidden = ((path: string) => boolean) | undefined;

/** One scan: each file's and symlink's signature, the folders, and the signature of the ignore rules. */
interface Scan {
  files: Map<string, string>;
  folders: Set<string>;
  rules: string;
  /** Date.now() when the scan began. */
  at: number;
  /** Files changed so recently before the scan that a later change in the same tick would keep their signature. */
  racy: Set<string>;
  hidden: Hidden;
}

/** The scan before a call, for the comparison after it. */
export type BeforeScan = Scan;

/** The checkpoint store of a session file and the scans of its workspace; none for a session in memory. */
export function sessionCheckpoints(sessionFile: string | null, cwd: string): { checkpoints: CheckpointStore; workspaceCheckpoints: WorkspaceCheckpoints } | undefined {
  if (!sessionFile) return undefined;
  const checkpoints = new CheckpointStore(checkpointDirOf(sessionFile));
  return { checkpoints, workspaceCheckpoints: new WorkspaceCheckpoints(checkpoints, cwd, [sessionFile, `${sessionFile}.lock`, checkpoints.dir]) };
}

export class WorkspaceCheckpoints {
  /** Each file's signature when its state was last captured, and that state. */
  private readonly known = new Map<string, { sig: string; state: FileState }>();
  /** Why the workspace is not scanned (too many files or bytes), once a scan found it so. */
  private tooLarge: string | undefined;
  private warned = false;
  private readonly cwd: string;
  /** The session's own files, as shown paths (relative to the workspace), when they are inside it: never scanned. */
  private readonly own: string[];
  /** The latest scan; it still holds while `quiet` (no event from a watched folder since). */
  private last: Scan | undefined;
  private quiet = false;
  private readonly watchers = new Map<string, FSWatcher>();
  private watching = true;

  /** `own`: the session's files (its file, lock, checkpoint store), left out of every scan. */
  constructor(
    private readonly store: CheckpointStore,
    cwd: string,
    own: readonly string[] = [],
    private readonly maxFiles = WORKSPACE_SCAN_MAX_FILES,
    private readonly maxBytes = WORKSPACE_SCAN_MAX_BYTES,
  ) {
    this.cwd = realOr(cwd); // the file tools checkpoint real paths: name each file the same way
    this.own = own
      .map((p) =>
        relative(this.cwd, join(realOr(dirname(p)), basename(p)))
          .split(sep)
          .join('/'),
      )
      .filter((r) => r !== '' && !r.startsWith('..') && !isAbsolute(r));
  }

  /**
   * Scans the workspace before a call and keeps the state of every file not kept as it is now.
   * Undefined when the workspace is too large to scan (`warn` is called the first time).
   */
  async before(hidden: Hidden, warn: (message: string) => void): Promise<BeforeScan | undefined> {
    await settled();
    if (this.last && this.quiet && this.last.hidden === hidden) return this.last;
    const scan = this.scan(hidden);
    if (!scan) {
      if (!this.warned) warn(`the workspace has ${this.tooLarge}, so the changes of bash and other commands are not checkpointed in this session (rewind cannot undo them)`);
      this.warned = true;
      return undefined;
    }
    const stale = [...scan.files].filter(([path, sig]) => this.known.get(path)?.sig !== sig || scan.racy.has(path));
    await inParallel(stale, async ([path, sig]) => void this.known.set(path, { sig, state: await this.captureOr(path) }));
    for (const path of this.known.keys()) if (!scan.files.has(path)) this.known.delete(path); // gone (or now ignored) since
    return scan;
  }

  /** The files whose state changed between `before` and now, each from its kept state to its state now. */
  async after(before: BeforeScan): Promise<FileChange[]> {
    await settled();
    if (this.quiet && this.last === before) return []; // no event since the scan: nothing was written in the workspace
    const now = this.scan(before.hidden);
    if (!now) return [];
    const rulesChanged = now.rules !== before.rules;
    const changes: FileChange[] = [];
    const record = async (path: string, sig: string | undefined) => {
      const was = this.known.get(path)?.state ?? this.absentBefore(path, before);
      const state = sig === undefined ? ({ kind: 'absent' } as FileState) : await this.captureOr(path);
      if (sig === undefined) this.known.delete(path);
      else this.known.set(path, { sig, state });
      if (!sameFileState(was, state)) changes.push({ path, before: was, after: state });
    };
    for (const [path, sig] of now.files) {
      const old = before.files.get(path);
      if (old === sig && !before.racy.has(path)) continue;
      if (old === undefined && rulesChanged && !this.createdSince(path, before)) {
        this.known.set(path, { sig, state: await this.captureOr(path) }); // there before, but ignored then: not the call's
        continue;
      }
      await record(path, sig);
    }
    for (const path of before.files.keys()) {
      if (now.files.has(path)) continue;
      if (statOf(path) !== undefined) {
        this.known.delete(path); // still there, left out of the scan now (a new ignore rule)
        continue;
      }
      await record(path, undefined);
    }
    // The scans keep states without flushing them; those the checkpoint entry will name are flushed now.
    for (const c of changes) for (const s of [c.before, c.after]) if (s.kind === 'file') await this.store.flush(s.blob);
    return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Stops watching the workspace (the session is closed or replaced). */
  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.last = undefined;
  }

  /** The state of a file that did not exist before the call: absent, with the highest folder the call created for it. */
  private absentBefore(path: string, before: Scan): FileState {
    let missingFrom: string | undefined;
    for (let dir = dirname(path); dir.length > this.cwd.length && dir.startsWith(this.cwd + sep) && !before.folders.has(dir); dir = dirname(dir)) missingFrom = dir;
    return missingFrom === undefined ? { kind: 'absent' } : { kind: 'absent', missingFrom };
  }

  /** Whether the path's inode changed (it was created, renamed or changed) after the scan `before` began. */
  private createdSince(path: string, before: Scan): boolean {
    const st = statOf(path);
    return st !== undefined && st.ctimeMs >= before.at - RACY_MS;
  }

  /** The state of a file now; one that cannot be read is noted as not kept (a rewind leaves it alone). */
  private async captureOr(path: string): Promise<FileState> {
    try {
      return await this.store.capture(path, false); // flushed when a checkpoint names it (after)
    } catch {
      return { kind: 'other' };
    }
  }

  private scan(hidden: Hidden): Scan | undefined {
    if (this.tooLarge) return undefined;
    this.quiet = true; // from now on, an event means this scan may be out of date
    const at = Date.now();
    const files = new Map<string, string>();
    const folders = new Set<string>([this.cwd]);
    const racy = new Set<string>();
    let bytes = 0;
    const rules: string[] = [signature(statOf(`${this.cwd}/.git/info/exclude`))];
    const root = { real: this.cwd, shown: '.', isDir: true, isFile: false };
    const own = this.own;
    const left = (shown: string) => own.some((o) => shown === o || shown.startsWith(o + '/')) || hidden?.(shown) === true;
    for (const entry of walkTree({ cwd: this.cwd, hidden: left }, root, { signal: NEVER }, newWalkStats())) {
      if (entry.kind === 'dir') {
        folders.add(entry.abs);
        continue;
      }
      if (entry.kind === 'other') continue;
      const st = statOf(entry.abs);
      if (!st) continue; // removed while the scan ran
      const sig = signature(st);
      files.set(entry.abs, sig);
      if (entry.name === '.gitignore') rules.push(`${entry.abs} ${sig}`);
      if (st.mtimeMs >= at - RACY_MS || st.ctimeMs >= at - RACY_MS) racy.add(entry.abs);
      if (st.isFile() && st.size <= this.store.maxFileBytes) bytes += st.size;
      if (files.size > this.maxFiles || bytes > this.maxBytes) {
        this.tooLarge = files.size > this.maxFiles ? `more than ${this.maxFiles} files outside .gitignore` : `more than ${Math.round(this.maxBytes / 2 ** 20)} MB in files outside .gitignore`;
        this.close();
        return undefined;
      }
    }
    this.last = { files, folders, rules: rules.join('\n'), at, racy, hidden };
    this.watch(folders);
    return this.last;
  }

  /** Watches exactly these folders; an event from one (but for the session's own files) means the latest scan may be out of date. */
  private watch(folders: Set<string>): void {
    if (!this.watching) return;
    for (const [dir, w] of this.watchers) {
      if (folders.has(dir)) continue;
      w.close();
      this.watchers.delete(dir);
    }
    const ownHere = new Set(this.own.filter((o) => !o.includes('/')));
    for (const dir of folders) {
      if (this.watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, (_type, name) => {
          if (dir === this.cwd && name !== null && ownHere.has(String(name))) return;
          this.quiet = false;
        });
        w.on('error', () => {
          this.quiet = false;
          w.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, w);
      } catch {
        this.watching = false; // no watches left (or none here): every call walks
        this.close();
        return;
      }
    }
  }
}

/** Runs `task` on every item, a few at a time (the file system's thread pool does the reading and writing). */
async function inParallel<T>(items: readonly T[], task: (item: T) => Promise<void>, width = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/** Lets the events of what has just happened arrive: the watchers' callbacks run in the loop's poll phase. */
async function settled(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** What tells a changed file from an unchanged one without reading it. */
function signature(st: Stats | undefined): string {
  return st ? `${st.mode} ${st.size} ${st.ino} ${st.mtimeMs} ${st.ctimeMs}` : '-';
}
