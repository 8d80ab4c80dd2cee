// Terminal text for the interactive mode: sanitizing text before it reaches the terminal, display
// widths (wide CJK characters and emoji take 2 columns), styled spans, their serialization to SGR
// escapes, and word wrapping to a width. Pure functions.
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';

/** A run of text in one style: SGR parameters such as "1;35", or '' for plain text. */
export interface Span {
  text: string;
  style: string;
}

/** One terminal line before serialization. */
export type Row = Span[];

export const RESET = '\x1b[0m';

// C0 controls except \t and \n, DEL, and the C1 controls (U+0080–U+009F).
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// An escape sequence cut off by the end of the text (a stream's last, partial line): dropped whole.
const PARTIAL_ESCAPE_AT_END = /[\x1b\x9b](?:\][^\x07\x1b\n]*|[[()#;?]*[\d;]*)$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * `text` without escape sequences and control characters, except `\n` and `\t` (`\r\n` becomes
 * `\n`; a lone `\r` is dropped). Works line by line: for a text `a + b` where `a` ends with `\n`,
 * it equals `stripControls(a) + stripControls(b)`, which lets a stream sanitize complete lines.
 */
export function stripControls(text: string): string {
  return stripVTControlCharacters(text.replace(/\r\n/g, '\n')).replace(PARTIAL_ESCAPE_AT_END, '').replace(CONTROLS, '');
}

/**
 * Text safe to write to a terminal: no escape sequence (colors, cursor moves, OSC titles and
 * hyperlinks, mode switches), no C0 or C1 control except `\n`, and tabs expanded to spaces at
 * `tabSize` columns. For tool output and anything else a model or a program produced.
 */
export function sanitizeForTerminal(text: string, tabSize = 8): string {
  return expandTabs(stripControls(text), tabSize);
}

/** Tabs replaced by spaces up to the next multiple of `tabSize` columns (display columns, per line). */
export function expandTabs(text: string, tabSize: number): string {
  if (!text.includes('\t')) return text;
  return text
    .split('\n')
    .map((line) => {
      if (!line.includes('\t')) return line;
      let out = '';
      let column = 0;
      const parts = line.split('\t');
      parts.forEach((part, i) => {
        out += part;
        column += displayWidth(part);
        if (i < parts.length - 1) {
          const pad = tabSize - (column % tabSize);
          out += ' '.repeat(pad);
          column += pad;
        }
      });
      return out;
    })
    .join('\n');
}

/** Columns `text` takes on a terminal (no escapes expected): 2 for wide and emoji characters. */
export function displayWidth(text: string): number {
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidth(text);
}

/** Columns a row takes. */
export function rowWidth(row: Row): number {
  let w = 0;
  for (const s of row) w += displayWidth(s.text);
  return w;
}

/** A row as a string: with SGR escapes and a final reset when `color`, else the bare text. */
export function serializeRow(row: Row, color: boolean): string {
  let out = '';
  if (!color) {
    for (const s of row) out += s.text;
    return out;
  }
  let current = '';
  for (const s of row) {
    if (s.text === '') continue;
    if (s.style !== current) {
      if (current !== '') out += RESET;
      if (s.style !== '') out += `\x1b[${s.style}m`;
      current = s.style;
    }
    out += s.text;
  }
  if (out.includes('\x1b') && !out.endsWith(RESET)) out += RESET;
  return out;
}

/** `style` laid over `base`: the SGR parameters of both (later ones win on a conflict, such as two colors). */
export function withStyle(base: string, style: string): string {
  return base === '' ? style : style === '' ? base : `${base};${style}`;
}

/** The graphemes of `text` (user-perceived characters: an emoji sequence stays whole). */
function graphemesOf(text: string): string[] {
  if (PRINTABLE_ASCII.test(text)) return text.split('');
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

/**
 * Spans cut into rows of at most `width` columns, between graphemes (for a word longer than the
 * width, or a code line). A grapheme wider than `width` (a wide character at width 1) takes a row alone.
 */
export function hardSplit(spans: Span[], width: number): Row[] {
  const rows: Row[] = [];
  let row: Row = [];
  let w = 0;
  for (const span of spans) {
    let text = '';
    for (const g of graphemesOf(span.text)) {
      const gw = displayWidth(g);
      if (w + gw > width && w > 0) {
        if (text) row.push({ text, style: span.style });
        rows.push(row);
        row = [];
        text = '';
        w = 0;
      }
      text += g;
      w += gw;
    }
    if (text) row.push({ text, style: span.style });
  }
  if (row.length) rows.push(row);
  return rows;
}

const RUNS = /\n|[ \t]+|[^ \t\n]+/g;

/**
 * Inline text wrapped at word boundaries into rows of at most `width` columns. Runs of spaces and
 * tabs are one breaking space (dropped at a row's end), `\n` is a hard break, a word longer than
 * the width is cut between graphemes. A word may span several spans (`**bold**,`): it stays whole.
 */
export function wrapSpans(spans: Span[], width: number): Row[] {
  const rows: Row[] = [];
  let row: Row = [];
  let rowW = 0;
  let word: Span[] = [];
  let wordW = 0;
  let space: Span | null = null;
  const placeWord = () => {
    if (word.length === 0) return;
    const gap = row.length > 0 && space !== null ? 1 : 0;
    if (rowW + gap + wordW <= width) {
      if (gap) row.push({ text: ' ', style: space!.style });
      row.push(...word);
      rowW += gap + wordW;
    } else if (wordW <= width) {
      if (row.length) rows.push(row);
      row = word;
      rowW = wordW;
    } else {
      if (row.length) rows.push(row);
      const pieces = hardSplit(word, width);
      rows.push(...pieces.slice(0, -1));
      row = pieces[pieces.length - 1];
      rowW = rowWidth(row);
    }
    word = [];
    wordW = 0;
    space = null;
  };
  for (const span of spans) {
    for (const m of span.text.matchAll(RUNS)) {
      const run = m[0];
      if (run === '\n') {
        placeWord();
        rows.push(row);
        row = [];
        rowW = 0;
        space = null;
      } else if (run[0] === ' ' || run[0] === '\t') {
        placeWord();
        space = { text: ' ', style: span.style };
      } else {
        const last = word[word.length - 1];
        if (last && last.style === span.style) last.text += run;
        else word.push({ text: run, style: span.style });
        wordW += displayWidth(run);
      }
    }
  }
  placeWord();
  if (row.length) rows.push(row);
  return rows;
}

/** `row` padded with spaces to `width` columns, the text placed by `align`. */
export function padRow(row: Row, width: number, align: 'left' | 'right' | 'center' | null = 'left'): Row {
  const free = Math.max(0, width - rowWidth(row));
  if (free === 0) return row;
  const left = align === 'right' ? free : align === 'center' ? Math.floor(free / 2) : 0;
  const out: Row = [];
  if (left) out.push({ text: ' '.repeat(left), style: '' });
  out.push(...row);
  if (free - left) out.push({ text: ' '.repeat(free - left), style: '' });
  return out;
}
