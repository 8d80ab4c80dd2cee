// The scans of the workspace that bash's checkpoints compare (workspace-checkpoints.ts): every
// file and symlink outside .gitignore (and outside what `hidden` covers), each with a signature
// that changes when the file does (mode, size, inode, times), and every folder with its inode.
// A full scan walks the whole workspace; a rescan starts from the previous scan and walks again
// only the folders an event came from (and, whole, any folder new or replaced under them), since
// a file cannot change without an event from its own folder. Both stop, with the reason, past the
// limits. I/O at the edge: synchronous lstat and readdir, nothing written.
import { lstatSync, type Stats } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { newWalkStats, walkTree } from '../tools/walk.js';

/** File times are coarse (a kernel tick): a file changed this close to a scan is compared by content too. */
export const RACY_MS = 50;
const NEVER = new AbortController().signal;

export type Hidden = ((path: string) => boolean) | undefined;

export interface ScannedFile {
  /** What tells a changed file from an unchanged one without reading it. */
  sig: string;
  /** The bytes a checkpoint would keep of it (0 for a symlink or a file over the cap). */
  bytes: number;
}

export interface Scan {
  files: Map<string, ScannedFile>;
  /** Each folder scanned, with its inode (a folder replaced by another of the same name is new). */
  folders: Map<string, number>;
  /** The signature of the ignore rules (the .gitignore files and .git/info/exclude). */
  rules: string;
  /** The signature of .git/info/exclude alone (not watched: a change there calls for a full scan). */
  exclude: string;
  /** Date.now() when the scan began. */
  at: number;
  /** Files whose signature was taken so soon after they changed that a later change in the same tick would keep it. */
  racy: Set<string>;
  hidden: Hidden;
  bytes: number;
}

export interface ScanOptions {
  cwd: string;
  /** The session's own files, as shown paths: never scanned. */
  own: readonly string[];
  hidden: Hidden;
  maxFiles: number;
  maxBytes: number;
  /** Files larger than this are not kept by a checkpoint, so they do not count towards maxBytes. */
  maxFileBytes: number;
}

/** Walks the whole workspace; a string says why it was not scanned (over a limit). */
export function fullScan(opts: ScanOptions): Scan | string {
  const exclude = excludeSignature(opts.cwd);
  const scan: Scan = { files: new Map(), folders: new Map(), rules: exclude, exclude, at: Date.now(), racy: new Set(), hidden: opts.hidden, bytes: 0 };
  scan.folders.set(opts.cwd, statOf(opts.cwd)?.ino ?? 0);
  const over = addTree(scan, opts, opts.cwd, Infinity);
  if (over) return over;
  scan.rules = rulesOf(scan);
  return scan;
}

/**
 * The previous scan brought up to date: the folders in `dirty` walked again (their own entries; a
 * folder new or replaced under them, whole; one gone, with all under it). The ignore rules must
 * not have changed (an event from a .gitignore calls for a full scan).
 */
export function rescan(prev: Scan, dirty: ReadonlySet<string>, opts: ScanOptions): Scan | string {
  const scan: Scan = { ...prev, files: new Map(prev.files), folders: new Map(prev.folders), racy: new Set(prev.racy), at: Date.now() };
  for (const dir of [...dirty].sort((a, b) => a.length - b.length)) {
    if (!scan.folders.has(dir)) continue; // gone with a parent already, or never scanned (ignored)
    const st = statOf(dir);
    if (!st?.isDirectory() || st.ino !== scan.folders.get(dir)) {
      removeTree(scan, dir);
      if (st?.isDirectory()) {
        scan.folders.set(dir, st.ino);
        const over = addTree(scan, opts, dir, Infinity);
        if (over) return over;
      }
      continue;
    }
    for (const path of [...scan.files.keys()]) if (dirname(path) === dir) removeFile(scan, path);
    const listed = new Set<string>();
    const over = addTree(scan, opts, dir, 1, (sub, ino) => {
      listed.add(sub);
      if (scan.folders.get(sub) === ino) return false; // the same folder: its own events say if it changed
      removeTree(scan, sub);
      return true;
    });
    if (over) return over;
    for (const sub of [...scan.folders.keys()]) if (dirname(sub) === dir && !listed.has(sub)) removeTree(scan, sub);
  }
  scan.rules = rulesOf(scan);
  return scan;
}

/**
 * Adds what is under `root` (to `depth`) to the scan. A folder found is added with its inode and
 * walked whole, unless `known` (at depth 1) says it is already in the scan as it is.
 */
function addTree(scan: Scan, opts: ScanOptions, root: string, depth: number, known?: (folder: string, ino: number) => boolean): string | undefined {
  const left = (shown: string) => opts.own.some((o) => shown === o || shown.startsWith(o + '/')) || opts.hidden?.(shown) === true;
  const shown = root === opts.cwd ? '.' : relative(opts.cwd, root).split(sep).join('/');
  for (const entry of walkTree({ cwd: opts.cwd, hidden: left }, { real: root, shown, isDir: true, isFile: false }, { signal: NEVER, maxDepth: depth }, newWalkStats())) {
    if (entry.kind === 'other') continue;
    const st = statOf(entry.abs);
    if (!st) continue; // removed while the scan ran
    if (entry.kind === 'dir') {
      if (known && !known(entry.abs, st.ino)) continue;
      scan.folders.set(entry.abs, st.ino);
      if (depth !== Infinity) {
        const over = addTree(scan, opts, entry.abs, Infinity);
        if (over) return over;
      }
      continue;
    }
    const bytes = st.isFile() && st.size <= opts.maxFileBytes ? st.size : 0;
    scan.files.set(entry.abs, { sig: signature(st), bytes });
    scan.bytes += bytes;
    if (st.mtimeMs >= scan.at - RACY_MS || st.ctimeMs >= scan.at - RACY_MS) scan.racy.add(entry.abs);
    else scan.racy.delete(entry.abs);
    if (scan.files.size > opts.maxFiles) return `more than ${opts.maxFiles} files outside .gitignore`;
    if (scan.bytes > opts.maxBytes) return `more than ${Math.round(opts.maxBytes / 2 ** 20)} MB in files outside .gitignore`;
  }
  return undefined;
}

function removeFile(scan: Scan, path: string): void {
  scan.bytes -= scan.files.get(path)?.bytes ?? 0;
  scan.files.delete(path);
  scan.racy.delete(path);
}

/** Takes a folder and everything under it out of the scan. */
function removeTree(scan: Scan, dir: string): void {
  const prefix = dir + sep;
  for (const path of [...scan.files.keys()]) if (path.startsWith(prefix)) removeFile(scan, path);
  for (const folder of [...scan.folders.keys()]) if (folder === dir || folder.startsWith(prefix)) scan.folders.delete(folder);
}

/** The signature of .git/info/exclude: a change there calls for a full scan (it is not watched). */
export function excludeSignature(cwd: string): string {
  return signature(statOf(`${cwd}/.git/info/exclude`));
}

/** The ignore rules' signature: .git/info/exclude and every .gitignore in the scan. */
function rulesOf(scan: Scan): string {
  const lines = [scan.exclude];
  for (const [path, f] of scan.files) if (path.endsWith(`${sep}.gitignore`)) lines.push(`${path} ${f.sig}`);
  return lines.join('\n');
}

export function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function signature(st: Stats | undefined): string {
  return st ? `${st.mode} ${st.size} ${st.ino} ${st.mtimeMs} ${st.ctimeMs}` : '-';
}
