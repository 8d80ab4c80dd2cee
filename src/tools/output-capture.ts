// The full-output file of one command. It is created before the command starts (0600, in a 0700
// folder) and its descriptor is the command's stdout and stderr, so the kernel writes the output
// straight to it and Node never handles the stream. While the command runs only the file's size
// is looked at (fstat: the size cap); once it has ended, only the end of the file is read (a
// positioned read, at most `tailBytes` + 1 bytes), and the lines are counted only when the file is
// small enough for that to be cheap. Memory is bounded by the tail, whatever the output's size.
// The file is opened with O_APPEND: a command that reopens its output by name (`> /dev/stderr`,
// `tee /dev/stdout`) truncates the file, as with any redirection to a file, losing what was
// written before; O_APPEND at least keeps later writes at the end, without a hole of NUL bytes.
import { chmodSync, closeSync, existsSync, fchmodSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readAt } from '../core/read-at.js';
import { charStart, firstLineStart } from './output-text.js';

export interface CapturedTail {
  /** Raw bytes from the end of the output; when not `complete`, they start at a line start (or a character start inside a line longer than the tail). */
  tail: Buffer;
  /** The tail is the whole output. */
  complete: boolean;
  /** The tail starts inside a line (one longer than the tail); its first line is only that line's end. */
  partialFirstLine: boolean;
  totalBytes: number;
  /** Lines in the whole output (an unterminated last line counts); undefined when not counted (a file over the counting limit). */
  totalLines: number | undefined;
}

export interface CapturedFile {
  /** The path of the kept file. */
  path?: string;
  /** Bytes in it (fewer than the output's when it was cut to the size cap). */
  bytes: number;
  /** The file was cut to the size cap. */
  capped: boolean;
}

const NEWLINE = 0x0a;
/** Lines are counted by reading the whole file only up to this size. */
export const COUNT_LINES_MAX_BYTES = 8 * 1024 * 1024;
const COUNT_CHUNK_BYTES = 1024 * 1024;

export class OutputFile {
  private closed = false;

  private constructor(
    readonly fd: number,
    readonly path: string,
  ) {}

  /**
   * Creates `<dir>/<base>.log` (or `<base>-2.log`, … if taken), 0600 whatever the umask, making
   * `dir` and its missing parents (0700) first. Throws when it cannot.
   */
  static create(dir: string, base: string): OutputFile {
    makePrivateDirs(dir);
    for (let n = 1; ; n++) {
      const path = join(dir, n === 1 ? `${base}.log` : `${base}-${n}.log`);
      try {
        const fd = openSync(path, 'ax+', 0o600); // O_RDWR | O_APPEND | O_CREAT | O_EXCL
        try {
          fchmodSync(fd, 0o600);
        } catch (err) {
          closeSync(fd);
          throw err;
        }
        return new OutputFile(fd, path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw err;
      }
    }
  }

  /** Bytes in the file now. */
  size(): number {
    return fstatSync(this.fd).size;
  }

  /** The end of the file (at most `tailBytes` raw bytes, cut at a line start) and its size. */
  tail(tailBytes: number): CapturedTail {
    const totalBytes = this.size();
    const complete = totalBytes <= tailBytes;
    // One byte more than the tail when there is one: it tells whether the tail starts a line.
    const last = readAt(this.fd, complete ? 0 : totalBytes - tailBytes - 1, complete ? totalBytes : tailBytes + 1);
    const counted = complete ? countNewlines(last) : totalBytes <= COUNT_LINES_MAX_BYTES ? countFileNewlines(this.fd, totalBytes) : undefined;
    const unterminated = last.length > 0 && last[last.length - 1] !== NEWLINE ? 1 : 0;
    const base = { complete, totalBytes, totalLines: counted === undefined ? undefined : counted + unterminated };
    return { ...base, ...tailStart(last, complete) };
  }

  /**
   * Ends the capture: the file is cut to `maxBytes` if it is over, closed, and kept (`keep`) or
   * removed. Never throws; a second call does nothing.
   */
  finish(keep: boolean, maxBytes: number): CapturedFile {
    if (this.closed) return { bytes: 0, capped: false };
    this.closed = true;
    let bytes = 0;
    let capped = false;
    try {
      bytes = this.size();
      if (keep && bytes > maxBytes) {
        ftruncateSync(this.fd, maxBytes);
        bytes = maxBytes;
        capped = true;
      }
    } catch {
      /* the size stays unknown */
    }
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    if (keep) return { path: this.path, bytes, capped };
    try {
      unlinkSync(this.path);
    } catch {
      /* already gone */
    }
    return { bytes: 0, capped: false };
  }
}

/**
 * Where the tail starts in `last`: all of it when it is the whole output; otherwise after its
 * first byte (read only to tell) at the first line start, or, when it holds no whole line, at a
 * character start inside the one line it shows the end of.
 */
export function tailStart(last: Buffer, complete: boolean): { tail: Buffer; partialFirstLine: boolean } {
  if (complete) return { tail: last, partialFirstLine: false };
  if (last[0] === NEWLINE) return { tail: last.subarray(1), partialFirstLine: false };
  const lineStart = firstLineStart(last);
  const inLine = lineStart === 0 || lineStart >= last.length; // no whole line held: show the end of the one that is
  return { tail: last.subarray(inLine ? charStart(last, 1) : lineStart), partialFirstLine: inLine };
}

/** Newline bytes in `buf`. */
export function countNewlines(buf: Uint8Array): number {
  let n = 0;
  for (let i = buf.indexOf(NEWLINE); i >= 0; i = buf.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

/** Newline bytes in the first `size` bytes of the file, read in chunks into one buffer. */
function countFileNewlines(fd: number, size: number): number {
  const buf = Buffer.allocUnsafe(Math.min(COUNT_CHUNK_BYTES, Math.max(1, size)));
  let n = 0;
  for (let at = 0; at < size; ) {
    const got = readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
    if (got === 0) break; // the file shrank meanwhile
    n += countNewlines(buf.subarray(0, got));
    at += got;
  }
  return n;
}

/**
 * Creates `dir` and its missing parents, each 0700. (Not mkdirSync's `recursive`: on Node 20 it
 * loops forever on a path it cannot create under an existing parent, such as /proc/x.)
 */
function makePrivateDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d) && dirname(d) !== d; d = dirname(d)) missing.push(d);
  for (const d of missing.reverse()) {
    mkdirSync(d, { mode: 0o700 });
    chmodSync(d, 0o700); // mkdir applies the umask
  }
}
