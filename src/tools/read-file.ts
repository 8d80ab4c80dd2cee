// read_file: reads a text file inside the workspace, a window of lines at a time.
// It streams the file in chunks and stops once the window is full, so a huge file
// is never read whole into memory.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { Type, type Static } from 'typebox';
import { ToolError, type ToolDefinition } from './tool.js';
import { cutToBytes, DEFAULT_LIMITS, formatBytes, type TruncateLimits } from './truncate.js';
import { displayPath, resolveForRead } from './workspace.js';

const Params = Type.Object(
  {
    path: Type.String({ description: 'File path, relative to the workspace' }),
    offset: Type.Optional(Type.Integer({ minimum: 1, description: 'Line number to start at (1-based)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Maximum number of lines to return' })),
  },
  { additionalProperties: false },
);

type Args = Static<typeof Params>;

const CHUNK = 64 * 1024;
const SNIFF = 8 * 1024;

export function createReadFileTool(limits: TruncateLimits = DEFAULT_LIMITS): ToolDefinition<Args> {
  return {
    name: 'read_file',
    description:
      `Read a text file in the workspace. Returns at most ${limits.maxLines} lines or ${formatBytes(limits.maxBytes)}; ` +
      'when output is truncated, the last line says which offset to use to continue. Binary files are refused.',
    parameters: Params,
    risk: 'read',
    selfTruncating: true,
    async execute(args, ctx) {
      const real = resolveForRead(ctx.cwd, args.path);
      const shown = displayPath(ctx.cwd, real);
      // O_NONBLOCK: opening a named pipe must not wait for a writer (it is refused just below).
      const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        const stat = fstatSync(fd);
        if (!stat.isFile()) throw new ToolError(`${shown} is not a regular file (${stat.isDirectory() ? 'a directory' : 'a special file'})`);
        return readWindow(fd, stat.size, shown, args.offset ?? 1, args.limit ?? limits.maxLines, limits, ctx.signal);
      } finally {
        closeSync(fd);
      }
    },
  };
}

function sniffEncoding(head: Buffer): 'utf-8' | 'utf-16le' | 'utf-16be' | 'binary' {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return head.includes(0) ? 'binary' : 'utf-8';
}

function readWindow(
  fd: number,
  size: number,
  shown: string,
  offset: number,
  limit: number,
  limits: TruncateLimits,
  signal: AbortSignal,
) {
  const buf = Buffer.alloc(CHUNK);
  let pos = 0;
  let n = readSync(fd, buf, 0, CHUNK, pos);
  const encoding = sniffEncoding(buf.subarray(0, Math.min(n, SNIFF)));
  if (encoding === 'binary') {
    throw new ToolError(`${shown} looks like a binary file (${formatBytes(size)}, ${size} bytes; it contains NUL bytes); read_file only reads text`);
  }
  if (size === 0) return { content: `(${shown} is empty)`, details: { path: shown, sizeBytes: 0 } };
  const decoder = new TextDecoder(encoding, { fatal: false, ignoreBOM: false });
  const maxLines = Math.min(limit, limits.maxLines);
  const out: string[] = [];
  let outBytes = 0;
  let line = 1; // number of the line being assembled
  let partial = '';
  let stop: 'lines' | 'bytes' | 'longline' | undefined;
  const take = (text: string): boolean => {
    if (line < offset) return true;
    const bytes = Buffer.byteLength(text) + (out.length > 0 ? 1 : 0);
    if (out.length >= maxLines) return ((stop = 'lines'), false);
    if (outBytes + bytes > limits.maxBytes) {
      if (out.length === 0) {
        out.push(cutToBytes(text, limits.maxBytes));
        stop = 'longline';
      } else stop = 'bytes';
      return false;
    }
    out.push(text);
    outBytes += bytes;
    return true;
  };
  outer: while (n > 0) {
    if (signal.aborted) throw new ToolError('aborted');
    partial += decoder.decode(buf.subarray(0, n), { stream: true });
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      const text = partial.slice(0, nl).replace(/\r$/, '');
      partial = partial.slice(nl + 1);
      if (!take(text)) break outer;
      line++;
    }
    // A line longer than the byte limit never needs to be held whole.
    if (line >= offset && partial.length > limits.maxBytes * 2 && !take(partial)) break;
    // Lines before the window are only counted; a long one is not kept either.
    if (line < offset && partial.length > CHUNK) partial = '';
    pos += n;
    n = readSync(fd, buf, 0, CHUNK, pos);
  }
  if (!stop) {
    partial += decoder.decode();
    if (partial !== '') {
      if (take(partial.replace(/\r$/, ''))) line++;
    }
  }
  const totalLinesKnown = stop === undefined ? line - 1 : undefined;
  if (out.length === 0 && !stop) {
    throw new ToolError(`offset ${offset} is past the end of ${shown} (${totalLinesKnown} lines)`);
  }
  const first = offset;
  const last = offset + out.length - 1;
  let notice = '';
  if (stop === 'longline') {
    notice = `\n\n[Line ${first} is longer than ${formatBytes(limits.maxBytes)}; showing only its start (the rest of this line cannot be read with read_file). Lines after it, if any, start at offset=${first + 1}.]`;
  } else if (stop) {
    const why = stop === 'lines' ? `${maxLines} lines` : formatBytes(limits.maxBytes);
    notice = `\n\n[Showing lines ${first}-${last} of ${shown} (${formatBytes(size)}); stopped at ${why}. Use offset=${last + 1} to continue.]`;
  }
  return {
    content: out.join('\n') + notice,
    details: {
      path: shown,
      sizeBytes: size,
      startLine: first,
      endLine: stop === 'longline' ? first : last,
      truncated: stop !== undefined,
      ...(encoding !== 'utf-8' ? { encoding } : {}),
    },
  };
}
