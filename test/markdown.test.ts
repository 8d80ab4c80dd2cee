// The interactive mode's Markdown renderer (src/interactive/markdown*.ts, terminal-text.ts): every
// block kind as text (color off) and with its styles (color on), display widths, lines that fit
// the width at every width, and text that can never drive the terminal (escape sequences and
// controls in the input). The streaming half, MarkdownStream: markdown-stream.test.ts.
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { MarkdownStream, renderMarkdown, sanitizeForTerminal } from '../src/interactive/markdown.js';
import { displayWidth, stripControls } from '../src/interactive/terminal-text.js';
import { hostileDocument } from './support/markdown-gen.js';

const SGR = /\x1b\[[\d;]*m/g;
const plain = (line: string) => line.replace(SGR, '');
const text = (md: string, width = 80) => renderMarkdown(md, width, { color: false });
const colored = (md: string, width = 80) => renderMarkdown(md, width, { color: true });
/** Any control character: C0 (tab and newline included: a line holds neither), DEL, C1. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

describe('blocks as text (color off)', () => {
  it('headings keep their marks, paragraphs wrap at spaces, blocks are separated by one blank line', () => {
    expect(text('# Title\n\n### Third *level*\n\nOne two three four five six.', 12)).toEqual(['# Title', '', '### Third', 'level', '', 'One two', 'three four', 'five six.']);
    expect(text('Setext\n======\n\npara')).toEqual(['# Setext', '', 'para']);
  });

  it('inline marks: bold and italic lose theirs, code and strikethrough keep theirs, links show their target', () => {
    expect(text('**bold**, *it*, `co de`, ~~gone~~, [site](https://x.y/z), <https://a.b>, ![pic](https://i/p.png)')).toEqual(['bold, it, `co de`, ~~gone~~, site (https://x.y/z), https://a.b, [image: pic]', '(https://i/p.png)']);
  });

  it('soft breaks are spaces, hard breaks are line breaks', () => {
    expect(text('one\ntwo  \nthree\\\nfour')).toEqual(['one two', 'three', 'four']);
  });

  it('lists: bullets by depth, numbers aligned, task boxes, loose lists with blank lines', () => {
    expect(text('- a\n- b\n  - c\n    - d\n- [ ] todo\n- [x] done')).toEqual(['• a', '• b', '  ◦ c', '    ▪ d', '• [ ] todo', '• [x] done']);
    expect(text('9. nine\n10. ten')).toEqual([' 9. nine', '10. ten']);
    expect(text('3) three\n4) four')).toEqual(['3. three', '4. four']);
    expect(text('- a\n\n- b')).toEqual(['• a', '', '• b']);
    expect(text('- a long item that wraps', 12)).toEqual(['• a long', '  item that', '  wraps']);
  });

  it('block quotes: a gutter, nested quotes, blocks inside', () => {
    expect(text('> quoted *text*\n> more\n>\n> > inner\n>\n> - item')).toEqual(['│ quoted text more', '│', '│ │ inner', '│', '│ • item']);
  });

  it('fenced code: framed with its language, tabs expanded, unknown languages as plain text; indented code framed too', () => {
    expect(text('```ts\nconst x = 1;\n\tf();\n```')).toEqual(['╭─ ts', '│ const x = 1;', '│     f();', '╰─']);
    expect(text('~~~nosuchlang\nplain <b>\n~~~')).toEqual(['╭─ nosuchlang', '│ plain <b>', '╰─']);
    expect(text('```\n```')).toEqual(['╭─', '╰─']);
    expect(text('    indented\n    code')).toEqual(['╭─', '│ indented', '│ code', '╰─']);
  });

  it('fenced code: lines longer than the width are cut, never wrapped at the margin', () => {
    expect(text('```\nabcdefghij klm\n```', 10)).toEqual(['╭─', '│ abcdefgh', '│ ij klm', '╰─']);
    expect(text('```\nabc\n```', 3)).toEqual(['abc']); // too narrow for a frame
  });

  it('tables: box-drawn, columns aligned as the delimiter row says, wide characters counted as 2 columns', () => {
    expect(text('| a | b | c |\n|:--|:-:|--:|\n| 1 | 会话 | 3 |\n| long cell | x | y |')).toEqual([
      '┌───────────┬──────┬───┐',
      '│ a         │  b   │ c │',
      '├───────────┼──────┼───┤',
      '│ 1         │ 会话 │ 3 │',
      '│ long cell │  x   │ y │',
      '└───────────┴──────┴───┘',
    ]);
  });

  it('tables: cells wrap when the table is too wide, and become records when it is far too narrow', () => {
    const md = '| name | description |\n|---|---|\n| a | one two three four five six |';
    const narrow = text(md, 24);
    expect(narrow.every((l) => stringWidth(l) === 24)).toBe(true);
    expect(narrow.join('\n')).toContain('one two');
    expect(text(md, 8)).toEqual(['name: a', 'descript', 'ion: one', 'two', 'three', 'four', 'five six']);
  });

  it('rules span the width; raw HTML shows as written; entities are decoded', () => {
    expect(text('a\n\n---\n\nb', 5)).toEqual(['a', '', '─────', '', 'b']);
    expect(text('<div class="x">\n<b>hi</b>\n</div>')).toEqual(['<div class="x">', '<b>hi</b>', '</div>']);
    expect(text('a <span>b</span> &amp; &lt;c&gt; &copy; &#x1F600; &nope;')).toEqual(['a <span>b</span> & <c> © 😀 &nope;']);
  });

  it('reference links resolve when their definition is in the text', () => {
    expect(text('[site][s]\n\n[s]: https://s.example "title"')).toEqual(['site (https://s.example)']);
  });
});

describe('blocks with color', () => {
  it('styles each kind and ends every styled line with a reset', () => {
    const lines = colored('# Head\n\n**b** *i* `c` ~~s~~ [l](https://u)\n\n- [x] t\n\n> q\n\n```ts\nconst x = "s"; // c\n```\n\n| h |\n|---|\n| v |\n\n---');
    const joined = lines.join('\n');
    for (const sgr of ['\x1b[1;4;35mHead', '\x1b[1mb', '\x1b[3mi', '\x1b[36mc', '\x1b[9ms', '\x1b[4;34ml', '\x1b[2m (https://u)', '\x1b[32m[x]', '\x1b[35mconst', '\x1b[32m"s"', '\x1b[90m// c', '\x1b[1mh']) {
      expect(joined).toContain(sgr);
    }
    for (const l of lines) if (l.includes('\x1b')) expect(l.endsWith('\x1b[0m')).toBe(true);
    expect(lines.map(plain)).toEqual(text('# Head\n\n**b** *i* c s [l](https://u)\n\n- [x] t\n\n> q\n\n```ts\nconst x = "s"; // c\n```\n\n| h |\n|---|\n| v |\n\n---').map((l) => l.replace(/^# /, '')));
  });

  it('color off emits no escape byte at all', () => {
    const md = '# H\n\n**b** `c` [l](u)\n\n```ts\nlet a = 1\n```\n\n| a |\n|---|\n| b |\n\n> q\n\n- x\n\n---\n\n<b>h</b>';
    for (const l of text(md)) expect(l).not.toMatch(CONTROL);
  });
});

describe('wide characters, emoji, long words', () => {
  it('counts CJK and emoji as two columns and never splits a grapheme', () => {
    expect(text('会话压缩之后模型只能看到摘要', 10)).toEqual(['会话压缩之', '后模型只能', '看到摘要']);
    expect(text('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', 4)).toEqual(['👨‍👩‍👧👨‍👩‍👧', '👨‍👩‍👧']);
    expect(text('é'.normalize('NFD').repeat(5), 2)).toEqual(['e\u0301e\u0301', 'e\u0301e\u0301', 'e\u0301']);
    expect(text('会 a', 1)).toEqual(['?', 'a']); // wider than the whole width: a stand-in, never a line too wide
  });

  it('cuts words and URLs longer than the width', () => {
    const url = 'https://example.com/a/very/long/path/that/goes/on';
    expect(text(`see ${url} now`, 20)).toEqual(['see', 'https://example.com/', 'a/very/long/path/tha', 't/goes/on now']);
  });

  it('measures widths exactly as string-width does (the fast paths included)', () => {
    const samples = [
      'plain ascii',
      'café naïve',
      '─│╭╰┌┬┐├┼┤└┴┘',
      '•◦▪',
      '会话，压缩。',
      'ファイル',
      '설정',
      'ｆｕｌｌ',
      '🚀✅👨‍👩‍👧',
      'e\u0301',
      '\u00ad',
      'a\u200bb',
      '‼',
      '‼\ufe0f',
      '❤\ufe0f',
      '→ ← ↔',
      '«»“”‘’…—–',
      '©®™°±×÷',
      '\u1100\u1161\u11a8',
      '각\u11a8',
    ];
    for (const s of samples) expect(displayWidth(s)).toBe(stringWidth(s));
    for (let c = 0x20; c < 0x10000; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCharCode(c);
      if (displayWidth(ch) !== stringWidth(ch)) throw new Error(`U+${c.toString(16)}: ${displayWidth(ch)} columns, string-width says ${stringWidth(ch)}`);
    }
    const piece = fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), fc.constantFrom('\u0301', '\u200d', '\ufe0f', '\u1161', '\u11a8', '🏻', '🇺', 'ー', 'ﾞ'));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (ps) => displayWidth(ps.join('')) === stringWidth(ps.join(''))),
      { numRuns: 2000 },
    );
  });
});

describe('no line wider than the width', () => {
  const SAMPLE = [
    '# A heading with 会话压缩 and a *long* title that wraps',
    'Text with **bold**, `code`, [a link](https://example.com/path), 🚀 and https://example.com/a/very/long/url/with/no/spaces/at/all.',
    '1. one\n2. two with a longer body\n   - nested 设置 item\n   - [x] done\n10. ten',
    '> quote with *emphasis*\n> > nested quote 会话压缩之后\n>\n> ```js\n> const quoted = "code";\n> ```',
    '```ts\nexport function f(a: string): number { return a.length + 1; } // a comment longer than most widths\n\tconst tab = "\t";\n会话压缩之后模型只能看到摘要\n```',
    '    indented code block line\n    two',
    '| left | center | right | wide |\n|:--|:-:|--:|---|\n| a | b | c | 会话压缩之后 |\n| `code` | **bold** | 123456789 | 🚀🚀 |',
    '---',
    '<div>\n  <span>raw html block</span>\n</div>',
    'supercalifragilisticexpialidocious' + 'x'.repeat(40),
  ].join('\n\n');

  it('for every width from 1 to 120, with and without color', () => {
    for (let w = 1; w <= 120; w++) {
      for (const color of [false, true]) {
        const lines = renderMarkdown(SAMPLE, w, { color });
        for (const l of lines) if (stringWidth(plain(l)) > w) throw new Error(`width ${w}: ${JSON.stringify(l)} is ${stringWidth(plain(l))} columns`);
      }
    }
  });

  it('rejects a width that is not a number of columns', () => {
    expect(() => renderMarkdown('a', 0, { color: false })).toThrow(/width/);
    expect(() => new MarkdownStream(Number.NaN, { color: false })).toThrow(/width/);
  });
});

describe('escape sequences and controls in the input never reach the output', () => {
  it('strips CSI, OSC 52 (clipboard), OSC 8 (hyperlinks), BEL, C1 CSI, carriage returns and backspaces', () => {
    const md = 'a\x1b[31mred\x1b[0m b\x1b]52;c;aGVsbG8+Lz0=\x07c \x1b]8;;https://evil/?x=1\x1b\\link\x1b]8;;\x1b\\ d\x07e \x9b2Jf g\rh i\bj\x9d0;t\x9ck\x1bP+q\x1b\\l';
    for (const color of [false, true]) {
      const lines = renderMarkdown(md, 80, { color });
      expect(lines.map(plain).join('\n')).toBe('ared bc link de f gh ijkl');
      for (const l of lines) expect(plain(l)).not.toMatch(CONTROL);
    }
  });

  it('in code blocks, tables, headings and link targets too', () => {
    const md = '# t\x1b]0;title\x07\n\n```\nx\x1b[2Jy\r\n```\n\n| a\x1b[1m |\n|---|\n| b\x9b1m |\n\n[l](https://a\x1b[31m.b)';
    for (const l of renderMarkdown(md, 40, { color: true })) expect(plain(l)).not.toMatch(CONTROL);
  });

  it('character references that decode to controls (marked decodes them) show as U+FFFD, never as escapes', () => {
    const md = '# t &#27;[2J\n\na &#x1b;]52;c;eA==&#7; b &#x9b;31m c &#8;\n\n[l &#27;[1m](https://x.y) ![i &#27;](https://i) `&#27;`\n\n| h &#27; |\n|---|\n| &#x1B;[0m |\n\n- &#27;c';
    for (const color of [false, true]) {
      const lines = renderMarkdown(md, 60, { color });
      for (const l of lines) expect(plain(l)).not.toMatch(CONTROL);
      expect(lines.map(plain).join('\n')).toContain('a \ufffd]52;c;eA==\ufffd b \ufffd31m c \ufffd');
    }
  });

  it('sanitizeForTerminal keeps newlines, expands tabs, and drops every control', () => {
    expect(sanitizeForTerminal('a\tb\r\nc\x1b[31md\x1b]52;c;eA==\x07e\x00\x7f\x85\x9b2Jf')).toBe('a       b\ncdef');
    expect(stripControls('done 50%\rdone 100%\n')).toBe('done 50%done 100%\n');
  });

  it('a sequence cut off at the end of a stream delta never shows, whole or in part', () => {
    const s = new MarkdownStream(80, { color: false });
    s.push('text \x1b]52;c;aGVs');
    expect(s.live()).toEqual(['text']);
    s.push('bG8=\x07 more \x1b[3');
    expect(s.live()).toEqual(['text more']);
    s.push('1m red\n');
    expect(s.end()).toEqual(['text more red']);
  });

  it('property: no control byte survives, whatever the width', () => {
    fc.assert(
      fc.property(hostileDocument, fc.integer({ min: 1, max: 120 }), fc.boolean(), (md, w, color) => {
        for (const l of renderMarkdown(md, w, { color })) {
          const bare = plain(l);
          if (CONTROL.test(bare)) throw new Error(`control in ${JSON.stringify(l)}`);
          if (!color && l !== bare) throw new Error(`SGR without color: ${JSON.stringify(l)}`);
          if (stringWidth(bare) > w) throw new Error(`wider than ${w}: ${JSON.stringify(l)}`);
        }
      }),
      { numRuns: 300 },
    );
  });
});
