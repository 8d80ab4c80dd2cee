// truncateHead, cutToBytes and formatBytes: the head is kept, limits hold, characters are never split.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutToBytes, DEFAULT_LIMITS, formatBytes, truncateHead } from '../src/tools/truncate.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const text = fc.array(fc.oneof(fc.constantFrom('\n', '\n', 'a', 'é', '€', '😀', ' '), fc.string({ maxLength: 5 })), { maxLength: 60 }).map((parts) => parts.join(''));

describe('truncateHead', () => {
  it('leaves text within both limits alone', () => {
    const r = truncateHead('a\nb\nc', { maxLines: 3, maxBytes: 5 });
    expect(r).toEqual({ text: 'a\nb\nc', truncated: false, shownLines: 3, totalLines: 3, totalBytes: 5 });
  });

  it('keeps whole lines from the head up to the line limit', () => {
    const r = truncateHead('1\n2\n3\n4\n5', { maxLines: 2, maxBytes: 1000 });
    expect(r).toMatchObject({ text: '1\n2', truncated: true, shownLines: 2, totalLines: 5, totalBytes: 9 });
  });

  it('keeps whole lines from the head up to the byte limit, counting newlines', () => {
    // "aaaa\nbbbb" is 9 bytes; adding "\ncccc" would make 14.
    const r = truncateHead('aaaa\nbbbb\ncccc', { maxLines: 100, maxBytes: 13 });
    expect(r).toMatchObject({ text: 'aaaa\nbbbb', truncated: true, shownLines: 2, totalLines: 3, totalBytes: 14 });
  });

  it('counts bytes in UTF-8, not characters', () => {
    const r = truncateHead('ééé\nx', { maxLines: 10, maxBytes: 6 });
    expect(r).toMatchObject({ text: 'ééé', truncated: true, shownLines: 1 });
  });

  it('cuts a first line longer than the byte limit at a character boundary', () => {
    const r = truncateHead('😀😀😀\nnext', { maxLines: 10, maxBytes: 9 });
    expect(r).toMatchObject({ text: '😀😀', truncated: true, shownLines: 0, totalLines: 2 });
  });

  it('uses 2000 lines and 50 KB by default', () => {
    expect(DEFAULT_LIMITS).toEqual({ maxLines: 2000, maxBytes: 50 * 1024 });
    const many = Array.from({ length: 2500 }, () => 'x').join('\n');
    expect(truncateHead(many).shownLines).toBe(2000);
  });

  it('property: the result is a prefix of the input, within both limits, and as long as it can be', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 40 }), (input, maxLines, maxBytes) => {
        const r = truncateHead(input, { maxLines, maxBytes });
        expect(input.startsWith(r.text)).toBe(true);
        expect(r.totalBytes).toBe(bytes(input));
        // A final newline ends the last line; it does not start another.
        const logical = input.split('\n');
        if (logical.length > 1 && logical[logical.length - 1] === '') logical.pop();
        expect(r.totalLines).toBe(logical.length);
        expect(bytes(r.text)).toBeLessThanOrEqual(maxBytes);
        if (!r.truncated) {
          expect(r.text).toBe(input);
          return;
        }
        const lines = input.split('\n');
        if (r.shownLines === 0) {
          // Only when the first line alone is over the byte limit; its longest fitting prefix is shown.
          expect(bytes(lines[0])).toBeGreaterThan(maxBytes);
          expect(r.text).toBe(cutToBytes(lines[0], maxBytes));
        } else {
          expect(r.text).toBe(lines.slice(0, r.shownLines).join('\n'));
          expect(r.shownLines).toBeLessThanOrEqual(maxLines);
          // One more line would break a limit.
          const more = lines.slice(0, r.shownLines + 1).join('\n');
          expect(r.shownLines === maxLines || bytes(more) > maxBytes).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('cutToBytes', () => {
  it('returns short strings unchanged and cuts long ones without splitting characters', () => {
    expect(cutToBytes('abc', 3)).toBe('abc');
    expect(cutToBytes('abcd', 3)).toBe('abc');
    expect(cutToBytes('aé', 2)).toBe('a');
    expect(cutToBytes('€€', 5)).toBe('€');
    expect(cutToBytes('😀', 3)).toBe('');
    expect(cutToBytes('anything', 0)).toBe('');
  });

  it('property: the longest prefix of whole characters that fits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.integer({ min: 0, max: 80 }), (s, max) => {
        const out = cutToBytes(s, max);
        expect(s.startsWith(out)).toBe(true);
        expect(bytes(out)).toBeLessThanOrEqual(max);
        // No character was split: a replacement character in the output must come from the input.
        if (!s.includes('\uFFFD')) expect(out).not.toContain('\uFFFD');
        const chars = [...s];
        const kept = [...out].length;
        if (kept < chars.length) expect(bytes(out + chars[kept])).toBeGreaterThan(max);
      }),
      { numRuns: 500 },
    );
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KB'],
    [1536, '1.5 KB'],
    [50 * 1024, '50.0 KB'],
    [1024 * 1024, '1.0 MB'],
    [200 * 1024 * 1024, '200.0 MB'],
  ])('%i bytes is %s', (n, s) => {
    expect(formatBytes(n)).toBe(s);
  });
});
