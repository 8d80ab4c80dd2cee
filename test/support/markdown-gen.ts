// fast-check generators of Markdown for test/markdown.test.ts: "ordinary Markdown" as
// src/interactive/markdown.ts's header means it (every block kind, inline marks, wide characters
// and emoji, blocks small enough never to be cut in parts, no reference links), cut into deltas
// at random places; and hostile text (escape sequences, C0 and C1 controls) to mix into it.
import fc from 'fast-check';

const WORDS = ['the', 'model', 'answer', 'stream', 'render', 'width', 'a', 'is', 'to', 'of', 'x1', 'foo_bar', 'naïve', 'café', '会话', '压缩之后', 'ファイル', '설정', '🚀', '👨‍👩‍👧', '✅', 'e\u0301'];
const LONG = ['supercalifragilisticexpialidocious', 'https://example.com/a/very/long/path/that/does/not/fit/anywhere?with=query&and=more', '長い長い長い長い長い長い長い長い長い'];

const word = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...WORDS) }, { weight: 1, arbitrary: fc.constantFrom(...LONG) });
const words = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max }).map((ws) => ws.join(' '));

/** Inline Markdown: words, emphasis, code, links, strikethrough, entities, inline HTML, escapes, hard breaks. */
const inlinePiece = fc.oneof(
  { weight: 8, arbitrary: words(1, 4) },
  { weight: 1, arbitrary: words(1, 2).map((w) => `**${w}**`) },
  { weight: 1, arbitrary: words(1, 2).map((w) => `*${w}*`) },
  { weight: 1, arbitrary: words(1, 2).map((w) => `_${w}_`) },
  { weight: 1, arbitrary: words(1, 2).map((w) => `~~${w}~~`) },
  { weight: 1, arbitrary: words(1, 2).map((w) => `\`${w}\``) },
  { weight: 1, arbitrary: fc.tuple(words(1, 2), fc.constantFrom('https://example.com/x', 'https://a.b/c?d=1', 'mailto:a@b.c')).map(([w, u]) => `[${w}](${u})`) },
  { weight: 1, arbitrary: fc.constantFrom('https://auto.link/path', '<https://angle.link>', '![alt text](https://img.example/i.png)') },
  { weight: 1, arbitrary: fc.constantFrom('&amp;', '&lt;tag&gt;', '&copy;', '&#169;', '&#x1F600;', '&bogus;', '&#27;[2J', '&#x9b;', '&#0;', '<b>bold</b>', '<br>', '\\*not em\\*', '1 < 2 > 0') },
  { weight: 1, arbitrary: fc.constantFrom('**unclosed', '`unclosed', '[unclosed', '*', '_') },
);
const inline = fc.array(inlinePiece, { minLength: 1, maxLength: 6 }).map((ps) => ps.join(' '));

const paragraph = fc.tuple(fc.array(inline, { minLength: 1, maxLength: 4 }), fc.constantFrom('\n', '\n', '  \n', '\\\n')).map(([lines, sep]) => lines.join(sep));
const heading = fc.tuple(fc.integer({ min: 1, max: 6 }), inline).map(([d, t]) => `${'#'.repeat(d)} ${t}`);
const setext = fc.tuple(inline, fc.constantFrom('===', '---')).map(([t, u]) => `${t}\n${u}`);
const hr = fc.constantFrom('---', '***', '___', '- - -');

const item = fc.tuple(inline, fc.constantFrom('', '', '[ ] ', '[x] '), fc.option(fc.array(inline, { minLength: 1, maxLength: 3 }), { nil: undefined }));
const list: fc.Arbitrary<string> = fc.tuple(fc.constantFrom('-', '*', '+', '1.', '3)'), fc.array(item, { minLength: 1, maxLength: 5 }), fc.boolean()).map(([marker, items, loose]) =>
  items
    .map(([text, box, sub], i) => {
      const m = /\d/.test(marker) ? `${Number.parseInt(marker, 10) + i}${marker.at(-1)}` : marker;
      const pad = ' '.repeat(m.length + 1);
      const nested = sub ? `\n${sub.map((s, k) => `${pad}${k % 2 ? '1.' : '-'} ${s}`).join('\n')}` : '';
      return `${m} ${box}${text}${nested}`;
    })
    .join(loose ? '\n\n' : '\n'),
);
const quote = fc
  .tuple(fc.array(inline, { minLength: 1, maxLength: 3 }), fc.constantFrom('> ', '> > ', '>'), fc.option(list, { nil: undefined }))
  .map(([lines, mark, l]) => [...lines.map((s) => `${mark}${s}`), ...(l ? ['>', ...l.split('\n').map((s) => `> ${s}`)] : [])].join('\n'));

const CODE_LINES = ['const x = 1;', '  return f(a, "b") // why', 'def f(x):', '\tindented\twith tabs', '', '会话 = "压缩"  # 🚀', '/* open comment', 'close */', 'SELECT * FROM t;', 'x'.repeat(130), '```not a fence', '    '];
const code = fc
  .tuple(fc.constantFrom('```', '~~~', '````'), fc.constantFrom('ts', 'python', 'bash', 'json', 'sql', 'unknownlang', '', 'TypeScript extra words'), fc.array(fc.constantFrom(...CODE_LINES), { minLength: 0, maxLength: 30 }))
  .map(([f, lang, lines]) => `${f}${lang}\n${lines.join('\n')}${lines.length ? '\n' : ''}${f}`);
const indentedCode = fc.array(fc.constantFrom('let y = 2;', 'if (a) {', '  b();', '}', 'ファイル'), { minLength: 1, maxLength: 5 }).map((ls) => ls.map((l) => `    ${l}`).join('\n'));

const cell = fc.oneof({ weight: 4, arbitrary: words(0, 3) }, { weight: 1, arbitrary: inlinePiece.map((s) => s.replace(/\|/g, '')) });
const table = fc
  .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 4 }))
  .chain(([cols, rows]) =>
    fc.tuple(
      fc.array(cell, { minLength: cols, maxLength: cols }),
      fc.array(fc.constantFrom('---', ':--', '--:', ':-:'), { minLength: cols, maxLength: cols }),
      fc.array(fc.array(cell, { minLength: cols, maxLength: cols }), { minLength: rows, maxLength: rows }),
    ),
  )
  .map(([head, align, rows]) => [head, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n'));
const html = fc.constantFrom('<div>\nraw <b>html</b>\n</div>', '<!-- a comment -->', '<details>\n<summary>more</summary>\n\ntext\n</details>', '<pre>\nkept\n\nas is\n</pre>');

/** One block of ordinary Markdown. */
export const block: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: paragraph },
  { weight: 2, arbitrary: heading },
  { weight: 1, arbitrary: setext },
  { weight: 1, arbitrary: hr },
  { weight: 3, arbitrary: list },
  { weight: 2, arbitrary: quote },
  { weight: 3, arbitrary: code },
  { weight: 1, arbitrary: indentedCode },
  { weight: 2, arbitrary: table },
  { weight: 1, arbitrary: html },
);

/**
 * Lists of every shape a stream lexes item by item or whole: nested, numbered past 9, tasks,
 * indented, lazy lines, `<a>` tags (closed in their line: one left open across blocks is an
 * exception, tested on its own), rules.
 */
const listLine = fc.oneof(
  { weight: 6, arbitrary: inline.map((t) => `- ${t}`) },
  { weight: 2, arbitrary: inline.map((t) => `  - ${t}`) },
  { weight: 1, arbitrary: inline.map((t) => `   1. ${t}`) },
  { weight: 1, arbitrary: inline.map((t) => `    ${t}`) },
  { weight: 1, arbitrary: inline.map((t) => ` - ${t}`) },
  { weight: 1, arbitrary: inline.map((t) => `* ${t}`) },
  { weight: 1, arbitrary: inline.map((t) => t) },
  { weight: 1, arbitrary: fc.constantFrom('- [ ] todo', '- [x] done', '- <a href="x">a link</a> https://x.y/z', '- - -', '-', '- ', '  ', '', '- ```', '  ```', '- > quoted') },
);
const numbered = fc.tuple(fc.integer({ min: 1, max: 12 }), fc.array(inline, { minLength: 1, maxLength: 12 }), fc.constantFrom('.', ')')).map(([start, items, d]) => items.map((t, i) => `${start + i}${d} ${t}`).join('\n'));
const listLike = fc.oneof(
  fc.array(listLine, { minLength: 1, maxLength: 10 }).map((ls) => ls.join('\n')),
  numbered,
  list,
);

/** Documents of lists (and a few other blocks), to stress how a stream lexes lists. */
export const listDocument: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: listLike }, { weight: 1, arbitrary: paragraph }, { weight: 1, arbitrary: heading }), fc.constantFrom('\n', '\n\n')), { minLength: 1, maxLength: 5 })
  .map((blocks) => blocks.map(([b, sep], i) => (i ? sep : '') + b).join('') + '\n');

/**
 * Lines whose meaning hangs on the line under them (marked reads "3) x" as a list when a setext
 * underline may follow, "a | b" as a table's head when a delimiter row does), among paragraph
 * and list lines: streamed a character at a time, the line still arriving is every prefix of them.
 */
export const underlineDocument: fc.Arbitrary<string> = fc
  .array(fc.constantFrom('para line', 'more text', '3) item', '1. first', '- bullet', 'a | b', '| a | b |', '---', '   -', '===', '|--|--|', ':-:|---', '- - -', '', '  x', '> q'), { minLength: 2, maxLength: 9 })
  .map((lines) => `${lines.join('\n')}\n`);

/** A document: blocks separated by blank lines (sometimes one newline, sometimes several), perhaps without a final newline. */
export const document: fc.Arbitrary<string> = fc
  .tuple(fc.array(fc.tuple(block, fc.constantFrom('\n\n', '\n\n', '\n\n', '\n', '\n\n\n')), { minLength: 1, maxLength: 8 }), fc.constantFrom('', '\n', '\n\n'))
  .map(([blocks, end]) => blocks.map(([b, sep], i) => (i ? sep : '') + b).join('') + end);

/** `text` cut at the given (sorted, deduplicated) places. */
export function cutAt(text: string, cuts: number[]): string[] {
  const at = [0, ...[...new Set(cuts.map((c) => Math.min(text.length, Math.max(0, c))))].sort((a, b) => a - b), text.length];
  return at
    .slice(1)
    .map((end, i) => text.slice(at[i], end))
    .filter((d) => d !== '');
}

/** A text and the deltas it is streamed in (random cuts, sometimes one character at a time). */
export function streamed(text: fc.Arbitrary<string>): fc.Arbitrary<{ text: string; deltas: string[] }> {
  return text.chain((t) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.array(fc.nat({ max: t.length }), { maxLength: Math.min(60, t.length) }).map((cuts) => ({ text: t, deltas: cutAt(t, cuts) })) },
      { weight: t.length <= 300 ? 1 : 0, arbitrary: fc.constant({ text: t, deltas: Array.from(t) }) },
    ),
  );
}

/** Escape sequences and control characters a model's text or a tool's output may carry. */
export const HOSTILE = [
  '\x1b[31m',
  '\x1b[0m',
  '\x1b[2J',
  '\x1b[H',
  '\x1b[?1049h',
  '\x1b[1;31;4m',
  '\x1b[38;5;196m',
  '\x1b]52;c;aGVsbG8gd29ybGQ+Lz0=\x07',
  '\x1b]52;c;SGk=\x1b\\',
  '\x1b]8;;https://evil.example/?a=b c\x1b\\link\x1b]8;;\x1b\\',
  '\x1b]0;new title\x07',
  '\x1bP+q544e\x1b\\',
  '\x1b_apc\x1b\\',
  '\x1b^pm\x1b\\',
  '\x1bc',
  '\x1b7',
  '\x1b(0',
  '\x07',
  '\b',
  '\r',
  '\x00',
  '\x0e',
  '\x7f',
  '\x9b31m',
  '\x9b',
  '\x9d0;title\x9c',
  '\x90dcs\x9c',
  '\x85',
  '\x1b',
  '\x1b[',
  '\x1b]8;;',
];

/** Ordinary Markdown with escape sequences and controls inserted at random places. */
export const hostileDocument: fc.Arbitrary<string> = fc.tuple(document, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...HOSTILE)), { minLength: 1, maxLength: 12 })).map(([doc, inserts]) => {
  let out = doc;
  for (const [at, s] of inserts) {
    const i = at % (out.length + 1);
    out = out.slice(0, i) + s + out.slice(i);
  }
  return out;
});
