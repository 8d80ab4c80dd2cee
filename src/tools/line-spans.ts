// The changed places between two versions of a whole text, as spans of the old one (diff.ts's
// input), for write_file over an existing file: lines both share at the start and the end are
// set aside, and the rest is matched line by line by jsdiff (the `diff` package's Myers diff
// over the lines), within a budget of edits; past it, the middle is one change. Pure.
import { diffArrays } from 'diff';
import type { Splice } from './diff.js';

/** Beyond this many line edits (removed + added) in the middle, the middle is one span: the diff's
 * cost grows with the square of the edits (about 0.1 s at this cap), whatever the file's size. */
export const MAX_EDIT_LINES = 1_000;

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
  if (oldMiddle.length === 0 && newMiddle.length === 0) return [];
  const whole = () => [span(head, head + oldMiddle.length, newMiddle.join(''))];
  if (oldMiddle.length === 0 || newMiddle.length === 0) return whole();
  const newLines = new Set(newMiddle);
  if (!oldMiddle.some((l) => newLines.has(l))) return whole(); // a rewrite: nothing to match
  const changes = diffArrays(oldMiddle, newMiddle, { maxEditLength: MAX_EDIT_LINES });
  if (!changes) return whole();
  // Consecutive removals and additions make one span: the old lines they cover, the new text.
  const spans: Splice[] = [];
  let at = head; // the old line the next change starts at
  let open: { from: number; text: string } | undefined;
  for (const c of changes) {
    if (!c.added && !c.removed) {
      if (open) spans.push(span(open.from, at, open.text));
      open = undefined;
      at += c.count;
      continue;
    }
    open ??= { from: at, text: '' };
    if (c.removed) at += c.count;
    else open.text += c.value.join('');
  }
  if (open) spans.push(span(open.from, at, open.text));
  return spans;
}

/** Lines with their line ends kept (so the spans cover the text exactly). */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
