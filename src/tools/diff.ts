// A compact unified diff of an edit, built from the replaced spans: the changed places are known,
// so only the lines of each edited block are compared. Each span is widened to whole lines, lines
// both versions share at a block's edges become context, and the rest of the block is matched
// line by line by jsdiff (`diffArrays`: only the lines that really changed are removed and added);
// hunks get a few lines of context around them. Every line carries its number (the new file's, or
// the old one's for a removed line); the whole is capped in lines and bytes, with a notice saying so.
import { diffArrays } from 'diff';

/** Replace [start, end) of the original text with `text`. Sorted, not overlapping. */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

export interface DiffLimits {
  /** Unchanged lines shown around each change. */
  context: number;
  maxLines: number;
  maxBytes: number;
  /** A longer line is cut, with "…". */
  maxLineChars: number;
}

export const DIFF_LIMITS: DiffLimits = { context: 3, maxLines: 150, maxBytes: 16 * 1024, maxLineChars: 300 };

export interface SpanDiff {
  /** The hunks, or "" when no line changed. */
  text: string;
  added: number;
  removed: number;
  /** The first changed line in the new file (1-based); 0 when no line changed. */
  firstChangedLine: number;
  truncated: boolean;
}

/** One run of changed lines: old lines [oldFrom, oldFrom + removed.length) become `added`. 0-based. */
export interface Change {
  oldFrom: number;
  removed: string[];
  added: string[];
}

/** Beyond this many line edits (removed + added), lines are not matched and the whole is one change:
 * the diff's cost grows with the square of the edits (about 0.1 s at this cap), whatever the lengths. */
export const MAX_EDIT_LINES = 1_000;

/**
 * The runs of changed lines between two lists of lines (jsdiff's Myers diff), `oldFrom` counted
 * from the start of `before`. With no line in common (a rewrite) or past MAX_EDIT_LINES edits, the
 * whole is one run. Pure.
 */
export function changedRuns(before: readonly string[], after: readonly string[]): Change[] {
  const whole = [{ oldFrom: 0, removed: [...before], added: [...after] }];
  if (before.length === 0 && after.length === 0) return [];
  const afterLines = new Set(after);
  if (!before.some((l) => afterLines.has(l))) return whole;
  const parts = diffArrays(before as string[], after as string[], { maxEditLength: MAX_EDIT_LINES });
  if (!parts) return whole;
  const runs: Change[] = [];
  let at = 0; // the old line the next part starts at
  let open: Change | undefined;
  for (const part of parts) {
    if (!part.added && !part.removed) {
      open = undefined;
      at += part.count;
      continue;
    }
    if (!open) runs.push((open = { oldFrom: at, removed: [], added: [] }));
    if (part.removed) {
      open.removed.push(...part.value);
      at += part.count;
    } else open.added.push(...part.value);
  }
  return runs;
}

export function spanDiff(original: string, spans: readonly Splice[], limits: DiffLimits = DIFF_LIMITS): SpanDiff {
  const lines = new Lines(original);
  const changes = lineChanges(lines, spans);
  const added = changes.reduce((n, c) => n + c.added.length, 0);
  const removed = changes.reduce((n, c) => n + c.removed.length, 0);
  if (changes.length === 0) return { text: '', added, removed, firstChangedLine: 0, truncated: false };
  const out = new CappedDiff(limits);
  const width = String(lines.count + added).length;
  const row = (mark: string, n: number, text: string) => `${mark}${String(n).padStart(width)}│${cutLongLine(text, limits.maxLineChars)}`;
  let delta = 0; // new line number minus old line number, before the change being written
  const firstChangedLine = changes[0].oldFrom + 1; // nothing changed before it, so old and new numbers agree
  for (let h = 0; h < changes.length; ) {
    // A hunk: changes whose gaps are at most twice the context.
    let end = h + 1;
    while (end < changes.length && changes[end].oldFrom - oldTo(changes[end - 1]) <= 2 * limits.context) end++;
    const from = Math.max(0, changes[h].oldFrom - limits.context);
    const to = Math.min(lines.count, oldTo(changes[end - 1]) + limits.context);
    const grow = changes.slice(h, end).reduce((n, c) => n + c.added.length - c.removed.length, 0);
    out.push(header(from, to - from, from + delta, to - from + grow));
    let i = from;
    for (const c of changes.slice(h, end)) {
      for (; i < c.oldFrom; i++) out.push(row(' ', i + delta + 1, lines.text(i)));
      c.removed.forEach((t, k) => out.push(row('-', c.oldFrom + k + 1, t)));
      c.added.forEach((t, k) => out.push(row('+', c.oldFrom + delta + k + 1, t)));
      i = oldTo(c);
      delta += c.added.length - c.removed.length;
    }
    for (; i < to; i++) out.push(row(' ', i + delta + 1, lines.text(i)));
    h = end;
  }
  return { text: out.text(), added, removed, firstChangedLine, truncated: out.truncated };
}

const oldTo = (c: Change) => c.oldFrom + c.removed.length;

/** "@@ -a,b +c,d @@", 1-based; an empty side names the line before it, as unified diffs do. */
function header(oldFrom: number, oldCount: number, newFrom: number, newCount: number): string {
  const side = (from: number, count: number) => `${count === 0 ? from : from + 1},${count}`;
  return `@@ -${side(oldFrom, oldCount)} +${side(newFrom, newCount)} @@`;
}

/** A diff line cut to `max` characters, with its full length. */
function cutLongLine(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

/** The original's lines: where each starts (a final newline does not start one more). */
class Lines {
  readonly starts: number[] = [0];

  constructor(readonly original: string) {
    for (let i = original.indexOf('\n'); i !== -1 && i + 1 < original.length; i = original.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  get count(): number {
    return this.original === '' ? 0 : this.starts.length;
  }

  /** The line holding offset `pos` (0-based). */
  at(pos: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Where line i ends, after its newline. */
  end(i: number): number {
    return i + 1 < this.starts.length ? this.starts[i + 1] : this.original.length;
  }

  text(i: number): string {
    return this.original.slice(this.starts[i], this.end(i)).replace(/\n$/, '').replace(/\r$/, '');
  }
}

/** The changed lines: spans grouped into blocks of whole lines, trimmed of the lines both sides share, the rest matched line by line. */
function lineChanges(lines: Lines, spans: readonly Splice[]): Change[] {
  const blocks: { first: number; last: number; spans: Splice[] }[] = [];
  const newText = (b: (typeof blocks)[number]) => {
    let s = '';
    let pos = lines.starts[b.first];
    for (const span of b.spans) {
      s += lines.original.slice(pos, span.start) + span.text;
      pos = span.end;
    }
    return s + lines.original.slice(pos, lines.end(b.last - 1));
  };
  for (const span of spans) {
    const first = lines.at(span.start);
    const last = (span.end > span.start ? lines.at(span.end - 1) : first) + 1;
    const top = blocks[blocks.length - 1];
    if (top && first < top.last) {
      top.spans.push(span);
      top.last = Math.max(top.last, last);
    } else blocks.push({ first, last, spans: [span] });
    // New text that does not end a line joins the line after it: take that line in.
    const b = blocks[blocks.length - 1];
    for (let s = newText(b); s !== '' && !s.endsWith('\n') && lines.end(b.last - 1) < lines.original.length; s = newText(b)) b.last++;
  }
  const changes: Change[] = [];
  for (const b of blocks) {
    const before = splitLines(lines.original.slice(lines.starts[b.first], lines.end(b.last - 1)));
    const after = splitLines(newText(b));
    let p = 0;
    while (p < before.length && p < after.length && before[p] === after[p]) p++;
    let q = 0;
    while (q < before.length - p && q < after.length - p && before[before.length - 1 - q] === after[after.length - 1 - q]) q++;
    const removed = before.slice(p, before.length - q);
    const added = after.slice(p, after.length - q);
    // Lines the middle still shares stay context.
    for (const run of changedRuns(removed, added)) changes.push({ ...run, oldFrom: b.first + p + run.oldFrom });
  }
  return changes;
}

function splitLines(s: string): string[] {
  return s === ''
    ? []
    : s
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => l.replace(/\r$/, ''));
}

/** Collects lines up to the limits; past them, only counts. */
class CappedDiff {
  private readonly kept: string[] = [];
  private bytes = 0;
  private total = 0;

  constructor(private readonly limits: DiffLimits) {}

  get truncated(): boolean {
    return this.total > this.kept.length;
  }

  push(line: string): void {
    const dropping = this.truncated; // a line was dropped already: keep the shown part contiguous
    this.total++;
    if (dropping) return;
    const size = Buffer.byteLength(line) + 1;
    if (this.kept.length >= this.limits.maxLines || this.bytes + size > this.limits.maxBytes) return;
    this.kept.push(line);
    this.bytes += size;
  }

  text(): string {
    const body = this.kept.join('\n');
    return this.truncated ? `${body}\n[Diff cut: showing ${this.kept.length} of ${this.total} lines; read_file shows the rest of the result.]` : body;
  }
}
