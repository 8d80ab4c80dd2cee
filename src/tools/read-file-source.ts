// Where read_file's bytes come from: an open file on disk (read in chunks, never whole, through
// read-file-tail.ts), or the text an editor client holds (ACP's fs/read_text_file), which arrives
// whole and is held in memory as its UTF-8 bytes. read_file works on a ByteSource only, so both
// give the same windows, notices and byte ranges: the model cannot tell a buffer from a file.
import { findLineFromEnd, newlinesBetween, readInto, scanLines, type Line, type TextFile } from './read-file-tail.js';
import { ToolError } from './tool.js';

/** The byte-level operations read_file needs; positions are the text's own bytes (see TextFile). */
export interface ByteSource {
  /** Fills `buf` from position `pos` (less only at the end); returns the bytes copied. */
  readInto(buf: Buffer, pos: number): number;
  /** The lines from byte `from` (a line start); see scanLines. */
  scanLines(from: number, hold: number, signal: AbortSignal): Generator<Line>;
  /** Where line `-count` starts, and how many lines there are from there; see findLineFromEnd. */
  findLineFromEnd(count: number, signal: AbortSignal): { start: number; lines: number };
  /** The newlines in bytes [from, to). */
  newlinesBetween(from: number, to: number, signal: AbortSignal): number;
}

/** An open file on disk: every operation reads just the bytes it needs, through `file.fd`. */
export function diskSource(file: TextFile): ByteSource {
  return {
    readInto: (buf, pos) => readInto(file.fd, buf, pos),
    scanLines: (from, hold, signal) => scanLines(file, from, hold, signal),
    findLineFromEnd: (count, signal) => findLineFromEnd(file, count, signal),
    newlinesBetween: (from, to, signal) => newlinesBetween(file, from, to, signal),
  };
}

const NL = 0x0a;

/**
 * UTF-8 text held in memory (`bytes`; `bom`: the length of its byte order mark, 0 or 3). It follows
 * the disk functions' conventions exactly: a final newline ends the last line rather than starting
 * an empty one, and a search from the end that runs out of lines starts at the text after the BOM.
 * Every line is yielded with its bytes: they are all in memory already, and a line too long to
 * show is then refused by its length, as one not kept from disk is.
 */
export function memorySource(bytes: Buffer, bom: number): ByteSource {
  const size = bytes.length;
  return {
    readInto(buf, pos) {
      return pos >= size ? 0 : bytes.copy(buf, 0, pos, Math.min(size, pos + buf.length));
    },
    *scanLines(from, _hold, signal) {
      let start = from;
      for (let i = bytes.indexOf(NL, start); i >= 0; i = bytes.indexOf(NL, start)) {
        if (signal.aborted) throw new ToolError('aborted');
        yield { start, end: i, next: i + 1, bytes: bytes.subarray(start, i) };
        start = i + 1;
      }
      if (start < size) yield { start, end: size, next: size, bytes: bytes.subarray(start) };
    },
    findLineFromEnd(count, signal) {
      if (signal.aborted) throw new ToolError('aborted');
      let pos = size > bom && bytes[size - 1] === NL ? size - 1 : size; // bytes from `pos` on have been searched
      let found = 0;
      while (pos > bom) {
        const i = bytes.lastIndexOf(NL, pos - 1);
        if (i < bom) break;
        if (++found === count) return { start: i + 1, lines: count };
        pos = i;
      }
      return { start: bom, lines: found + 1 };
    },
    newlinesBetween(from, to, signal) {
      if (signal.aborted) throw new ToolError('aborted');
      let count = 0;
      for (let i = bytes.indexOf(NL, from); i >= 0 && i < to; i = bytes.indexOf(NL, i + 1)) count++;
      return count;
    },
  };
}
