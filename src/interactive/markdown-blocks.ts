// Block Markdown (marked's block tokens) as terminal rows at a width: headings, paragraphs, lists
// (bullets, numbers, nesting, task boxes), block quotes (a `│ ` gutter), tables (box-drawn,
// columns sized to their content and shrunk to fit), rules, raw HTML as text, and code blocks
// (framed, highlighted, cut into segments that a stream can commit as they complete).
import type { Token, Tokens } from 'marked';
import { highlightLines } from './highlight.js';
import { inlineSpans } from './markdown-inline.js';
import { displayWidth, expandTabs, hardSplit, padRow, rowWidth, wrapSpans, type Row, type Span } from './terminal-text.js';

export interface BlockOptions {
  color: boolean;
}

const FRAME = '2'; // rules, gutters, borders, code frames: dim
const HEADING_STYLES = ['1;4;35', '1;35', '1;36', '1', '1', '1'];
const BULLETS = ['•', '◦', '▪'];
const BULLET_STYLE = '33';
const CODE_TAB = 4;
/** A code segment ends after a blank line, or at this many lines or characters (see codeSegmentDone). */
export const CODE_SEGMENT_LINES = 24;
export const CODE_SEGMENT_CHARS = 2000;

/** Rows of `tokens` (the blocks of a document, a quote or a list item), a blank row between blocks when `loose`. */
export function blockRows(tokens: Token[], width: number, opts: BlockOptions, loose = true, depth = 0): Row[] {
  const rows: Row[] = [];
  let blocks = 0;
  for (const t of tokens) {
    const r = renderBlock(t, width, opts, depth);
    if (r.length === 0) continue;
    if (blocks++ > 0 && loose) rows.push([]);
    rows.push(...r);
  }
  return rows;
}

/** One block as rows of at most `width` columns ([] for what shows nothing: blank lines, link definitions). */
export function renderBlock(t: Token, width: number, opts: BlockOptions, depth = 0): Row[] {
  switch (t.type) {
    case 'space':
    case 'def':
    case 'checkbox':
      return [];
    case 'paragraph':
      return wrapSpans(inlineSpans(t.tokens, opts.color), width);
    case 'text':
      return wrapSpans(t.tokens ? inlineSpans(t.tokens, opts.color) : inlineSpans([{ type: 'text', raw: t.raw, text: t.text }], opts.color), width);
    case 'heading':
      return heading(t as Tokens.Heading, width, opts);
    case 'hr':
      return [[{ text: '─'.repeat(width), style: FRAME }]];
    case 'code': {
      const { lang, lines } = codeOf(t as Tokens.Code);
      return [...codeHeader(lang, width), ...codeRows(lines, lang, width, opts), ...codeFooter(width)];
    }
    case 'blockquote':
      return quote(t.tokens ?? [], width, opts, depth);
    case 'list':
      return list(t as Tokens.List, width, opts, depth);
    case 'table':
      return table(t as Tokens.Table, width, opts);
    case 'html':
      return literal(t.text, width, FRAME);
    default:
      return typeof t.raw === 'string' ? literal(t.raw, width, '') : [];
  }
}

function heading(t: Tokens.Heading, width: number, opts: BlockOptions): Row[] {
  const style = HEADING_STYLES[Math.min(6, Math.max(1, t.depth)) - 1];
  const marks: Span[] = opts.color ? [] : [{ text: `${'#'.repeat(t.depth)} `, style: '' }];
  return wrapSpans([...marks, ...inlineSpans(t.tokens, opts.color, style)], width);
}

/** Text shown as written (raw HTML, unknown blocks): each line wrapped on its own. */
function literal(text: string, width: number, style: string): Row[] {
  return text
    .replace(/\n+$/, '')
    .split('\n')
    .flatMap((line) => {
      const rows = wrapSpans([{ text: line, style }], width);
      return rows.length ? rows : [[]];
    });
}

function quote(tokens: Token[], width: number, opts: BlockOptions, depth: number): Row[] {
  if (width < 4) return blockRows(tokens, width, opts, true, depth);
  const inner = blockRows(tokens, width - 2, opts, true, depth);
  return (inner.length ? inner : [[]]).map((row) => (row.length ? [{ text: '│ ', style: FRAME }, ...row] : [{ text: '│', style: FRAME }]));
}

function list(t: Tokens.List, width: number, opts: BlockOptions, depth: number): Row[] {
  const start = typeof t.start === 'number' ? t.start : 1;
  const numbers = t.items.map((_, i) => `${start + i}.`);
  const numberWidth = Math.max(0, ...numbers.map((n) => n.length));
  const rows: Row[] = [];
  t.items.forEach((item, i) => {
    if (i > 0 && t.loose) rows.push([]);
    const marker: Span[] = [
      t.ordered ? { text: numbers[i].padStart(numberWidth), style: BULLET_STYLE } : { text: BULLETS[depth % BULLETS.length], style: BULLET_STYLE },
      { text: ' ', style: '' },
    ];
    if (item.task) marker.push(item.checked ? { text: '[x]', style: '32' } : { text: '[ ]', style: FRAME }, { text: ' ', style: '' });
    const indent = rowWidth(marker);
    const body = item.tokens.filter((b) => b.type !== 'checkbox');
    if (width - indent < 2) {
      // Too narrow for the indentation: the marker on a row of its own, the body at full width.
      rows.push(hardSplit(marker, width)[0] ?? [], ...blockRows(body, width, opts, item.loose, depth + 1));
      return;
    }
    const inner = blockRows(body, width - indent, opts, item.loose, depth + 1);
    const pad: Span = { text: ' '.repeat(indent), style: '' };
    rows.push([...marker, ...(inner[0] ?? [])], ...inner.slice(1).map((row) => (row.length ? [pad, ...row] : [])));
  });
  return rows;
}

// ---- tables ----

type Align = 'left' | 'right' | 'center' | null;

/** Column widths: the natural ones if they fit in `avail`, else each capped at a common limit (the widest shrink first). */
export function fitColumns(natural: number[], avail: number): number[] {
  const total = natural.reduce((a, b) => a + b, 0);
  if (total <= avail) return natural;
  let lo = 1;
  let hi = Math.max(1, ...natural);
  while (lo < hi) {
    const cap = Math.ceil((lo + hi) / 2);
    if (natural.reduce((s, n) => s + Math.min(n, cap), 0) <= avail) lo = cap;
    else hi = cap - 1;
  }
  const widths = natural.map((n) => Math.max(1, Math.min(n, lo)));
  let spare = avail - widths.reduce((a, b) => a + b, 0);
  for (let i = 0; i < widths.length && spare > 0; i++) {
    if (natural[i] > widths[i]) {
      widths[i]++;
      spare--;
    }
  }
  return widths;
}

function table(t: Tokens.Table, width: number, opts: BlockOptions): Row[] {
  const cells = (row: Tokens.TableCell[], style: string) => row.map((c) => inlineSpans(c.tokens, opts.color, style));
  const header = cells(t.header, '1');
  const body = t.rows.map((r) => cells(r, ''));
  const n = header.length;
  const avail = width - (3 * n + 1);
  if (n === 0) return [];
  if (avail < n * 3) return tableAsRecords(header, body, width);
  const natural = Array.from({ length: n }, (_, i) => Math.max(1, ...[header, ...body].map((r) => Math.max(0, ...wrapSpans(r[i] ?? [], Number.MAX_SAFE_INTEGER).map(rowWidth)))));
  const widths = fitColumns(natural, avail);
  const border = (l: string, m: string, r: string): Row => [{ text: l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r, style: FRAME }];
  const line = (row: Span[][]): Row[] => {
    const wrapped = widths.map((w, i) => wrapSpans(row[i] ?? [], w));
    const height = Math.max(1, ...wrapped.map((c) => c.length));
    const bar = (text: string): Span => ({ text, style: FRAME });
    return Array.from({ length: height }, (_, k) => {
      const out: Row = [bar('│ ')];
      widths.forEach((w, i) => {
        out.push(...padRow(wrapped[i][k] ?? [], w, (t.align[i] ?? null) as Align));
        out.push(bar(i === n - 1 ? ' │' : ' │ '));
      });
      return out;
    });
  };
  return [border('┌', '┬', '┐'), ...line(header), border('├', '┼', '┤'), ...body.flatMap(line), border('└', '┴', '┘')];
}

/** A table too wide for any column layout: each row as "header: value" lines, rows between rules. */
function tableAsRecords(header: Span[][], body: Span[][][], width: number): Row[] {
  const rows: Row[] = [];
  body.forEach((r, k) => {
    if (k > 0) rows.push([{ text: '─'.repeat(width), style: FRAME }]);
    header.forEach((h, i) => rows.push(...wrapSpans([...h, { text: ': ', style: '1' }, ...(r[i] ?? [])], width)));
  });
  if (body.length === 0) rows.push(...wrapSpans(header.flatMap((h, i) => (i ? [{ text: ' · ', style: FRAME }, ...h] : h)), width));
  return rows;
}

// ---- code blocks ----

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
  const info = m[3].trim().split(/\s+/)[0].replace(/\\([!-/:-@[-`{-~])/g, '$1');
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

/** A code token's language and lines: for a fence, read from its source, exactly as a stream reads it line by line. */
export function codeOf(t: Tokens.Code): { lang: string | undefined; lines: string[] } {
  const raw = t.raw.split('\n');
  const fence = t.codeBlockStyle === 'indented' ? undefined : fenceOf(raw[0]);
  if (fence === undefined) return { lang: undefined, lines: t.text.split('\n') };
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
