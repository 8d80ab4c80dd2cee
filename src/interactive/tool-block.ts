// A finished tool call as the scrollback shows it, pure: its first line (view.ts), then a body.
// Collapsed (a preview): edit_file's diff (or write_file's, over an existing file) (up to DIFF_PREVIEW_LINES lines), bash's last lines
// (the end of the output, where errors are, plus error lines from the part not shown), any
// other tool's first lines; each with the real count of lines left out. Expanded: every line.
// Lines keep their indentation and blank lines; in a preview a long line is cut at the width, in
// full it wraps at the edge (every space kept).
// Diffs are coloured: removed lines red with "-", added green with "+", and in a changed line
// pair the words that changed are marked (word-diff.ts). Text from tools is sanitized.
import stringWidth from 'string-width';
import { textWithImages } from '../core/image.js';
import type { AgentEvent } from '../core/events.js';
import { clean, toolHeaderLine, type Paint } from './view.js';
import { wordDiff, type Piece } from './word-diff.js';
import { wrapVerbatim } from './wrap.js';
import { describeToolCall, type DescribeCall } from '../tools/descriptions.js';

export type ToolEnd = Extract<AgentEvent, { type: 'tool_end' }>;
export type BlockMode = 'preview' | 'full';

export const PREVIEW_LINES = 3;
export const BASH_TAIL_LINES = 5;
export const DIFF_PREVIEW_LINES = 16;
/** Error lines from the hidden part of bash's output shown above its tail, at most. */
export const BASH_ERROR_LINES = 3;
export const EXPAND_KEY = 'Ctrl+O';
/** The rows of a running command's output the live region shows. */
export const LIVE_TAIL_LINES = 3;

const BAR = '  │ ';
const ERROR_LINE = /\b(error|errors|failed|failure|fatal|exception|panic|traceback)\b|✗|✖/i;
const DIFF_ROW = /^([ +-])(\s*\d+)│(.*)$/;

/** The lines of a finished tool call: the first line and the body, collapsed or in full. */
export function toolBlock(e: ToolEnd, args: Record<string, unknown>, width: number, p: Paint, mode: BlockMode = 'preview', describe: DescribeCall = describeToolCall): string[] {
  // A call that rewrites a file shows its diff: in its result (edit_file), or in details when the
  // model is sent one line (write_file over a file).
  const described = describe(e.name, args);
  const written = described.rewrites && typeof e.result.details?.diff === 'string' ? `\n${e.result.details.diff}` : '';
  const text = bodyLines(clean(textWithImages(e.result.content) + written));
  const room = Math.max(10, width - stringWidth(BAR));
  const tone = e.result.isError ? p.red : p.dim;
  const plain = (l: string) => tone(BAR + fit(l, room));
  const more = (n: number, what = 'more') => {
    const text = `… ${n} ${what} line${n === 1 ? '' : 's'} (${EXPAND_KEY} to expand)`;
    return p.dim(BAR + (stringWidth(text) <= room ? text : fit(text.replace(' to expand', ''), room)));
  };
  const head = toolHeaderLine(e, args, width, p, describe);
  const diffAt = text.findIndex((l) => l.startsWith('@@ '));
  if (described.rewrites && !e.result.isError && diffAt >= 0) {
    const summary = text.slice(0, diffAt).filter((l) => l.trim() !== '');
    const diff = diffLines(text.slice(diffAt), room, p);
    const limit = mode === 'full' ? diff.length : DIFF_PREVIEW_LINES;
    const shown = diff.slice(0, limit).map((l) => BAR + l);
    if (diff.length > limit) shown.push(more(diff.length - limit));
    return [head, ...summary.slice(0, mode === 'full' ? summary.length : 1).map(plain), ...shown];
  }
  // In full, nothing is cut: a long line wraps at the edge, its spaces kept.
  if (mode === 'full') return [head, ...text.flatMap((l) => wrapVerbatim(l, room).map((part) => tone(BAR + part)))];
  if (described.kind === 'execute') {
    if (text.length <= BASH_TAIL_LINES) return [head, ...text.map(plain)];
    const hidden = text.slice(0, text.length - BASH_TAIL_LINES);
    const errors = hidden.filter((l) => ERROR_LINE.test(l)).slice(0, BASH_ERROR_LINES);
    return [head, ...errors.map((l) => p.red(BAR + fit(l, room))), more(hidden.length - errors.length, 'earlier'), ...text.slice(-BASH_TAIL_LINES).map(plain)];
  }
  const shown = text.slice(0, PREVIEW_LINES).map(plain);
  if (text.length > PREVIEW_LINES) shown.push(more(text.length - PREVIEW_LINES));
  return [head, ...shown];
}

/** The lines a running command's latest output shows in the live region: its last non-empty rows. */
export function liveTailLines(tail: string, width: number, p: Paint): string[] {
  const lines = bodyLines(clean(tail)).filter((l) => l.trim() !== '');
  return lines.slice(-LIVE_TAIL_LINES).map((l) => p.dim(BAR + fit(l, Math.max(10, width - stringWidth(BAR)))));
}

/** Split into lines, with blank lines at both ends dropped (inner ones and indentation kept). */
export function bodyLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length && lines[0].trim() === '') lines.shift();
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  return lines;
}

/** A unified diff's lines coloured: hunk headers cyan, context dim, removed red, added green, changed words marked. */
export function diffLines(lines: readonly string[], width: number, p: Paint): string[] {
  const color = p.red('x') !== 'x';
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const row = DIFF_ROW.exec(lines[i]);
    if (!row) {
      out.push(lines[i].startsWith('@@') ? p.cyan(fit(lines[i], width)) : p.dim(fit(lines[i], width)));
      i++;
      continue;
    }
    if (row[1] === ' ') {
      out.push(p.dim(fit(lines[i], width)));
      i++;
      continue;
    }
    // A run of removed lines and the added lines after it: pairs are marked word by word.
    const removed: RegExpExecArray[] = [];
    const added: RegExpExecArray[] = [];
    for (let m; i < lines.length && (m = DIFF_ROW.exec(lines[i])) && m[1] === '-'; i++) removed.push(m);
    for (let m; i < lines.length && (m = DIFF_ROW.exec(lines[i])) && m[1] === '+'; i++) added.push(m);
    const pairs = removed.map((r, k) => (k < added.length ? wordDiff(r[3], added[k][3]) : undefined));
    removed.forEach((r, k) => out.push(changedRow(r, pairs[k]?.removed, width, color, p.red, '31')));
    added.forEach((a, k) => out.push(changedRow(a, pairs[k]?.added, width, color, p.green, '32')));
  }
  return out;
}

function changedRow(row: RegExpExecArray, pieces: Piece[] | undefined, width: number, color: boolean, tone: (s: string) => string, sgr: string): string {
  const prefix = `${row[1]}${row[2]}│`;
  const parts = cutPieces([{ text: prefix, changed: false }, ...(pieces ?? [{ text: row[3], changed: false }])], width);
  if (!color) return parts.map((x) => x.text).join('');
  // Changed words: the line's colour, reversed.
  return parts.map((x) => (x.changed ? `\x1b[7;${sgr}m${x.text}\x1b[0m` : tone(x.text))).join('');
}

/** Text cut to `width` cells with "…", spaces and indentation kept. */
export function fit(text: string, width: number): string {
  return cutPieces([{ text, changed: false }], width)
    .map((x) => x.text)
    .join('');
}

function cutPieces(pieces: Piece[], width: number): Piece[] {
  const total = pieces.reduce((n, x) => n + stringWidth(x.text), 0);
  if (total <= width) return pieces;
  const out: Piece[] = [];
  let used = 0;
  for (const x of pieces) {
    let text = '';
    for (const ch of x.text) {
      const w = stringWidth(ch);
      if (used + w > width - 1) break;
      text += ch;
      used += w;
    }
    if (text) out.push({ text, changed: x.changed });
    if (text.length < x.text.length) break;
  }
  out.push({ text: '…', changed: false });
  return out;
}
