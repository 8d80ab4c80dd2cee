// The pure parts of the interactive tool blocks: previews that keep indentation and blank lines
// and count exactly what they leave out, the word-level marks of a changed line pair, and the
// changed lines between two whole texts (write_file's diff).
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { paint } from '../src/interactive/view.js';
import { bodyLines, toolBlock } from '../src/interactive/tool-block.js';
import { wordDiff } from '../src/interactive/word-diff.js';
import { lineSpans } from '../src/tools/line-spans.js';
import { spanDiff } from '../src/tools/diff.js';

const p = paint(false);
const end = (name: string, text: string, isError = false): Extract<AgentEvent, { type: 'tool_end' }> =>
  ({ type: 'tool_end', turn: 1, toolCallId: 't', name, result: { content: [{ type: 'text', text }], isError }, entryId: 'e', durationMs: 5, schemaVersion: 3, seq: 0, time: 0 }) as never;

describe('tool blocks', () => {
  it('a preview keeps indentation and blank lines and counts the lines it leaves out', () => {
    const lines = toolBlock(end('read_file', 'a\n\n    indented\nfour\nfive\nsix\n\n'), { path: 'x' }, 80, p);
    expect(lines.slice(1)).toEqual(['  │ a', '  │ ', '  │     indented', '  │ … 3 more lines (Ctrl+O to expand)']);
    expect(toolBlock(end('read_file', 'a\n\n    indented\nfour\nfive\nsix'), { path: 'x' }, 80, p, 'full')).toHaveLength(7);
  });

  it('bash shows its tail, after the error lines of the part not shown', () => {
    const out = ['error: early', ...Array.from({ length: 10 }, (_, i) => `l${i + 1}`)].join('\n');
    expect(toolBlock(end('bash', out), { command: 'x' }, 80, p).slice(1)).toEqual(['  │ error: early', '  │ … 5 earlier lines (Ctrl+O to expand)', '  │ l6', '  │ l7', '  │ l8', '  │ l9', '  │ l10']);
  });

  it('a long line is cut at the width with an ellipsis, and the hint shortens when narrow', () => {
    const lines = toolBlock(end('read_file', `${'x'.repeat(100)}\n1\n2\n3\n4`), { path: 'x' }, 30, p);
    expect(lines[1]).toBe(`  │ ${'x'.repeat(25)}…`);
    expect(lines[4]).toBe('  │ … 2 more lines (Ctrl+O)');
  });

  it('bodyLines drops blank lines only at the ends', () => {
    expect(bodyLines('\n\n a\n\nb\n \n')).toEqual([' a', '', 'b']);
  });
});

describe('word-level marks', () => {
  it('marks only the words that changed', () => {
    const d = wordDiff('  sum += item.price;', '  sum += item.cost;')!;
    expect(d.removed).toEqual([
      { text: '  sum += item.', changed: false },
      { text: 'price', changed: true },
      { text: ';', changed: false },
    ]);
    expect(d.added.filter((x) => x.changed).map((x) => x.text)).toEqual(['cost']);
  });

  it('leaves a rewritten line unmarked', () => {
    expect(wordDiff('return total;', 'throw new Error("no items")')).toBeUndefined();
  });
});

describe('lineSpans', () => {
  it('finds each changed run of lines, so unchanged lines between them stay context', () => {
    const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n';
    const after = 'one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n';
    const d = spanDiff(before, lineSpans(before, after));
    expect(d.added).toBe(2);
    expect(d.removed).toBe(1);
    expect(d.text.split('\n').filter((l) => /^[+-]/.test(l))).toEqual(['- 2│two', '+ 2│TWO', '+11│eleven']);
    expect(lineSpans(before, before)).toEqual([]);
  });

  it('replays to the new text', () => {
    const before = 'a\nb\nc\nd\n';
    const after = 'x\nb\nd\ne';
    let out = '';
    let at = 0;
    for (const s of lineSpans(before, after)) {
      out += before.slice(at, s.start) + s.text;
      at = s.end;
    }
    expect(out + before.slice(at)).toBe(after);
  });
});
