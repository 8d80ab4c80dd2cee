// Where edit_file's edits land, as pure functions on the file's text: each oldText is found
// exactly (in the file's own line endings, CRLF or LF), else tolerantly (ignoring whitespace
// differences, then quote/dash/space styles, then both), and every match is mapped back to a span
// of the original text, so that a replacement changes that span and no byte outside it. Also the
// hints for an oldText found nowhere: the closest region of the file, and line-number prefixes.
import type { Splice } from './diff.js';

export interface Edit {
  oldText: string;
  newText: string;
}

/** How a tolerant match differed from the file: whitespace, quote/dash/space style, or both. */
export type Tolerance = 'whitespace' | 'unicode' | 'whitespace+unicode';

/** A splice of the original text (UTF-16 offsets) made by an edit; `edit` is the edit's index (0-based). */
export interface Replacement extends Splice {
  edit: number;
}

export type EditProblem =
  | { kind: 'empty'; edit: number }
  | { kind: 'unchanged'; edit: number }
  | { kind: 'not_found'; edit: number }
  | { kind: 'ambiguous'; edit: number; count: number; capped: boolean; lines: number[]; tolerance?: Tolerance }
  | { kind: 'overlap'; edit: number; other: number; line: number };

export type Located = { ok: true; replacements: Replacement[]; tolerant: { edit: number; kind: Tolerance }[] } | { ok: false; problems: EditProblem[] };

/** Matches counted before an ambiguous oldText is reported as "more than" this many. */
const MAX_COUNTED = 1000;
const TOLERANCES: readonly Tolerance[] = ['whitespace', 'unicode', 'whitespace+unicode'];

/**
 * Locates every edit in the original `content`. Each oldText must match once (any number of times
 * with `replaceAll`); the spans must not overlap. Returns the replacements sorted by position, or
 * every problem found (the caller changes nothing then).
 */
export function locateEdits(content: string, edits: readonly Edit[], replaceAll: boolean): Located {
  const file = new FileViews(content);
  const problems: EditProblem[] = [];
  const replacements: Replacement[] = [];
  const tolerant: { edit: number; kind: Tolerance }[] = [];
  edits.forEach((edit, i) => {
    const found = locateOne(file, edit, i, replaceAll);
    if ('kind' in found) problems.push(found);
    else {
      replacements.push(...found.spans);
      if (found.tolerance) tolerant.push({ edit: i, kind: found.tolerance });
    }
  });
  if (problems.length) return { ok: false, problems };
  replacements.sort((a, b) => a.start - b.start);
  for (let i = 1; i < replacements.length; i++) {
    const [prev, cur] = [replacements[i - 1], replacements[i]];
    if (cur.start < prev.end) {
      const [edit, other] = [Math.min(prev.edit, cur.edit), Math.max(prev.edit, cur.edit)];
      return { ok: false, problems: [{ kind: 'overlap', edit, other, line: lineNumbers(content, [cur.start])[0] }] };
    }
  }
  return { ok: true, replacements, tolerant };
}

function locateOne(file: FileViews, edit: Edit, index: number, replaceAll: boolean): { spans: Replacement[]; tolerance?: Tolerance } | EditProblem {
  if (edit.oldText === '') return { kind: 'empty', edit: index };
  if (edit.oldText === edit.newText) return { kind: 'unchanged', edit: index };
  const content = file.content;
  for (const v of exactVariants(edit, () => file.eol())) {
    const at = findAll(content, v.oldText, replaceAll ? v.oldText.length : 1, replaceAll ? Infinity : MAX_COUNTED);
    if (at.length === 0) continue;
    if (at.length > 1 && !replaceAll) return ambiguous(content, index, at);
    return { spans: at.map((start) => ({ start, end: start + v.oldText.length, text: v.newText, edit: index })) };
  }
  for (const kind of TOLERANCES) {
    const view = file.view(kind);
    const needle = normalizeText(kind === 'unicode' ? withEol(edit.oldText, file.eol()) : edit.oldText, kind);
    if (needle.trim() === '') continue;
    const at = findAll(view.text, needle, replaceAll ? needle.length : 1, replaceAll ? Infinity : MAX_COUNTED);
    if (at.length === 0) continue;
    if (at.length > 1 && !replaceAll) return { ...ambiguous(view.text, index, at), tolerance: kind };
    const spans = at.map((p) => tolerantSpan(file, view, edit, p, p + needle.length, index));
    return { spans, tolerance: kind };
  }
  return { kind: 'not_found', edit: index };
}

function ambiguous(text: string, edit: number, at: number[]): EditProblem {
  return { kind: 'ambiguous', edit, count: at.length, capped: at.length >= MAX_COUNTED, lines: lineNumbers(text, at.slice(0, 10)) };
}

/** The oldText/newText pairs to try exactly: in the file's line endings first, then as given. */
function exactVariants(edit: Edit, eol: () => '\n' | '\r\n'): Edit[] {
  if (!/[\r\n]/.test(edit.oldText) && !/[\r\n]/.test(edit.newText)) return [edit]; // no line endings to convert
  const converted = { oldText: withEol(edit.oldText, eol()), newText: withEol(edit.newText, eol()) };
  return converted.oldText === edit.oldText ? [converted] : [converted, edit];
}

function withEol(text: string, eol: '\n' | '\r\n'): string {
  return eol === '\r\n' ? text.replace(/\r?\n/g, '\r\n') : text.replace(/\r\n/g, '\n');
}

/** Start offsets of `needle` in `hay`, searching on `step` after each (1: overlapping), at most `max`. */
function findAll(hay: string, needle: string, step: number, max: number): number[] {
  const out: number[] = [];
  for (let i = hay.indexOf(needle); i !== -1 && out.length < max; i = hay.indexOf(needle, i + step)) out.push(i);
  return out;
}

/** 1-based line numbers of sorted offsets. */
export function lineNumbers(text: string, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let from = 0;
  for (const at of offsets) {
    for (let nl = text.indexOf('\n', from); nl !== -1 && nl < at; nl = text.indexOf('\n', nl + 1)) {
      line++;
      from = nl + 1;
    }
    out.push(line);
  }
  return out;
}

// ---- the normalized views tolerant matching searches ----

const UNICODE_LOOKALIKES = /[\u2018\u2019\u201A\u201B\u2032\u201C-\u201F\u2033\u2010-\u2015\u2212\u00A0\u2002-\u200A\u202F]/g;

/** Curly quotes, primes, dashes and special spaces as their ASCII look-alikes: one UTF-16 unit for one, so offsets do not move. */
function plainPunctuation(text: string): string {
  return text.replace(UNICODE_LOOKALIKES, (c) => {
    const code = c.charCodeAt(0);
    if (code === 0x201c || code === 0x201d || code === 0x201e || code === 0x201f || code === 0x2033) return '"';
    if (code >= 0x2010 && code <= 0x2015) return '-';
    if (code === 0x2212) return '-';
    if (code === 0x00a0 || (code >= 0x2002 && code <= 0x200a) || code === 0x202f) return ' ';
    return "'";
  });
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0c || c === 0x0b;
const isTrailing = (c: number) => isSpace(c) || c === 0x0d;

const NEEDS_SQUEEZE = /[\t\f\v]| {2}/;

/** One line without indentation and trailing whitespace (and \r), runs of spaces and tabs as one space. */
function squeezeLine(line: string): string {
  let end = line.length;
  while (end > 0 && isTrailing(line.charCodeAt(end - 1))) end--;
  let start = 0;
  while (start < end && isSpace(line.charCodeAt(start))) start++;
  const core = start === 0 && end === line.length ? line : line.slice(start, end);
  return NEEDS_SQUEEZE.test(core) ? core.replace(/[ \t\f\v]+/g, ' ') : core;
}

/** squeezeLine, with where each kept character came from: `starts[i]`..`ends[i]` in `line`. */
function squeezeLineMapped(line: string): { text: string; starts: number[]; ends: number[] } {
  let end = line.length;
  while (end > 0 && isTrailing(line.charCodeAt(end - 1))) end--;
  let i = 0;
  while (i < end && isSpace(line.charCodeAt(i))) i++;
  const starts: number[] = [];
  const ends: number[] = [];
  let text = '';
  while (i < end) {
    const space = isSpace(line.charCodeAt(i));
    let j = i + 1;
    if (space) while (j < end && isSpace(line.charCodeAt(j))) j++;
    text += space ? ' ' : line[i];
    starts.push(i);
    ends.push(j);
    i = j;
  }
  return { text, starts, ends };
}

/** The text as tolerant matching of `kind` compares it. Line count and order are kept. */
function normalizeText(text: string, kind: Tolerance): string {
  const plain = kind === 'whitespace' ? text : plainPunctuation(text);
  return kind === 'unicode' ? plain : plain.split('\n').map(squeezeLine).join('\n');
}

/** A normalized copy of the file, with what maps its offsets back to the original. */
interface View {
  kind: Tolerance;
  text: string;
  /** Per line (whitespace kinds): the line as normalization saw it, and where it starts in the original and in `text`. */
  lines?: string[];
  origStarts?: Int32Array;
  normStarts?: Int32Array;
}

/** The file's text, its line ending, and its normalized views, each computed once and only if needed. */
class FileViews {
  private readonly views = new Map<Tolerance, View>();
  private lineEnding: '\n' | '\r\n' | undefined;

  constructor(readonly content: string) {}

  /** The line ending most lines use (LF when there is none). */
  eol(): '\n' | '\r\n' {
    if (this.lineEnding) return this.lineEnding;
    let lf = 0;
    let crlf = 0;
    for (let i = this.content.indexOf('\n'); i !== -1; i = this.content.indexOf('\n', i + 1)) {
      lf++;
      if (i > 0 && this.content.charCodeAt(i - 1) === 0x0d) crlf++;
    }
    return (this.lineEnding = crlf > lf - crlf ? '\r\n' : '\n');
  }

  view(kind: Tolerance): View {
    let view = this.views.get(kind);
    if (view) return view;
    if (kind === 'unicode') view = { kind, text: plainPunctuation(this.content) };
    else {
      const lines = (kind === 'whitespace' ? this.content : this.view('unicode').text).split('\n');
      const norm = lines.map(squeezeLine);
      const origStarts = new Int32Array(lines.length);
      const normStarts = new Int32Array(lines.length);
      for (let i = 1; i < lines.length; i++) {
        origStarts[i] = origStarts[i - 1] + lines[i - 1].length + 1;
        normStarts[i] = normStarts[i - 1] + norm[i - 1].length + 1;
      }
      view = { kind, text: norm.join('\n'), lines, origStarts, normStarts };
    }
    this.views.set(kind, view);
    return view;
  }
}

/** The largest i with starts[i] <= pos. */
function lineIndex(starts: Int32Array, pos: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Maps a tolerant match [ns, ne) of the view back to the original, and builds its replacement text. */
function tolerantSpan(file: FileViews, view: View, edit: Edit, ns: number, ne: number, index: number): Replacement {
  const eol = file.eol();
  if (view.kind === 'unicode') return { start: ns, end: ne, text: withEol(edit.newText, eol), edit: index };
  const { lines, origStarts, normStarts } = view as Required<View>;
  const mapped = (line: number) => {
    const m = squeezeLineMapped(lines[line]);
    if (m.text !== view.text.slice(normStarts[line], normStarts[line] + m.text.length)) throw new Error('edit-match: normalization maps disagree');
    return m;
  };
  const normLength = (line: number) => (line + 1 < lines.length ? normStarts[line + 1] - 1 : view.text.length) - normStarts[line];
  const first = lineIndex(normStarts, ns);
  const c1 = ns - normStarts[first];
  let start = origStarts[first] + (c1 === normLength(first) ? trimmedLength(lines[first]) : mapped(first).starts[c1]);
  const last = lineIndex(normStarts, ne - 1);
  const c2 = ne - 1 - normStarts[last];
  let end = origStarts[last] + (c2 === normLength(last) ? lines[last].length + 1 : mapped(last).ends[c2]);
  // Whitespace the oldText starts or ends with takes in the file's whitespace there (e.g. the indentation).
  const plain = view.kind === 'whitespace' ? (s: string) => s : plainPunctuation;
  const oldLines = edit.oldText.split('\n').map((l) => l.replace(/\r$/, ''));
  const spaceAt = (i: number) => isSpace(plain(file.content[i] ?? '').charCodeAt(0));
  if (isSpace(plain(oldLines[0]).charCodeAt(0))) while (start > 0 && spaceAt(start - 1)) start--;
  if (isSpace(plain(oldLines[oldLines.length - 1]).charCodeAt(oldLines[oldLines.length - 1].length - 1))) while (spaceAt(end)) end++;
  const atLineStart = start === origStarts[first];
  const fileLine = (k: number) => (first + k < lines.length ? file.content.slice(origStarts[first + k], origStarts[first + k] + lines[first + k].length) : undefined);
  const text = withEol(reindent(edit.newText, oldLines, fileLine, atLineStart), eol);
  return { start, end, text, edit: index };
}

function trimmedLength(line: string): number {
  let end = line.length;
  while (end > 0 && isTrailing(line.charCodeAt(end - 1))) end--;
  return end;
}

const leadingSpace = (line: string) => /^[ \t\f\v]*/.exec(line)![0];

/**
 * newText with its indentation translated the way the file's differs from oldText's: each
 * indentation oldText used maps to the file's on the same line; a newText line takes the mapping
 * of the longest such indentation its own starts with. The first line is left alone when the match
 * starts inside a line. `fileLine(k)` is the file's line matched by oldText's line k.
 */
function reindent(newText: string, oldLines: string[], fileLine: (k: number) => string | undefined, atLineStart: boolean): string {
  const map = new Map<string, string>();
  for (let k = atLineStart ? 0 : 1; k < oldLines.length; k++) {
    const line = fileLine(k);
    if (line === undefined) break;
    if (oldLines[k].trim() === '') continue;
    const mine = leadingSpace(oldLines[k]);
    if (!map.has(mine)) map.set(mine, leadingSpace(line));
  }
  if ([...map].every(([a, b]) => a === b)) return newText;
  const keys = [...map.keys()].sort((a, b) => b.length - a.length);
  return newText
    .split('\n')
    .map((line, j) => {
      if ((j === 0 && !atLineStart) || line.trim() === '') return line;
      const own = leadingSpace(line);
      const key = keys.find((k) => own.startsWith(k));
      return key === undefined ? line : map.get(key)! + line.slice(key.length);
    })
    .join('\n');
}

// ---- hints for an oldText that matches nowhere ----

const LINE_NUMBER_PREFIX = /^\s*(\d+)(?:\t|:\s|→|\s*[|│]\s?)/;

/** Whether every non-blank line of `text` starts with what looks like a line number ("  12\t", "12: ", "12→", "12 | "). */
export function hasLineNumberPrefixes(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return false;
  let prev = -Infinity;
  for (const line of lines) {
    const m = LINE_NUMBER_PREFIX.exec(line);
    if (!m || Number(m[1]) < prev) return false;
    prev = Number(m[1]);
  }
  return true;
}

export function stripLineNumberPrefixes(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(LINE_NUMBER_PREFIX, ''))
    .join('\n');
}

export interface Region {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  lines: string[];
  /** The first line where the region and oldText differ (1-based file line), with both versions. */
  firstDifference?: { line: number; file: string; oldText: string };
}

const WORD = /[\p{L}\p{N}_$]+/u;

/**
 * The region of the file most like oldText: the window of as many lines whose lines most often
 * equal one of oldText's (ignoring whitespace and quote styles), then share the most words with it.
 * Undefined when no line shares anything with it.
 */
export function closestRegion(content: string, oldText: string): Region | undefined {
  const oldLines = oldText
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''));
  const fileLines = content.split('\n');
  const key = (l: string) => squeezeLine(plainPunctuation(l));
  const wanted = new Set(oldLines.map(key).filter((k) => k !== ''));
  const word = new RegExp(WORD.source, 'gu');
  const words = new Set(oldText.match(word) ?? []);
  const plainLines = plainPunctuation(content).split('\n'); // one line for each of fileLines
  const score = new Float64Array(fileLines.length);
  for (let i = 0; i < plainLines.length; i++) {
    if (plainLines[i].length > 10_000) continue;
    const k = squeezeLine(plainLines[i]);
    if (k === '') continue;
    let own = 0;
    let shared = 0;
    word.lastIndex = 0;
    for (let m = word.exec(k); m; m = word.exec(k)) {
      own++;
      if (words.has(m[0])) shared++;
    }
    score[i] = (wanted.has(k) ? 2 : 0) + (own ? shared / own : 0);
  }
  const size = Math.min(oldLines.length, fileLines.length);
  let sum = 0;
  for (let i = 0; i < size; i++) sum += score[i];
  let best = sum;
  let bestAt = 0;
  for (let i = size; i < fileLines.length; i++) {
    sum += score[i] - score[i - size];
    if (sum > best + 1e-9) [best, bestAt] = [sum, i - size + 1];
  }
  if (best <= 0) return undefined;
  const lines = fileLines.slice(bestAt, bestAt + size).map((l) => l.replace(/\r$/, ''));
  const k = lines.findIndex((l, i) => l !== oldLines[i]);
  return {
    startLine: bestAt + 1,
    endLine: bestAt + size,
    lines,
    ...(k >= 0 ? { firstDifference: { line: bestAt + k + 1, file: lines[k], oldText: oldLines[k] } } : {}),
  };
}
