// The changed places between two versions of a whole text, as spans of the old one (diff.ts's
// input), for write_file over an existing file: lines both share at the start and the end are
// set aside, and the rest is matched line by line (a longest common subsequence), within a
// budget of cells; past it, the middle is one change. Pure.
import type { Span } from './diff.js';

/** Beyond this many LCS cells (old middle lines × new middle lines), the middle is one span. */
export const LCS_MAX_CELLS = 4_000_000;

export function lineSpans(before: string, after: string): Span[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const offsets = [0];
  for (const l of a) offsets.push(offsets[offsets.length - 1] + l.length);
  const span = (i: number, j: number, k: number, l: number): Span => ({ start: offsets[i], end: offsets[j], text: b.slice(k, l).join('') });
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0 || n * m > LCS_MAX_CELLS) return [span(head, head + n, head, head + m)];
  // lcs[i * (m + 1) + j]: common lines of a[head + i..] and b[head + j..] (within the middle)
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i * w + j] = a[head + i] === b[head + j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
  }
  const spans: Span[] = [];
  let i = 0;
  let j = 0;
  let from: [number, number] | undefined; // where the current change started
  const close = () => {
    if (from) spans.push(span(head + from[0], head + i, head + from[1], head + j));
    from = undefined;
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[head + i] === b[head + j]) {
      close();
      i++;
      j++;
    } else {
      from ??= [i, j];
      if (j >= m || (i < n && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) i++;
      else j++;
    }
  }
  close();
  return spans;
}

/** Lines with their line ends kept (so the spans cover the text exactly). */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
