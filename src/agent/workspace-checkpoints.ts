// Checkpoints of the calls that declare no files (bash, and any tool of risk `execute`; issue 26).
// Such a call may change any file, so the workspace is scanned before and after it
// (workspace-scan.ts: the .gitignore-aware walk of the search tools, an lstat of each file;
// ignored and hidden paths and the session's own files are left out). A file whose signature
// differs after the call changed; its content is captured then. To know what it was before, every
// file's state is kept in the checkpoint store the first time a scan sees it, and again whenever a
// later scan finds it changed (by the agent's file tools, or outside the agent between calls): so
// the first such call of a session pays for reading the workspace once, and later ones only for
// what changed.
//
// A walk stats every file, which costs about 5 µs a file. So each scanned folder is also watched
// (fs.watch, inotify on Linux): a file cannot change without an event from its folder, so the next
// scan walks again only the folders events came from, and a call during which nothing was written
// walks nothing. An event from a .gitignore, a watcher's error, or no watcher at all (none left)
// means a full walk. What changed is always decided by the signatures, never by the events alone.
//
// A workspace over the limits (files or bytes outside .gitignore) is not scanned at all: a warning
// says so once, and its calls are not checkpointed. Safety first where the scan cannot tell: a path
// that leaves the scan but is still on disk (a new .gitignore rule) is not taken as deleted, and a
// path that joins it while the ignore rules changed is taken as created only when its inode
// changed during the call.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { checkpointDirOf, CheckpointStore } from '../session/checkpoint-store.js';
import type { FileChange, FileState } from '../session/entries.js';
import { sameFileState } from '../session/file-history.js';
import { realOr } from '../tools/workspace.js';
import { excludeSignature, fullScan, RACY_MS, rescan, statOf, type Hidden, type Scan, type ScanOptions } from './workspace-scan.js';

/** Workspaces with more files than this (outside .gitignore), or more bytes in the files a checkpoint keeps, are not scanned. */
export const WORKSPACE_SCAN_MAX_FILES = 10_000;
export const WORKSPACE_SCAN_MAX_BYTES = 256 * 1024 * 1024;

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
  /** The latest scan; brought up to date by walking the `dirty` folders again, or all when `stale`. */
  private last: Scan | undefined;
  private dirty = new Set<string>();
  private stale = true;
  private readonly watchers = new Map<string, { watcher: FSWatcher; ino: number }>();
  private watching = true;
  /** The scan `known` was last brought up to (by `before`, or by `after`, which records every change it finds). */
  private synced: Scan | undefined;

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
    const scan = this.refresh(hidden);
    if (!scan) {
      if (!this.warned) warn(`the workspace has ${this.tooLarge}, so the changes of bash and other commands are not checkpointed in this session (rewind cannot undo them)`);
      this.warned = true;
      return undefined;
    }
    if (scan === this.synced) return scan; // nothing happened since `known` was brought up to this scan
    const stale = [...scan.files].filter(([path, f]) => this.known.get(path)?.sig !== f.sig || scan.racy.has(path));
    await inParallel(stale, async ([path, f]) => void this.known.set(path, { sig: f.sig, state: await this.captureOr(path) }));
    for (const path of this.known.keys()) if (!scan.files.has(path)) this.known.delete(path); // gone (or now ignored) since
    this.synced = scan;
    return scan;
  }

  /** The files whose state changed between `before` and now, each from its kept state to its state now. */
  async after(before: BeforeScan): Promise<FileChange[]> {
    await settled();
    const now = this.refresh(before.hidden);
    if (!now || now === before) return []; // nothing was written in the workspace since the scan before
    const rulesChanged = now.rules !== before.rules;
    const changes: FileChange[] = [];
    const record = async (path: string, sig: string | undefined) => {
      const was = this.known.get(path)?.state ?? this.absentBefore(path, before);
      const state = sig === undefined ? ({ kind: 'absent' } as FileState) : await this.captureOr(path);
      if (sig === undefined) this.known.delete(path);
      else this.known.set(path, { sig, state });
      if (!sameFileState(was, state)) changes.push({ path, before: was, after: state });
    };
    for (const [path, f] of now.files) {
      const old = before.files.get(path)?.sig;
      if (old === f.sig && !before.racy.has(path)) continue;
      if (old === undefined && rulesChanged && !this.createdSince(path, before)) {
        this.known.set(path, { sig: f.sig, state: await this.captureOr(path) }); // there before, but ignored then: not the call's
        continue;
      }
      await record(path, f.sig);
    }
    for (const path of before.files.keys()) {
      if (now.files.has(path)) continue;
      if (statOf(path) !== undefined) {
        this.known.delete(path); // still there, left out of the scan now (a new ignore rule)
        continue;
      }
      await record(path, undefined);
    }
    this.synced = now; // every file whose signature differs from the scan before was recorded above
    // The scans keep states without flushing them; those the checkpoint entry will name are flushed now.
    for (const c of changes) for (const s of [c.before, c.after]) if (s.kind === 'file') await this.store.flush(s.blob);
    return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Stops watching the workspace (the session is closed or replaced). */
  close(): void {
    for (const { watcher } of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.last = undefined;
    this.stale = true;
  }

  /** The latest scan brought up to date (the same object when nothing happened since); undefined when the workspace is over the limits. */
  private refresh(hidden: Hidden): Scan | undefined {
    if (this.tooLarge) return undefined;
    const opts: ScanOptions = { cwd: this.cwd, own: this.own, hidden, maxFiles: this.maxFiles, maxBytes: this.maxBytes, maxFileBytes: this.store.maxFileBytes };
    const last = this.last;
    const full = this.stale || !this.watching || last === undefined || last.hidden !== hidden || last.exclude !== excludeSignature(this.cwd);
    if (!full && this.dirty.size === 0) return last;
    const dirty = this.dirty;
    this.dirty = new Set(); // from now on, an event means this scan may be out of date
    this.stale = false;
    const scan = full ? fullScan(opts) : rescan(last!, dirty, opts);
    if (typeof scan === 'string') {
      this.tooLarge = scan;
      this.close();
      return undefined;
    }
    this.last = scan;
    this.watch(scan.folders);
    return scan;
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

  /** Watches exactly these folders: an event marks its folder to be walked again (a .gitignore's, or an error, all of them). */
  private watch(folders: ReadonlyMap<string, number>): void {
    if (!this.watching) return;
    for (const [dir, w] of this.watchers) {
      if (folders.get(dir) === w.ino) continue;
      w.watcher.close(); // gone, or another folder now
      this.watchers.delete(dir);
    }
    const ownHere = new Set(this.own.filter((o) => !o.includes('/')));
    for (const [dir, ino] of folders) {
      if (this.watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: false }, (_type, name) => {
          if (dir === this.cwd && name !== null && ownHere.has(String(name))) return;
          if (name === null || String(name) === '.gitignore') this.stale = true;
          this.dirty.add(dir);
        });
        watcher.on('error', () => {
          this.stale = true;
          watcher.close();
          this.watchers.delete(dir);
        });
        this.watchers.set(dir, { watcher, ino });
      } catch {
        this.watching = false; // no watches left (or none here): every scan walks everything
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
