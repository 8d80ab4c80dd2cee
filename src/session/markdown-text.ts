// The Markdown of the session export (export-text.ts) that the entry kinds' `markdown` hooks
// share: inline text and code spans that hold anything, message text made safe, quotes and fenced
// excerpts. Pure functions of text.

/** Lines of a tool result shown in Markdown; the rest is counted, not shown. */
export const RESULT_LINES = 20;
/** Characters of one tool-result line shown in Markdown. */
const LINE_CHARS = 400;

/** A quote block: `head`, then `text` (Markdown made safe). */
export function quote(head: string, text: string): string {
  const body = safeText(text).split('\n');
  return [`> ${head}`, '>', ...body.map((l) => (l === '' ? '>' : `> ${l}`))].join('\n');
}

/** The first RESULT_LINES lines of `text` in a fence that no backtick run inside can close (blocks). */
export function fencedExcerpt(text: string, info: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  const shown = lines.slice(0, RESULT_LINES).map((l) => (l.length > LINE_CHARS ? `${l.slice(0, LINE_CHARS)}… (${l.length - LINE_CHARS} more chars)` : l));
  const fence = '`'.repeat(Math.max(3, longestRun(shown.join('\n'), '`') + 1));
  const out = [[fence + info, ...shown, fence].join('\n')];
  const more = lines.length - shown.length;
  if (more > 0) out.push(`_… ${more} more ${more === 1 ? 'line' : 'lines'}_`);
  return out;
}

function longestRun(s: string, ch: string): number {
  let best = 0;
  let cur = 0;
  for (const c of s) {
    cur = c === ch ? cur + 1 : 0;
    if (cur > best) best = cur;
  }
  return best;
}

/** Inline text (names, labels, messages of one line): Markdown punctuation escaped, newlines flattened. */
export function escapeInline(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').replace(/[\\`*_[\]{}<>#|~!&]/g, (c) => `\\${c}`);
}

/** An inline code span that holds any text: the backtick run around it is longer than any inside. */
export function codeSpan(s: string): string {
  const flat = s.replace(/\n/g, ' ');
  const ticks = '`'.repeat(longestRun(flat, '`') + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || (flat.startsWith(' ') && flat.endsWith(' ') && flat.trim() !== '') ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/**
 * Message text is Markdown already, so it is kept, with two repairs that stop one message from
 * breaking the rest of the transcript: an unclosed code fence is closed, and `<` that could start
 * an HTML tag outside code becomes `&lt;` (a `</details>` or `<script>` in a message stays text).
 */
export function safeText(text: string): string {
  const out: string[] = [];
  let open: { ch: string; len: number } | null = null;
  const trimmed = text
    .replace(/\r\n?/g, '\n')
    .replace(/^([ \t]*\n)+/, '')
    .replace(/\s+$/, '');
  for (const line of trimmed.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      if (m && m[1][0] === open.ch && m[1].length >= open.len && m[2].trim() === '') open = null;
      out.push(line);
    } else if (m && !(m[1][0] === '`' && m[2].includes('`'))) {
      open = { ch: m[1][0], len: m[1].length };
      out.push(line);
    } else {
      out.push(escapeTagsOutsideCode(line));
    }
  }
  if (open) out.push(open.ch.repeat(open.len));
  return out.join('\n');
}

/** Escapes tag-like `<` outside inline code spans (a backtick run closed by an equal run on the line). */
function escapeTagsOutsideCode(line: string): string {
  const esc = (s: string) => s.replace(/<(?=[A-Za-z/!?])/g, '&lt;');
  let out = '';
  let i = 0;
  while (i < line.length) {
    const start = line.indexOf('`', i);
    if (start < 0) break;
    let end = start;
    while (line[end] === '`') end++;
    const run = line.slice(start, end);
    const close = findRun(line, run, end);
    if (close < 0) {
      out += esc(line.slice(i, end));
      i = end;
      continue;
    }
    out += esc(line.slice(i, start)) + line.slice(start, close + run.length);
    i = close + run.length;
  }
  return out + esc(line.slice(i));
}

/** The index of the next backtick run of exactly `run`'s length at or after `from`, or -1. */
function findRun(line: string, run: string, from: number): number {
  for (let k = line.indexOf(run, from); k >= 0; k = line.indexOf(run, k + 1)) {
    if (line[k - 1] !== '`' && line[k + run.length] !== '`') return k;
    while (line[k + 1] === '`') k++;
  }
  return -1;
}
