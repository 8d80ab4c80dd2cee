// JSONL framing for the RPC protocol. Lines are split on "\n" only, never with readline (which
// also splits on U+2028 and U+2029, legal inside JSON strings); one trailing "\r" is stripped. A
// line may be many megabytes: chunks are kept as they come and joined once per line.

/** The longest line accepted; a longer one is skipped and reported. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

export type Frame = { line: string } | { tooLong: number };

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  /** The complete lines in this chunk (and what came before it). */
  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      this.add(chunk.subarray(start, nl));
      frames.push(this.take());
      start = nl + 1;
    }
    if (start < chunk.length) this.add(chunk.subarray(start));
    return frames;
  }

  /** At end of input: the last line, if it did not end with a newline. */
  end(): Frame[] {
    return this.size > 0 || this.skipping ? [this.take()] : [];
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    this.size += piece.length;
    if (this.skipping) return;
    if (this.size > MAX_LINE_BYTES) {
      this.skipping = true;
      this.parts = [];
      return;
    }
    this.parts.push(piece);
  }

  private take(): Frame {
    const size = this.size;
    const skipped = this.skipping;
    const buf = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, size);
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    if (skipped) return { tooLong: size };
    let line = buf.toString('utf8');
    if (line.endsWith('\r')) line = line.slice(0, -1);
    return { line };
  }
}

/** One protocol line. U+2028/U+2029 are escaped, so even a client that splits on them reads whole lines. */
export function encodeLine(value: unknown): string {
  return JSON.stringify(value).replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029')) + '\n';
}
