// grep: searches the text files under a folder of the workspace (or one file) for a JavaScript
// regular expression or a literal, line by line, and shows `path:line:text` for each matching
// line (`path-line-text` for context lines), in byte order of the paths, then by line. Files are
// read whole, one after another, into one buffer: a literal is looked for in the raw bytes first,
// so only files that contain it are decoded; a regular expression runs in a worker thread, under a
// time budget and stopped at once by an abort (grep-engine.ts), over whole texts handed to it in
// batches, to find the next line that may match, then that line on its own. Binary files (a
// NUL byte in the first 8 KB) are skipped, and so is what .gitignore ignores (walk.ts). Output is
// capped by `limit` and by the byte and line caps, with a notice giving the exact counts.
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { Type } from '../core/type-builders.js';
import type { Static } from 'typebox';
import { ToolError, type ToolDefinition, type ToolDescriber } from './tool.js';
import { argumentSubject, nonEmpty, oneLine } from './tool-describe.js';
import { createGrepEngine, textOf, type FileHits, type GrepEngineOptions, type TextBatch } from './grep-engine.js';
import { DEFAULT_LIMITS, formatBytes, type TruncateLimits } from './truncate.js';
import { hiddenNote } from './search-deny.js';
import { globMatcher, newWalkStats, openSearchRoot, Pacer, plural, walkTree, type SearchRoot, type WalkStats } from './walk.js';
import { resolveForRead } from './workspace.js';

export const GREP_DEFAULT_LIMIT = 100;
export const GREP_MAX_LIMIT = 1000;
const MAX_CONTEXT = 10;
/** Longer lines are cut around their first match, with a marker giving their length. */
export const GREP_MAX_LINE_CHARS = 300;
const SNIFF = 8 * 1024;
/** Larger files are not searched (they are named in the notice). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** A batch of files handed to the engine at once: up to this many bytes or files. */
const BATCH_BYTES = 4 * 1024 * 1024;
const BATCH_FILES = 256;

const Params = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      description: 'JavaScript regular expression matched against each line',
    }),
    path: Type.Optional(Type.String({ description: 'File or folder to search (default ".")' })),
    glob: Type.Optional(Type.String({ description: 'Only files matching this glob: "*.ts" (no "/": the file name) or "src/**/*.test.ts" (the path)' })),
    ignoreCase: Type.Optional(Type.Boolean({ description: 'Case-insensitive' })),
    literal: Type.Optional(Type.Boolean({ description: 'The pattern is plain text, not a regex' })),
    context: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CONTEXT, description: 'Lines shown around each match' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: GREP_MAX_LIMIT, description: `Most matching lines (default ${GREP_DEFAULT_LIMIT})` })),
  },
  { additionalProperties: false },
);

type Args = Static<typeof Params>;

export interface GrepToolOptions {
  /** The byte and line caps of one result (default DEFAULT_LIMITS). */
  limits?: TruncateLimits;
  /** The regex engine's time budget, or the bench's in-thread engine (grep-engine.ts). */
  engine?: GrepEngineOptions;
}

/** A grep call: the pattern, and the file or folder searched (the workspace by default). */
export const grepDescriber: ToolDescriber<Args> = {
  describe: (a) => ({
    title: oneLine(`Search ${JSON.stringify(nonEmpty(a.pattern) ?? '')}${nonEmpty(a.path) ? ` in ${a.path}` : ''}${nonEmpty(a.glob) ? ` (${a.glob})` : ''}`),
    kind: 'search',
    locations: [{ path: nonEmpty(a.path) ?? '.' }],
    subject: nonEmpty(a.path) ?? argumentSubject(a),
  }),
};

export function createGrepTool(opts: GrepToolOptions = {}): ToolDefinition<Args> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  return {
    name: 'grep',
    ...grepDescriber,
    description:
      'Search file contents line by line for a regex (or plain text with literal: true); prints `path:line:text` per match, sorted. ' +
      'Skips .gitignored, .git and binary files. ' +
      `At most limit matches and ${formatBytes(limits.maxBytes)}; a last line says what was left out.`,
    parameters: Params,
    risk: 'read',
    selfTruncating: true,
    paths: (args, ctx) => [resolveForRead(ctx, args.path ?? '.')],
    async execute(args, ctx) {
      // The texts go to the engine in batches (a regex runs in a worker thread, started on the first batch).
      const engine = createGrepEngine(args.pattern, args.literal ?? false, args.ignoreCase ?? false, ctx.signal, opts.engine);
      const keep = args.glob !== undefined ? globMatcher(args.glob) : () => true;
      const root = openSearchRoot(ctx, args.path);
      if (!root.isDir && !root.isFile) throw new ToolError(`${root.shown} is not a regular file or a folder`);
      const out = new Output(args.limit ?? GREP_DEFAULT_LIMIT, args.context ?? 0, limits);
      const stats = newWalkStats();
      const pacer = new Pacer(ctx.signal);
      const reader = new FileReader();
      if (root.isFile && ctx.hidden?.(root.shown)) stats.hidden++; // a deny rule covers the file itself: not searched
      const files = stats.hidden > 0 ? [] : root.isFile ? [{ shown: root.shown, abs: root.real }] : textFiles(ctx, root, keep, ctx.signal, stats);
      // One batch is matched while the next is read; results are taken in order.
      let batch = new Batch();
      let inFlight: Promise<void> | undefined;
      const flush = async () => {
        const these = batch.done();
        batch = new Batch();
        const hits = engine.search(these);
        hits.catch(() => {}); // awaited below (a failure must not go unhandled meanwhile)
        if (inFlight) await inFlight;
        inFlight = hits.then((h) => these.names.forEach((shown, k) => h[k].starts.length > 0 && out.file(shown, textOf(these, k), h[k])));
        inFlight.catch(() => {});
      };
      try {
        for (const file of files) {
          if (pacer.due()) await pacer.pause();
          const n = reader.read(file.abs);
          if (n === 'unreadable' || n === 'too large') {
            out.skipped(file.shown, n);
            continue;
          }
          const buf = reader.buf;
          if (buf.subarray(0, Math.min(n, SNIFF)).includes(0)) {
            out.binary++;
            continue;
          }
          out.searched++;
          if (engine.needle && buf.subarray(0, n).indexOf(engine.needle) < 0) continue;
          if (batch.add(file.shown, buf, n)) await flush();
        }
        await flush();
        await inFlight;
      } finally {
        engine.close();
      }
      return out.result(args, root, stats);
    },
  };
}

/** The files below `root` that the glob keeps, in walk order (byte order of their paths). */
function* textFiles(ctx: Parameters<typeof walkTree>[0], root: SearchRoot, keep: (shown: string, name: string) => boolean, signal: AbortSignal, stats: WalkStats) {
  for (const e of walkTree(ctx, root, { signal }, stats)) if (e.kind === 'file' && keep(e.shown, e.name)) yield e;
}

/** A line's text without its line break (a CR before the LF is dropped too). */
function lineText(text: string, start: number, end: number): string {
  return text.charCodeAt(end - 1) === 13 && end > start ? text.slice(start, end - 1) : text.slice(start, end);
}

/** Files' bytes gathered for the engine, in one buffer of their own (it is copied to the worker whole). */
class Batch implements TextBatch {
  bytes = new Uint8Array(64 * 1024);
  readonly ends: number[] = [];
  readonly names: string[] = [];
  private used = 0;

  /** Adds a file's first n bytes; true when the batch is full. */
  add(shown: string, buf: Buffer, n: number): boolean {
    if (this.used + n > this.bytes.length) {
      const bigger = new Uint8Array(Math.max(this.bytes.length * 2, this.used + n));
      bigger.set(this.bytes.subarray(0, this.used));
      this.bytes = bigger;
    }
    this.bytes.set(buf.subarray(0, n), this.used);
    this.used += n;
    this.ends.push(this.used);
    this.names.push(shown);
    return this.used >= BATCH_BYTES || this.names.length >= BATCH_FILES;
  }

  done(): TextBatch {
    return { bytes: this.bytes, ends: this.ends, names: this.names };
  }
}

/** Reads whole files into one growing buffer. */
class FileReader {
  buf = Buffer.allocUnsafe(1024 * 1024);

  read(path: string): number | 'unreadable' | 'too large' {
    let fd: number;
    try {
      // No following a link swapped in since the walk; a FIFO swapped in must not block the open.
      fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    } catch {
      return 'unreadable';
    }
    try {
      let n = 0;
      for (;;) {
        if (n === this.buf.length) {
          if (n > MAX_FILE_BYTES) return 'too large';
          const bigger = Buffer.allocUnsafe(Math.min(this.buf.length * 2, MAX_FILE_BYTES + 1));
          this.buf.copy(bigger, 0, 0, n);
          this.buf = bigger;
        }
        const got = readSync(fd, this.buf, n, this.buf.length - n, n);
        if (got === 0) return n;
        n += got;
      }
    } catch {
      return 'unreadable';
    } finally {
      closeSync(fd);
    }
  }
}

/** The result being built: the lines shown, and the counts of everything found. */
class Output {
  private readonly lines: string[] = [];
  private bytes = 0;
  private shownMatches = 0;
  private full: 'limit' | 'bytes' | 'lines' | undefined;
  private total = 0;
  private filesWithMatches = 0;
  private readonly notSearched: string[] = [];
  private tooLarge = 0;
  private unreadable = 0;
  searched = 0;
  binary = 0;

  constructor(
    private readonly limit: number,
    private readonly context: number,
    private readonly limits: TruncateLimits,
  ) {}

  skipped(shown: string, why: 'unreadable' | 'too large'): void {
    if (why === 'too large') this.tooLarge++;
    else this.unreadable++;
    if (this.notSearched.length < 5) this.notSearched.push(`${shown} (${why === 'too large' ? `over ${formatBytes(MAX_FILE_BYTES)}` : 'unreadable'})`);
  }

  /** One file's matching lines, given by their start offsets in `text` (and where their first match is). */
  file(shown: string, text: string, hits: FileHits): void {
    const matchStarts = hits.starts;
    this.total += matchStarts.length;
    this.filesWithMatches++;
    if (this.full) return;
    const starts = [0];
    for (let i = text.indexOf('\n'); i >= 0 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    const count = text.length === 0 ? 0 : starts.length;
    const end = text.charCodeAt(text.length - 1) === 10 ? text.length - 1 : text.length;
    const at = (k: number) => lineText(text, starts[k], k + 1 < count ? starts[k + 1] - 1 : end);
    const matches = new Map<number, number>(); // line index → column of its first match
    let k = 0;
    for (let j = 0; j < matchStarts.length && matches.size < this.limit - this.shownMatches; j++) {
      while (starts[k] < matchStarts[j]) k++;
      matches.set(k, hits.columns[j] ?? 0);
    }
    const shownHere = [...matches.keys()];
    const c = this.context;
    for (let i = 0; i < shownHere.length && !this.full; ) {
      // One group: the matches whose context ranges touch, with their context.
      let last = i;
      while (last + 1 < shownHere.length && shownHere[last + 1] - c <= shownHere[last] + c + 1) last++;
      if (c > 0 && this.lines.length > 0) this.push('--');
      for (let l = Math.max(0, shownHere[i] - c); l <= Math.min(count - 1, shownHere[last] + c) && !this.full; l++) {
        const isMatch = matches.has(l);
        const body = at(l);
        if (this.push(`${shown}${isMatch ? ':' : '-'}${l + 1}${isMatch ? ':' : '-'}${cutLine(body, matches.get(l) ?? 0)}`) && isMatch) this.shownMatches++;
      }
      i = last + 1;
    }
    if (!this.full && this.shownMatches >= this.limit) this.full = 'limit';
  }

  /** Adds a line unless it would pass the byte or line cap (which then ends the output). */
  private push(line: string): boolean {
    const size = Buffer.byteLength(line) + 1;
    if (this.bytes + size > this.limits.maxBytes || this.lines.length + 1 > this.limits.maxLines) {
      this.full = this.bytes + size > this.limits.maxBytes ? 'bytes' : 'lines';
      return false;
    }
    this.lines.push(line);
    this.bytes += size;
    return true;
  }

  result(args: Args, root: SearchRoot, stats: WalkStats) {
    const what = `${args.literal ? 'text' : 'pattern'} ${JSON.stringify(args.pattern)}${args.ignoreCase ? ' (ignoring case)' : ''}`;
    const where = `${root.shown}${args.glob !== undefined ? ` (files matching ${JSON.stringify(args.glob)})` : ''}`;
    const notes: string[] = [];
    if (this.total > this.shownMatches) {
      const why = this.full === 'limit' ? `limit ${this.limit}` : this.full === 'bytes' ? `the ${formatBytes(this.limits.maxBytes)} output cap` : `the ${this.limits.maxLines}-line output cap`;
      const raise = this.full === 'limit' && this.limit < GREP_MAX_LIMIT ? `, or raise limit (at most ${GREP_MAX_LIMIT})` : '';
      notes.push(
        `[Showing ${this.shownMatches} of ${this.total} matching lines (in ${plural(this.filesWithMatches, 'file')}); ${this.total - this.shownMatches} more not shown, stopped at ${why}. ` +
          `Narrow the search with a more specific pattern, a path (a subfolder or file) or a glob (e.g. "*.ts")${raise}.]`,
      );
    }
    if (this.notSearched.length > 0) {
      const more = this.tooLarge + this.unreadable - this.notSearched.length;
      notes.push(`[Not searched: ${this.notSearched.join(', ')}${more > 0 ? ` and ${more} more` : ''}.]`);
    }
    if (stats.unreadable > 0) notes.push(`[${plural(stats.unreadable, 'folder')} could not be read.]`);
    if (stats.rootIgnored) notes.push(`[${root.shown} is ignored by a .gitignore above it; it was searched anyway, with only the .gitignore files inside it.]`);
    if (stats.hidden > 0) notes.push(hiddenNote(stats.hidden));
    const skipped = `${this.binary > 0 ? `; ${plural(this.binary, 'binary file')} skipped` : ''}${stats.ignored > 0 ? `; ${plural(stats.ignored, 'path')} ignored by .gitignore not searched` : ''}`;
    const body = this.total === 0 ? `No matches for ${what} in ${where} (${plural(this.searched, 'file')} searched${skipped}).` : this.lines.join('\n');
    return {
      content: [body, ...notes].join('\n\n'),
      details: {
        matches: this.total,
        shown: this.shownMatches,
        files: this.filesWithMatches,
        filesSearched: this.searched,
        binarySkipped: this.binary,
        ignored: stats.ignored,
        hidden: stats.hidden,
        truncated: this.total > this.shownMatches,
      },
    };
  }
}

/** A line as shown: whole if short, else a window around `column` with its length. */
function cutLine(line: string, column: number): string {
  if (line.length <= GREP_MAX_LINE_CHARS) return line;
  const from = Math.max(0, Math.min(column - 100, line.length - GREP_MAX_LINE_CHARS));
  const to = from + GREP_MAX_LINE_CHARS;
  return `${from > 0 ? '…' : ''}${line.slice(from, to).replace(/^[\udc00-\udfff]|[\ud800-\udbff]$/g, '')}${to < line.length ? '…' : ''} [line cut: ${line.length} characters]`;
}
