// The changed places between two versions of a whole text, as spans of the old one (diff.ts's
// input), for write_file over an existing file: lines both share at the start and the end are
// set aside, and the rest is matched line by line by jsdiff (diff.ts's changedRuns: the `diff`
// package's Myers diff over the lines), within a budget of edits (MAX_EDIT_LINES); past it, or
// with no line in common, the middle is one change. Pure.
import { changedRuns, type Splice } from './diff.js';

export function lineSpans(before: string, after: string): Splice[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const offsets = [0];
  for (const l of a) offsets.push(offsets[offsets.length - 1] + l.length);
  const span = (i: number, j: number, text: string): Splice => ({ start: offsets[i], end: offsets[j], text });
  const oldMiddle = a.slice(head, a.length - tail);
  const newMiddle = b.slice(head, b.length - tail);
  // Each run of removals and additions is one span: the old lines it covers, the new text.
  return changedRuns(oldMiddle, newMiddle).map((r) => span(head + r.oldFrom, head + r.oldFrom + r.removed.length, r.added.join('')));
}

/** Lines with their line ends kept (so the spans cover the text exactly). */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
