// Plain text wrapped to the screen's width instead of cut (issue 24 §6): error lines, the status
// line, notices. Words stay whole where they fit; a word wider than the screen is split. Pure.
import { displayWidth, hardSplit, sanitizeForTerminal, serializeRow, withStyle, wrapSpans, type Span } from './terminal-text.js';

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
    const lead = /^ */.exec(line)![0].slice(0, w - 1); // a paragraph's own indentation stays on its first row
    const paragraph = line.replace(/[ \t]+/g, ' ').trim(); // runs of spaces as one: each row is then a prefix of the rest
    const rows = wrapSpans([{ text: paragraph, style: '' }], w - lead.length);
    if (rows.length === 0) {
      out.push('');
      continue;
    }
    const first = serializeRow(rows[0], false);
    out.push(lead + first);
    // The rest of the paragraph rewrapped to the width the indent leaves.
    const rest = paragraph.slice(first.length).trimStart();
    if (rest !== '') for (const row of wrapSpans([{ text: rest, style: '' }], inner)) out.push(indent + serializeRow(row, false));
  }
  return opts.style ? out.map((l) => (l === '' ? l : opts.style!(l))) : out;
}

/**
 * A two-column line ("  /usage   what it does") wrapped with a hanging indent under its second
 * column; when that column leaves less than 24 cells, the second column goes under the first,
 * indented by 4. A line without a second column wraps under 2 spaces.
 */
export function wrapColumns(line: string, width: number): string[] {
  const m = /^( +\S+(?: \S+)*? {2,})(\S[\s\S]*)$/.exec(line);
  if (!m) return line.length <= width ? [line] : wrapText(line, width, { indent: '  ' });
  const [, head, text] = m;
  if (head.length <= width && width - head.length >= 24) {
    const rows = wrapText(text, width - head.length);
    return rows.map((r, i) => (i === 0 ? head : ' '.repeat(head.length)) + r);
  }
  return [...wrapText(head.trimEnd(), width, { indent: '  ' }), ...wrapText(text, width - 4).map((r) => `    ${r}`)];
}

const SGR = /\x1b\[([0-9;]*)m/;

/**
 * A line already painted (SGR styling, as view.ts's paint makes it) wrapped to `width` cells, its
 * styles kept on every row; a line that fits is returned as it is. The last guard for what commands
 * print (a 44-character session id at 40 columns), so that nothing is cut at the screen's edge.
 */
export function wrapStyled(line: string, width: number): string[] {
  if (displayWidth(line.replace(new RegExp(SGR.source, 'g'), '')) <= width) return [line];
  const spans: Span[] = [];
  let style = '';
  line.split(SGR).forEach((part, i) => {
    if (i % 2 === 0) {
      if (part !== '') spans.push({ text: part, style });
    } else style = part === '' || part === '0' ? '' : withStyle(style, part);
  });
  // Its indentation stays, on every row (wrapSpans drops spaces at a row's start).
  const lead = spans.length > 0 ? /^ */.exec(spans[0].text)![0].slice(0, Math.max(0, width - 8)) : '';
  if (lead) spans[0] = { ...spans[0], text: spans[0].text.slice(lead.length) };
  return wrapSpans(spans, Math.max(1, width - lead.length)).map((row) => lead + serializeRow(row, line.includes('\x1b[')));
}

/**
 * A line of program output (already made safe to print) broken into rows of `width` cells exactly
 * where it reaches the edge, every space kept: columns of `ls -l` or a stack trace stay as they were.
 */
export function wrapVerbatim(line: string, width: number): string[] {
  if (displayWidth(line) <= width) return [line];
  return hardSplit([{ text: line, style: '' }], Math.max(1, width)).map((row) => serializeRow(row, false));
}
