// Output lines kept under a count limit and the output caps (lines and bytes), remembering which
// one stopped them, so that a tool's notice can say exactly why the rest was not shown.
import { formatBytes, type TruncateLimits } from './truncate.js';

export class CappedLines {
  readonly lines: string[] = [];
  private bytes = 0;
  /** What stopped the list: the count limit, the byte cap or the line cap; undefined while everything fit. */
  full: 'limit' | 'bytes' | 'lines' | undefined;

  constructor(
    private readonly limit: number,
    private readonly caps: TruncateLimits,
  ) {}

  /** Keeps the line if it still fits; false (and `full` set) once something stopped the list. */
  add(line: string): boolean {
    if (this.full) return false;
    const size = Buffer.byteLength(line) + 1;
    if (this.lines.length >= this.limit) this.full = 'limit';
    else if (this.bytes + size > this.caps.maxBytes) this.full = 'bytes';
    else if (this.lines.length >= this.caps.maxLines) this.full = 'lines';
    else {
      this.lines.push(line);
      this.bytes += size;
      return true;
    }
    return false;
  }

  /** Why the list stopped, in words; `limitWords` names the count limit (e.g. "limit 200", "1000 entries"). */
  why(limitWords: string): string {
    return this.full === 'limit' ? limitWords : this.full === 'bytes' ? `the ${formatBytes(this.caps.maxBytes)} output cap` : `the ${this.caps.maxLines}-line output cap`;
  }
}
