// The two diffs behind "see what changed", over random inputs: write_file's changed line spans
// (line-spans.ts) replay the old text into exactly the new one, cut at line boundaries, with no
// span that changes nothing; the word-level pieces of a changed line pair (word-diff.ts) rejoin
// to the two lines. And a long file with a few scattered changes is diffed line by line, not
// as one block (write_file's details through the public ToolRegistry).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../src/core/types.js';
import { wordDiff, type Piece } from '../src/interactive/word-diff.js';
import { lineSpans } from '../src/tools/line-spans.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { createWriteFileTool } from '../src/tools/write-file.js';
import { tempDir } from './support/helpers.js';

// Few distinct lines, so that two texts share many of them (the interesting case for a diff).
const line = fc.constantFrom('a', 'b', 'c', '', '  x = 1;', '}', 'é 😀', 'a\r');
const text = fc.tuple(fc.array(line, { maxLength: 30 }), fc.boolean()).map(([ls, endNewline]) => ls.join('\n') + (endNewline && ls.length > 0 ? '\n' : ''));
/** A text and an edited copy of it: some lines replaced, dropped or added. */
const edited = text.chain((before) =>
  fc.array(fc.tuple(fc.nat(), fc.constantFrom('replace', 'drop', 'add'), line), { maxLength: 6 }).map((edits) => {
    const ls = before.split('\n');
    for (const [at, kind, l] of edits) {
      const i = at % (ls.length + 1);
      if (kind === 'add') ls.splice(i, 0, l);
      else if (i < ls.length) ls.splice(i, 1, ...(kind === 'replace' ? [l] : []));
    }
    return [before, ls.join('\n')] as const;
  }),
);

function replay(before: string, after: string): string {
  let out = '';
  let at = 0;
  for (const s of lineSpans(before, after)) {
    out += before.slice(at, s.start) + s.text;
    at = s.end;
  }
  return out + before.slice(at);
}

describe('lineSpans over random texts', () => {
  it('applied to the old text, the spans give exactly the new text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.tuple(text, text), edited), ([before, after]) => {
        expect(replay(before, after)).toBe(after);
      }),
      { numRuns: 500 },
    );
  });

  it('spans are in order, apart, cut at line starts, and each one changes something', () => {
    fc.assert(
      fc.property(fc.oneof(fc.tuple(text, text), edited), ([before, after]) => {
        const spans = lineSpans(before, after);
        let previousEnd = -1;
        for (const s of spans) {
          expect(s.start).toBeGreaterThan(previousEnd);
          expect(s.end).toBeGreaterThanOrEqual(s.start);
          for (const at of [s.start, s.end]) expect(at === 0 || at === before.length || before[at - 1] === '\n').toBe(true);
          expect(before.slice(s.start, s.end)).not.toBe(s.text);
          previousEnd = s.end;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a text against itself has no spans', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(lineSpans(t, t)).toEqual([]);
      }),
    );
  });
});

describe('wordDiff over random line pairs', () => {
  const word = fc.constantFrom('sum', 'item', 'price', 'cost', '+=', ' ', '  ', '.', ';', '(', ')', 'naïve', '😀', '\t', 'x1');
  const codeLine = fc.array(word, { maxLength: 25 }).map((ws) => ws.join(''));
  const joined = (ps: Piece[]) => ps.map((p) => p.text).join('');
  const alternate = (ps: Piece[]) => ps.every((p, i) => p.text !== '' && (i === 0 || p.changed !== ps[i - 1].changed));

  it('the pieces rejoin to the two lines, changed and unchanged pieces alternating', () => {
    fc.assert(
      fc.property(fc.oneof(codeLine, fc.string()), fc.oneof(codeLine, fc.string()), (removed, added) => {
        const d = wordDiff(removed, added, 0);
        if (!d) return; // a side with no tokens
        expect(joined(d.removed)).toBe(removed);
        expect(joined(d.added)).toBe(added);
        expect(alternate(d.removed) && alternate(d.added)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('a line against itself is one unchanged piece', () => {
    fc.assert(
      fc.property(
        codeLine.filter((l) => l.length > 0),
        (l) => {
          expect(wordDiff(l, l)).toEqual({ removed: [{ text: l, changed: false }], added: [{ text: l, changed: false }] });
        },
      ),
    );
  });
});

describe("write_file's diff of a long file", () => {
  it('a 6000-line file with ten scattered changed lines shows those ten lines, not one block', async () => {
    const ws = tempDir();
    const before = Array.from({ length: 6000 }, (_, i) => `line ${i}\n`).join('');
    const after = Array.from({ length: 6000 }, (_, i) => (i % 600 === 300 ? `LINE ${i}\n` : `line ${i}\n`)).join('');
    writeFileSync(join(ws, 'long.txt'), before);
    const call: ToolCall = { type: 'toolCall', id: 'w1', name: 'write_file', arguments: { path: 'long.txt', content: after } };
    const res = await new ToolRegistry([createWriteFileTool()]).execute(call, { cwd: ws, signal: new AbortController().signal });
    expect(res.isError).toBe(false);
    expect(res.details).toMatchObject({ linesAdded: 10, linesRemoved: 10 });
    const diff = String(res.details!.diff).split('\n');
    expect(diff.filter((l) => l.startsWith('-'))).toEqual(Array.from({ length: 10 }, (_, k) => `-${String(301 + k * 600).padStart(4)}│line ${300 + k * 600}`));
    expect(diff.filter((l) => l.startsWith('+'))).toEqual(Array.from({ length: 10 }, (_, k) => `+${String(301 + k * 600).padStart(4)}│LINE ${300 + k * 600}`));
  });
});
