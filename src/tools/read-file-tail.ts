// Where read_file's lines are, found without reading more of the file than needed: lines streamed
// forwards from a line start, the start of the Nth line from the end (read backwards in chunks,
// so that `offset: -100` on a 1 GB log reads only its tail), and newlines counted in a byte range.
// Positions are the file's own bytes; a UTF-16 newline counts only as a whole, aligned code unit.
import { readSync } from 'node:fs';
import { ToolError } from './tool.js';

export type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** An open text file. Byte positions are the file's own; text starts after the byte order mark (`bom` bytes). */
export interface TextFile {
  fd: number;
  size: number;
  shown: string;
  encoding: Encoding;
  bom: number;
  decoder: TextDecoder;
}

export const CHUNK = 64 * 1024; // even, so that chunks of UTF-16 text never split a code unit

/** The newline as each encoding stores it: one byte, or one two-byte UTF-16 code unit. */
const NEWLINE: Record<Encoding, Buffer> = {
  'utf-8': Buffer.from([0x0a]),
  'utf-16le': Buffer.from([0x0a, 0x00]),
  'utf-16be': Buffer.from([0x00, 0x0a]),
};

/** Fills `buf` from file position `pos` (less only at the end of the file); returns the bytes read. */
/**
 * A read buffer for `bytes` bytes of a file: CHUNK at most, even, never zero-filled (only what a
 * read returned is ever looked at). Most files a model reads are small: a 64 KB zero-filled
 * buffer for each cost more than the read itself.
 */
function chunkFor(bytes: number): Buffer {
  const even = Math.max(2, bytes + (bytes & 1));
  return Buffer.allocUnsafe(Math.min(CHUNK, even));
}

/** Fills `buf` from file position `pos` (less only where the file ends); returns the bytes read. */
export function readInto(fd: number, buf: Buffer, pos: number): number {
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Whether a newline found at file position `p` is a whole newline (a UTF-16 one starts a code unit). */
function isNewlineAt(file: TextFile, p: number): boolean {
  return (p - file.bom) % NEWLINE[file.encoding].length === 0;
}

export interface Line {
  start: number;
  /** Where the line's text ends and the next line starts; undefined while a long line is still being read. */
  end?: number;
  next?: number;
  /** The line's bytes (without the newline), or null when it grew past `hold` and was not kept. */
  bytes: Buffer | null;
}

/**
 * The lines of a file from byte `from` (a line start), streamed in chunks. A line longer than `hold`
 * bytes is not kept: it is announced once (without `end`) so that the caller may stop there, and
 * yielded with `bytes: null` when it ends. Memory stays around `hold` plus two chunks, whatever the file.
 */
export function* scanLines(file: TextFile, from: number, hold: number, signal: AbortSignal): Generator<Line> {
  const nl = NEWLINE[file.encoding];
  const chunk = chunkFor(file.size - from);
  let data = Buffer.alloc(0); // the file's bytes from position `base` up to `pos`
  let base = from;
  let pos = from;
  let lineStart = from;
  let searchFrom = from;
  let kept = true;
  for (;;) {
    const i = data.indexOf(nl, searchFrom - base);
    if (i >= 0 && !isNewlineAt(file, base + i)) {
      searchFrom = base + i + 1; // a 0x0A byte of UTF-16 that is not a whole code unit
      continue;
    }
    if (i >= 0) {
      yield { start: lineStart, end: base + i, next: base + i + nl.length, bytes: kept ? data.subarray(lineStart - base, i) : null };
      lineStart = searchFrom = base + i + nl.length;
      kept = true;
      continue;
    }
    if (pos >= file.size) break;
    if (signal.aborted) throw new ToolError('aborted');
    // Keep the line being assembled (while it may still be shown), or only enough bytes to
    // find a two-byte newline split across reads.
    searchFrom = Math.max(lineStart, pos - (nl.length - 1));
    if (kept && pos - lineStart > hold) {
      kept = false;
      yield { start: lineStart, bytes: null };
    }
    const keepFrom = kept ? lineStart : searchFrom;
    const n = readInto(file.fd, chunk, pos);
    if (n === 0) break; // the file shrank while being read
    data = Buffer.concat([data.subarray(keepFrom - base), chunk.subarray(0, n)]);
    base = keepFrom;
    pos += n;
  }
  if (lineStart < pos) yield { start: lineStart, end: pos, next: pos, bytes: kept ? data.subarray(lineStart - base) : null };
}

/**
 * Where line `-count` starts (counted from the end: -1 is the last line), read backwards from the
 * end in chunks, so only the bytes of those lines are read; `lines` is how many lines there are
 * from `start` to the end: `count`, or all of the file's lines when it has fewer (then `start` is
 * the start of its text). A final newline ends the last line; it does not start an empty one.
 */
export function findLineFromEnd(file: TextFile, count: number, signal: AbortSignal): { start: number; lines: number } {
  const nl = NEWLINE[file.encoding];
  const chunk = chunkFor(file.size);
  let pos = file.size; // bytes from `pos` on have been searched
  const last = file.size - nl.length;
  if (last >= file.bom && isNewlineAt(file, last)) {
    const got = readInto(file.fd, chunk.subarray(0, nl.length), last);
    if (got === nl.length && chunk.subarray(0, nl.length).equals(nl)) pos = last;
  }
  let found = 0;
  while (pos > file.bom) {
    if (signal.aborted) throw new ToolError('aborted');
    let lo = Math.max(file.bom, pos - CHUNK);
    if (!isNewlineAt(file, lo)) lo++; // chunks start on a code unit, so none is split between two
    const data = chunk.subarray(0, pos - lo);
    if (readInto(file.fd, data, lo) < data.length) throw new ToolError(`${file.shown} shrank while being read; read it again`);
    for (let i = data.length; i > 0; ) {
      i = data.lastIndexOf(nl, i - 1);
      if (i < 0) break;
      if (!isNewlineAt(file, lo + i)) continue;
      if (++found === count) return { start: lo + i + nl.length, lines: count };
    }
    pos = lo;
  }
  return { start: file.bom, lines: found + 1 };
}

/** The newlines in bytes [from, to) of the file, `from` being a line start; for numbering the lines before `to`. */
export function newlinesBetween(file: TextFile, from: number, to: number, signal: AbortSignal): number {
  const nl = NEWLINE[file.encoding];
  const chunk = chunkFor(to - from);
  let count = 0;
  for (let pos = from; pos < to; ) {
    if (signal.aborted) throw new ToolError('aborted');
    const data = chunk.subarray(0, readInto(file.fd, chunk.subarray(0, Math.min(CHUNK, to - pos)), pos));
    if (data.length === 0) break; // the file shrank while being read
    for (let i = data.indexOf(nl); i >= 0; i = data.indexOf(nl, i + 1)) if (isNewlineAt(file, pos + i)) count++;
    pos += data.length;
  }
  return count;
}
