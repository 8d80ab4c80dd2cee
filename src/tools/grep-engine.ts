// grep's matching engine. A regular expression is JavaScript's own (its dialect unchanged), but
// it runs in a worker thread, never on the main thread: a pattern such as `(a+)+$` backtracks for
// minutes on one line of 40 `a`s and a `!`, and a regex cannot be interrupted from its own thread.
// The main thread walks and reads the files and hands the worker their bytes in batches (the worker
// decodes them; the main thread decodes only the files with a match, to show them); meanwhile it stays free, so an abort (SIGINT, SIGTERM, RPC `abort`) terminates the worker at once, and a
// watchdog stops a file that takes over the time budget, with an error that says to simplify the
// pattern. The worker is taken on the first batch (a search that finds no text file needs none)
// and kept warm for the next call, unless it was stopped. A case-sensitive literal needs no regex: it is looked for with
// indexOf on the main thread, raw bytes first (see grep.ts); a literal ignoring case is an escaped
// regex, run by the worker like any other. Why not RE2 (re2-wasm): DESIGN §5.
import { Worker } from 'node:worker_threads';
import { ToolError } from './tool.js';

/** The matching lines of one text: their start offsets, and where the first match is in each (the first 1,000). */
export interface FileHits {
  starts: number[];
  columns: number[];
}

/** Files' bytes, one after another: file k is bytes [ends[k - 1] ?? 0, ends[k]), named names[k] (for the error of a pattern that takes too long). */
export interface TextBatch {
  bytes: Uint8Array;
  ends: number[];
  names: string[];
}

/** File k of a batch as text: UTF-8, without a byte order mark (which is not text). Also run by the worker: uses nothing from outside. */
export function textOf(batch: TextBatch, k: number): string {
  const start = k === 0 ? 0 : batch.ends[k - 1];
  const text = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset + start, batch.ends[k] - start).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export interface GrepEngine {
  /** For a case-sensitive literal: its bytes, to skip files without them before decoding. */
  needle?: Buffer;
  /** The matching lines of each file of the batch, as offsets in textOf(batch, k). */
  search(batch: TextBatch): Promise<FileHits[]>;
  /** Ends the call's use of the worker, if one was started. */
  close(): void;
}

export interface GrepEngineOptions {
  /** How long one file may take before the pattern is stopped (default REGEX_BUDGET_MS, plus 1 s per MB of the file). */
  budgetMs?: number;
  /** Run the regex on the main thread, as before issue 22 (no budget; an abort waits for the file): only for the bench's comparison. */
  inThread?: boolean;
}

export const REGEX_BUDGET_MS = 3000;
/** Matching lines per file whose column is computed (grep shows at most 1,000 matching lines). */
const MAX_COLUMNS = 1000;
const WATCH_MS = 100;

/** Checks the pattern and builds the engine; a pattern that is not a valid regular expression is a ToolError saying why. */
export function createGrepEngine(pattern: string, literal: boolean, ignoreCase: boolean, signal: AbortSignal, opts: GrepEngineOptions = {}): GrepEngine {
  if (literal && /[\r\n]/.test(pattern)) throw new ToolError('pattern must not contain a line break: lines are searched one at a time');
  if (literal && !ignoreCase) {
    return {
      needle: Buffer.from(pattern, 'utf8'),
      search: async (batch) => batch.names.map((_, k) => literalHits(textOf(batch, k), pattern)),
      close: () => {},
    };
  }
  const unicode = !literal && /\\[pPu]\{/.test(pattern); // \p{…} and \u{…} need Unicode mode
  const source = literal ? pattern.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') : pattern;
  const flags = `${ignoreCase ? 'i' : ''}${unicode ? 'u' : ''}`;
  try {
    new RegExp(source, flags); // compiling is linear in the pattern's length: only matching can run away
  } catch (err) {
    const why = (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
    throw new ToolError(
      `invalid regular expression ${JSON.stringify(pattern)}: ${why}. The pattern is a JavaScript regular expression: ` +
        'escape special characters with a backslash (\\( \\[ \\. \\* \\+ \\?), or pass literal: true to search for the text as it is',
    );
  }
  const lookaround = /\(\?<?[=!]/.test(pattern);
  if (opts.inThread) {
    const search = makeSearch(source, flags, lookaround, MAX_COLUMNS);
    return { search: async (batch) => batch.names.map((_, k) => search(textOf(batch, k))), close: () => {} };
  }
  return new WorkerEngine(pattern, source, flags, lookaround, signal, opts.budgetMs ?? REGEX_BUDGET_MS);
}

function literalHits(text: string, pattern: string): FileHits {
  const hits: FileHits = { starts: [], columns: [] };
  for (let i = text.indexOf(pattern); i >= 0; ) {
    const start = i === 0 ? 0 : text.lastIndexOf('\n', i - 1) + 1;
    hits.starts.push(start);
    if (hits.columns.length < MAX_COLUMNS) hits.columns.push(i - start);
    const end = text.indexOf('\n', i);
    if (end < 0) break;
    i = text.indexOf(pattern, end + 1);
  }
  return hits;
}

/**
 * The line search, run by the worker (as source text: `String(makeSearch)`, so it must use nothing
 * from outside its body). With a lookaround, a line's match may fail in the whole text (a
 * lookahead sees the next line): every line is tested. Without one, a match in a line is a match
 * in the whole text, so the next whole-text match (multiline mode) finds the first line that may match.
 */
function makeSearch(source: string, flags: string, lookaround: boolean, maxColumns: number): (text: string) => FileHits {
  const line = new RegExp(source, flags);
  const scan = new RegExp(source, 'gm' + flags);
  const lineEnd = (text: string, from: number) => {
    const i = text.indexOf('\n', from);
    return i < 0 ? text.length : i;
  };
  const lineText = (text: string, s: number, e: number) => (e > s && text.charCodeAt(e - 1) === 13 ? text.slice(s, e - 1) : text.slice(s, e));
  return (text) => {
    const starts: number[] = [];
    const columns: number[] = [];
    for (let s = 0; s < text.length; ) {
      let start = s;
      if (!lookaround) {
        scan.lastIndex = s;
        const m = scan.exec(text);
        if (!m) break;
        start = m.index === 0 ? 0 : text.lastIndexOf('\n', m.index - 1) + 1;
        if (start >= text.length) break;
      }
      const end = lineEnd(text, start);
      const found = line.exec(lineText(text, start, end));
      if (found) {
        starts.push(start);
        if (columns.length < maxColumns) columns.push(found.index);
      }
      s = end + 1;
    }
    return { starts, columns };
  };
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const makeSearch = ${String(makeSearch)};
const textOf = ${String(textOf)};
let key;
let search;
parentPort.on('message', ({ source, flags, lookaround, progress, batch }) => {
  const hits = [];
  try {
    if (key !== flags + (lookaround ? '1' : '0') + source) {
      key = flags + (lookaround ? '1' : '0') + source;
      search = makeSearch(source, flags, lookaround, ${MAX_COLUMNS});
    }
    const at = new Int32Array(progress);
    for (let k = 0; k < batch.names.length; k++) {
      Atomics.store(at, 0, k + 1);
      hits.push(search(textOf(batch, k)));
    }
    parentPort.postMessage({ hits });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
});`;

/**
 * The one worker kept warm between calls (starting one costs 30–200 ms), unref'd so that it never
 * keeps the process alive. The only module state: a lazily started engine. A call takes it (or
 * starts another when it is busy); a call that ends normally gives it back, one stopped by an
 * abort or the watchdog terminates it.
 */
let idle: Worker | undefined;

function takeWorker(): Worker {
  const w = idle ?? new Worker(WORKER_SOURCE, { eval: true, stdout: true, stderr: true });
  if (w !== idle) w.on('error', () => {}).on('exit', () => idle === w && (idle = undefined)); // errors during a call are handled by the call
  idle = undefined;
  w.ref();
  return w;
}

function giveBack(w: Worker): void {
  if (idle) void w.terminate();
  else {
    w.unref();
    idle = w;
  }
}

/** A regular expression run in a worker thread, one batch of texts at a time, under a watchdog. */
class WorkerEngine implements GrepEngine {
  private worker: Worker | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private failure: Error | undefined;
  private busy = false;
  /** 1 + which file of the batch the worker is on (written by the worker). */
  private readonly progress = new Int32Array(new SharedArrayBuffer(4));

  constructor(
    private readonly pattern: string,
    private readonly source: string,
    private readonly flags: string,
    private readonly lookaround: boolean,
    private readonly signal: AbortSignal,
    private readonly budgetMs: number,
  ) {}

  /** The batches run one after another (so the caller may read the next files meanwhile); after a failure, every later batch fails the same way. */
  search(batch: TextBatch): Promise<FileHits[]> {
    const run = this.queue.then(() => this.run(batch));
    this.queue = run.catch(() => {});
    return run;
  }

  private run(batch: TextBatch): Promise<FileHits[]> {
    if (this.failure) return Promise.reject(this.failure);
    if (batch.names.length === 0) return Promise.resolve([]);
    if (this.signal.aborted) return Promise.reject(new ToolError('aborted'));
    this.worker ??= takeWorker();
    const worker = this.worker;
    Atomics.store(this.progress, 0, 0);
    this.busy = true;
    return new Promise<FileHits[]>((resolve, reject) => {
      let current = 0;
      let since = performance.now();
      const done = (fail?: Error, hits?: FileHits[]) => {
        clearInterval(watch);
        this.busy = false;
        this.signal.removeEventListener('abort', onAbort);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (fail) {
          this.failure = fail;
          this.worker = undefined;
          void worker.terminate();
          reject(fail);
        } else resolve(hits!);
      };
      const watch = setInterval(() => {
        const at = Atomics.load(this.progress, 0); // 1 + the file the worker is on; 0 before it starts (a worker may take a while to start)
        if (at !== current || at === 0) [current, since] = [at, performance.now()];
        const k = at - 1;
        if (k < 0) return;
        const size = batch.ends[k] - (k === 0 ? 0 : batch.ends[k - 1]);
        const budget = this.budgetMs + Math.floor(size / (1024 * 1024)) * 1000;
        if (performance.now() - since > budget) done(this.tooSlow(budget, batch.names[k], size));
      }, WATCH_MS);
      const onAbort = () => done(new ToolError('aborted'));
      const onMessage = (m: { hits?: FileHits[]; error?: string }) =>
        m.hits ? done(undefined, m.hits) : done(new ToolError(`the pattern ${JSON.stringify(this.pattern)} failed: ${m.error}; simplify it, or pass literal: true to search for plain text`));
      const onError = (err: Error) => done(new ToolError(`the pattern ${JSON.stringify(this.pattern)} could not be run: ${err.message}`));
      const onExit = () => done(new ToolError('the search stopped unexpectedly'));
      this.signal.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage({ source: this.source, flags: this.flags, lookaround: this.lookaround, progress: this.progress.buffer, batch });
    });
  }

  private tooSlow(budget: number, name: string, size: number): ToolError {
    return new ToolError(
      `the pattern ${JSON.stringify(this.pattern)} took over ${budget / 1000} s on ${name} (${size} bytes) and was stopped; simplify it. ` +
        'Nested or overlapping quantifiers such as (a+)+, (.*)* or (a|a)* make a backtracking regex engine take exponential time on a line that almost matches: ' +
        'use one quantifier per part (a+ instead of (a+)+), anchor or narrow it, search for a fixed piece with literal: true, or narrow the search with path or glob',
    );
  }

  /** Gives the worker back for the next call, unless it is still on a batch (the call threw meanwhile): then it is terminated. */
  close(): void {
    const w = this.worker;
    this.worker = undefined;
    this.failure ??= new ToolError('the search was closed');
    if (w && this.busy) void w.terminate();
    else if (w) giveBack(w);
  }
}
