// Block Markdown (marked's block tokens) as terminal rows at a width: headings, paragraphs, lists
// (bullets, numbers, nesting, task boxes), block quotes (a `│ ` gutter), tables (box-drawn,
// columns sized to their content and shrunk to fit), rules, raw HTML as text, and code blocks
// (markdown-code.ts); and a document's blocks as lines, a blank line between two (BlockOutput).
import type { Token, Tokens } from 'marked';
import { codeBlockRows, FRAME } from './markdown-code.js';
import { inlineSpans } from './markdown-inline.js';
import { hardSplit, inertControls, padRow, rowWidth, serializeRow, wrapSpans, type Row, type Span } from './terminal-text.js';

export interface BlockOptions {
  color: boolean;
  /**
   * List items' rows by their source and layout, for a stream redrawing a growing list: given to
   * it only while the items' tokens depend on nothing else (the same definitions, no `<a` tag
   * whose link state would carry from one item to the next).
   */
  items?: { get(raw: string): ItemRows | undefined; set(raw: string, rows: ItemRows): void };
}

const HEADING_STYLES = ['1;4;35', '1;35', '1;36', '1', '1', '1'];
const BULLETS = ['•', '◦', '▪'];
const BULLET_STYLE = '33';

/** A list item's rows, by its source, and the layout (width, depth, looseness, marker) they were made for. */
export interface ItemRows {
  layout: string;
  rows: Row[];
}

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
    case 'code':
      return codeBlockRows(t as Tokens.Code, width, opts);
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
  return inertControls(text)
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
    const marker: Span[] = [t.ordered ? { text: numbers[i].padStart(numberWidth), style: BULLET_STYLE } : { text: BULLETS[depth % BULLETS.length], style: BULLET_STYLE }, { text: ' ', style: '' }];
    if (item.task) marker.push(item.checked ? { text: '[x]', style: '32' } : { text: '[ ]', style: FRAME }, { text: ' ', style: '' });
    const layout = opts.items && `${width} ${depth} ${item.loose} ${marker.map((m) => m.text).join('')}`;
    const known = layout === undefined ? undefined : opts.items!.get(item.raw);
    if (known !== undefined && known.layout === layout) {
      rows.push(...known.rows);
      return;
    }
    const start = rows.length;
    itemRows(item, marker, width, opts, depth, rows);
    if (layout !== undefined) opts.items!.set(item.raw, { layout, rows: rows.slice(start) });
  });
  return rows;
}

/** A list item's rows: its marker, then its blocks indented under the marker. */
function itemRows(item: Tokens.ListItem, marker: Span[], width: number, opts: BlockOptions, depth: number, rows: Row[]): void {
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
  if (body.length === 0)
    rows.push(
      ...wrapSpans(
        header.flatMap((h, i) => (i ? [{ text: ' · ', style: FRAME }, ...h] : h)),
        width,
      ),
    );
  return rows;
}

/**
 * Lines of top-level blocks, with one blank line between two blocks, none before a block that
 * continues one cut in parts (`glued`). A stream carries `blocks` and `glued` from call to call.
 */
export class BlockOutput {
  readonly lines: string[] = [];
  constructor(
    private readonly color: boolean,
    public blocks = 0,
    public glued = false,
  ) {}

  /** A whole block's rows. */
  block(rows: Row[]): void {
    this.add(rows.map((r) => serializeRow(r, this.color)));
  }

  /** A whole block's lines (none: the block shows nothing, or has not started yet). */
  add(lines: string[]): void {
    if (lines.length === 0) return;
    if (this.blocks > 0 && !this.glued) this.lines.push('');
    this.blocks++;
    this.glued = false;
    for (const l of lines) this.lines.push(l);
  }

  /** More lines of the block the last add() started (a code block's next segment). */
  more(lines: string[]): void {
    for (const l of lines) this.lines.push(l);
  }
}
