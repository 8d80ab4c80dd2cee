// What a command printed, made fit for a model: raw bytes → clean lines → the tail that fits.
// Each line is decoded on its own (a newline byte is never inside a UTF-8 character, so an invalid
// sequence cannot spread), terminal escape sequences are stripped, a line redrawn with carriage
// returns (a progress bar) keeps only its last state, and any control character left (other than
// tab) or invalid byte becomes U+FFFD. Lines that are mostly not text are binary data; so are the
// lines next to them with any such character, and short lines between two of them (random bytes
// make short lines that look like anything). Each run of binary lines is replaced by one note
// giving its size. Pure functions, no I/O.
import { stripVTControlCharacters } from 'node:util';
import { formatBytes, type TruncateLimits } from './truncate.js';

/** One line as shown, and how much of the raw output it stands for. */
export interface OutputLine {
  text: string;
  /** Raw lines it stands for (more than one for a run of binary lines). */
  rawLines: number;
  rawBytes: number;
  binary: boolean;
  /** Characters that were not text (replaced by U+FFFD). */
  bad: number;
}

const NEWLINE = 0x0a;
const REPLACEMENT = '\uFFFD';
/** C0 controls but tab and newline, DEL and the C1 controls (carriage returns are handled before). */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/** A line is binary data when more than this share of its characters are not text… */
const BINARY_SHARE = 0.3;
/** …and there are at least this many of them (one odd byte in a short line is shown, replaced). */
const BINARY_MIN_BAD = 4;
/** Lines this short between two binary lines are taken as part of the binary data. */
const SHORT_LINE = 8;

/** The state a line redrawn with carriage returns ends in: the text after the last one that is followed by any. */
export function lastRedraw(line: string): string {
  const trimmed = line.replace(/\r+$/, ''); // CRLF, or a progress line ending in \r before its \n
  if (!trimmed.includes('\r')) return trimmed;
  const parts = trimmed.split('\r');
  for (let i = parts.length - 1; i >= 0; i--) if (parts[i] !== '') return parts[i];
  return '';
}

/** One raw line (without its newline) as text, and whether it is binary data rather than text. */
export function cleanLine(raw: Uint8Array): { text: string; binary: boolean; bad: number } {
  const decoded = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'); // invalid bytes → U+FFFD
  const text = lastRedraw(stripVTControlCharacters(decoded));
  let bad = 0;
  for (let i = text.indexOf(REPLACEMENT); i >= 0; i = text.indexOf(REPLACEMENT, i + 1)) bad++;
  const clean = text.replace(CONTROL, () => {
    bad++;
    return REPLACEMENT;
  });
  const binary = bad >= BINARY_MIN_BAD && bad > clean.length * BINARY_SHARE;
  return { text: clean, binary, bad };
}

/** Where the first whole line of `buf` starts, when `buf` starts in the middle of one (0 when it has no newline). */
export function firstLineStart(buf: Uint8Array): number {
  const nl = buf.indexOf(NEWLINE);
  return nl < 0 ? 0 : nl + 1;
}

/** The first byte position at or after `at` that starts a UTF-8 character. */
export function charStart(buf: Uint8Array, at: number): number {
  let i = at;
  while (i < buf.length && (buf[i] & 0xc0) === 0x80) i++;
  return i;
}

export interface TailView {
  text: string;
  /** Lines shown (a run of binary lines shown as one note counts once). */
  shownLines: number;
  /** Raw lines the shown ones stand for. */
  shownRawLines: number;
  /** The first line shown is only the end of a line longer than the byte limit. */
  cutLine: boolean;
  /** Some of what is shown is a note standing for binary data. */
  binary: boolean;
}

/** What a note standing for binary data may take, for the byte budget (its size is known only at the end). */
const BINARY_NOTE_BYTES = 48;

/**
 * The end of raw output (starting at a line start) as clean lines, as many as fit both limits (a
 * newline between lines counts); a last line over the byte limit shows its end. Lines are cleaned
 * from the end backwards and only until the limits are reached, so the cost is that of what is shown.
 */
export function cleanTail(buf: Uint8Array, limits: TruncateLimits): TailView {
  const kept: OutputLine[] = []; // last line first
  let bytes = 0;
  let cutLine = false;
  let end = buf.length > 0 && buf[buf.length - 1] === NEWLINE ? buf.length - 1 : buf.length; // a final newline ends the last line
  for (let more = buf.length > 0; more; ) {
    const nl = end > 0 ? buf.lastIndexOf(NEWLINE, end - 1) : -1;
    const { text, binary, bad } = cleanLine(buf.subarray(nl + 1, end));
    const rawBytes = end - nl - 1 + (end < buf.length ? 1 : 0);
    const prev = kept[kept.length - 1];
    if (binary && prev?.binary) {
      prev.rawLines++;
      prev.rawBytes += rawBytes;
    } else {
      const add = (binary ? BINARY_NOTE_BYTES : Buffer.byteLength(text, 'utf8')) + (kept.length > 0 ? 1 : 0);
      if (kept.length >= limits.maxLines || bytes + add > limits.maxBytes) {
        if (kept.length === 0) {
          kept.push({ text: endToBytes(text, limits.maxBytes), rawLines: 1, rawBytes, binary, bad });
          cutLine = !binary;
        }
        break;
      }
      kept.push({ text, rawLines: 1, rawBytes, binary, bad });
      bytes += add;
    }
    more = nl >= 0;
    end = nl;
  }
  const lines = mergeBinary(kept.reverse());
  return {
    text: lines.map((l) => l.text).join('\n'),
    shownLines: lines.length,
    shownRawLines: lines.reduce((n, l) => n + l.rawLines, 0),
    cutLine: cutLine && !lines[0].binary,
    binary: lines.some((l) => l.binary),
  };
}

/**
 * Lines next to binary data that have characters that are not text join it (both ways, so a chain
 * of them does), then runs of short lines between two binary ones; each run of binary lines
 * becomes one note. Only merges: the result is never longer than the input.
 */
export function mergeBinary(lines: OutputLine[]): OutputLine[] {
  const binary = lines.map((l) => l.binary);
  for (let i = 1; i < lines.length; i++) if (binary[i - 1] && lines[i].bad > 0) binary[i] = true;
  for (let i = lines.length - 2; i >= 0; i--) if (binary[i + 1] && lines[i].bad > 0) binary[i] = true;
  for (let i = 1; i < lines.length; i++) {
    if (!binary[i - 1] || binary[i]) continue;
    let j = i;
    while (j < lines.length && !binary[j] && lines[j].text.length <= SHORT_LINE) j++;
    if (j < lines.length && binary[j]) binary.fill(true, i, j);
    i = j;
  }
  const out: OutputLine[] = [];
  lines.forEach((l, i) => {
    const prev = out[out.length - 1];
    if (binary[i] && prev?.binary) {
      prev.rawLines += l.rawLines;
      prev.rawBytes += l.rawBytes;
    } else out.push({ ...l, binary: binary[i] });
  });
  for (const l of out) if (l.binary) l.text = `[binary data, ${formatBytes(l.rawBytes)}, not shown]`;
  return out;
}

/** The longest suffix of `s` that fits in `maxBytes` of UTF-8, never splitting a character. */
export function endToBytes(s: string, maxBytes: number): string {
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= maxBytes) return s;
  return buf.subarray(charStart(buf, buf.length - maxBytes)).toString('utf8');
}
