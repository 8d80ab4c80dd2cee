// The tree walker shared by list_dir, grep and find: a depth-first walk of a folder inside the
// workspace that yields entries in byte order of their paths, skips `.git` and what the
// .gitignore files say, never follows a symbolic link, and stops when the run is aborted.
// The .gitignore files that apply are the nested ones (each for its own folder and below) and
// those of the folders above the start, up to the git repository's root (or the workspace root
// outside a repository), plus .git/info/exclude. Every file's rules are rebased onto that root
// and kept in one `ignore` matcher, so precedence (a deeper file wins, the last rule of a file
// wins) and "a file in an excluded folder cannot be re-included" work as in git.
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { compileGlob } from './glob-match.js';
import { ToolError, type ToolContext } from './tool.js';
import { displayPath, inside, resolveForRead } from './workspace.js';

export type EntryKind = 'file' | 'dir' | 'symlink' | 'other';

export interface WalkEntry {
  /** The path as the model sees it (see displayPath): '/'-separated, relative to the workspace. */
  shown: string;
  /** The path on disk. */
  abs: string;
  name: string;
  kind: EntryKind;
  /** 1 for the start folder's own entries. */
  depth: number;
}

/** The file or folder a search starts at, resolved through the workspace boundary. */
export interface SearchRoot {
  real: string;
  shown: string;
  isDir: boolean;
  isFile: boolean;
}

/** What a walk left out, for the tools' notices. */
export interface WalkStats {
  /** Entries skipped because a .gitignore rule matched them (a folder counts once). */
  ignored: number;
  /** The first few of them, as shown paths (folders end with '/'). */
  ignoredSamples: string[];
  /** Folders that could not be listed (permission denied, removed meanwhile). */
  unreadable: number;
  /** True when the start folder is itself ignored by a .gitignore above it: it was walked anyway, with only the rules inside it. */
  rootIgnored: boolean;
  /** Entries left out because a deny rule covers them (ToolContext.hidden; a folder counts once and is not entered). */
  hidden: number;
}

export interface WalkOptions {
  signal: AbortSignal;
  /** Depth of the deepest entries yielded (1 = only the start folder's own entries); default unlimited. */
  maxDepth?: number;
}

const GITIGNORE_MAX_BYTES = 1024 * 1024;
const SAMPLES = 5;
/** Git's default: case-sensitive rules, except on the file systems that usually are not. */
const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

export function newWalkStats(): WalkStats {
  return { ignored: 0, ignoredSamples: [], unreadable: 0, rootIgnored: false, hidden: 0 };
}

/** Resolves a tool's `path` argument (default: the workspace root) for a search. */
export function openSearchRoot(ctx: Pick<ToolContext, 'cwd' | 'allowedPaths'>, path: string | undefined): SearchRoot {
  const real = resolveForRead(ctx, path ?? '.');
  const st = statSync(real);
  return { real, shown: displayPath(ctx, real), isDir: st.isDirectory(), isFile: st.isFile() };
}

/**
 * Compares two strings in the byte order of their UTF-8 encodings (which is code point order).
 * Plain `<` compares UTF-16 code units, which differs only between a surrogate and U+E000–U+FFFF.
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000; // surrogates (astral characters) sort after the rest of the BMP
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * A .gitignore line of the folder `dir` ('/'-separated, relative to the rules' root; '' for the
 * root itself) rewritten as a rule relative to the root; undefined for a blank line or a comment.
 * A pattern with a slash before its end is anchored to its folder; one without matches at any depth below it.
 */
export function rebaseRule(line: string, dir: string): string | undefined {
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.trim() === '' || line.startsWith('#')) return undefined;
  if (dir === '') return line;
  let negation = '';
  let body = line;
  if (body.startsWith('!')) {
    negation = '!';
    body = body.slice(1);
  }
  if (body.startsWith('\\!') || body.startsWith('\\#')) body = body.slice(1); // a literal ! or #, plain in mid-pattern
  const core = body.replace(/(?<!\\) +$/, '').replace(/\/$/, '');
  if (core.replace(/^\/+/, '') === '') return undefined;
  const prefix = dir.replace(/[\\*?[\]!#]/g, '\\$&') + '/';
  return negation + prefix + (core.includes('/') ? body.replace(/^\/+/, '') : '**/' + body);
}

/** The .gitignore rules in force during one walk, all relative to one root folder. */
class IgnoreRules {
  private readonly matcher: Ignore = ignore({ ignoreCase: IGNORE_CASE });
  private count = 0;

  constructor(readonly root: string) {}

  /** Adds the rules of `file`, a .gitignore-style file of the folder `dir` (relative to the root). */
  addFile(file: string, dir: string): void {
    let text: string;
    try {
      const st = lstatSync(file);
      if (!st.isFile() || st.size > GITIGNORE_MAX_BYTES) return; // git ignores a symlinked .gitignore too
      text = readFileSync(file, 'utf8');
    } catch {
      return; // unreadable: no rules
    }
    const rules: string[] = [];
    for (const line of text.replace(/^\ufeff/, '').split('\n')) {
      const rule = rebaseRule(line, dir);
      if (rule !== undefined) rules.push(rule);
    }
    if (rules.length === 0) return;
    this.matcher.add(rules);
    this.count += rules.length;
  }

  /** Whether `rel` (relative to the root, '/'-separated, non-empty) is ignored; folders are asked with `isDir`. */
  ignores(rel: string, isDir: boolean): boolean {
    return this.count > 0 && this.matcher.ignores(isDir ? rel + '/' : rel);
  }

  relOf(abs: string): string {
    return relative(this.root, abs).split(sep).join('/');
  }
}

/** The nearest folder at or above `from` that holds a `.git`, or undefined. */
function gitRootAbove(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The rules for a walk from `start`: those of the folders from the repository's root (else the
 * workspace root, or the allowed folder the start is in) down to the start's parent. If the start
 * is itself ignored by them, it was asked for explicitly: the walk then uses only the rules inside it.
 */
function rulesFor(ctx: Pick<ToolContext, 'cwd' | 'allowedPaths'>, start: string, stats: WalkStats): IgnoreRules {
  const top = [ctx.cwd, ...(ctx.allowedPaths ?? [])].map(realOr).find((r) => inside(r, start)) ?? start;
  const bases = [...new Set([gitRootAbove(top), top])].filter((b): b is string => b !== undefined && inside(b, start));
  for (const base of bases) {
    const rules = new IgnoreRules(base);
    const exclude = join(base, '.git', 'info', 'exclude');
    if (existsSync(exclude)) rules.addFile(exclude, '');
    const rel = rules.relOf(start);
    if (rel === '') return rules;
    const parts = rel.split('/');
    for (let i = 0; i < parts.length; i++) rules.addFile(join(base, ...parts.slice(0, i), '.gitignore'), parts.slice(0, i).join('/'));
    if (!rules.ignores(rel, true)) return rules;
    stats.rootIgnored = true;
  }
  return new IgnoreRules(start);
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function kindOf(d: Dirent): EntryKind {
  return d.isFile() ? 'file' : d.isDirectory() ? 'dir' : d.isSymbolicLink() ? 'symlink' : 'other';
}

interface Frame {
  abs: string;
  /** Prefixes of the children's shown path and of their path relative to the rules' root. */
  shownPrefix: string;
  relPrefix: string;
  depth: number;
  children: Array<{ name: string; kind: EntryKind; key: string }>;
  next: number;
}

/**
 * The entries below the folder `root` (not the folder itself), depth first. Siblings are taken
 * in byte order of their name, with a folder's name followed by '/': so the whole sequence is in
 * byte order of the shown paths (a folder's path ending with '/' and preceding its contents).
 * Ignored entries, and those `ctx.hidden` covers, are counted in `stats` and not yielded; such folders are not entered.
 */
export function* walkTree(ctx: Pick<ToolContext, 'cwd' | 'allowedPaths' | 'hidden'>, root: SearchRoot, opts: WalkOptions, stats: WalkStats = newWalkStats()): Generator<WalkEntry> {
  const rules = rulesFor(ctx, root.real, stats);
  const maxDepth = opts.maxDepth ?? Infinity;
  const rootRel = rules.relOf(root.real);
  const stack: Frame[] = [];
  const enter = (abs: string, shownPrefix: string, relPrefix: string, depth: number) => {
    if (opts.signal.aborted) throw new ToolError('aborted');
    stack.push({ abs, shownPrefix, relPrefix, depth, children: listFolder(abs, relPrefix, rules, stats), next: 0 });
  };
  enter(root.real, root.shown === '.' ? '' : root.shown.endsWith('/') ? root.shown : root.shown + '/', rootRel === '' ? '' : rootRel + '/', 1);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.next >= frame.children.length) {
      stack.pop();
      continue;
    }
    const { name, kind } = frame.children[frame.next++];
    const isDir = kind === 'dir';
    if (rules.ignores(frame.relPrefix + name, isDir)) {
      stats.ignored++;
      if (stats.ignoredSamples.length < SAMPLES) stats.ignoredSamples.push(frame.shownPrefix + name + (isDir ? '/' : ''));
      continue;
    }
    if (ctx.hidden?.(frame.shownPrefix + name)) {
      stats.hidden++; // counted, never named
      continue;
    }
    const abs = frame.abs + sep + name;
    yield { shown: frame.shownPrefix + name, abs, name, kind, depth: frame.depth };
    if (isDir && frame.depth < maxDepth) enter(abs, frame.shownPrefix + name + '/', frame.relPrefix + name + '/', frame.depth + 1);
  }
}

/** A folder's entries in walk order, without `.git`; its .gitignore, if any, joins the rules. */
function listFolder(abs: string, relPrefix: string, rules: IgnoreRules, stats: WalkStats): Frame['children'] {
  let dirents: Dirent[];
  try {
    dirents = readdirSync(abs, { withFileTypes: true });
  } catch {
    stats.unreadable++;
    return [];
  }
  const children: Frame['children'] = [];
  let plain = true;
  for (const d of dirents) {
    const name = d.name;
    if (name === '.git') continue;
    const kind = kindOf(d);
    if (name === '.gitignore' && kind === 'file') rules.addFile(abs + sep + name, relPrefix.slice(0, -1));
    const key = kind === 'dir' ? name + '/' : name;
    if (plain && /[\ud800-\uffff]/.test(name)) plain = false;
    children.push({ name, kind, key });
  }
  // UTF-16 order is byte order unless some name has a character at or above U+D800.
  children.sort(plain ? (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : (a, b) => compareBytes(a.key, b.key));
  return children;
}

/**
 * A glob (glob-match.ts: linear-time, dotfiles included) as a test of an entry's shown path and
 * name: one with a '/' is matched against the whole path ("src/**\/*.ts"), one without against
 * the name only ("*.ts"; "**\/*.ts" is the same). A plain `*.ext` is an ends-with test.
 */
export function globMatcher(glob: string): (shown: string, name: string) => boolean {
  const g = glob.replace(/^(\.\/)+/, '').replace(/^(\*\*\/)+(?=[^/]+$)/, '');
  if (g.trim() === '') throw new ToolError(`glob ${JSON.stringify(glob)} is empty; give a pattern such as "*.ts" or "src/**/*.test.ts"`);
  const suffix = /^\*([A-Za-z0-9._-]+)$/.exec(g)?.[1];
  if (suffix !== undefined) return (_shown, name) => name.endsWith(suffix);
  let test: (s: string) => boolean;
  try {
    test = compileGlob(g);
  } catch (err) {
    throw new ToolError(`invalid glob ${JSON.stringify(glob)}: ${(err as Error).message}`);
  }
  if (g.includes('/')) return (shown) => test(shown);
  return (_shown, name) => test(name);
}

/** "1 file", "2 files". */
export function plural(n: number, one: string, many = one + 's'): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Lets the event loop run now and then during a long synchronous walk (so that an abort, or
 * another tool, gets its turn), and throws once the run is aborted. `due()` is cheap enough to
 * call for every entry.
 */
export class Pacer {
  private last = performance.now();
  private calls = 0;

  constructor(
    private readonly signal: AbortSignal,
    private readonly sliceMs = 20,
  ) {}

  due(): boolean {
    if ((++this.calls & 63) !== 0) return false;
    return this.signal.aborted || performance.now() - this.last >= this.sliceMs;
  }

  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.last = performance.now();
    if (this.signal.aborted) throw new ToolError('aborted');
  }
}
