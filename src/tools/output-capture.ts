// Bounded capture of a command's output, whatever its size: the last `tailBytes` are copied into
// one ring buffer (the chunks given may be a reused read buffer: nothing is kept by reference, and
// nothing is allocated per chunk), lines and bytes are counted, and once the output outgrows the
// ring the whole of it streams to a file (up to `maxFileBytes`). Output that never outgrows the
// ring costs no file at all unless the caller asks for one at the end. Writes are synchronous,
// chunk by chunk, so nothing queues in memory: a slow disk slows the reading, and so the command.
// A file that cannot be created or written is reported (`error`), never thrown.
import { closeSync, unlinkSync, writeSync } from 'node:fs';
import { charStart, firstLineStart } from './output-text.js';

export interface CaptureFile {
  fd: number;
  path: string;
}

export interface OutputCaptureOptions {
  /** Raw bytes of the end of the output kept in memory. */
  tailBytes: number;
  /** The most bytes written to the file; the rest is counted but not saved. */
  maxFileBytes: number;
  /** Creates the file for the full output (private); called at most once. May throw. */
  createFile: () => CaptureFile;
}

export interface CapturedTail {
  /** Raw bytes from the end of the output; when not `complete`, they start at a line start (or a character start inside a line longer than the tail). */
  tail: Buffer;
  /** The tail is the whole output. */
  complete: boolean;
  /** The tail starts inside a line (one longer than the tail); its first line is only that line's end. */
  partialFirstLine: boolean;
  totalBytes: number;
  /** Lines in the whole output; an unterminated last line counts. */
  totalLines: number;
}

export interface CapturedFile {
  /** The path of the kept file. */
  path?: string;
  /** Bytes in it (less than the output's when it was capped or a write failed). */
  bytes: number;
  capped: boolean;
  /** Why the file could not be created or completed. */
  error?: string;
}

const NEWLINE = 0x0a;

export class OutputCapture {
  /** The last `tailBytes + 1` bytes, circular: the extra byte tells whether the tail starts a line. */
  private ring: Buffer;
  private readonly size: number;
  /** Where the next byte goes in the ring. */
  private at = 0;
  /** Bytes in the ring (its length once it has wrapped). */
  private held = 0;
  private totalBytes = 0;
  private newlines = 0;
  private lastByte = NEWLINE;
  private file: CaptureFile | undefined;
  /** The file takes more output (false once it is capped or a write failed; it is then closed). */
  private saving = false;
  private fileBytes = 0;
  private capped = false;
  private fileError: string | undefined;
  private ended = false;

  constructor(private readonly options: OutputCaptureOptions) {
    this.size = Math.max(1, options.tailBytes) + 1;
    this.ring = Buffer.allocUnsafe(Math.min(this.size, 16 * 1024)); // grows up to `size` while the output does
  }

  /** Takes a chunk; it is copied, so the caller may reuse its buffer at once. */
  write(chunk: Uint8Array): void {
    if (this.ended || chunk.length === 0) return;
    if (!this.file && this.fileError === undefined && this.totalBytes + chunk.length > this.options.tailBytes) this.spill();
    if (this.saving) this.save(chunk);
    for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, i + 1)) this.newlines++;
    this.lastByte = chunk[chunk.length - 1];
    this.totalBytes += chunk.length;
    this.keep(chunk);
  }

  /** The end of the output so far, and its size. */
  tail(): CapturedTail {
    const last = this.lastBytes(this.held);
    const totalLines = this.newlines + (this.totalBytes > 0 && this.lastByte !== NEWLINE ? 1 : 0);
    const complete = this.totalBytes <= this.options.tailBytes;
    const base = { complete, totalBytes: this.totalBytes, totalLines };
    if (complete) return { ...base, tail: last, partialFirstLine: false };
    // `last` holds one byte more than the tail: the one before it.
    if (last[0] === NEWLINE) return { ...base, tail: last.subarray(1), partialFirstLine: false };
    const lineStart = firstLineStart(last);
    const inLine = lineStart === 0 || lineStart >= last.length; // no whole line held: show the end of the one that is
    return { ...base, tail: last.subarray(inLine ? charStart(last, 1) : lineStart), partialFirstLine: inLine };
  }

  /**
   * Ends the capture. `keep`: the full output is wanted in a file (created now if the output never
   * needed one); otherwise a file already written is removed. Later writes are ignored.
   */
  finish(keep: boolean): CapturedFile {
    if (!this.ended && keep && !this.file && this.fileError === undefined) this.spill();
    this.ended = true;
    const file = this.file;
    if (file && this.saving) closeQuietly(file.fd);
    this.saving = false;
    this.file = undefined;
    const result: CapturedFile = { bytes: this.fileBytes, capped: this.capped, ...(this.fileError ? { error: this.fileError } : {}) };
    if (!file) return result;
    if (keep) return { ...result, path: file.path };
    try {
      unlinkSync(file.path);
    } catch {
      /* already gone */
    }
    return result;
  }

  /** Copies the end of `chunk` into the ring. */
  private keep(chunk: Uint8Array): void {
    if (this.ring.length < this.size && this.held + chunk.length > this.ring.length) this.grow(this.held + chunk.length);
    const n = this.ring.length;
    const part = chunk.length > n ? chunk.subarray(chunk.length - n) : chunk;
    const first = Math.min(part.length, n - this.at);
    this.ring.set(part.subarray(0, first), this.at);
    this.ring.set(part.subarray(first), 0);
    this.at = (this.at + part.length) % n;
    this.held = Math.min(n, this.held + part.length);
  }

  /** Until it reaches its full size the ring never wraps (it grows first): it holds the output from its start. */
  private grow(need: number): void {
    let n = this.ring.length;
    while (n < need && n < this.size) n *= 2;
    const bigger = Buffer.allocUnsafe(Math.min(n, this.size));
    this.ring.copy(bigger, 0, 0, this.held);
    this.ring = bigger;
    this.at = this.held;
  }

  /** The last `count` bytes written (count ≤ bytes held), as one new buffer. */
  private lastBytes(count: number): Buffer {
    const n = this.ring.length;
    const start = (this.at - count + n) % n;
    if (start + count <= n) return Buffer.from(this.ring.subarray(start, start + count));
    return Buffer.concat([this.ring.subarray(start), this.ring.subarray(0, this.at)]);
  }

  /** Creates the file and writes what is held: the whole output so far, since nothing was dropped yet. */
  private spill(): void {
    try {
      this.file = this.options.createFile();
    } catch (err) {
      this.fileError = `the file could not be created: ${(err as Error).message}`;
      return;
    }
    this.saving = true;
    if (this.totalBytes > 0) this.save(this.lastBytes(this.totalBytes));
  }

  private save(chunk: Uint8Array): void {
    const fd = this.file!.fd;
    const room = this.options.maxFileBytes - this.fileBytes;
    const part = room < chunk.length ? chunk.subarray(0, Math.max(0, room)) : chunk;
    if (part.length < chunk.length) this.capped = true;
    try {
      for (let off = 0; off < part.length; ) off += writeSync(fd, part, off, part.length - off);
      this.fileBytes += part.length;
    } catch (err) {
      this.fileError = `writing the file failed after ${this.fileBytes} bytes: ${(err as Error).message}`;
    }
    if (this.capped || this.fileError !== undefined) {
      // Nothing more goes to the file; it stays, with what it holds, for finish() to keep or remove.
      this.saving = false;
      closeQuietly(fd);
    }
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
}
