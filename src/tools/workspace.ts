// The workspace boundary, shared by every file tool: a path must stay inside the workspace (or a
// folder the user allowed with --allow-path), both as written (no `..` or absolute path leading
// out) and after realpath (no symbolic link, or symlinked folder, pointing out). For a path that
// does not exist yet, the deepest existing ancestor is resolved. Known limits (DESIGN.md §6): a
// link swapped in between the check and the use (TOCTOU), and hard links, are not caught.
import { lstatSync, realpathSync as realpathJs } from 'node:fs';

// The operating system's realpath: one call where Node's JavaScript version walks the path a
// component at a time (half the time here). Every tool call resolves its paths a few times.
const realpathSync = realpathJs.native;
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from './tool.js';

/** Where tools may go: the workspace root, and folders the user allowed explicitly. */
export interface Boundary {
  /** The workspace root. */
  cwd: string;
  /** Absolute folders outside the workspace that tools may also use (`--allow-path DIR`). */
  allowedPaths?: readonly string[];
  /** Absolute folders outside the workspace that may be read but never written (the user's skills). */
  readOnlyPaths?: readonly string[];
}

export function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

/** The roots as given and as realpath resolves them (a root that does not exist is skipped). */
function roots(b: Boundary, forWrite: boolean): { lexical: string[]; real: string[] } {
  const given = [b.cwd, ...(b.allowedPaths ?? []), ...(forWrite ? [] : (b.readOnlyPaths ?? []))].map((p) => resolve(p));
  const real: string[] = [];
  for (const p of given) {
    try {
      real.push(realpathSync(p));
    } catch {
      /* an allowed folder that does not exist allows nothing */
    }
  }
  return { lexical: [...given, ...real], real };
}

function outside(input: string, b: Boundary, why = ''): ToolError {
  const also = b.allowedPaths?.length ? ` or the allowed paths (${b.allowedPaths.join(', ')})` : '';
  return new ToolError(`path "${input}" is outside the workspace (${realOr(b.cwd)})${also}${why}; only paths inside it are allowed (the user can widen this with --allow-path DIR)`);
}

/** The real path of `p`, or `p` resolved when it does not exist. */
export function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** Checks the path as written: relative to the workspace, or absolute inside a root. */
function lexical(b: Boundary, input: string, forWrite = false): { abs: string; real: string[] } {
  if (typeof input !== 'string' || input.trim() === '') throw new ToolError('path must be a non-empty string');
  if (input.includes('\0')) throw new ToolError('path must not contain NUL bytes');
  const r = roots(b, forWrite);
  const abs = resolve(b.cwd, input);
  if (!r.lexical.some((root) => inside(root, abs))) throw outside(input, b);
  return { abs, real: r.real };
}

/** Resolves an existing path (file or folder) for reading. Returns the real path, inside a root. */
export function resolveForRead(b: Boundary, input: string): string {
  const { abs, real: realRoots } = lexical(b, input);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ToolError(`file not found: ${input}`);
    if (code === 'EACCES') throw new ToolError(`permission denied: ${input}`);
    if (code === 'ELOOP') throw new ToolError(`path "${input}" leads through a loop of symbolic links`);
    throw new ToolError(`cannot resolve ${input}: ${(err as Error).message}`);
  }
  if (!realRoots.some((root) => inside(root, real))) throw outside(input, b, ' through a symbolic link');
  return real;
}

/**
 * Resolves a path for writing; the file and its parent folders may not exist yet. The deepest
 * existing ancestor is resolved with realpath, so a symlinked folder cannot lead outside, and an
 * existing file that is a symlink must point inside. A dangling link is refused (writing through
 * it would create its target, wherever that is).
 */
export function resolveForWrite(b: Boundary, input: string): string {
  if (typeof input === 'string' && /[/\\]$/.test(input)) throw new ToolError(`path "${input}" names a folder; give a file path`);
  const { abs, real: realRoots } = lexical(b, input, true);
  const missing: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      const real = realpathSync(cur);
      if (!realRoots.some((root) => inside(root, real))) throw outside(input, b, ' through a symbolic link');
      return missing.length ? join(real, ...missing.reverse()) : real;
    } catch (err) {
      if (err instanceof ToolError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new ToolError(`path "${input}" leads through a loop of symbolic links`);
      if (code === 'ENOTDIR') throw new ToolError(`path "${input}" goes through a file as if it were a folder`);
      if (code !== 'ENOENT') throw new ToolError(`cannot resolve ${input}: ${(err as Error).message}`);
      if (isSymlink(cur)) throw new ToolError(`path "${input}" leads through a symbolic link whose target does not exist; refusing to write through it`);
      const parent = dirname(cur);
      if (parent === cur) throw outside(input, b);
      missing.push(basename(cur));
      cur = parent;
    }
  }
}

function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The path as the model should see it: relative to the workspace, or absolute when it is in an allowed folder outside. */
export function displayPath(b: Boundary | string, real: string): string {
  const root = realOr(typeof b === 'string' ? b : b.cwd);
  if (!inside(root, real)) return real;
  const rel = relative(root, real);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/** True when the real path is inside the workspace itself (not only in an allowed folder). */
export function inWorkspace(b: Boundary, real: string): boolean {
  return inside(realOr(b.cwd), real);
}
