// edit_file through the public ToolRegistry: exact and unique matches, replaceAll, several edits
// applied together or not at all, line endings and byte order marks kept, every byte outside the
// edited spans kept (property tests compare whole files), the diff (applied back to the old file
// by a property), tolerant matches that change only the matched span, the hints of a failed match,
// edits as a JSON string, the shared per-path queue, file modes, the workspace boundary, refusals.
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textOf, type ToolCall } from '../src/core/types.js';
import { createEditFileTool } from '../src/tools/edit-file.js';
import { PathQueue } from '../src/tools/file-io.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { ToolResult } from '../src/tools/tool.js';
import { createWriteFileTool } from '../src/tools/write-file.js';
import { tempDir } from './support/helpers.js';

let ids = 0;
function call(name: string, args: Record<string, unknown>): ToolCall {
  return { type: 'toolCall', id: `e${++ids}`, name, arguments: args };
}

function registry(opts: Parameters<typeof createEditFileTool>[0] = {}): ToolRegistry {
  return new ToolRegistry([createEditFileTool(opts)]);
}

function edit(cwd: string, args: Record<string, unknown>, reg = registry(), signal = new AbortController().signal): Promise<ToolResult> {
  return reg.execute(call('edit_file', args), { cwd, signal });
}

/** A workspace holding one file `name` with `content`; returns the workspace and the file's path. */
function workspaceWith(content: string | Buffer, name = 'f.txt'): { ws: string; file: string } {
  const ws = tempDir();
  const file = join(ws, name);
  writeFileSync(file, content);
  return { ws, file };
}

const text = (res: ToolResult) => textOf(res.content);

/** The rows of the diff in a result: [mark, number, text]. */
function diffRows(res: ToolResult): [string, number, string][] {
  return text(res)
    .split('\n')
    .filter((l) => /^[ +-]\s*\d+│/.test(l))
    .map((l) => [l[0], Number(l.slice(1, l.indexOf('│'))), l.slice(l.indexOf('│') + 1)]);
}

/**
 * Applies a result's diff to the old file's lines, checking every context and removed line and
 * every line number on the way; returns the new file's lines.
 */
function applyDiff(oldLines: string[], res: ToolResult): string[] {
  const out: string[] = [];
  let at = 0;
  for (const line of text(res).split('\n')) {
    const hunk = /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@$/.exec(line);
    if (hunk) {
      const start = Number(hunk[2]) === 0 ? Number(hunk[1]) : Number(hunk[1]) - 1;
      expect(start).toBeGreaterThanOrEqual(at);
      out.push(...oldLines.slice(at, start));
      at = start;
      expect(Number(hunk[4]) === 0 ? Number(hunk[3]) : Number(hunk[3]) - 1).toBe(out.length);
      continue;
    }
    const m = /^([ +-])\s*(\d+)│(.*)$/s.exec(line);
    if (!m) continue;
    const [mark, n, body] = [m[1], Number(m[2]), m[3]];
    if (mark === '+') {
      out.push(body);
      expect(n).toBe(out.length);
      continue;
    }
    expect(oldLines[at]).toBe(body);
    if (mark === '-') expect(n).toBe(at + 1);
    else {
      out.push(body);
      expect(n).toBe(out.length);
    }
    at++;
  }
  return [...out, ...oldLines.slice(at)];
}

/** A file's lines as the diff shows them: split on \n, one trailing \r dropped, no empty line after a final \n. */
function linesOf(content: string): string[] {
  if (content === '') return [];
  return content
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''));
}

const tmpLeftovers = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.tmp'));

describe('edit_file: exact matches', () => {
  it('replaces a unique oldText, shows a numbered diff with context, and reports the details', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `row ${i + 1}`);
    const { ws, file } = workspaceWith(lines.join('\n') + '\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'row 10\n', newText: 'row ten\nrow ten and a half\n' }] });
    expect(res.isError).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe([...lines.slice(0, 9), 'row ten', 'row ten and a half', ...lines.slice(10)].join('\n') + '\n');
    expect(text(res)).toContain('Edited f.txt: 1 replacement, +2 -1 lines, first change at line 10.');
    expect(text(res)).toContain('@@ -7,7 +7,8 @@');
    expect(diffRows(res)).toEqual([
      [' ', 7, 'row 7'],
      [' ', 8, 'row 8'],
      [' ', 9, 'row 9'],
      ['-', 10, 'row 10'],
      ['+', 10, 'row ten'],
      ['+', 11, 'row ten and a half'],
      [' ', 12, 'row 11'],
      [' ', 13, 'row 12'],
      [' ', 14, 'row 13'],
    ]);
    expect(res.details).toEqual({ path: 'f.txt', edits: 1, replacements: 1, tolerant: null, firstChangedLine: 10, linesAdded: 2, linesRemoved: 1 });
  });

  it('within an edited block, only the lines that changed are removed and added: the lines between stay context', async () => {
    const { ws, file } = workspaceWith('one\ntwo\nthree\nfour\nfive\nsix\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'two\nthree\nfour\nfive', newText: 'TWO\nthree\nfour\nFIVE' }] });
    expect(readFileSync(file, 'utf8')).toBe('one\nTWO\nthree\nfour\nFIVE\nsix\n');
    expect(text(res)).toContain('Edited f.txt: 1 replacement, +2 -2 lines, first change at line 2.');
    expect(text(res)).toContain('@@ -1,6 +1,6 @@');
    expect(diffRows(res)).toEqual([
      [' ', 1, 'one'],
      ['-', 2, 'two'],
      ['+', 2, 'TWO'],
      [' ', 3, 'three'],
      [' ', 4, 'four'],
      ['-', 5, 'five'],
      ['+', 5, 'FIVE'],
      [' ', 6, 'six'],
    ]);
    expect(res.details).toMatchObject({ firstChangedLine: 2, linesAdded: 2, linesRemoved: 2 });
  });

  it('refuses an oldText that occurs more than once, saying how often and where, and changes nothing', async () => {
    const content = 'let a = 1;\nlet b = 2;\nlet a = 1;\nlet a = 1;\n';
    const { ws, file } = workspaceWith(content);
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'let a = 1;', newText: 'let a = 3;' }] });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('occurs 3 times in f.txt, at lines 1, 3, 4; it must occur exactly once');
    expect(text(res)).toMatch(/more of the surrounding lines.*replaceAll: true/);
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('counts overlapping occurrences as ambiguous too', async () => {
    const { ws } = workspaceWith('aaa\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'aa', newText: 'b' }] });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('occurs 2 times');
  });

  it('replaces every occurrence with replaceAll', async () => {
    const { ws, file } = workspaceWith('foo(1);\nbar(foo);\nfoo foo\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'foo', newText: 'baz' }], replaceAll: true });
    expect(res.isError).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('baz(1);\nbar(baz);\nbaz baz\n');
    expect(res.details).toMatchObject({ replacements: 4, linesAdded: 3, linesRemoved: 3, firstChangedLine: 1 });
  });

  it('locates several edits in the original content and applies them together', async () => {
    const { ws, file } = workspaceWith('one\ntwo\nthree\nfour\n');
    // Edit 1 introduces "four" text; edit 2 must still mean the original "four" line only.
    const res = await edit(ws, {
      path: 'f.txt',
      edits: [
        { oldText: 'four', newText: 'FOUR' },
        { oldText: 'one', newText: 'one and four' },
      ],
    });
    expect(res.isError).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('one and four\ntwo\nthree\nFOUR\n');
    expect(res.details).toMatchObject({ edits: 2, replacements: 2, firstChangedLine: 1 });
    expect(text(res)).toContain('2 replacements from 2 edits');
  });

  it('applies none of the edits when one fails, leaving the file byte for byte as it was', async () => {
    const content = Buffer.from('\uFEFFalpha\r\nbeta\r\ngamma\r\n', 'utf8');
    const { ws, file } = workspaceWith(content);
    const res = await edit(ws, {
      path: 'f.txt',
      edits: [
        { oldText: 'alpha', newText: 'ALPHA' },
        { oldText: 'delta', newText: 'DELTA' },
        { oldText: 'gamma', newText: 'GAMMA' },
      ],
    });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('1 of 3 edits failed; none was applied, and f.txt was not changed.');
    expect(text(res)).toContain('Edit 2: oldText was not found');
    expect(readFileSync(file).equals(content)).toBe(true);
    expect(readdirSync(ws)).toEqual(['f.txt']);
  });

  it('refuses overlapping edits', async () => {
    const content = 'first line\nsecond line\n';
    const { ws, file } = workspaceWith(content);
    const res = await edit(ws, {
      path: 'f.txt',
      edits: [
        { oldText: 'first line\nsecond', newText: 'x' },
        { oldText: 'second line', newText: 'y' },
      ],
    });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('Edits 1 and 2 overlap (at line 2)');
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('shows the lines that join when newText does not end a line it replaced the end of', async () => {
    const { ws, file } = workspaceWith('a\nb\nc\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'b\n', newText: 'x' }] });
    expect(readFileSync(file, 'utf8')).toBe('a\nxc\n');
    expect(diffRows(res)).toEqual([
      [' ', 1, 'a'],
      ['-', 2, 'b'],
      ['-', 3, 'c'],
      ['+', 2, 'xc'],
    ]);
    const del = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'xc\n', newText: '' }] });
    expect(readFileSync(file, 'utf8')).toBe('a\n');
    expect(diffRows(del)).toEqual([
      [' ', 1, 'a'],
      ['-', 2, 'xc'],
    ]);
    expect(del.details).toMatchObject({ linesAdded: 0, linesRemoved: 1 });
  });

  it('caps a long diff with a notice', async () => {
    const { ws, file } = workspaceWith('x\n'.repeat(1000));
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'x', newText: 'y' }], replaceAll: true });
    expect(res.isError).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('y\n'.repeat(1000));
    expect(text(res)).toMatch(/\[Diff cut: showing \d+ of 2001 lines; read_file shows the rest of the result\.\]$/);
    expect(diffRows(res).length).toBeLessThanOrEqual(150);
    expect(res.details).toMatchObject({ replacements: 1000, linesAdded: 1000, linesRemoved: 1000 });
  });
});

describe('edit_file: encodings and line endings', () => {
  it('matches and inserts with CRLF when the file uses CRLF and the model sends LF', async () => {
    const { ws, file } = workspaceWith('function f() {\r\n  return 1;\r\n}\r\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: '{\n  return 1;\n}', newText: '{\n  const x = 1;\n  return x;\n}' }] });
    expect(res.isError).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('function f() {\r\n  const x = 1;\r\n  return x;\r\n}\r\n');
    expect(diffRows(res).map((r) => r[2])).not.toContain(expect.stringContaining('\r'));
  });

  it('keeps LF when the model sends CRLF to an LF file', async () => {
    const { ws, file } = workspaceWith('a\nb\nc\n');
    await edit(ws, { path: 'f.txt', edits: [{ oldText: 'a\r\nb', newText: 'A\r\nB' }] });
    expect(readFileSync(file, 'utf8')).toBe('A\nB\nc\n');
  });

  it('keeps a UTF-8 byte order mark, also when the edit is at the very start', async () => {
    const { ws, file } = workspaceWith(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('start here\nnaïve 😀\n')]));
    const res = await edit(ws, {
      path: 'f.txt',
      edits: [
        { oldText: 'start', newText: 'begin' },
        { oldText: 'naïve 😀', newText: 'naïf ☃' },
      ],
    });
    expect(res.isError).toBe(false);
    expect(readFileSync(file).equals(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('begin here\nnaïf ☃\n')]))).toBe(true);
  });

  it('edits UTF-16 files (with their byte order mark) in their encoding', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\r\nwörld\r\n', 'utf16le')]);
    const { ws, file } = workspaceWith(le);
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'wörld\n', newText: 'world\nagain\n' }] });
    expect(res.isError).toBe(false);
    expect(readFileSync(file).equals(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\r\nworld\r\nagain\r\n', 'utf16le')]))).toBe(true);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('abc', 'utf16le').swap16()]);
    writeFileSync(file, be);
    expect((await edit(ws, { path: 'f.txt', edits: [{ oldText: 'b', newText: 'B' }] })).isError).toBe(false);
    expect(readFileSync(file).equals(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('aBc', 'utf16le').swap16()]))).toBe(true);
  });
});

// Random content for the property tests: ASCII, whitespace, both line endings, multi-byte and
// astral characters, look-alike quotes and dashes. Never the sentinels ⟦ ⟧.
const piece = fc.constantFrom('a', 'b', 'z', ' ', '  ', '\t', '\n', '\r\n', '\r', 'é', '😀', '“', '’', '—', '\u00a0', '{', '}', ';', 'x = 1');
const chunk = (max: number) => fc.array(piece, { maxLength: max }).map((a) => a.join(''));
const oneLine = (max: number) =>
  fc
    .array(
      piece.filter((p) => !/[\r\n]/.test(p)),
      { maxLength: max },
    )
    .map((a) => a.join(''));

describe('edit_file: every byte outside the edited spans is kept (properties)', () => {
  it('several unique edits, in any order, on random content: the whole file is exactly the expected bytes, and the diff applies', async () => {
    const ws = tempDir();
    const file = join(ws, 'p.txt');
    const reg = registry();
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(chunk(12), { minLength: 2, maxLength: 5 }),
        fc.array(fc.tuple(chunk(6), oneLine(6)), { minLength: 4, maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
        async (bom, gaps, bodies, order) => {
          const n = gaps.length - 1;
          const olds = bodies.slice(0, n).map(([body], i) => `⟦${i}${body}⟧`);
          const news = bodies.slice(0, n).map(([, body], i) => `<${i}${body}>`); // no line breaks: kept as sent
          const before = gaps.map((g, i) => g + (i < n ? olds[i] : '')).join('');
          const after = gaps.map((g, i) => g + (i < n ? news[i] : '')).join('');
          const mark = bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0);
          writeFileSync(file, Buffer.concat([mark, Buffer.from(before)]));
          const edits = olds.map((oldText, i) => ({ oldText, newText: news[i], key: order[i] })).sort((a, b) => a.key - b.key);
          const res = await edit(ws, { path: 'p.txt', edits: edits.map(({ oldText, newText }) => ({ oldText, newText })) }, reg);
          expect(res.isError, text(res)).toBe(false);
          expect(readFileSync(file).equals(Buffer.concat([mark, Buffer.from(after)]))).toBe(true);
          expect(res.details).toMatchObject({ edits: n, replacements: n, tolerant: null });
          expect(applyDiff(linesOf(before), res)).toEqual(linesOf(after));
        },
      ),
      { numRuns: 150 },
    );
    expect(tmpLeftovers(ws)).toEqual([]);
  });

  it('replaceAll on random content equals splitting and joining, byte for byte', async () => {
    const ws = tempDir();
    const file = join(ws, 'p.txt');
    const reg = registry();
    await fc.assert(
      fc.asyncProperty(chunk(30), fc.constantFrom('a', 'b a', 'é', '😀', '{', ' '), oneLine(3), async (content, oldText, newText) => {
        fc.pre(content.includes(oldText) && oldText !== newText);
        writeFileSync(file, content);
        const res = await edit(ws, { path: 'p.txt', edits: [{ oldText, newText }], replaceAll: true }, reg);
        const expected = content.split(oldText).join(newText);
        if (expected === content) return expect(res.isError).toBe(true); // changes nothing: refused
        expect(res.isError, text(res)).toBe(false);
        expect(readFileSync(file).equals(Buffer.from(expected))).toBe(true);
        expect(applyDiff(linesOf(content), res)).toEqual(linesOf(expected));
      }),
      { numRuns: 150 },
    );
  });

  it('a whitespace-tolerant match replaces only the matched span, keeping the indentation and trailing spaces around it', async () => {
    const ws = tempDir();
    const file = join(ws, 'p.txt');
    const reg = registry();
    const spaces = (min: number, max: number) => fc.array(fc.constantFrom(' ', '\t'), { minLength: min, maxLength: max }).map((a) => a.join(''));
    await fc.assert(
      fc.asyncProperty(chunk(15), chunk(15), spaces(0, 6), spaces(1, 3), spaces(0, 3), spaces(0, 4), fc.constantFrom('\n', '\r\n'), async (head, tail, indent, inner, trailing, modelIndent, eol) => {
        const prefix = head === '' ? '' : `${head}\n`;
        const before = `${prefix}${indent}call(⟦k⟧,${inner}arg)${trailing}${eol}${tail}`;
        writeFileSync(file, before);
        const oldText = `${modelIndent}call(⟦k⟧, arg)`;
        const res = await edit(ws, { path: 'p.txt', edits: [{ oldText, newText: `${modelIndent}done(⟦k⟧)` }] }, reg);
        expect(res.isError, text(res)).toBe(false);
        expect(res.details?.tolerant).toEqual(before.includes(oldText) ? null : [{ edit: 1, kind: 'whitespace' }]);
        expect(readFileSync(file, 'utf8')).toBe(`${prefix}${indent}done(⟦k⟧)${trailing}${eol}${tail}`);
      }),
      { numRuns: 150 },
    );
  });
});

describe('edit_file: tolerant matches', () => {
  it('matches across indentation and spacing differences, translating newText to the file indentation', async () => {
    const before = 'class A {\n\tmethod() {\n\t\tif (x)  {\n\t\t\treturn 1;   \n\t\t}\n\t}\n}\n';
    const { ws, file } = workspaceWith(before);
    const res = await edit(ws, {
      path: 'f.txt',
      edits: [{ oldText: '    if (x) {\n        return 1;\n    }', newText: '    if (x) {\n        log(x);\n        return 2;\n    }' }],
    });
    expect(res.isError, text(res)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('class A {\n\tmethod() {\n\t\tif (x) {\n\t\t\tlog(x);\n\t\t\treturn 2;\n\t\t}\n\t}\n}\n');
    expect(text(res)).toContain('it matched only when ignoring whitespace differences');
    expect(res.details).toMatchObject({ tolerant: [{ edit: 1, kind: 'whitespace' }] });
  });

  it('matches straight quotes and hyphens against curly quotes, dashes and non-breaking spaces, changing only that span', async () => {
    const head = 'intro “quoted” line\n';
    const tail = '\nsame ‘style’ after — untouched\n';
    const { ws, file } = workspaceWith(`${head}say(“it’s fine” – ok\u00a0now)${tail}`);
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: `say("it's fine" - ok now)`, newText: `say("changed")` }] });
    expect(res.isError, text(res)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(`${head}say("changed")${tail}`);
    expect(res.details).toMatchObject({ tolerant: [{ edit: 1, kind: 'unicode' }] });
    expect(text(res)).toContain('quote, dash and space styles');
  });

  it('combines both tolerances, and still requires the match to be unique', async () => {
    const { ws, file } = workspaceWith('  x  = “a”;\n  y = 1;\n    x =  “a”;\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'x = "a";', newText: 'x = "b";' }] });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('occurs 2 times in f.txt when ignoring whitespace differences and quote, dash and space styles (it has no exact match), at lines 1, 3');
    const one = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'x = "a";\ny = 1;', newText: 'x = "b";\ny = 2;' }] });
    expect(one.isError, text(one)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('  x = "b";\n  y = 2;\n    x =  “a”;\n');
    expect(one.details).toMatchObject({ tolerant: [{ edit: 1, kind: 'whitespace+unicode' }] });
  });
});

describe('edit_file: tolerant matches, more', () => {
  it('matches a whole-line block in a CRLF file, keeping CRLF and the file indentation', async () => {
    const { ws, file } = workspaceWith('\tif (a) {\r\n\t\tb();  \r\n\t}\r\nrest\r\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: '  if (a) {\n    b();\n  }\n', newText: '  if (a) {\n    c();\n  }\n' }] });
    expect(res.isError, text(res)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('\tif (a) {\r\n\t\tc();\r\n\t}\r\nrest\r\n');
    expect(diffRows(res)).toEqual([
      [' ', 1, '\tif (a) {'],
      ['-', 2, '\t\tb();  '],
      ['+', 2, '\t\tc();'],
      [' ', 3, '\t}'],
      [' ', 4, 'rest'],
    ]);
  });

  it('replaces every tolerant match with replaceAll, and nothing else', async () => {
    const { ws, file } = workspaceWith('call(a,  b);\nkeep(a, b);\n  call(a,\tb);\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'call(a, b);', newText: 'call(b, a);' }], replaceAll: true });
    expect(res.isError, text(res)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('call(b, a);\nkeep(a, b);\n  call(b, a);\n');
    expect(res.details).toMatchObject({ replacements: 2, tolerant: [{ edit: 1, kind: 'whitespace' }] });
  });
});

describe('edit_file: a failed match explains itself', () => {
  const source = ['import x from "y";', '', 'function total(items) {', '  let sum = 0;', '  for (const i of items) sum += i.price;', '  return sum;', '}', ''].join('\n');

  it('shows the closest region with its line numbers and the first differing line', async () => {
    const { ws, file } = workspaceWith(source);
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: '  let sum = 0;\n  for (const i of items) sum += i.cost;\n  return sum;', newText: '' }] });
    expect(res.isError).toBe(true);
    const t = text(res);
    expect(t).toContain('The edit: oldText was not found in f.txt');
    expect(t).toContain('The closest text in the file is at lines 4-6:\n```\n  let sum = 0;\n  for (const i of items) sum += i.price;\n  return sum;\n```');
    expect(t).toContain('First difference, at line 5: the file has "  for (const i of items) sum += i.price;" where oldText has "  for (const i of items) sum += i.cost;".');
    expect(readFileSync(file, 'utf8')).toBe(source);
  });

  it('says so when nothing in the file resembles oldText', async () => {
    const { ws } = workspaceWith(source);
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'zzzz qqqq', newText: 'w' }] });
    expect(text(res)).toContain('No line of the file resembles it.');
  });

  it.each([
    ['tab', '   4\t  let sum = 0;\n   5\t  for (const i of items) sum += i.price;'],
    ['colon', '4:   let sum = 0;\n5:   for (const i of items) sum += i.price;'],
    ['arrow', '     4→  let sum = 0;\n     5→  for (const i of items) sum += i.price;'],
    ['bar', '4 |   let sum = 0;\n5 |   for (const i of items) sum += i.price;'],
  ])('rejects oldText lines carrying line-number prefixes (%s), with a hint to remove them', async (_kind, oldText) => {
    const { ws, file } = workspaceWith(source);
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText, newText: 'x' }] });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('look like line numbers');
    expect(text(res)).toContain('read_file shows no line numbers');
    expect(text(res)).toContain('Without them, oldText matches at line 4.');
    expect(readFileSync(file, 'utf8')).toBe(source);
  });

  it('matches lines that really start with numbers in the file, without a line-number hint', async () => {
    const { ws, file } = workspaceWith('1: first\n2: second\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: '2: second', newText: '2: SECOND' }] });
    expect(res.isError).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('1: first\n2: SECOND\n');
  });
});

describe('edit_file: arguments', () => {
  it('accepts edits as a JSON-encoded string of the array', async () => {
    const { ws, file } = workspaceWith('alpha beta\n');
    const res = await edit(ws, { path: 'f.txt', edits: JSON.stringify([{ oldText: 'beta', newText: 'gamma' }]) });
    expect(res.isError).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('alpha gamma\n');
  });

  it.each([
    ['not JSON', '[{oldText: "beta"}', 'it is not valid JSON'],
    ['an object, not an array', JSON.stringify({ oldText: 'beta', newText: 'gamma' }), 'not the array of {oldText, newText} objects it must encode (must be array)'],
    ['an edit without newText', JSON.stringify([{ oldText: 'beta' }]), 'not the array of {oldText, newText} objects it must encode'],
  ])('refuses a string that is %s, clearly', async (_what, edits, message) => {
    const { ws, file } = workspaceWith('alpha beta\n');
    const res = await edit(ws, { path: 'f.txt', edits });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain(message);
    expect(text(res)).toContain('Pass the array itself: "edits": [{"oldText": "…", "newText": "…"}]');
    expect(readFileSync(file, 'utf8')).toBe('alpha beta\n');
  });

  it('rejects oldText/newText given at the top level instead of in edits, naming both problems', async () => {
    const { ws, file } = workspaceWith('alpha beta\n');
    const res = await edit(ws, { path: 'f.txt', oldText: 'beta', newText: 'gamma' });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('must have required properties edits');
    expect(text(res)).toContain('must not have additional properties (oldText, newText)');
    expect(readFileSync(file, 'utf8')).toBe('alpha beta\n');
  });

  it('refuses an empty oldText and an edit that changes nothing', async () => {
    const { ws, file } = workspaceWith('alpha beta\n');
    const empty = await edit(ws, { path: 'f.txt', edits: [{ oldText: '', newText: 'x' }] });
    expect(text(empty)).toContain('oldText is empty');
    expect(text(empty)).toContain('use write_file');
    const same = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'beta', newText: 'beta' }] });
    expect(text(same)).toContain('oldText and newText are the same');
    expect(readFileSync(file, 'utf8')).toBe('alpha beta\n');
  });

  it('refuses text holding an unpaired surrogate', async () => {
    const { ws } = workspaceWith('alpha\n');
    const res = await edit(ws, { path: 'f.txt', edits: [{ oldText: 'alpha', newText: 'x\ud800' }] });
    expect(text(res)).toContain('unpaired UTF-16 surrogate');
  });
});

describe('edit_file: files', () => {
  it('refuses a missing file, pointing to write_file', async () => {
    const ws = tempDir();
    const res = await edit(ws, { path: 'nope.txt', edits: [{ oldText: 'a', newText: 'b' }] });
    expect(text(res)).toContain('nope.txt does not exist; edit_file only changes existing files. To create it, use write_file');
  });

  it('refuses binary, non-UTF-8 and too large files, a folder, and leaves them alone', async () => {
    const ws = tempDir();
    const binary = Buffer.from([0x61, 0x00, 0x62, 0x0a]);
    writeFileSync(join(ws, 'bin'), binary);
    expect(text(await edit(ws, { path: 'bin', edits: [{ oldText: 'a', newText: 'c' }] }))).toContain('looks like a binary file');
    expect(readFileSync(join(ws, 'bin')).equals(binary)).toBe(true);
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
    writeFileSync(join(ws, 'latin1'), latin1);
    expect(text(await edit(ws, { path: 'latin1', edits: [{ oldText: 'caf', newText: 'x' }] }))).toContain('is not valid UTF-8 text');
    expect(readFileSync(join(ws, 'latin1')).equals(latin1)).toBe(true);
    writeFileSync(join(ws, 'big'), 'x'.repeat(200));
    const big = await edit(ws, { path: 'big', edits: [{ oldText: 'x', newText: 'y' }], replaceAll: true }, registry({ maxBytes: 100 }));
    expect(text(big)).toContain("big is 200 B (200 bytes), over edit_file's limit of 100 B");
    expect(readFileSync(join(ws, 'big'), 'utf8')).toBe('x'.repeat(200));
    mkdirSync(join(ws, 'dir'));
    expect(text(await edit(ws, { path: 'dir', edits: [{ oldText: 'a', newText: 'b' }] }))).toContain('dir is a folder');
  });

  it('keeps the file mode', async () => {
    const { ws, file } = workspaceWith('#!/bin/sh\necho old\n', 'run.sh');
    chmodSync(file, 0o750);
    const res = await edit(ws, { path: 'run.sh', edits: [{ oldText: 'old', newText: 'new' }] });
    expect(res.isError).toBe(false);
    expect(statSync(file).mode & 0o7777).toBe(0o750);
    expect(readFileSync(file, 'utf8')).toBe('#!/bin/sh\necho new\n');
  });

  it('refuses a symbolic link leading out of the workspace, and edits through one that stays inside', async () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.txt'), 'secret\n');
    const { ws, file } = workspaceWith('inside\n', 'real.txt');
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'out.txt'));
    symlinkSync('real.txt', join(ws, 'link.txt'));
    const out = await edit(ws, { path: 'out.txt', edits: [{ oldText: 'secret', newText: 'leaked' }] });
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('outside the workspace');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n');
    const through = await edit(ws, { path: 'link.txt', edits: [{ oldText: 'inside', newText: 'changed' }] });
    expect(through.isError).toBe(false);
    expect(through.details).toMatchObject({ path: 'real.txt' });
    expect(readFileSync(file, 'utf8')).toBe('changed\n');
    expect(readdirSync(ws).sort()).toEqual(['link.txt', 'out.txt', 'real.txt']);
  });

  it('leaves no temp files behind, after successes and failures', async () => {
    const { ws } = workspaceWith('a b c\n');
    await edit(ws, { path: 'f.txt', edits: [{ oldText: 'a', newText: 'x' }] });
    await edit(ws, { path: 'f.txt', edits: [{ oldText: 'zzz', newText: 'y' }] });
    await edit(ws, {
      path: 'f.txt',
      edits: [
        { oldText: 'b', newText: 'y' },
        { oldText: 'b c', newText: 'q' },
      ],
    });
    expect(readdirSync(ws)).toEqual(['f.txt']);
    expect(readFileSync(join(ws, 'f.txt'), 'utf8')).toBe('x b c\n');
  });
});

describe('edit_file: the per-path queue', () => {
  it('two edits of one file started at the same time both land', async () => {
    const { ws, file } = workspaceWith('one\ntwo\nthree\n');
    const reg = registry();
    const [a, b] = await Promise.all([edit(ws, { path: 'f.txt', edits: [{ oldText: 'one', newText: 'ONE' }] }, reg), edit(ws, { path: join(ws, 'f.txt'), edits: [{ oldText: 'three', newText: 'THREE' }] }, reg)]);
    expect([a.isError, b.isError]).toEqual([false, false]);
    expect(readFileSync(file, 'utf8')).toBe('ONE\ntwo\nTHREE\n');
  });

  it('an edit queued behind a write_file of the same path applies to the written content', async () => {
    const { ws, file } = workspaceWith('old content\n');
    const queue = new PathQueue();
    const reg = new ToolRegistry([createEditFileTool({ queue }), createWriteFileTool({ queue })]);
    const ctx = { cwd: ws, signal: new AbortController().signal };
    const [w, e] = await Promise.all([reg.execute(call('write_file', { path: 'f.txt', content: 'fresh content\n' }), ctx), reg.execute(call('edit_file', { path: 'f.txt', edits: [{ oldText: 'fresh', newText: 'edited' }] }), ctx)]);
    expect([w.isError, e.isError]).toEqual([false, false]);
    expect(readFileSync(file, 'utf8')).toBe('edited content\n');
  });

  it('an edit whose run is aborted while it waits in the queue changes nothing', async () => {
    const { ws, file } = workspaceWith('keep\n');
    const queue = new PathQueue();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    void queue.run(file, () => gate);
    const abort = new AbortController();
    const pending = edit(ws, { path: 'f.txt', edits: [{ oldText: 'keep', newText: 'lost' }] }, registry({ queue }), abort.signal);
    abort.abort();
    release();
    const res = await pending;
    expect(res.isError).toBe(true);
    expect(res.details).toMatchObject({ reason: 'aborted' });
    expect(readFileSync(file, 'utf8')).toBe('keep\n');
  });

  it('declares the real path it changes, for the scheduler', () => {
    const { ws, file } = workspaceWith('x');
    expect(createEditFileTool().paths!({ path: 'f.txt', edits: [] }, { cwd: ws })).toEqual([file]);
  });
});
