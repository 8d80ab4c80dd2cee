// Terminal text for the interactive mode: sanitizing text before it reaches the terminal, display
// widths (wide CJK characters and emoji take 2 columns), styled spans, their serialization to SGR
// escapes, and word wrapping to a width. Pure functions.
import stringWidth from 'string-width';

/** A run of text in one style: SGR parameters such as "1;35", or '' for plain text. */
export interface Span {
  text: string;
  style: string;
}

/** One terminal line before serialization. */
export type Row = Span[];

export const RESET = '\x1b[0m';

// Escape sequences, as a terminal reads them: CSI (ESC [ or C1 CSI, parameters, a final byte,
// which may be missing at the end of the text: a sequence cut off there), the strings OSC, DCS,
// SOS, PM and APC (ESC ] P X ^ _ or their C1 forms, ended by BEL or ST: their payload, such as
// OSC 52's clipboard text or OSC 8's link, goes too; one unterminated runs to the end of the
// line), and the other ESC sequences (ESC 7, ESC c, ESC ( 0…). None spans a line break, so that
// stripping works line by line (see stripControls).
const ESCAPES = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*(?:[\x40-\x7e]|$)|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?|\x1b[\x20-\x2f]*[\x30-\x7e]?/g;
// C0 controls except \t and \n, DEL, and the C1 controls (U+0080–U+009F).
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const HAS_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * `text` without escape sequences and control characters, except `\n` and `\t` (`\r\n` becomes
 * `\n`; a lone `\r` is dropped). Works line by line: for a text `a + b` where `a` ends with `\n`,
 * it equals `stripControls(a) + stripControls(b)`, which lets a stream sanitize complete lines.
 */
export function stripControls(text: string): string {
  if (!HAS_CONTROL.test(text)) return text;
  return text.replace(ESCAPES, '').replace(CONTROLS, '');
}

const DECODED_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * `text` with its control characters but `\t` and `\n` shown as U+FFFD: for text decoded after
 * sanitizing, such as Markdown's character references (`&#27;` is ESC; marked decodes them).
 */
export function inertControls(text: string): string {
  return HAS_CONTROL.test(text) ? text.replace(DECODED_CONTROL, '\ufffd') : text;
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

/**
 * Characters that are not a grapheme of their own whatever their neighbours (controls, formats,
 * marks, joiners, variation selectors, surrogates, Hangul jamo, prepended signs), or take no column.
 */
const NOT_SIMPLE = /[\p{Cc}\p{Cf}\p{Cs}\p{M}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Grapheme_Extend}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\u0d4e]/u;
/**
 * Per BMP character, learnt on first sight: 0 unknown, 1 or 2 its columns when it is "simple"
 * (always a grapheme of its own, so a text of simple characters has the sum of their widths, as
 * string-width would count), 3 when it is not. Saves string-width's grapheme segmentation and
 * emoji regex on text like box drawing, bullets, accented Latin and CJK.
 */
const SIMPLE = new Uint8Array(0x10000);

function simpleClass(code: number): number {
  const ch = String.fromCharCode(code);
  if (NOT_SIMPLE.test(ch)) return 3;
  const w = stringWidth(ch);
  return w === 1 || w === 2 ? w : 3;
}

/** Columns of `text` when all its characters are simple (printable ASCII included), else -1. */
function simpleWidth(text: string): number {
  let w = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) {
      w++;
      continue;
    }
    let k = SIMPLE[c];
    if (k === 0) k = SIMPLE[c] = simpleClass(c);
    if (k === 3) return -1;
    w += k;
  }
  return w;
}

/** Columns `text` takes on a terminal (no escapes expected): 2 for wide and emoji characters, as string-width counts. */
export function displayWidth(text: string): number {
  const w = simpleWidth(text);
  return w >= 0 ? w : stringWidth(text);
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
  let styled = false;
  for (const s of row) {
    if (s.text === '') continue;
    if (s.style !== current) {
      if (current !== '') out += RESET;
      if (s.style !== '') {
        out += `\x1b[${s.style}m`;
        styled = true;
      }
      current = s.style;
    }
    out += s.text;
  }
  // Every styled line ends with a reset, so that nothing after it (the terminal's own text) inherits a style.
  if (styled) out += RESET;
  return out;
}

/** `style` laid over `base`: the SGR parameters of both (later ones win on a conflict, such as two colors). */
export function withStyle(base: string, style: string): string {
  return base === '' ? style : style === '' ? base : `${base};${style}`;
}

/** The graphemes of `text` (user-perceived characters: an emoji sequence stays whole). */
function graphemesOf(text: string): string[] {
  if (simpleWidth(text) >= 0) return text.split('');
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

/** What shows instead of a grapheme wider than the whole width (a wide character at width 1). */
const TOO_WIDE = '?';

/**
 * Spans cut into rows of at most `width` columns, between graphemes (for a word longer than the
 * width, or a code line). A grapheme wider than `width` (a wide character at width 1) shows as
 * TOO_WIDE, so that no row is ever wider than `width`.
 */
export function hardSplit(spans: Span[], width: number): Row[] {
  const rows: Row[] = [];
  let row: Row = [];
  let w = 0;
  for (const span of spans) {
    let text = '';
    for (let g of graphemesOf(span.text)) {
      let gw = displayWidth(g);
      if (gw > width) {
        g = TOO_WIDE;
        gw = 1;
      }
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

/** Appends `text` in `style` to `row`, into its last span when that has the same style (fewer spans to serialize). */
function appendText(row: Row, text: string, style: string): void {
  const last = row[row.length - 1];
  if (last !== undefined && last.style === style) last.text += text;
  else row.push({ text, style });
}

/** Where a word ends: a space, a tab or a line break. */
const WORD_END = /[ \t\n]/g;

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
  let space: string | null = null; // the style of the space before the word, if any
  const placeWord = () => {
    if (word.length === 0) return;
    const gap = row.length > 0 && space !== null ? 1 : 0;
    if (rowW + gap + wordW <= width) {
      if (gap) appendText(row, ' ', space!);
      for (const s of word) appendText(row, s.text, s.style);
      rowW += gap + wordW;
    } else if (wordW <= width) {
      if (row.length) rows.push(row);
      row = word;
      rowW = wordW;
    } else {
      if (row.length) rows.push(row);
      const pieces = hardSplit(word, width);
      for (let i = 0; i < pieces.length - 1; i++) rows.push(pieces[i]);
      row = pieces[pieces.length - 1];
      rowW = rowWidth(row);
    }
    word = [];
    wordW = 0;
    space = null;
  };
  for (const span of spans) {
    const t = span.text;
    let i = 0;
    while (i < t.length) {
      const c = t.charCodeAt(i);
      if (c === 10) {
        placeWord();
        rows.push(row);
        row = [];
        rowW = 0;
        space = null;
        i++;
      } else if (c === 32 || c === 9) {
        placeWord();
        space = span.style;
        while (i < t.length && (t.charCodeAt(i) === 32 || t.charCodeAt(i) === 9)) i++;
      } else {
        WORD_END.lastIndex = i + 1;
        const j = WORD_END.exec(t) === null ? t.length : WORD_END.lastIndex - 1;
        const run = i === 0 && j === t.length ? t : t.slice(i, j);
        appendText(word, run, span.style);
        wordW += displayWidth(run);
        i = j;
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
