// Truncation of tool output by lines and by bytes (UTF-8), keeping the head.

export interface TruncateLimits {
  maxLines: number;
  maxBytes: number;
}

export interface Truncated {
  text: string;
  truncated: boolean;
  shownLines: number;
  totalLines: number;
  totalBytes: number;
}

export const DEFAULT_LIMITS: TruncateLimits = { maxLines: 2000, maxBytes: 50 * 1024 };

/** Keeps whole lines from the head while both limits hold; a first line longer than maxBytes is cut at a character boundary. */
export function truncateHead(text: string, limits: TruncateLimits = DEFAULT_LIMITS): Truncated {
  const totalBytes = Buffer.byteLength(text, 'utf8');
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop(); // a final newline ends a line, it does not start one
  const totalLines = lines.length;
  if (totalBytes <= limits.maxBytes && totalLines <= limits.maxLines) {
    return { text, truncated: false, shownLines: totalLines, totalLines, totalBytes };
  }
  let bytes = 0;
  let shown = 0;
  for (; shown < lines.length && shown < limits.maxLines; shown++) {
    const add = Buffer.byteLength(lines[shown], 'utf8') + (shown > 0 ? 1 : 0);
    if (bytes + add > limits.maxBytes) break;
    bytes += add;
  }
  if (shown === 0) {
    return { text: cutToBytes(lines[0], limits.maxBytes), truncated: true, shownLines: 0, totalLines, totalBytes };
  }
  return { text: lines.slice(0, shown).join('\n'), truncated: true, shownLines: shown, totalLines, totalBytes };
}

/** The longest prefix of `s` that fits in `maxBytes` of UTF-8, never splitting a character. */
export function cutToBytes(s: string, maxBytes: number): string {
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= maxBytes) return s;
  let end = maxBytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--; // back off continuation bytes
  return buf.subarray(0, end).toString('utf8');
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
