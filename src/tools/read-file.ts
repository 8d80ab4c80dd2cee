// read_file: reads a text file inside the workspace, a window of lines or a range of bytes at a time.
// Lines are streamed in 64 KB chunks and reading stops once the window is full; a byte range is
// one positioned read of just that range. Either way a huge file is never read whole.
// A result that does not reach the end ends with a notice giving the file's size and the exact
// arguments of the next call, so every byte of any file can be read, page by page.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { Type, type Static } from 'typebox';
import { ToolError, type ToolDefinition } from './tool.js';
import { DEFAULT_LIMITS, formatBytes, type TruncateLimits } from './truncate.js';
import { displayPath, resolveForRead } from './workspace.js';

function params(limits: TruncateLimits) {
  return Type.Object(
    {
      path: Type.String({ description: 'File path, relative to the workspace' }),
      offset: Type.Optional(Type.Integer({ minimum: 1, description: 'Line number to start at (1-based)' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum number of lines to return (at most ${limits.maxLines})` })),
      byteOffset: Type.Optional(
        Type.Integer({
          minimum: 0,
          description:
            'Read by bytes instead of lines: the byte position to start at (0 = start of the file). Use it for a line too long ' +
            'to read whole (minified code, one-line JSON) or when a notice gives it. Not combinable with offset/limit. ' +
            'A position inside a multi-byte character moves forward to the next character.',
        }),
      ),
      byteLength: Type.Optional(
        Type.Integer({
          minimum: 1,
          description: `Bytes to read from byteOffset (default and maximum ${limits.maxBytes}; larger values are clamped). The end backs off to a character boundary.`,
        }),
      ),
    },
    { additionalProperties: false },
  );
}

type Args = Static<ReturnType<typeof params>>;

const CHUNK = 64 * 1024;
const SNIFF = 8 * 1024;
/** Files up to this size get their lines counted (one streamed pass) when a result does not reach the end. */
const COUNT_LINES_MAX = 8 * 1024 * 1024;

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** An open text file. Byte positions are the file's own; text starts after the byte order mark (`bom` bytes). */
interface TextFile {
  fd: number;
  size: number;
  shown: string;
  encoding: Encoding;
  bom: number;
  decoder: TextDecoder;
}

/** The newline as each encoding stores it: one byte, or one two-byte UTF-16 code unit. */
const NEWLINE: Record<Encoding, Buffer> = {
  'utf-8': Buffer.from([0x0a]),
  'utf-16le': Buffer.from([0x0a, 0x00]),
  'utf-16be': Buffer.from([0x00, 0x0a]),
};

export function createReadFileTool(limits: TruncateLimits = DEFAULT_LIMITS): ToolDefinition<Args> {
  return {
    name: 'read_file',
    description:
      `Read a text file in the workspace, by lines (offset/limit) or by bytes (byteOffset/byteLength). Returns at most ${limits.maxLines} lines ` +
      `or ${formatBytes(limits.maxBytes)}; when more remains, a last line gives the file's size and the exact arguments of the next call. ` +
      'Binary files are refused.',
    parameters: params(limits),
    risk: 'read',
    selfTruncating: true,
    async execute(args, ctx) {
      const byLines = args.offset !== undefined || args.limit !== undefined;
      const byBytes = args.byteOffset !== undefined || args.byteLength !== undefined;
      if (byLines && byBytes) {
        throw new ToolError('offset/limit (lines) and byteOffset/byteLength (bytes) cannot be combined; give one pair or the other');
      }
      const real = resolveForRead(ctx, args.path);
      const shown = displayPath(ctx, real);
      // O_NONBLOCK: opening a named pipe must not wait for a writer (it is refused just below).
      const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        const stat = fstatSync(fd);
        if (!stat.isFile()) throw new ToolError(`${shown} is not a regular file (${stat.isDirectory() ? 'a directory' : 'a special file'})`);
        const head = Buffer.alloc(Math.min(SNIFF, stat.size));
        readAt(fd, head, 0);
        const sniffed = sniffEncoding(head);
        if (sniffed === 'binary') {
          throw new ToolError(`${shown} looks like a binary file (${formatBytes(stat.size)}, ${stat.size} bytes; it contains NUL bytes); read_file only reads text`);
        }
        if (stat.size <= sniffed.bom) return { content: `(${shown} is empty)`, details: { path: shown, sizeBytes: stat.size } };
        const file: TextFile = {
          fd,
          size: stat.size,
          shown,
          ...sniffed,
          decoder: new TextDecoder(sniffed.encoding, { ignoreBOM: true }), // the BOM is skipped by position instead
        };
        return byBytes
          ? readBytes(file, args.byteOffset ?? 0, args.byteLength ?? limits.maxBytes, limits, ctx.signal)
          : readLines(file, args.offset ?? 1, args.limit, limits, ctx.signal);
      } finally {
        closeSync(fd);
      }
    },
  };
}

function sniffEncoding(head: Buffer): { encoding: Encoding; bom: number } | 'binary' {
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: 2 };
  if (head.includes(0)) return 'binary';
  return { encoding: 'utf-8', bom: head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0 };
}

/** Fills `buf` from file position `pos` (less only at the end of the file); returns the bytes read. */
function readAt(fd: number, buf: Buffer, pos: number): number {
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

interface Line {
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
function* scanLines(file: TextFile, from: number, hold: number, signal: AbortSignal): Generator<Line> {
  const nl = NEWLINE[file.encoding];
  const chunk = Buffer.alloc(CHUNK);
  let data = Buffer.alloc(0); // the file's bytes from position `base` up to `pos`
  let base = from;
  let pos = from;
  let lineStart = from;
  let searchFrom = from;
  let kept = true;
  for (;;) {
    const i = data.indexOf(nl, searchFrom - base);
    if (i >= 0 && (base + i) % nl.length !== 0) {
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
    const n = readAt(file.fd, chunk, pos);
    if (n === 0) break; // the file shrank while being read
    data = Buffer.concat([data.subarray(keepFrom - base), chunk.subarray(0, n)]);
    base = keepFrom;
    pos += n;
  }
  if (lineStart < pos) yield { start: lineStart, end: pos, next: pos, bytes: kept ? data.subarray(lineStart - base) : null };
}

/** Counts the lines still to come in `lines`, for a file small enough; undefined when not computed. */
function countRest(file: TextFile, lines: Generator<Line>, counted: number): number | undefined {
  if (file.size > COUNT_LINES_MAX) return undefined;
  for (let r = lines.next(); !r.done; r = lines.next()) if (r.value.next !== undefined) counted++;
  return counted;
}

/**
 * A window of lines (offset/limit). A first line longer than the byte cap is shown by bytes, from
 * its start, and the notice points both inside it (byteOffset) and past it (offset).
 */
function readLines(file: TextFile, offset: number, limit: number | undefined, limits: TruncateLimits, signal: AbortSignal) {
  const maxLines = Math.min(limit ?? limits.maxLines, limits.maxLines);
  // Lines are kept up to twice the byte cap: decoded text has at least half as many bytes as the
  // file (ASCII in UTF-16), so a longer line can never fit the cap and need not be held.
  const lines = scanLines(file, file.bom, limits.maxBytes * 2, signal);
  const out: string[] = [];
  let outBytes = 0;
  let seen = 0; // lines that ended so far
  let startByte = file.bom;
  let endByte = file.bom;
  let stop: 'lines' | 'bytes' | 'longline' | undefined;
  for (let r = lines.next(); !r.done; r = lines.next()) {
    const line = r.value;
    const number = seen + 1;
    if (line.next !== undefined) seen++;
    if (number < offset) continue; // before the window: only counted
    if (out.length >= maxLines) {
      stop = 'lines';
      break;
    }
    const text = line.bytes && file.decoder.decode(line.bytes).replace(/\r$/, '');
    const bytes = text === null ? Infinity : Buffer.byteLength(text) + (out.length > 0 ? 1 : 0);
    if (outBytes + bytes > limits.maxBytes) {
      stop = out.length > 0 ? 'bytes' : 'longline';
      if (stop === 'longline') startByte = line.start;
      break;
    }
    if (out.length === 0) startByte = line.start;
    out.push(text!);
    outBytes += bytes;
    endByte = line.next!;
  }
  const totalLines = stop ? countRest(file, lines, seen) : seen;
  if (out.length === 0 && !stop) {
    throw new ToolError(`offset ${offset} is past the end of ${file.shown}, which has ${seen} lines (${file.size} bytes)`);
  }
  const path = JSON.stringify(file.shown);
  const last = offset + out.length - 1;
  let body = out.join('\n');
  let notice = '';
  if (stop === 'longline') {
    // Shown by bytes, so that the notice can say exactly where the shown part ends.
    const part = byteRange(file, startByte, limits.maxBytes, limits.maxBytes);
    body = part.text;
    endByte = part.end;
    const after =
      totalLines === offset
        ? 'It is the last line of the file.'
        : `For the lines after it${totalLines === undefined ? ', if any' : ''}, use read_file(path=${path}, offset=${offset + 1}).`;
    notice =
      `[Line ${offset} of ${file.shown} is longer than ${formatBytes(limits.maxBytes)}; showing its first ${part.end - part.start} bytes ` +
      `(bytes ${part.start}-${part.end - 1} of the file). ${sizeOf(file, totalLines)} ` +
      `Continue inside this line with read_file(path=${path}, byteOffset=${part.end}, byteLength=${limits.maxBytes}). ${after}]`;
  } else if (stop) {
    const why = stop === 'bytes' ? formatBytes(limits.maxBytes) : maxLines === limit ? `limit=${limit}` : `${maxLines} lines`;
    const next = `offset=${last + 1}${limit !== undefined ? `, limit=${limit}` : ''}`;
    notice = `[Showing lines ${offset}-${last} of ${file.shown}; stopped at ${why}. ${sizeOf(file, totalLines)} Continue with read_file(path=${path}, ${next}).]`;
  }
  return {
    content: body + (notice ? `\n\n${notice}` : ''),
    details: {
      path: file.shown,
      sizeBytes: file.size,
      startLine: offset,
      endLine: stop === 'longline' ? offset : last,
      startByte,
      endByte,
      ...(totalLines !== undefined ? { totalLines } : {}),
      truncated: stop !== undefined,
      ...(file.encoding !== 'utf-8' ? { encoding: file.encoding } : {}),
    },
  };
}

/**
 * A byte range (byteOffset/byteLength, clamped to the byte cap), snapped to character boundaries
 * (see byteRange). Byte positions count the file's own bytes, also in UTF-16. The notice always
 * gives the range returned, any adjustment made, the file's size and the next call (or the end).
 */
function readBytes(file: TextFile, byteOffset: number, byteLength: number, limits: TruncateLimits, signal: AbortSignal) {
  if (byteOffset >= file.size) {
    throw new ToolError(
      `byteOffset ${byteOffset} is past the end of ${file.shown}, which has ${file.size} bytes (${formatBytes(file.size)}); the last byte is at byteOffset ${file.size - 1}`,
    );
  }
  const length = Math.min(byteLength, limits.maxBytes);
  const part = byteRange(file, byteOffset, length, limits.maxBytes);
  if (part.start >= file.size) {
    throw new ToolError(`byteOffset ${byteOffset} is inside the last character of ${file.shown} (${file.size} bytes); nothing starts after it`);
  }
  const totalLines = countRest(file, scanLines(file, file.bom, 0, signal), 0);
  const notes: string[] = [];
  if (byteLength > length) notes.push(`byteLength=${byteLength} is over the ${formatBytes(limits.maxBytes)} cap; clamped to ${length}.`);
  if (part.start !== byteOffset) {
    notes.push(
      byteOffset < file.bom
        ? `byteOffset=${byteOffset} is inside the byte order mark; starting at ${part.start}.`
        : `byteOffset=${byteOffset} is inside a character; starting at ${part.start}, the next character boundary.`,
    );
  }
  const next =
    part.end < file.size
      ? `Continue with read_file(path=${JSON.stringify(file.shown)}, byteOffset=${part.end}, byteLength=${length}).`
      : 'This is the end of the file.';
  const count = part.end - part.start;
  const notice = [`[Showing bytes ${part.start}-${part.end - 1} of ${file.shown} (${count} ${count === 1 ? 'byte' : 'bytes'}).`, ...notes, sizeOf(file, totalLines), `${next}]`];
  return {
    content: `${part.text}\n\n${notice.join(' ')}`,
    details: {
      path: file.shown,
      sizeBytes: file.size,
      startByte: part.start,
      endByte: part.end,
      ...(totalLines !== undefined ? { totalLines } : {}),
      truncated: part.end < file.size,
      ...(file.encoding !== 'utf-8' ? { encoding: file.encoding } : {}),
    },
  };
}

/** "The file has N bytes (…) and L lines." — or says that the lines were not counted. */
function sizeOf(file: TextFile, totalLines: number | undefined): string {
  const bytes = `The file has ${file.size} bytes (${formatBytes(file.size)})`;
  if (totalLines === undefined) return `${bytes}; its line count was not computed (over ${formatBytes(COUNT_LINES_MAX)}).`;
  return `${bytes} and ${totalLines} ${totalLines === 1 ? 'line' : 'lines'}.`;
}

/**
 * Bytes [start, end) of the file, decoded, with one positioned read of just that range. Both ends
 * are character boundaries: a start inside a character moves forward to the next one (and a start
 * inside the byte order mark to the text after it), the end backs off to one. At least one whole
 * character is returned, even if longer than `length`. A range of bytes that are not valid text
 * grows when decoded (one U+FFFD is 3 bytes); it is then shortened until the text fits `maxText`.
 * Since a returned end is always a boundary, calls starting at the previous end cover every byte once.
 */
function byteRange(file: TextFile, byteOffset: number, length: number, maxText: number) {
  const from = Math.max(0, byteOffset - 4); // context to find the boundaries around the range
  const raw = Buffer.alloc(Math.min(file.size, Math.max(byteOffset, file.bom) + length + 16) - from);
  readAt(file.fd, raw, from);
  const boundary = (i: number) => isBoundary(file, raw, from, i);
  let start = Math.max(byteOffset, file.bom);
  while (start < file.size && !boundary(start)) start++;
  const endAt = (want: number) => {
    let end = Math.min(file.size, want);
    while (end > start && !boundary(end)) end--;
    if (end === start) while (end < file.size && (end === start || !boundary(end))) end++;
    return end;
  };
  let end = endAt(start + length);
  let text = file.decoder.decode(raw.subarray(start - from, end - from));
  for (let size = Buffer.byteLength(text); size > maxText; size = Buffer.byteLength(text)) {
    const shorter = endAt(start + Math.min(end - start - 1, Math.floor(((end - start) * maxText) / size)));
    if (shorter >= end) break; // a single character: nothing shorter to show
    end = shorter;
    text = file.decoder.decode(raw.subarray(start - from, end - from));
  }
  return { start, end, text };
}

/** Whether file position `i` is a character boundary; `raw` holds the file's bytes from position `from`. */
function isBoundary(file: TextFile, raw: Buffer, from: number, i: number): boolean {
  if (i <= file.bom || i >= file.size) return true;
  const byte = (p: number) => raw[p - from] ?? 0;
  if (file.encoding !== 'utf-8') {
    if ((i - file.bom) % 2 !== 0) return false; // inside a code unit
    const unit = (p: number) => (file.encoding === 'utf-16le' ? byte(p) | (byte(p + 1) << 8) : (byte(p) << 8) | byte(p + 1));
    const low = unit(i) >= 0xdc00 && unit(i) <= 0xdfff;
    const high = unit(i - 2) >= 0xd800 && unit(i - 2) <= 0xdbff;
    return !(low && high); // not between the two halves of a surrogate pair
  }
  if ((byte(i) & 0xc0) !== 0x80) return true; // not a continuation byte
  // A continuation byte: inside a character if a lead byte within 3 bytes before claims it.
  for (let k = 1; k <= 3 && i - k >= file.bom; k++) {
    const b = byte(i - k);
    if ((b & 0xc0) === 0x80) continue;
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return length <= k;
  }
  return true; // a stray continuation byte belongs to no character
}
