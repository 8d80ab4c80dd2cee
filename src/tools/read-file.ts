// read_file: reads a text file inside the workspace, a window of lines or a range of bytes at a time.
// Lines are streamed in 64 KB chunks and reading stops once the window is full; lines counted from
// the end (a negative offset) are found by reading backwards from the end; a byte range is one
// positioned read of just that range. Either way a huge file is never read whole.
// A result that does not reach the end ends with a notice giving the file's size and the exact
// arguments of the next call, so every byte of any file can be read, page by page.
// Lines are shown without line numbers, on purpose: numbered lines tempt models to paste the
// numbers into edit_file's oldText. The notices and details say which lines a window holds.
// With a client file access (an editor over ACP), the text is the editor's buffer, read whole
// through the client and windowed the same way (read-file-source.ts); details carry via: 'client'.
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Type } from '../core/type-builders.js';
import type { Static } from 'typebox';
import { sniffImage } from '../core/image.js';
import { clientRead } from './file-io.js';
import { readImageFile } from './read-image.js';
import { diskSource, memorySource, type ByteSource } from './read-file-source.js';
import { readInto, type Encoding, type Line, type TextFile } from './read-file-tail.js';
import { ToolError, type ToolDefinition, type ToolDescriber, type ToolOutput } from './tool.js';
import { argumentSubject, nonEmpty, pathTouched } from './tool-describe.js';
import { DEFAULT_LIMITS, formatBytes, type TruncateLimits } from './truncate.js';
import { displayPath, resolveForRead } from './workspace.js';

function params(limits: TruncateLimits) {
  return Type.Object(
    {
      path: Type.String(),
      offset: Type.Optional(
        Type.Integer({
          description: 'First line, 1-based; negative counts from the end (-1 = the last line, -100 = the last 100, like tail -n 100). Not 0.',
        }),
      ),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: `Most lines to return (at most ${limits.maxLines})` })),
      byteOffset: Type.Optional(
        Type.Integer({
          minimum: 0,
          description: 'Read by bytes from this position (0 = start): for a line too long to read whole, or when a notice gives it. Not with offset/limit.',
        }),
      ),
      byteLength: Type.Optional(Type.Integer({ minimum: 1, description: `Bytes to read (default and maximum ${limits.maxBytes}; more is clamped)` })),
    },
    { additionalProperties: false },
  );
}

type Args = Static<ReturnType<typeof params>>;

/** The text being read: its size, name and encoding, and where its bytes come from. */
type Text = Omit<TextFile, 'fd'> & { src: ByteSource };

const SNIFF = 8 * 1024;
/** Files up to this size get their lines counted (one streamed pass) when a result does not reach the end, and lines read from the end get absolute numbers. */
const COUNT_LINES_MAX = 8 * 1024 * 1024;

/** The `details` of a read_file result: the file and its size always; the part shown, an image's facts and the like by what was read. */
export type ReadFileDetails = { path: string; sizeBytes: number; via?: 'client'; [more: string]: unknown };

/** A read_file call: the file, at its first line when the call starts at one. */
export const readFileDescriber: ToolDescriber<Args, ReadFileDetails> = {
  describe: (a) => ({
    title: `Read ${nonEmpty(a.path) ?? 'a file'}`,
    kind: 'read',
    locations: nonEmpty(a.path) ? [{ path: a.path, ...(typeof a.offset === 'number' && a.offset > 0 ? { line: a.offset } : {}) }] : [],
    subject: nonEmpty(a.path) ?? argumentSubject(a),
  }),
  files: (a, result) => pathTouched('read', a.path, result),
};

export function createReadFileTool(limits: TruncateLimits = DEFAULT_LIMITS): ToolDefinition<Args, ReadFileDetails> {
  return {
    name: 'read_file',
    ...readFileDescriber,
    description:
      'Read a text file by lines (offset/limit; a negative offset counts from the end) or by bytes (byteOffset/byteLength). ' +
      `At most ${limits.maxLines} lines or ${formatBytes(limits.maxBytes)}; when more remains, a last line gives the exact arguments of the next call. ` +
      'PNG, JPEG, GIF and WebP files are returned as images; other binary files are refused.',
    parameters: params(limits),
    risk: 'read',
    selfTruncating: true,
    paths: (args, ctx) => [resolveForRead(ctx, args.path)],
    async execute(args, ctx) {
      const byLines = args.offset !== undefined || args.limit !== undefined;
      const byBytes = args.byteOffset !== undefined || args.byteLength !== undefined;
      if (byLines && byBytes) {
        throw new ToolError('offset/limit (lines) and byteOffset/byteLength (bytes) cannot be combined; give one pair or the other');
      }
      if (args.offset === 0) {
        throw new ToolError('offset 0 names no line: lines are numbered from 1 (offset=1 is the first line), or from the end with negative offsets (offset=-1 is the last line)');
      }
      const real = resolveForRead(ctx, args.path);
      const shown = displayPath(ctx, real);
      const read = (text: Text): ToolOutput<ReadFileDetails> => (byBytes ? readBytes(text, args.byteOffset ?? 0, args.byteLength ?? limits.maxBytes, limits, ctx.signal) : readLines(text, args.offset ?? 1, args.limit, limits, ctx.signal));
      if (ctx.files) {
        // The boundary and the disk's kind of file are checked first; the buffer's text is the client's.
        const onDisk = await stat(real).catch(() => undefined);
        if (onDisk && !onDisk.isFile()) throw new ToolError(`${shown} is not a regular file (${onDisk.isDirectory() ? 'a directory' : 'a special file'})`);
        const image = onDisk && imageOnDisk(real); // an editor's buffers hold text: an image is read from the disk
        if (onDisk && image) return readImageFile(real, shown, onDisk.size, image, ctx);
        const bytes = Buffer.from(await clientRead(ctx.files, real, shown), 'utf8');
        const text = describeText(shown, bytes.length, bytes.subarray(0, SNIFF));
        const out = typeof text === 'string' ? { content: text, details: { path: shown, sizeBytes: bytes.length } } : read({ ...text, src: memorySource(bytes, text.bom) });
        return { ...out, details: { ...(out.details ?? { path: shown, sizeBytes: bytes.length }), via: 'client' as const } };
      }
      // O_NONBLOCK: opening a named pipe must not wait for a writer (it is refused just below).
      const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        const stat = fstatSync(fd);
        if (!stat.isFile()) throw new ToolError(`${shown} is not a regular file (${stat.isDirectory() ? 'a directory' : 'a special file'})`);
        const head = Buffer.alloc(Math.min(SNIFF, stat.size));
        readInto(fd, head, 0);
        const image = sniffImage(head);
        if (image) return readImageFile(real, shown, stat.size, image, ctx);
        const text = describeText(shown, stat.size, head);
        if (typeof text === 'string') return { content: text, details: { path: shown, sizeBytes: stat.size } };
        return read({ ...text, src: diskSource({ ...text, fd }) });
      } finally {
        closeSync(fd);
      }
    },
  };
}

function imageOnDisk(real: string) {
  const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const head = Buffer.alloc(16);
    return sniffImage(head.subarray(0, readInto(fd, head, 0)));
  } finally {
    closeSync(fd);
  }
}

/** A text of `size` bytes starting with `head`: its encoding, or the result for an empty one; a binary one is refused. */
function describeText(shown: string, size: number, head: Buffer): Omit<TextFile, 'fd'> | string {
  const sniffed = sniffEncoding(head);
  if (sniffed === 'binary') {
    throw new ToolError(`${shown} looks like a binary file (${formatBytes(size)}, ${size} bytes; it contains NUL bytes); read_file only reads text`);
  }
  if (size <= sniffed.bom) return `(${shown} is empty)`;
  return { size, shown, ...sniffed, decoder: new TextDecoder(sniffed.encoding, { ignoreBOM: true }) }; // the BOM is skipped by position instead
}

function sniffEncoding(head: Buffer): { encoding: Encoding; bom: number } | 'binary' {
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: 2 };
  if (head.includes(0)) return 'binary';
  return { encoding: 'utf-8', bom: head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0 };
}

/** Counts the lines still to come in `lines`, for a file small enough; undefined when not computed. */
function countRest(file: Text, lines: Generator<Line>, counted: number): number | undefined {
  if (file.size > COUNT_LINES_MAX) return undefined;
  for (let r = lines.next(); !r.done; r = lines.next()) if (r.value.next !== undefined) counted++;
  return counted;
}

/** Where a window of lines starts, found by `skipTo` (a positive offset) or `tailFrom` (a negative one). */
interface WindowStart {
  /** The file's lines from the window's first line on. */
  lines: Generator<Line>;
  /** The number of that line: from 1, or (`fromEnd`) from the end, -1 being the last line. */
  first: number;
  fromEnd: boolean;
  /** Lines that ended before the window; `total`: the file's line count, when known from the start. */
  before: number;
  total?: number;
  /** Said first in the notice (an offset before the start of the file). */
  note?: string;
}

/** The window of a positive offset: the lines before it are streamed and counted. */
function skipTo(file: Text, offset: number, hold: number, signal: AbortSignal): WindowStart {
  const lines = file.src.scanLines(file.bom, hold, signal);
  let before = 0;
  while (before < offset - 1) {
    const r = lines.next();
    if (r.done) break;
    if (r.value.next !== undefined) before++;
  }
  return { lines, first: offset, fromEnd: false, before };
}

/**
 * The window of a negative offset: its first line is found by reading backwards from the end. Its
 * number is absolute when the file is small enough to count the lines before it, or when the
 * search reached the start of the file; otherwise it is counted from the end.
 */
function tailFrom(file: Text, offset: number, hold: number, signal: AbortSignal): WindowStart {
  const tail = file.src.findLineFromEnd(-offset, signal);
  const lines = file.src.scanLines(tail.start, hold, signal);
  if (tail.start > file.bom && file.size > COUNT_LINES_MAX) return { lines, first: offset, fromEnd: true, before: 0 };
  const before = tail.start > file.bom ? file.src.newlinesBetween(file.bom, tail.start, signal) : 0;
  const total = before + tail.lines;
  const note = tail.lines < -offset ? `offset=${offset} is before the start of ${file.shown}, which has ${total} ${total === 1 ? 'line' : 'lines'}; starting at line 1. ` : undefined;
  return { lines, first: before + 1, fromEnd: false, before, total, note };
}

/** Takes lines while they fit `maxLines` and `maxBytes`; `consumed`: the lines that ended among those taken from `lines`. */
function takeWindow(file: Text, lines: Generator<Line>, maxLines: number, maxBytes: number) {
  const out: string[] = [];
  let outBytes = 0;
  let consumed = 0;
  let startByte = file.bom;
  let endByte = file.bom;
  let stop: 'lines' | 'bytes' | 'longline' | undefined;
  for (let r = lines.next(); !r.done; r = lines.next()) {
    const line = r.value;
    if (line.next !== undefined) consumed++;
    if (out.length >= maxLines) {
      stop = 'lines';
      break;
    }
    const text = line.bytes && file.decoder.decode(line.bytes).replace(/\r$/, '');
    const bytes = text === null ? Infinity : Buffer.byteLength(text) + (out.length > 0 ? 1 : 0);
    if (outBytes + bytes > maxBytes) {
      stop = out.length > 0 ? 'bytes' : 'longline';
      if (stop === 'longline') startByte = endByte = line.start;
      break;
    }
    if (out.length === 0) startByte = line.start;
    out.push(text!);
    outBytes += bytes;
    endByte = line.next!;
  }
  return { out, consumed, startByte, endByte, stop };
}

/**
 * A window of lines (offset/limit; a negative offset counts from the end). A first line longer than
 * the byte cap is shown by bytes, from its start, and the notice points both inside it (byteOffset)
 * and past it (offset). A window from the end always ends with a notice saying which lines it shows.
 */
function readLines(file: Text, offset: number, limit: number | undefined, limits: TruncateLimits, signal: AbortSignal) {
  const maxLines = Math.min(limit ?? limits.maxLines, limits.maxLines);
  // Lines are kept up to twice the byte cap: decoded text has at least half as many bytes as the
  // file (ASCII in UTF-16), so a longer line can never fit the cap and need not be held.
  const hold = limits.maxBytes * 2;
  const at = offset > 0 ? skipTo(file, offset, hold, signal) : tailFrom(file, offset, hold, signal);
  const { out, consumed, stop, startByte, ...win } = takeWindow(file, at.lines, maxLines, limits.maxBytes);
  let endByte = win.endByte;
  const totalLines = at.total ?? (at.fromEnd ? undefined : stop ? countRest(file, at.lines, at.before + consumed) : at.before + consumed);
  if (out.length === 0 && !stop) {
    throw new ToolError(`offset ${offset} is past the end of ${file.shown}, which has ${totalLines} lines (${file.size} bytes)`);
  }
  const { first, fromEnd } = at;
  const path = JSON.stringify(file.shown);
  const last = first + out.length - 1;
  const counted = fromEnd ? ' (counted from the end: -1 is the last line)' : '';
  let body = out.join('\n');
  let notice = '';
  if (stop === 'longline') {
    // Shown by bytes, so that the notice can say exactly where the shown part ends.
    const part = byteRange(file, startByte, limits.maxBytes, limits.maxBytes);
    body = part.text;
    endByte = part.end;
    const after = (fromEnd ? first === -1 : totalLines === first) ? 'It is the last line of the file.' : `For the lines after it${totalLines === undefined && !fromEnd ? ', if any' : ''}, use read_file(path=${path}, offset=${first + 1}).`;
    notice =
      `[${at.note ?? ''}Line ${first}${counted} of ${file.shown} is longer than ${formatBytes(limits.maxBytes)}; showing its first ${part.end - part.start} bytes ` +
      `(bytes ${part.start}-${part.end - 1} of the file). ${sizeOf(file, totalLines)} ` +
      `Continue inside this line with read_file(path=${path}, byteOffset=${part.end}, byteLength=${limits.maxBytes}). ${after}]`;
  } else if (stop || offset < 0) {
    const shown = fromEnd ? `lines ${first} to ${last}${counted} of ${file.shown}, bytes ${startByte}-${endByte - 1}` : `lines ${first}-${last} of ${file.shown}`;
    const why = stop === 'bytes' ? formatBytes(limits.maxBytes) : maxLines === limit ? `limit=${limit}` : `${maxLines} lines`;
    const next = `offset=${last + 1}${limit !== undefined ? `, limit=${limit}` : ''}`;
    notice = stop
      ? `[${at.note ?? ''}Showing ${shown}; stopped at ${why}. ${sizeOf(file, totalLines)} Continue with read_file(path=${path}, ${next}).]`
      : `[${at.note ?? ''}Showing ${shown}, the end of the file. ${sizeOf(file, totalLines)}]`;
  }
  return {
    content: body + (notice ? `\n\n${notice}` : ''),
    details: {
      path: file.shown,
      sizeBytes: file.size,
      startLine: first,
      endLine: stop === 'longline' ? first : last,
      ...(fromEnd ? { countedFromEnd: true } : {}),
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
function readBytes(file: Text, byteOffset: number, byteLength: number, limits: TruncateLimits, signal: AbortSignal) {
  if (byteOffset >= file.size) {
    throw new ToolError(`byteOffset ${byteOffset} is past the end of ${file.shown}, which has ${file.size} bytes (${formatBytes(file.size)}); the last byte is at byteOffset ${file.size - 1}`);
  }
  const length = Math.min(byteLength, limits.maxBytes);
  const part = byteRange(file, byteOffset, length, limits.maxBytes);
  if (part.start >= file.size) {
    throw new ToolError(`byteOffset ${byteOffset} is inside the last character of ${file.shown} (${file.size} bytes); nothing starts after it`);
  }
  const totalLines = countRest(file, file.src.scanLines(file.bom, 0, signal), 0);
  const notes: string[] = [];
  if (byteLength > length) notes.push(`byteLength=${byteLength} is over the ${formatBytes(limits.maxBytes)} cap; clamped to ${length}.`);
  if (part.start !== byteOffset) {
    notes.push(byteOffset < file.bom ? `byteOffset=${byteOffset} is inside the byte order mark; starting at ${part.start}.` : `byteOffset=${byteOffset} is inside a character; starting at ${part.start}, the next character boundary.`);
  }
  const next = part.end < file.size ? `Continue with read_file(path=${JSON.stringify(file.shown)}, byteOffset=${part.end}, byteLength=${length}).` : 'This is the end of the file.';
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
function sizeOf(file: Text, totalLines: number | undefined): string {
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
function byteRange(file: Text, byteOffset: number, length: number, maxText: number) {
  const from = Math.max(0, byteOffset - 4); // context to find the boundaries around the range
  const raw = Buffer.alloc(Math.min(file.size, Math.max(byteOffset, file.bom) + length + 16) - from);
  file.src.readInto(raw, from);
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
function isBoundary(file: Text, raw: Buffer, from: number, i: number): boolean {
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
