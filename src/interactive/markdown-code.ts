// Code blocks for the terminal: fences read as marked reads them, framed and highlighted rows,
// lines cut (not wrapped) to the width, and highlighting by segments (a blank line, or 24 lines,
// or 2,000 characters), so that a stream can commit each segment once complete (OpenCodeBlock)
// and still draw what renderMarkdown draws.
import type { Tokens } from 'marked';
import { highlightLines } from './highlight.js';
import type { BlockOptions } from './markdown-blocks.js';
import { displayWidth, expandTabs, hardSplit, inertControls, rowWidth, type Row, type Span } from './terminal-text.js';

/** The style of frames, rules, gutters and borders: dim. */
export const FRAME = '2';
const CODE_TAB = 4;
/** A code segment ends after a blank line, or at this many lines or characters (see codeSegmentDone). */
export const CODE_SEGMENT_LINES = 24;
export const CODE_SEGMENT_CHARS = 2000;

/** A fenced code block's opening line: its indentation, its fence, its info string. */
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})([^\n]*)$/;

export interface Fence {
  indent: number;
  fence: string;
  lang: string | undefined;
}

/** The fence a code block's first line opens, or undefined when it is not a fence line. */
export function fenceOf(line: string): Fence | undefined {
  const m = FENCE_OPEN.exec(line);
  if (!m || (m[2][0] === '`' && m[3].includes('`'))) return undefined;
  const info = m[3]
    .trim()
    .split(/\s+/)[0]
    .replace(/\\([!-/:-@[-`{-~])/g, '$1');
  return { indent: m[1].length, fence: m[2], lang: info || undefined };
}

/** Whether `line` closes a block opened by `fence` (marked's rule: the same fence, more of its character, spaces). */
export function closesFence(line: string, fence: Fence): boolean {
  let i = 0;
  while (i < 3 && line[i] === ' ') i++;
  if (!line.startsWith(fence.fence, i)) return false;
  i += fence.fence.length;
  while (line[i] === fence.fence[0]) i++;
  while (line[i] === ' ') i++;
  return i === line.length;
}

/** A body line with the fence's indentation taken off (as much of it as the line has). */
export function fenceBodyLine(line: string, fence: Fence): string {
  let i = 0;
  while (i < fence.indent && line[i] === ' ') i++;
  return line.slice(i);
}

/** A code block's rows: its frame's top, its lines, its frame's end. */
export function codeBlockRows(t: Tokens.Code, width: number, opts: BlockOptions): Row[] {
  const { lang, lines } = codeOf(t);
  return [...codeHeader(lang, width), ...codeRows(lines, lang, width, opts), ...codeFooter(width)];
}

/** A code token's language and lines: for a fence, read from its source, exactly as a stream reads it line by line. */
export function codeOf(t: Tokens.Code): { lang: string | undefined; lines: string[] } {
  const raw = t.raw.split('\n');
  const fence = t.codeBlockStyle === 'indented' ? undefined : fenceOf(raw[0]);
  if (fence === undefined) return { lang: undefined, lines: inertControls(t.text).split('\n') };
  if (raw[raw.length - 1] === '') raw.pop();
  const body = raw.slice(1);
  if (body.length > 0 && closesFence(body[body.length - 1], fence)) body.pop();
  return { lang: fence.lang, lines: body.map((l) => fenceBodyLine(l, fence)) };
}

const framed = (width: number) => width >= 6;

/** The row above a code block: a corner and the language, dim. */
export function codeHeader(lang: string | undefined, width: number): Row[] {
  if (!framed(width)) return [];
  return hardSplit([{ text: lang ? `╭─ ${lang}` : '╭─', style: FRAME }], width).slice(0, 1);
}

export function codeFooter(width: number): Row[] {
  return framed(width) ? [[{ text: '╰─', style: FRAME }]] : [];
}

/** Whether a segment of code lines is complete: it ends with a blank line, or it reached its size. */
export function codeSegmentDone(lines: string[], chars: number): boolean {
  return lines.length >= CODE_SEGMENT_LINES || chars >= CODE_SEGMENT_CHARS || (lines.length > 0 && lines[lines.length - 1].trim() === '');
}

/**
 * Code lines as framed rows. Highlighting works per segment (see codeSegmentDone), so that a
 * stream can commit each segment once it is complete and still draw what renderMarkdown draws.
 */
export function codeRows(lines: string[], lang: string | undefined, width: number, opts: BlockOptions): Row[] {
  const rows: Row[] = [];
  let segment: string[] = [];
  let chars = 0;
  for (const line of lines) {
    segment.push(line);
    chars += line.length + 1;
    if (codeSegmentDone(segment, chars)) {
      rows.push(...codeSegmentRows(segment, lang, width, opts));
      segment = [];
      chars = 0;
    }
  }
  if (segment.length) rows.push(...codeSegmentRows(segment, lang, width, opts));
  return rows;
}

/** One segment's rows: highlighted together, each line cut to the width (at a space or a token's edge when one is near). */
export function codeSegmentRows(lines: string[], lang: string | undefined, width: number, opts: BlockOptions): Row[] {
  const expanded = lines.map((l) => expandTabs(l, CODE_TAB));
  const styled = opts.color ? highlightLines(expanded, lang) : expanded.map((text) => (text ? [{ text, style: '' }] : []));
  const gutter: Span = { text: '│ ', style: FRAME };
  const inner = framed(width) ? width - 2 : width;
  return styled.flatMap((row) => cutCodeRow(row, inner).map((r) => (framed(width) ? [gutter, ...r] : r)));
}

interface Cell {
  g: string;
  w: number;
  style: string;
}

/**
 * A code row cut into rows of at most `width` columns, preferring a cut after a space or where
 * one token ends and another begins, when that keeps more than half the row. Linear in the row's length.
 */
function cutCodeRow(row: Row, width: number): Row[] {
  if (rowWidth(row) <= width) return [row];
  const cells: Cell[] = row.flatMap((s) => hardSplit([s], 1).map((r) => ({ g: r[0].text, w: displayWidth(r[0].text), style: s.style })));
  const out: Row[] = [];
  let start = 0;
  while (start < cells.length) {
    let end = start;
    let w = 0;
    while (end < cells.length && (w + cells[end].w <= width || end === start)) w += cells[end++].w;
    if (end < cells.length) {
      let cols = w;
      for (let k = end; k > start && cols * 2 > width; k--) {
        const breaks = cells[k - 1].g === ' ' || cells[k].style !== cells[k - 1].style;
        if (breaks) {
          end = k;
          break;
        }
        cols -= cells[k - 1].w;
      }
    }
    out.push(cellsToRow(cells, start, end));
    start = end;
  }
  return out;
}

function cellsToRow(cells: Cell[], from: number, to: number): Row {
  const row: Row = [];
  for (let i = from; i < to; i++) {
    const last = row[row.length - 1];
    if (last && last.style === cells[i].style) last.text += cells[i].g;
    else row.push({ text: cells[i].g, style: cells[i].style });
  }
  return row;
}

/**
 * The fenced code block a stream is inside, its lines arriving one by one: line() returns the
 * rows to commit (a segment once complete; the rest and the frame's end when the line closes the
 * block), rest() the rows of what is left when the text ends or for the live region.
 */
export class OpenCodeBlock {
  private segment: string[] = [];
  private chars = 0;
  /** Whether rows of it were drawn already (its first rows start a block in the output). */
  started = false;

  constructor(readonly fence: Fence) {}

  /** A complete line of the block: the rows it completes, and whether it closed the block. */
  line(line: string, width: number, opts: BlockOptions): { rows: Row[]; closed: boolean } {
    if (closesFence(line, this.fence)) return { rows: [...this.rows(this.segment, width, opts), ...codeFooter(width)], closed: true };
    this.segment.push(fenceBodyLine(line, this.fence));
    this.chars += line.length + 1;
    if (!codeSegmentDone(this.segment, this.chars)) return { rows: [], closed: false };
    const rows = this.rows(this.segment, width, opts);
    this.segment = [];
    this.chars = 0;
    return { rows, closed: false };
  }

  /** The rows the block would end with if the text ended now: `tail` (its last line, perhaps its closing fence), the last segment, the frame's end. */
  rest(tail: string, width: number, opts: BlockOptions): Row[] {
    const segment = tail === '' || closesFence(tail, this.fence) ? this.segment : [...this.segment, fenceBodyLine(tail, this.fence)];
    return [...this.rows(segment, width, opts), ...codeFooter(width)];
  }

  private rows(segment: string[], width: number, opts: BlockOptions): Row[] {
    return segment.length ? codeSegmentRows(segment, this.fence.lang, width, opts) : [];
  }
}
