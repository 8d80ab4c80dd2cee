// MarkdownStream (src/interactive/markdown.ts): what a streamed answer commits and draws live,
// and its contract, by property tests over random documents cut into random deltas (generators in
// test/support/markdown-gen.ts): the committed lines plus end() are renderMarkdown(whole text),
// and after any push, the committed lines plus live() are renderMarkdown(text so far), with and
// without live() between pushes; each documented exception is tested on its own.
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { MarkdownStream, MAX_LIVE_LINE_CHARS, MAX_OPEN_BLOCK_CHARS, renderMarkdown } from '../src/interactive/markdown.js';
import { document, HOSTILE, hostileDocument, listDocument, streamed, underlineDocument } from './support/markdown-gen.js';

const SGR = /\x1b\[[\d;]*m/g;
const plain = (line: string) => line.replace(SGR, '');
const text = (md: string, width = 80) => renderMarkdown(md, width, { color: false });
const colored = (md: string, width = 80) => renderMarkdown(md, width, { color: true });
/** Any control character: C0 (tab and newline included: a line holds neither), DEL, C1. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

/** Every line a stream commits for `deltas`, end() included. */
function streamAll(deltas: string[], width: number, color: boolean): string[] {
  const s = new MarkdownStream(width, { color });
  const out: string[] = [];
  for (const d of deltas) out.push(...s.push(d));
  out.push(...s.end());
  return out;
}

describe('MarkdownStream', () => {
  it('commits blocks as they complete and draws the one in progress live', () => {
    // Without live() in between, push() itself looks for the blocks a delta completed.
    const a = new MarkdownStream(80, { color: false });
    expect(a.push('# Ti')).toEqual([]);
    expect(a.push('tle\n\nFirst para')).toEqual(['# Title']);
    expect(a.push('graph.\n\n- a\n')).toEqual(['', 'First paragraph.']);
    expect(a.end()).toEqual(['', '• a']);
    // With live() after each push, live() sees what is complete and the next push() commits it.
    const b = new MarkdownStream(80, { color: false });
    expect(b.push('# Ti')).toEqual([]);
    expect(b.live()).toEqual(['# Ti']);
    expect(b.push('tle\n\nFirst para')).toEqual([]);
    expect(b.live()).toEqual(['# Title', '', 'First para']);
    expect(b.push('graph.\n\n- a\n')).toEqual(['# Title']);
    expect(b.live()).toEqual(['', 'First paragraph.', '', '• a']);
    expect(b.push('- b\n')).toEqual(['', 'First paragraph.']);
    expect(b.live()).toEqual(['', '• a', '• b']);
    expect(b.end()).toEqual(['', '• a', '• b']);
    expect(b.live()).toEqual([]);
    expect(() => b.push('x')).toThrow(/after end/);
  });

  it('commits a fenced code block segment by segment, before its fence closes', () => {
    const s = new MarkdownStream(80, { color: false });
    expect(s.push('```py\nx = 1\n\n')).toEqual(['╭─ py', '│ x = 1', '│ ']);
    expect(s.live()).toEqual(['╰─']);
    expect(s.push('y = 2\n```\nafter\n')).toEqual(['│ y = 2', '╰─']);
    expect(s.end()).toEqual(['', 'after']);
  });

  it('a line still arriving that may be an underline or a table delimiter commits nothing above it yet', () => {
    // marked reads "3) item" as a list when "   -" (a setext underline?) follows, as paragraph text when "   - x" does.
    for (const parts of [
      ['para line\n3) item\n   -', ' x\n'],
      ['para line\na | b\n--', '|--\n| 1 | 2 |\n'],
      ['para line\na | b\n--', ' not a table\n'],
      ['para\ntext\n==', 'x\n'],
    ]) {
      const s = new MarkdownStream(40, { color: false });
      const committed: string[] = [];
      let so = '';
      for (const d of parts) {
        committed.push(...s.push(d));
        so += d;
        expect([...committed, ...s.live()]).toEqual(text(so, 40));
      }
      expect([...committed, ...s.end()]).toEqual(text(so, 40));
    }
    // marked reads "   -" as paragraph text, unless "|--|--|" follows: then a list (the paragraph seemed a table's head).
    const md = '- - -\npara line\n:-:|---\n   -\n|--|--|\n';
    expect(streamAll(Array.from(md), 20, false)).toEqual(text(md, 20));
  });

  it('setWidth lays out what is not committed yet at the new width', () => {
    const s = new MarkdownStream(80, { color: false });
    s.push('one two three');
    s.setWidth(8);
    expect(s.live()).toEqual(['one two', 'three']);
  });

  it('property (a): committed lines + end() = renderMarkdown(whole text), for ordinary Markdown in any deltas', () => {
    fc.assert(
      fc.property(streamed(document), fc.integer({ min: 1, max: 100 }), fc.boolean(), ({ text: md, deltas }, w, color) => {
        same(streamAll(deltas, w, color), renderMarkdown(md, w, { color }));
      }),
      { numRuns: 400 },
    );
  });

  it('property (b): after any push, committed so far + live() = renderMarkdown(text so far)', () => {
    fc.assert(
      fc.property(streamed(document), fc.integer({ min: 1, max: 100 }), fc.boolean(), ({ deltas }, w, color) => {
        const s = new MarkdownStream(w, { color });
        const committed: string[] = [];
        let so = '';
        for (const d of deltas) {
          committed.push(...s.push(d));
          so += d;
          const live = s.live();
          same(s.live(), live); // live() is a pure read
          same([...committed, ...live], renderMarkdown(so, w, { color }));
        }
      }),
      { numRuns: 250 },
    );
  });

  it('property: lists, streamed with live() after some pushes and not others, equal the whole render', () => {
    fc.assert(
      fc.property(streamed(listDocument), fc.integer({ min: 1, max: 100 }), fc.infiniteStream(fc.boolean()), fc.boolean(), ({ text: md, deltas }, w, lives, color) => {
        const s = new MarkdownStream(w, { color });
        const committed: string[] = [];
        let so = '';
        for (const d of deltas) {
          committed.push(...s.push(d));
          so += d;
          if (lives.next().value) same([...committed, ...s.live()], renderMarkdown(so, w, { color }));
        }
        same([...committed, ...s.end()], renderMarkdown(md, w, { color }));
      }),
      { numRuns: 250 },
    );
  });

  it('property: ordinary Markdown, live() after some pushes only: committed lines + end() = renderMarkdown(whole)', () => {
    fc.assert(
      fc.property(streamed(document), fc.integer({ min: 1, max: 100 }), fc.infiniteStream(fc.boolean()), ({ text: md, deltas }, w, lives) => {
        const s = new MarkdownStream(w, { color: true });
        const out: string[] = [];
        for (const d of deltas) {
          out.push(...s.push(d));
          if (lives.next().value) s.live();
        }
        same([...out, ...s.end()], renderMarkdown(md, w, { color: true }));
      }),
      { numRuns: 300 },
    );
  });

  it('property: lines that may make the line above a heading or a table head, streamed a character at a time', () => {
    fc.assert(
      fc.property(underlineDocument, fc.integer({ min: 1, max: 60 }), fc.infiniteStream(fc.boolean()), (md, w, lives) => {
        const s = new MarkdownStream(w, { color: false });
        const committed: string[] = [];
        let so = '';
        for (const d of Array.from(md)) {
          committed.push(...s.push(d));
          so += d;
          if (lives.next().value) same([...committed, ...s.live()], renderMarkdown(so, w, { color: false }));
        }
        same([...committed, ...s.end()], renderMarkdown(md, w, { color: false }));
      }),
      { numRuns: 300 },
    );
  });

  it('property (c): hostile text streamed: lines fit, no control survives, and the stream equals the whole render', () => {
    fc.assert(
      fc.property(streamed(hostileDocument), fc.integer({ min: 1, max: 120 }), fc.boolean(), ({ text: md, deltas }, w, color) => {
        const lines = streamAll(deltas, w, color);
        for (const l of lines) {
          if (CONTROL.test(plain(l)) || stringWidth(plain(l)) > w) throw new Error(`bad line at width ${w}: ${JSON.stringify(l)}`);
        }
        same(lines, renderMarkdown(md, w, { color }));
      }),
      { numRuns: 200 },
    );
  });

  it('each hostile sequence alone, cut at every place', () => {
    for (const seq of HOSTILE) {
      const md = `a ${seq}b\n\n\`\`\`\nc${seq}d\n\`\`\``;
      for (let cut = 1; cut < md.length; cut++) {
        const lines = streamAll([md.slice(0, cut), md.slice(cut)], 40, true);
        for (const l of lines) expect(plain(l)).not.toMatch(CONTROL);
        same(lines, colored(md, 40));
      }
    }
  });
});

describe('MarkdownStream: the documented exceptions', () => {
  it('a reference link defined in a later block shows as text when its block was committed first; defined before, it resolves', () => {
    const md = 'see [site][s]\n\nmore\n\n[s]: https://s.example\n\nand [site][s]\n';
    expect(text(md)).toEqual(['see site (https://s.example)', '', 'more', '', 'and site (https://s.example)']);
    expect(streamAll(Array.from(md), 80, false)).toEqual(['see [site][s]', '', 'more', '', 'and site (https://s.example)']);
    expect(streamAll([md], 80, false)).toEqual(text(md)); // in one delta, nothing was committed before the definition
  });

  it('a definition inside a quote or list resolves links in the blocks after it', () => {
    const md = '> [q]: https://q.example\n\n- [r]: https://r.example\n\nthen [q][q] and [r][]\n';
    expect(text(md).at(-1)).toBe('then q (https://q.example) and r (https://r.example)');
    expect(streamAll(Array.from(md), 80, false)).toEqual(text(md));
  });

  it('an <a> tag left open in one block does not keep URLs in later blocks from being links', () => {
    const md = '<a href="x">open\n\nsee https://a.example\n';
    // marked, lexing the whole text, carries the open tag into the next block: no link there.
    expect(text(md)).toEqual(['<a href="x">open', '', 'see https://a.example']);
    expect(streamAll(Array.from(md), 80, false)).toEqual(['<a href="x">open', '', 'see https://a.example']);
    const inline = 'a <a href="x">open\n\nsee https://a.example\n';
    const LINK = '\x1b[4;34mhttps://a.example';
    expect(colored(inline).at(-1)).not.toContain(LINK);
    expect(streamAll(Array.from(inline), 80, true).at(-1)).toContain(LINK);
  });

  it('a block past MAX_OPEN_BLOCK_CHARS is committed in parts, with no blank line between them, and its text is all there', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i} of a very long paragraph that goes on`);
    const md = `${lines.join('\n')}\n\nnext\n`;
    expect(md.length).toBeGreaterThan(2 * MAX_OPEN_BLOCK_CHARS);
    const s = new MarkdownStream(100, { color: false });
    let during = 0;
    const out: string[] = [];
    for (let i = 0; i < md.length; i += 97) {
      const c = s.push(md.slice(i, i + 97));
      if (i < md.length - 200) during += c.length;
      out.push(...c);
    }
    out.push(...s.end());
    expect(during).toBeGreaterThan(0); // parts were committed before the paragraph ended
    expect(out.filter((l) => l === '')).toHaveLength(1); // only before "next"
    expect(out.join(' ').replace(/\s+/g, ' ')).toBe(`${lines.join(' ')} next`);
    expect(out.every((l) => l.length <= 100)).toBe(true);
  });

  it('a list past MAX_OPEN_BLOCK_CHARS is cut between top-level items', () => {
    const items = Array.from({ length: 300 }, (_, i) => `- item ${i} with some words in it\n  - sub ${i}`);
    const md = `${items.join('\n')}\n`;
    const out = streamAll(md.match(/[\s\S]{1,50}/g)!, 100, false);
    expect(out).toEqual(text(md)); // the parts of a tight list lay out as the whole does
  });

  it('a line past MAX_OPEN_BLOCK_CHARS, still arriving, is cut at a space', () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ');
    const s = new MarkdownStream(100, { color: false });
    const out: string[] = [];
    for (let i = 0; i < words.length; i += 100) out.push(...s.push(words.slice(i, i + 100)));
    expect(out.length).toBeGreaterThan(0);
    out.push(...s.end());
    expect(out.join(' ')).toBe(words);
  });

  it('a code line still arriving is drawn live by its last MAX_LIVE_LINE_CHARS characters; committed, it is whole', () => {
    const long = 'y'.repeat(MAX_LIVE_LINE_CHARS * 2);
    const s = new MarkdownStream(100, { color: false });
    s.push('```\n');
    s.push(long);
    const live = s.live();
    expect(live.join('').replace(/[│╰─ ]/g, '')).toHaveLength(MAX_LIVE_LINE_CHARS);
    expect([...s.push('\n```\n'), ...s.end()].join('').replace(/[│╰─ ]/g, '')).toHaveLength(long.length);
  });

  it('a long fenced code block is committed as it arrives, and equals the whole render', () => {
    const code = Array.from({ length: 200 }, (_, i) => `const v${i} = ${i}; // ${'x'.repeat(i % 50)}`).join('\n');
    const md = `\`\`\`ts\n${code}\n\`\`\`\n`;
    const s = new MarkdownStream(60, { color: true });
    const out: string[] = [];
    let early = 0;
    for (let i = 0; i < md.length; i += 64) {
      const c = s.push(md.slice(i, i + 64));
      if (i < md.length / 2) early += c.length;
      out.push(...c);
    }
    out.push(...s.end());
    expect(early).toBeGreaterThan(50);
    expect(out).toEqual(colored(md, 60));
  });
});

/** expect(got).toEqual(want) for lists of lines, compared as JSON first: toEqual on every push was most of a property's time. */
function same(got: string[], want: string[]): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) expect(got).toEqual(want);
}
