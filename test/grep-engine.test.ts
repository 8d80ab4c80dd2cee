// grep's engine (src/tools/grep-engine.ts): a regex runs in a worker thread, stopped by the time
// budget or an abort while it backtracks, and the next call still works; the lines and columns it
// finds are those of testing each line on its own.
import { describe, expect, it } from 'vitest';
import { createGrepEngine, textOf, type TextBatch } from '../src/tools/grep-engine.js';

function batch(files: Record<string, string>): TextBatch {
  const parts = Object.values(files).map((t) => Buffer.from(t, 'utf8'));
  const ends: number[] = [];
  parts.reduce((at, p) => (ends.push(at + p.length), at + p.length), 0);
  return { bytes: new Uint8Array(Buffer.concat(parts)), ends, names: Object.keys(files) };
}

const EVIL = { 'ok.txt': 'fine\n', 'evil.txt': `${'a'.repeat(5000)}!\n` };

describe('grep engine', () => {
  it('stops a pattern that takes over its budget, naming the file, and the next search works', async () => {
    const engine = createGrepEngine('(a+)+$', false, false, new AbortController().signal, { budgetMs: 300 });
    const t0 = performance.now();
    await expect(engine.search(batch(EVIL))).rejects.toThrow(/took over 0\.3 s on evil\.txt \(5002 bytes\).*simplify it/);
    expect(performance.now() - t0).toBeLessThan(5000);
    await expect(engine.search(batch({ 'x.txt': 'a\n' }))).rejects.toThrow(/took over/); // a failed engine stays failed
    engine.close();
    const next = createGrepEngine('a+$', false, false, new AbortController().signal);
    expect(await next.search(batch({ 'x.txt': 'b\naa\n' }))).toEqual([{ starts: [2], columns: [0] }]);
    next.close();
  });

  it('an abort stops the worker mid-match at once', async () => {
    const ac = new AbortController();
    const engine = createGrepEngine('(a+)+$', false, false, ac.signal, { budgetMs: 60_000 });
    const pending = engine.search(batch(EVIL));
    setTimeout(() => ac.abort(), 200);
    const t0 = performance.now();
    await expect(pending).rejects.toThrow('aborted');
    expect(performance.now() - t0).toBeLessThan(2000);
    engine.close();
  });

  it('finds the lines and columns of testing each line alone: lookarounds, ignoring case, literals, a BOM, CRLF', async () => {
    const files = { 'a.txt': '\ufeffxfoo\r\nbar foo\nfoobar\n', 'b.txt': 'FOO(1)\nfoo(1)\n' };
    const b = batch(files);
    expect(textOf(b, 0)).toBe('xfoo\r\nbar foo\nfoobar\n');
    const run = async (pattern: string, literal: boolean, ignoreCase: boolean) => {
      const engine = createGrepEngine(pattern, literal, ignoreCase, new AbortController().signal);
      try {
        return await engine.search(b);
      } finally {
        engine.close();
      }
    };
    expect(await run('foo(?!bar)', false, false)).toEqual([
      { starts: [0, 6], columns: [1, 4] },
      { starts: [7], columns: [0] },
    ]);
    expect(await run('foo$', false, false)).toEqual([
      { starts: [0, 6], columns: [1, 4] },
      { starts: [], columns: [] },
    ]);
    expect(await run('foo(1)', true, true)).toEqual([
      { starts: [], columns: [] },
      { starts: [0, 7], columns: [0, 0] },
    ]);
    expect(await run('foo(1)', true, false)).toEqual([
      { starts: [], columns: [] },
      { starts: [7], columns: [0] },
    ]);
    expect(() => createGrepEngine('(', false, false, new AbortController().signal)).toThrow(/invalid regular expression/);
  });
});
