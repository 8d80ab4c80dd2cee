// `mini-agent gc` (issue 26 §3): the checkpoint stores under the sessions folder that can go. A
// store (`X.checkpoints`) goes whole when its session file (`X.jsonl`) is gone (a deleted session),
// or when the session was last written more than `maxAgeDays` ago (its checkpoint entries stay in
// the file; a diff or rewind that needs their objects then says they are missing). In a store that
// stays, the temp files a kill left in the middle of a write go. Session files are never touched.
// Each store is removed under its session's lock, so a session a live process writes is skipped,
// and no process can start writing it meanwhile. Bytes are counted as freed when the last link of
// a file goes (a fork's objects are hard links to its parent's).
import { lstatSync, readdirSync, rmSync, statSync, unlinkSync, type Stats } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { sessionFileOfCheckpoints } from './checkpoint-store.js';
import { acquireSessionLock, SessionLockedError } from './lock.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const OBJECT_NAME = /^[0-9a-f]{62}$/;

export interface GcOptions {
  /** The folder of every workspace's sessions folder (`HOME/sessions`). */
  sessionsRoot: string;
  /** A session not written for this many days loses its checkpoints; 0: never by age. */
  maxAgeDays: number;
  /** Now, in ms since the epoch. */
  now: number;
  /** A store without a session file that was written this recently is left: a fork links its objects before it writes its session file. */
  graceMs: number;
  /** Work out and report what would go; remove nothing. */
  dryRun: boolean;
}

/** Why a store, or some of its files, went. */
export type GcReason = { kind: 'deleted' } | { kind: 'aged'; lastUsed: string } | { kind: 'temp' };

export interface GcRemoval {
  /** The store's folder. */
  dir: string;
  reason: GcReason;
  /** The objects (`temp`: the temp files) removed. */
  files: number;
  /** The bytes those files took. */
  bytes: number;
  /** The bytes freed: those of files whose last link went. */
  freed: number;
}

export interface GcReport {
  removed: GcRemoval[];
  /** Stores that could go but were left, and why (in use, written a moment ago). */
  skipped: { dir: string; why: string }[];
  /** Stores that could not be removed (a permission, an I/O error). */
  failed: { dir: string; error: string }[];
  /** The stores left as they are: their count and the bytes of their objects. */
  kept: { stores: number; bytes: number };
  freed: number;
}

/** Every checkpoint store under the workspace folders of `sessionsRoot`, with its session file. */
export function listCheckpointStores(sessionsRoot: string): { dir: string; sessionFile: string }[] {
  return subfolders(sessionsRoot).flatMap((workspace) =>
    subfolders(workspace).flatMap((dir) => {
      const sessionFile = sessionFileOfCheckpoints(dir);
      return sessionFile === undefined ? [] : [{ dir, sessionFile }];
    }),
  );
}

/** Removes (or with `dryRun` reports) the checkpoints that can go, as the module's head says. */
export function collectCheckpoints(opts: GcOptions): GcReport {
  const report: GcReport = { removed: [], skipped: [], failed: [], kept: { stores: 0, bytes: 0 }, freed: 0 };
  const links = new LinkCount();
  for (const { dir, sessionFile } of listCheckpointStores(opts.sessionsRoot)) {
    const files = storeFiles(dir);
    const reason = reasonFor(sessionFile, files, opts);
    if (reason === undefined) {
      report.kept.stores++;
      report.kept.bytes += sum(files.filter((f) => f.object));
      continue;
    }
    if (reason.kind === 'deleted' && newest(dir, files) > opts.now - opts.graceMs) {
      report.skipped.push({ dir, why: 'its session file is missing, but the store was written a moment ago (a fork may be writing it); run gc again later' });
      continue;
    }
    let lock;
    try {
      lock = acquireSessionLock(sessionFile, basename(sessionFile));
    } catch (err) {
      if (err instanceof SessionLockedError) report.skipped.push({ dir, why: `its session is in use by pid ${err.pid}` });
      else report.failed.push({ dir, error: `cannot take its session's lock: ${(err as Error).message}` });
      continue;
    }
    try {
      // Decided again under the lock: the session may have been written, or recreated, meanwhile.
      const current = storeFiles(dir);
      const sure = reasonFor(sessionFile, current, opts);
      if (sure === undefined || sure.kind !== reason.kind) {
        report.kept.stores++;
        report.kept.bytes += sum(current.filter((f) => f.object));
        continue;
      }
      const going = sure.kind === 'temp' ? current.filter((f) => f.temp) : current;
      if (!opts.dryRun) {
        if (sure.kind === 'temp') for (const f of going) unlinkSync(f.path);
        else rmSync(dir, { recursive: true, force: true });
      }
      const freed = going.reduce((n, f) => n + links.remove(f.stats), 0);
      report.freed += freed;
      report.removed.push({ dir, reason: sure, files: sure.kind === 'temp' ? going.length : going.filter((f) => f.object).length, bytes: sum(going), freed });
      if (sure.kind === 'temp') {
        report.kept.stores++;
        report.kept.bytes += sum(current.filter((f) => f.object));
      }
    } catch (err) {
      report.failed.push({ dir, error: (err as Error).message });
    } finally {
      lock.release();
    }
  }
  return report;
}

/** Why the store of `sessionFile` (or its temp files) can go, or undefined when it stays as it is. */
function reasonFor(sessionFile: string, files: readonly StoreFile[], opts: GcOptions): GcReason | undefined {
  const session = statOrUndefined(sessionFile);
  if (session === undefined) return { kind: 'deleted' };
  if (opts.maxAgeDays > 0 && session.mtimeMs < opts.now - opts.maxAgeDays * DAY_MS) return { kind: 'aged', lastUsed: session.mtime.toISOString() };
  return files.some((f) => f.temp) ? { kind: 'temp' } : undefined;
}

interface StoreFile {
  path: string;
  stats: Stats;
  /** An object (`objects/AB/CDEF…`). */
  object: boolean;
  /** A temp file a kill left while an object was written. */
  temp: boolean;
}

/** The files of a store: its objects, temp files and anything else in it (all go when the store goes). */
function storeFiles(dir: string): StoreFile[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true }).map(String);
  } catch {
    return [];
  }
  const files: StoreFile[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const stats = lstatOrUndefined(path);
    if (!stats || stats.isDirectory()) continue;
    const parts = relative(dir, path).split('/');
    const object = parts.length === 3 && parts[0] === 'objects' && OBJECT_NAME.test(parts[2]) && /^[0-9a-f]{2}$/.test(parts[1]);
    files.push({ path, stats, object, temp: !object && parts[0] === 'objects' && path.endsWith('.tmp') });
  }
  return files;
}

/** The latest write in a store: its folders' and files' modification times. */
function newest(dir: string, files: readonly StoreFile[]): number {
  const folders = [dir, join(dir, 'objects'), ...subfolders(join(dir, 'objects'))];
  return Math.max(0, ...folders.map((f) => statOrUndefined(f)?.mtimeMs ?? 0), ...files.map((f) => f.stats.mtimeMs));
}

/** Counts the links of each file removed: its bytes are freed when its last link goes. */
class LinkCount {
  private readonly removed = new Map<string, number>();

  remove(stats: Stats): number {
    const key = `${stats.dev}:${stats.ino}`;
    const n = (this.removed.get(key) ?? 0) + 1;
    this.removed.set(key, n);
    return n === stats.nlink ? stats.size : 0;
  }
}

const sum = (files: readonly StoreFile[]): number => files.reduce((n, f) => n + f.stats.size, 0);

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(dir, d.name));
  } catch {
    return [];
  }
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
