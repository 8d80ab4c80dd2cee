// The workspace boundary: every path a tool touches must stay inside the workspace,
// both as written (no `..` or outside absolute path) and after realpath (no symlink out).
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from './tool.js';

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

function outside(input: string, root: string, why = ''): ToolError {
  return new ToolError(`path "${input}" is outside the workspace (${root})${why}; only paths inside the workspace are allowed`);
}

function realRoot(cwd: string): string {
  return realpathSync(cwd);
}

/** Checks the path as written: relative to the workspace, or absolute inside it. */
function lexical(cwd: string, input: string): { abs: string; root: string } {
  if (typeof input !== 'string' || input.trim() === '') throw new ToolError('path must be a non-empty string');
  if (input.includes('\0')) throw new ToolError('path must not contain NUL bytes');
  const root = realRoot(cwd);
  const abs = resolve(cwd, input);
  if (!inside(resolve(cwd), abs) && !inside(root, abs)) throw outside(input, root);
  return { abs, root };
}

/** Resolves an existing path for reading. Returns the real path, inside the workspace. */
export function resolveForRead(cwd: string, input: string): string {
  const { abs, root } = lexical(cwd, input);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ToolError(`file not found: ${input}`);
    if (code === 'EACCES') throw new ToolError(`permission denied: ${input}`);
    throw new ToolError(`cannot resolve ${input}: ${(err as Error).message}`);
  }
  if (!inside(root, real)) throw outside(input, root, ' through a symbolic link');
  return real;
}

/**
 * Resolves a path for writing; the file and its parent folders may not exist yet.
 * The nearest existing ancestor is resolved with realpath, so a symlinked folder
 * cannot lead outside, and an existing file that is a symlink must point inside.
 */
export function resolveForWrite(cwd: string, input: string): string {
  if (typeof input === 'string' && /[/\\]$/.test(input)) throw new ToolError(`path "${input}" names a folder; give a file path`);
  const { abs, root } = lexical(cwd, input);
  const missing: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      const real = realpathSync(cur);
      if (!inside(root, real)) throw outside(input, root, ' through a symbolic link');
      return missing.length ? join(real, ...missing.reverse()) : real;
    } catch (err) {
      if (err instanceof ToolError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new ToolError(`cannot resolve ${input}: ${(err as Error).message}`);
      if (isDanglingLink(cur)) throw new ToolError(`path "${input}" leads through a symbolic link whose target does not exist; refusing to write through it`);
      const parent = dirname(cur);
      if (parent === cur) throw outside(input, root);
      missing.push(basename(cur));
      cur = parent;
    }
  }
}

function isDanglingLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The path as the model should see it: relative to the workspace. */
export function displayPath(cwd: string, real: string): string {
  const rel = relative(realRoot(cwd), real);
  return rel === '' ? '.' : rel;
}
