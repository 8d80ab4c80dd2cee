// Plain text wrapped to the screen's width instead of cut (issue 24 §6): error lines, the status
// line, notices. Words stay whole where they fit; a word wider than the screen is split. Pure.
import { sanitizeForTerminal, serializeRow, wrapSpans } from './terminal-text.js';

/**
 * `text` (made safe to print) as rows of at most `width` cells; the rows after the first of each
 * paragraph start with `indent`. Each row is painted by `style` (a colour) when given.
 */
export function wrapText(text: string, width: number, opts: { indent?: string; style?: (s: string) => string } = {}): string[] {
  const indent = opts.indent ?? '';
  const w = Math.max(1, width);
  const inner = Math.max(1, w - indent.length);
  const out: string[] = [];
  for (const line of sanitizeForTerminal(text, 2).split('\n')) {
    const paragraph = line.replace(/[ \t]+/g, ' ').trim(); // runs of spaces as one: each row is then a prefix of the rest
    const rows = wrapSpans([{ text: paragraph, style: '' }], w);
    if (rows.length === 0) {
      out.push('');
      continue;
    }
    const first = serializeRow(rows[0], false);
    out.push(first);
    // The rest of the paragraph rewrapped to the width the indent leaves.
    const rest = paragraph.slice(first.length).trimStart();
    if (rest !== '') for (const row of wrapSpans([{ text: rest, style: '' }], inner)) out.push(indent + serializeRow(row, false));
  }
  return opts.style ? out.map((l) => (l === '' ? l : opts.style!(l))) : out;
}
