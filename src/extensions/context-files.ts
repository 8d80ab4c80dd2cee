// Context files: the AGENTS.md (or CLAUDE.md) instructions that go into the system prompt, re-read
// at each run so they survive compaction, and the nested ones a file tool's result brings in.
//
// Which files, in which order (the order the model reads them):
//   1. the user's own: $MINI_AGENT_HOME/AGENTS.md, or CLAUDE.md there when there is no AGENTS.md;
//   2. every folder from the filesystem root down to the workspace (cwd) inclusive: its AGENTS.md,
//      or its CLAUDE.md when it has no AGENTS.md (or its AGENTS.md cannot be read).
// General first, specific last, so that the workspace's rules come last and read as overriding.
// The same real file is loaded once, at its first place (the home inside the walk, symlinks);
// empty or whitespace-only files are skipped; an unreadable one (EACCES, a folder named
// AGENTS.md) is a notice.
//
// The cap (the total bytes included, `maxBytes`, markers included) is filled from the most
// specific file outward: the workspace's file, then its parent's, and so on up to the root, and
// the user's own file last. Why: the workspace's file is the one written for this code, and a
// later file overrides an earlier one, so cutting the general files first loses the least; a
// plain in-order fill would drop the workspace's file, the one that matters most, whenever a
// far-away file (a stray /AGENTS.md, a big home file) is large. Each file gets what is left of
// the budget: whole when it fits; else its head, cut at the last line that fits, followed by a
// marker line saying how much was shown; nothing (omitted) when not even the marker and a line
// fit. Every cut and omitted file has a notice naming it and its sizes; in the system prompt a
// left-out file keeps its heading and one line saying it did not fit, so the model knows it exists.
//
// Who may speak: a file from a folder *above* the workspace is loaded only when it is safe in
// the sense of git's safe.directory and ssh's StrictModes (see ownership.ts): the file and its
// folder are owned by the user or root, and neither is writable by others. Otherwise a notice
// names the file and why. The workspace's own file and the user's (the home) load as before.
import { closeSync, fstatSync, openSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { CONFIG_TABLE } from '../core/config-table.js';
import { readAt } from '../core/read-at.js';
import { estimateTextTokens } from '../session/tokens.js';
import { inside } from '../tools/workspace.js';
import { currentUser, unsafeContextFile, type User } from './ownership.js';

export interface ContextFile {
  /** Absolute path, as found (not resolved through symlinks). */
  path: string;
  scope: 'user' | 'ancestor' | 'workspace';
  /** Size on disk. */
  bytes: number;
  /** Estimated tokens of `text`. */
  tokens: number;
  /** What is included: the whole file, or its head and a marker line when cut; '' when omitted. */
  text: string;
  truncated: boolean;
  /** Nothing of it fits under the cap. */
  omitted: boolean;
}

export interface LoadedContext {
  files: ContextFile[];
  /** Bytes on disk of every file found. */
  totalBytes: number;
  /** Bytes of the included text (markers included); never above `maxBytes`. */
  includedBytes: number;
  maxBytes: number;
  /** One line per cut or omitted file, and per file that could not be read. */
  notices: string[];
}

/** The configuration's default cap (core/config-table.ts), for callers that give none. */
export const DEFAULT_CONTEXT_MAX_BYTES = CONFIG_TABLE['contextFiles.maxBytes'].default;
export const DEFAULT_NESTED_MAX_BYTES = 16 * 1024;
export const CONTEXT_FILE_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const;

interface Found {
  path: string;
  real: string;
  size: number;
  /** The file's first min(size, limit) bytes. */
  head: Buffer;
  /** Empty, or only whitespace: skipped (it would cost a heading and say nothing). */
  blank: boolean;
  /** The opened file's stat (owner and mode, for the ownership check). */
  stat: Stats;
}

/** Whether bytes are only ASCII whitespace (a leading UTF-8 byte-order mark aside). */
function blankBytes(buf: Buffer, atStart: boolean): boolean {
  let i = atStart && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  for (; i < buf.length; i++) if (buf[i] !== 0x20 && (buf[i] < 0x09 || buf[i] > 0x0d)) return false;
  return true;
}

/**
 * Reads at most `limit` bytes of a regular file, and whether the whole file is blank (read on
 * past the limit only while it still is); `undefined` when it does not exist; throws an Error
 * saying why otherwise.
 */
function readHead(path: string, limit: number): Omit<Found, 'path'> | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Error(code === 'EACCES' ? 'permission denied' : (err as Error).message);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(st.isDirectory() ? 'it is a folder, not a file' : 'it is not a regular file');
    const head = readAt(fd, 0, Math.min(st.size, limit));
    let blank = blankBytes(head, true);
    for (let at = head.length; blank && at < st.size; ) {
      const chunk = readAt(fd, at, 64 * 1024);
      if (chunk.length === 0) break;
      blank = blankBytes(chunk, false);
      at += chunk.length;
    }
    return { real: realpathSync(path), size: st.size, head, blank, stat: st };
  } finally {
    closeSync(fd);
  }
}

/** A folder's context file: the first of AGENTS.md, CLAUDE.md that exists and can be read (an unreadable one is a notice). */
function findInFolder(dir: string, limit: number, notices: string[]): Found | undefined {
  for (const name of CONTEXT_FILE_NAMES) {
    const path = join(dir, name);
    try {
      const got = readHead(path, limit);
      if (got) return { path, ...got };
    } catch (err) {
      notices.push(`context file ${path} was not loaded: ${(err as Error).message}`);
    }
  }
  return undefined;
}

/** The folders from the filesystem root down to `cwd`, inclusive. */
export function foldersDownTo(cwd: string): string[] {
  const abs = resolve(cwd);
  const out: string[] = [];
  for (let d = abs; ; d = dirname(d)) {
    out.push(d);
    if (dirname(d) === d) break;
  }
  return out.reverse();
}

/** The largest end ≤ `end` at which `buf.subarray(0, end)` does not split a UTF-8 character. */
function utf8Boundary(buf: Buffer, end: number): number {
  let i = end;
  // Back over continuation bytes (10xxxxxx) to the lead byte, then drop that lead byte when its character would not be whole.
  while (i > 0 && (buf[i - 1] & 0xc0) === 0x80) i--;
  if (i === 0) return 0;
  const lead = buf[i - 1];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return end - (i - 1) >= need ? end : i - 1;
}

/**
 * The head of `buf` in at most `budget` bytes: up to its last newline that fits, or (a single
 * line longer than the budget) up to the last whole UTF-8 character that fits.
 */
export function headWithin(buf: Buffer, budget: number): Buffer {
  if (buf.length <= budget) return buf;
  if (budget <= 0) return buf.subarray(0, 0);
  const nl = buf.lastIndexOf(0x0a, budget - 1);
  return buf.subarray(0, nl >= 0 ? nl + 1 : utf8Boundary(buf, budget));
}

export function cutMarker(shown: number, total: number, path: string, cap: string): string {
  return `[… cut: ${shown} of ${total} bytes of ${path} shown; ${cap}]`;
}

/**
 * `head` (the file's first bytes) fitted into `budget` bytes, marker included: the whole text when
 * the file fits, else its head and a marker line, or undefined when not even the marker and one
 * byte of text fit.
 */
function fit(head: Buffer, size: number, budget: number, path: string, cap: string): { text: string; shown: number } | undefined {
  if (size <= budget && head.length === size) return { text: head.toString('utf8'), shown: size };
  // The marker is sized with the total in place of the shown count: never shorter than the real one.
  const room = budget - Buffer.byteLength('\n' + cutMarker(size, size, path, cap));
  const part = headWithin(head, room);
  if (part.length === 0) return undefined;
  const body = part.toString('utf8');
  return { text: `${body}${body.endsWith('\n') ? '' : '\n'}${cutMarker(part.length, size, path, cap)}`, shown: part.length };
}

/**
 * Loads the context files for a workspace (see the module comment for the order, the cap and the
 * ownership rule). `home`: the agent's home folder, where the user's own file is. `user` is who runs us (default: this process; undefined where the platform
 * has no uids, and then no ownership check is made).
 */
export function loadContextFiles(opts: { cwd: string; home: string; maxBytes?: number; user?: User | null }): LoadedContext {
  const maxBytes = Math.max(0, Math.floor(opts.maxBytes ?? DEFAULT_CONTEXT_MAX_BYTES));
  const user = opts.user === undefined ? currentUser() : opts.user;
  const notices: string[] = [];
  const seen = new Set<string>();
  const found: Array<Found & { scope: ContextFile['scope'] }> = [];
  const add = (f: Found | undefined, scope: ContextFile['scope']) => {
    if (!f || seen.has(f.real)) return;
    seen.add(f.real);
    if (f.blank) return;
    const unsafe = scope === 'ancestor' && user ? unsafeContextFile(f.path, f.real, f.stat, user) : undefined;
    if (unsafe) {
      notices.push(`context file ${f.path} was not loaded: ${unsafe}; a file above the workspace must be owned by you or root, in a folder only its owner can write (like git's safe.directory)`);
      return;
    }
    found.push({ ...f, scope });
  };
  add(findInFolder(opts.home, maxBytes, notices), 'user');
  const folders = foldersDownTo(opts.cwd);
  folders.forEach((dir, i) => add(findInFolder(dir, maxBytes, notices), i === folders.length - 1 ? 'workspace' : 'ancestor'));

  const cap = `the context-file cap is ${maxBytes} bytes`;
  const files: ContextFile[] = found.map((f) => ({ path: f.path, scope: f.scope, bytes: f.size, tokens: 0, text: '', truncated: false, omitted: true }));
  const shown: number[] = found.map(() => 0);
  let left = maxBytes;
  // Most specific first: the walk's files from the workspace up, then the user's (index 0 when present).
  const priority = found.map((_, i) => i).sort((a, b) => rank(found, b) - rank(found, a));
  for (const i of priority) {
    const f = found[i];
    const got = fit(f.head, f.size, left, f.path, cap);
    if (!got) continue;
    left -= Buffer.byteLength(got.text);
    shown[i] = got.shown;
    files[i] = { ...files[i], text: got.text, tokens: estimateTextTokens(got.text), truncated: got.shown < f.size, omitted: false };
  }
  for (const [i, f] of files.entries()) {
    if (f.truncated) notices.push(`context file ${f.path} was cut: ${shown[i]} of ${f.bytes} bytes shown (${cap}; files nearer the workspace are kept first)`);
    else if (f.omitted) notices.push(`context file ${f.path} (${f.bytes} bytes) was left out: ${cap}, filled by files nearer the workspace`);
  }
  return {
    files,
    totalBytes: files.reduce((n, f) => n + f.bytes, 0),
    includedBytes: files.reduce((n, f) => n + Buffer.byteLength(f.text), 0),
    maxBytes,
    notices,
  };
}

/** Priority of a found file: the user's lowest, then by position in the walk (deeper is higher). */
function rank(found: ReadonlyArray<{ scope: ContextFile['scope'] }>, i: number): number {
  return found[i].scope === 'user' ? -1 : i;
}

/** A path as the model should see it: relative to the workspace when inside it, else absolute. */
function display(path: string, cwd: string): string {
  const root = resolve(cwd);
  return inside(root, path) ? relative(root, path) || '.' : path;
}

/** The system prompt's section for the loaded files; '' when there are none. */
export function contextSection(loaded: LoadedContext, cwd: string): string {
  if (loaded.files.length === 0) return '';
  const parts = [
    '# Project instructions',
    'These are instructions from AGENTS.md and CLAUDE.md files, in order from the most general to the most specific: ' +
      "the user's own file (from the mini-agent home), then the folders from the filesystem root down to the workspace. " +
      'When two disagree, the later, more specific one wins. The files in the workspace and the folders above it were ' +
      "written by the repository's authors, not by the user: follow them for how to work in this project, but the " +
      "user's own requests come first.",
  ];
  for (const f of loaded.files) {
    const body = f.omitted ? `[not shown: this file has ${f.bytes} bytes and did not fit under the context-file cap of ${loaded.maxBytes} bytes]` : f.text.trimEnd();
    parts.push(`## ${display(f.path, cwd)}\n\n${body}`);
  }
  return parts.join('\n\n');
}

export interface NestedContextTracker {
  /** Forgets which folders' instructions were given (at the start of each run). */
  reset(): void;
  /**
   * For the real paths a file tool touched: the text to append to its result, one notice line and
   * the instructions for every folder strictly below the workspace, from the workspace down to the
   * path (the path itself when it is a folder), that holds AGENTS.md (or CLAUDE.md) and was not
   * given since the last reset(), outer folders first; undefined when there is none.
   */
  forPaths(paths: readonly string[]): string | undefined;
}

/** Folders the tracker never looks into: dependencies and git's own data carry no instructions for us. */
const SKIPPED = new Set(['node_modules', '.git']);

/**
 * Nested context files: an AGENTS.md below the workspace root is not loaded up front (a monorepo
 * would fill the context); it is appended to the result of the first file tool that touches a
 * path under its folder, once per run. Files are read fresh on every call (they may change
 * between runs, or during one); an unreadable one is skipped, and tried again next time.
 */
export function nestedContextTracker(opts: { cwd: string; maxBytes?: number }): NestedContextTracker {
  const maxBytes = Math.max(0, Math.floor(opts.maxBytes ?? DEFAULT_NESTED_MAX_BYTES));
  const lexicalRoot = resolve(opts.cwd);
  let realRoot = lexicalRoot;
  try {
    realRoot = realpathSync(lexicalRoot);
  } catch {
    /* a workspace that does not exist has no nested files; paths are then matched as written */
  }
  const given = new Set<string>();

  /** The folders strictly below the workspace on the way to `path`, outer first; [] when outside or skipped. */
  const chain = (path: string): { root: string; dirs: string[] } => {
    const abs = resolve(path);
    const root = [realRoot, lexicalRoot].find((r) => inside(r, abs));
    if (!root) return { root: realRoot, dirs: [] };
    const rel = relative(root, abs);
    if (rel === '') return { root, dirs: [] };
    const parts = rel.split(sep);
    if (parts.some((p) => SKIPPED.has(p))) return { root, dirs: [] };
    let isDir = false;
    try {
      isDir = statSync(abs).isDirectory();
    } catch {
      /* a path that is gone (or not yet there) is treated as a file */
    }
    const depth = isDir ? parts.length : parts.length - 1;
    const dirs: string[] = [];
    for (let i = 1; i <= depth; i++) dirs.push(join(root, ...parts.slice(0, i)));
    return { root, dirs };
  };

  return {
    reset: () => given.clear(),
    forPaths(paths) {
      let out = '';
      for (const p of paths) {
        const { root, dirs } = chain(p);
        for (const dir of dirs) {
          if (given.has(dir)) continue;
          const f = findInFolder(dir, maxBytes, []);
          if (!f) continue;
          given.add(dir);
          if (f.blank) continue;
          const shownPath = relative(root, f.path);
          const cap = `nested instructions are capped at ${maxBytes} bytes per file`;
          const body = fit(f.head, f.size, maxBytes, shownPath, cap)?.text ?? `[not shown: ${shownPath} has ${f.size} bytes; ${cap}]`;
          out += `\n\n[Instructions for ${relative(root, dir)}/ from ${shownPath}, shown once this run:]\n${body.trimEnd()}`;
        }
      }
      return out === '' ? undefined : out;
    },
  };
}
