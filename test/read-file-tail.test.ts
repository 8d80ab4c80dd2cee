// read_file from the end (negative offsets), through the public ToolRegistry: the lines shown and
// how they are numbered (absolute in a file small enough to count, counted from the end in a
// larger one), the notices followed as a model would, UTF-16, long lines near the end, offsets
// before the start and offset 0, the tool's `paths`, and, with node:fs's readSync observed, that
// neither a tail nor a byte range near the end of a 1 GiB file reads more than its neighbourhood.
import { closeSync, openSync, realpathSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { textOf, type ToolCall } from '../src/core/types.js';
import { createReadFileTool } from '../src/tools/read-file.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { ToolResult } from '../src/tools/tool.js';
import { cutToBytes, type TruncateLimits } from '../src/tools/truncate.js';
import { tempDir } from './support/helpers.js';

// Every byte read_file reads goes through readSync: counted here, the function itself unchanged.
const io = vi.hoisted(() => ({ bytesRead: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readSync = (fd: number, buffer: NodeJS.ArrayBufferView, offset: number, length: number, position: number | null) => {
    const n = fs.readSync(fd, buffer, offset, length, position);
    io.bytesRead += n;
    return n;
  };
  return { ...fs, readSync, default: { ...fs, readSync } };
});

const MB = 1024 * 1024;
let ids = 0;
async function read(cwd: string, args: Record<string, unknown>, limits?: TruncateLimits): Promise<ToolResult> {
  const reg = new ToolRegistry([createReadFileTool(limits)]);
  const call: ToolCall = { type: 'toolCall', id: `t${++ids}`, name: 'read_file', arguments: args };
  return reg.execute(call, { cwd, signal: new AbortController().signal });
}

/** Splits a result into its body and the notice read_file ends it with (undefined: none). */
function split(res: ToolResult): { body: string; notice?: string } {
  const text = textOf(res.content);
  const at = text.lastIndexOf('\n\n[');
  const notice = at >= 0 ? text.slice(at + 2) : '';
  if (!/^\[(Showing lines|Showing bytes|Line -?\d+|offset=-\d+ is before) .*\]$/s.test(notice)) return { body: text };
  return { body: text.slice(0, at), notice };
}

const CALL = /read_file\(path=("(?:[^"\\]|\\.)*"), (offset|byteOffset)=(-?\d+)(?:, (limit|byteLength)=(\d+))?\)/g;

/** The calls a notice offers, in order, as arguments. */
function offered(res: ToolResult): Record<string, unknown>[] {
  const { notice } = split(res);
  if (notice === undefined) return [];
  return [...notice.matchAll(CALL)].map((m) => ({ path: JSON.parse(m[1]) as string, [m[2]]: Number(m[3]), ...(m[4] ? { [m[4]]: Number(m[5]) } : {}) }));
}

type LineDetails = { startLine: number; endLine: number; startByte: number; endByte: number; totalLines?: number; countedFromEnd?: true; truncated: boolean };

/**
 * Reads from `first` on, making the line call each notice offers (past a long line: the offset
 * after it), until a result offers none; returns the lines seen (a long line: its shown start) and the results.
 */
async function followLines(cwd: string, first: Record<string, unknown>, limits?: TruncateLimits) {
  const lines: string[] = [];
  const results: ToolResult[] = [];
  let args: Record<string, unknown> | undefined = first;
  while (args) {
    if (results.length > 5000) throw new Error('did not finish');
    const res = await read(cwd, args, limits);
    if (res.isError) throw new Error(`read_file(${JSON.stringify(args)}) failed: ${textOf(res.content)}`);
    results.push(res);
    const { body, notice } = split(res);
    if (notice?.includes('is longer than')) lines.push(body);
    else lines.push(...body.split('\n'));
    args = offered(res).find((c) => c.offset !== undefined);
  }
  return { lines, results };
}

/** The lines read_file should see: split on \n, one trailing \r dropped, no empty last line after a final \n. */
function linesOf(content: string): string[] {
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => l.replace(/\r$/, ''));
}

/** `text` as a UTF-16 file with its byte order mark. */
function utf16(text: string, bigEndian: boolean): Buffer {
  const le = Buffer.from(text, 'utf16le');
  if (bigEndian) le.swap16();
  return Buffer.concat([Buffer.from(bigEndian ? [0xfe, 0xff] : [0xff, 0xfe]), le]);
}

/**
 * A sparse file of `size` bytes, over the 8 MB up to which lines are counted: `head` (text, so the
 * binary sniff sees text), a hole, then `tail` ending the file. Only the two ends are on disk.
 */
function sparse(file: string, head: Buffer, tail: Buffer, size = 64 * MB): number {
  writeFileSync(file, head);
  truncateSync(file, size - tail.length);
  const fd = openSync(file, 'r+');
  writeSync(fd, tail, 0, tail.length, size - tail.length);
  closeSync(fd);
  return size;
}

const tenLines = Array.from({ length: 10 }, (_, i) => `L${i + 1}`).join('\n') + '\n';

describe('read_file from the end: files small enough to count', () => {
  it('the schema and description tell the model about negative offsets; offset has no minimum', () => {
    const [spec] = new ToolRegistry([createReadFileTool()]).specs();
    const schema = JSON.parse(JSON.stringify(spec.parameters)) as Record<string, any>;
    expect(schema.properties.offset.type).toBe('integer');
    expect(schema.properties.offset).not.toHaveProperty('minimum');
    expect(schema.properties.offset.description).toMatch(/negative.*-1 = the last line.*tail -n 100.*Not 0/s);
    expect(spec.description).toMatch(/negative offset counts from the end/);
  });

  it('offset -3 shows the last 3 lines with their absolute numbers, and says they end the file', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'ten.txt'), tenLines);
    const res = await read(ws, { path: 'ten.txt', offset: -3 });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('L8\nL9\nL10\n\n[Showing lines 8-10 of ten.txt, the end of the file. The file has 31 bytes (31 B) and 10 lines.]');
    expect(res.details).toEqual({ path: 'ten.txt', sizeBytes: 31, startLine: 8, endLine: 10, startByte: 21, endByte: 31, totalLines: 10, truncated: false });
    // The same lines as the positive offset they stand for.
    expect(split(await read(ws, { path: 'ten.txt', offset: 8 })).body).toBe(split(res).body);
  });

  it('a limit caps the window from its first line; the continuation counts from the start and chains to the end', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'ten.txt'), tenLines);
    const res = await read(ws, { path: 'ten.txt', offset: -5, limit: 2 });
    expect(textOf(res.content)).toBe('L6\nL7\n\n[Showing lines 6-7 of ten.txt; stopped at limit=2. The file has 31 bytes (31 B) and 10 lines. Continue with read_file(path="ten.txt", offset=8, limit=2).]');
    const { lines, results } = await followLines(ws, { path: 'ten.txt', offset: -5, limit: 2 });
    expect(lines).toEqual(['L6', 'L7', 'L8', 'L9', 'L10']);
    expect(results.map((r) => (r.details as LineDetails).startLine)).toEqual([6, 8, 10]);
  });

  it('the last line, with and without a final newline; a final newline after an empty line', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'nl.txt'), 'a\nb\nc\n');
    writeFileSync(join(ws, 'no-nl.txt'), 'a\nb\nc');
    for (const p of ['nl.txt', 'no-nl.txt']) {
      const res = await read(ws, { path: p, offset: -1 });
      expect(split(res).body).toBe('c');
      expect(res.details).toMatchObject({ startLine: 3, endLine: 3, totalLines: 3, truncated: false });
      expect(split(await read(ws, { path: p, offset: -2 })).body).toBe('b\nc');
    }
    // "x\n\n" is two lines, the second empty; CRLF endings are dropped as usual.
    writeFileSync(join(ws, 'empty-last.txt'), 'x\r\n\r\n');
    const last = await read(ws, { path: 'empty-last.txt', offset: -1 });
    expect(split(last).body).toBe('');
    expect(last.details).toMatchObject({ startLine: 2, totalLines: 2 });
    expect(split(await read(ws, { path: 'empty-last.txt', offset: -2 })).body).toBe('x\n');
    // A file that is one newline is one empty line.
    writeFileSync(join(ws, 'nl-only.txt'), '\n');
    expect(split(await read(ws, { path: 'nl-only.txt', offset: -1 })).body).toBe('');
  });

  it('an offset before the start shows every line and says so', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'ten.txt'), tenLines);
    const res = await read(ws, { path: 'ten.txt', offset: -1000 });
    expect(res.isError).toBe(false);
    expect(split(res).body).toBe(linesOf(tenLines).join('\n'));
    expect(split(res).notice).toBe('[offset=-1000 is before the start of ten.txt, which has 10 lines; starting at line 1. Showing lines 1-10 of ten.txt, the end of the file. The file has 31 bytes (31 B) and 10 lines.]');
    expect(res.details).toMatchObject({ startLine: 1, endLine: 10, startByte: 0, totalLines: 10 });
    // Exactly as many lines as the file has is not "before the start".
    expect(split(await read(ws, { path: 'ten.txt', offset: -10 })).notice).toBe('[Showing lines 1-10 of ten.txt, the end of the file. The file has 31 bytes (31 B) and 10 lines.]');
    // Before the start and cut: the window still continues from line 1 on.
    const cut = await read(ws, { path: 'ten.txt', offset: -50, limit: 4 });
    expect(split(cut).body).toBe('L1\nL2\nL3\nL4');
    expect(split(cut).notice).toMatch(/^\[offset=-50 is before the start of ten\.txt, which has 10 lines; starting at line 1\. Showing lines 1-4 .*offset=5, limit=4\)\.\]$/);
  });

  it('offset 0 is refused with a message that says how lines are numbered', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'ten.txt'), tenLines);
    const res = await read(ws, { path: 'ten.txt', offset: 0 });
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toBe('Tool "read_file" failed: offset 0 names no line: lines are numbered from 1 (offset=1 is the first line), or from the end with negative offsets (offset=-1 is the last line)');
    // Mixing a negative offset with bytes is refused as any other mix.
    const mixed = await read(ws, { path: 'ten.txt', offset: -2, byteOffset: 0 });
    expect(textOf(mixed.content)).toMatch(/cannot be combined/);
  });

  it('UTF-16 LE and BE, with a byte order mark, surrogate pairs and CRLF: lines and byte positions from the end', async () => {
    const ws = tempDir();
    const text = 'first ☃\r\nsecond 😀\nthird\r\nfourth 中\n';
    for (const big of [false, true]) {
      writeFileSync(join(ws, 'u.txt'), utf16(text, big));
      const res = await read(ws, { path: 'u.txt', offset: -2 });
      expect(split(res).body).toBe('third\nfourth 中');
      const startByte = 2 + Buffer.byteLength('first ☃\r\nsecond 😀\n', 'utf16le');
      expect(res.details).toEqual({
        path: 'u.txt',
        sizeBytes: 2 + Buffer.byteLength(text, 'utf16le'),
        startLine: 3,
        endLine: 4,
        startByte,
        endByte: 2 + Buffer.byteLength(text, 'utf16le'),
        totalLines: 4,
        truncated: false,
        encoding: big ? 'utf-16be' : 'utf-16le',
      });
      expect(split(await read(ws, { path: 'u.txt', offset: -9 })).body).toBe('first ☃\nsecond 😀\nthird\nfourth 中');
    }
    // A 0x0A byte that is half of a code unit (U+0A00, U+010A) is not a newline.
    writeFileSync(join(ws, 'halves.txt'), utf16('a\u0a00b\u010a\nc', false));
    expect(split(await read(ws, { path: 'halves.txt', offset: -2 })).body).toBe('a\u0a00b\u010a\nc');
    expect(split(await read(ws, { path: 'halves.txt', offset: -1 })).body).toBe('c');
  });

  it('a UTF-8 byte order mark is not part of the first line read from the end', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'bom.txt'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('one\ntwo\n')]));
    const res = await read(ws, { path: 'bom.txt', offset: -5 });
    expect(split(res).body).toBe('one\ntwo');
    expect(res.details).toMatchObject({ startLine: 1, startByte: 3 });
  });

  it('a long line near the end is shown from its start by bytes, with both ways on', async () => {
    const ws = tempDir();
    const long = 'é'.repeat(40_000); // 80 KB
    writeFileSync(join(ws, 'long.txt'), `a\n${long}\nz\n`);
    const res = await read(ws, { path: 'long.txt', offset: -2 });
    expect(split(res).body).toBe(cutToBytes(long, 50 * 1024));
    expect(split(res).notice).toBe(
      '[Line 2 of long.txt is longer than 50.0 KB; showing its first 51200 bytes (bytes 2-51201 of the file). The file has 80005 bytes (78.1 KB) and 3 lines. ' +
        'Continue inside this line with read_file(path="long.txt", byteOffset=51202, byteLength=51200). For the lines after it, use read_file(path="long.txt", offset=3).]',
    );
    // The last line, long and without a final newline: nothing after it.
    writeFileSync(join(ws, 'last.txt'), `a\n${long}`);
    const last = await read(ws, { path: 'last.txt', offset: -1 });
    expect(split(last).notice).toMatch(/^\[Line 2 of last\.txt is longer than 50\.0 KB;.*byteOffset=51202, byteLength=51200\)\. It is the last line of the file\.\]$/);
  });

  it('property: offset -n shows what the positive offset it stands for shows, and following it reads the last n lines', async () => {
    const ws = tempDir();
    const char = fc.constantFrom('a', 'b', ' ', 'é', '€', '😀', '\r', '\t');
    const line = fc.array(char, { maxLength: 20 }).map((cs) => cs.join(''));
    let k = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 40 }),
        fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 12, max: 80 }),
        async (ls, finalNewline, n, limit, maxLines, maxBytes) => {
          const content = ls.join('\n') + (finalNewline ? '\n' : '');
          fc.pre(content !== '');
          const name = `p${k++}.txt`;
          writeFileSync(join(ws, name), content);
          const limits = { maxLines, maxBytes };
          const expected = linesOf(content);
          const first = Math.max(1, expected.length - n + 1);
          const back = await read(ws, { path: name, offset: -n, ...(limit ? { limit } : {}) }, limits);
          const ahead = await read(ws, { path: name, offset: first, ...(limit ? { limit } : {}) }, limits);
          expect(split(back).body).toBe(split(ahead).body);
          expect(back.details).toEqual(ahead.details);
          const { lines } = await followLines(ws, { path: name, offset: -n, ...(limit ? { limit } : {}) }, limits);
          const want = expected.slice(first - 1);
          expect(lines.length).toBe(want.length);
          lines.forEach((got, i) => expect(got).toBe(Buffer.byteLength(want[i]) > maxBytes ? cutToBytes(want[i], maxBytes) : want[i]));
        },
      ),
      { numRuns: 120 },
    );
  });
});

describe('read_file from the end: files too large to count', () => {
  const tail = Array.from({ length: 6000 }, (_, i) => `${i + 1} GET ${i % 97}ms`); // short: 2000 of them fit the 50 KB cap
  const tailText = '\n' + tail.join('\n') + '\n'; // the newline ends the head's hole
  const head = Buffer.from('head line\n'.repeat(1000));

  it('offset -100 shows the last 100 lines counted from the end, with their byte positions', async () => {
    const ws = tempDir();
    const size = sparse(join(ws, 'app.log'), head, Buffer.from(tailText));
    const res = await read(ws, { path: 'app.log', offset: -100 });
    expect(res.isError).toBe(false);
    const body = tail.slice(-100).join('\n');
    expect(split(res).body).toBe(body);
    const startByte = size - Buffer.byteLength(body + '\n');
    expect(split(res).notice).toBe(
      `[Showing lines -100 to -1 (counted from the end: -1 is the last line) of app.log, bytes ${startByte}-${size - 1}, the end of the file. ` + `The file has ${size} bytes (64.0 MB); its line count was not computed (over 8.0 MB).]`,
    );
    expect(res.details).toEqual({ path: 'app.log', sizeBytes: size, startLine: -100, endLine: -1, countedFromEnd: true, startByte, endByte: size, truncated: false });
  });

  it('the continuation counts from the end too and chains to the end, each window where the last ended', async () => {
    const ws = tempDir();
    const size = sparse(join(ws, 'app.log'), head, Buffer.from(tailText));
    const first = await read(ws, { path: 'app.log', offset: -5000 });
    expect(split(first).notice).toMatch(/^\[Showing lines -5000 to -3001 \(counted from the end: -1 is the last line\) of app\.log, bytes \d+-\d+; stopped at 2000 lines\. .* Continue with read_file\(path="app\.log", offset=-3000\)\.\]$/);
    const { lines, results } = await followLines(ws, { path: 'app.log', offset: -5000 });
    expect(lines).toEqual(tail.slice(-5000));
    expect(results.map((r) => [(r.details as LineDetails).startLine, (r.details as LineDetails).endLine])).toEqual([
      [-5000, -3001],
      [-3000, -1001],
      [-1000, -1],
    ]);
    let at = (results[0].details as LineDetails).startByte;
    for (const r of results) {
      expect((r.details as LineDetails).startByte).toBe(at);
      at = (r.details as LineDetails).endByte;
    }
    expect(at).toBe(size);
    // With a limit, the limit is kept.
    const limited = await read(ws, { path: 'app.log', offset: -10, limit: 4 });
    expect(split(limited).body).toBe(tail.slice(-10, -6).join('\n'));
    expect(offered(limited)).toEqual([{ path: 'app.log', offset: -6, limit: 4 }]);
  });

  it('a file without a final newline, and UTF-16 (LE and BE)', async () => {
    const ws = tempDir();
    sparse(join(ws, 'nonl.log'), head, Buffer.from('\nx\ny\nlast'));
    const res = await read(ws, { path: 'nonl.log', offset: -2 });
    expect(split(res).body).toBe('y\nlast');
    expect(res.details).toMatchObject({ startLine: -2, endLine: -1, countedFromEnd: true });
    for (const big of [false, true]) {
      const text = 'head ☃\n'.repeat(2000);
      const body = utf16(text, big);
      const end = utf16('\nsecond 😀\r\nthird 中\n', big).subarray(2);
      const size = sparse(join(ws, 'u16.log'), body, end);
      const u = await read(ws, { path: 'u16.log', offset: -2 });
      expect(split(u).body).toBe('second 😀\nthird 中');
      expect(u.details).toMatchObject({ startLine: -2, endLine: -1, startByte: size - end.length + 2, endByte: size, encoding: big ? 'utf-16be' : 'utf-16le' });
    }
  });

  it('a long line near the end: the lines after it are offered from the end, the last one says so', async () => {
    const ws = tempDir();
    const long = 'q'.repeat(120_000);
    sparse(join(ws, 'long.log'), head, Buffer.from(`\n${long}\nafter\n`));
    const res = await read(ws, { path: 'long.log', offset: -2 });
    expect(split(res).body).toBe('q'.repeat(51_200));
    expect(split(res).notice).toMatch(
      /^\[Line -2 \(counted from the end: -1 is the last line\) of long\.log is longer than 50\.0 KB; showing its first 51200 bytes .* For the lines after it, use read_file\(path="long\.log", offset=-1\)\.\]$/,
    );
    expect(split(await read(ws, { path: 'long.log', offset: -1 })).body).toBe('after');
    const size = sparse(join(ws, 'last.log'), head, Buffer.from(`\n${long}`));
    const last = await read(ws, { path: 'last.log', offset: -1 });
    expect(split(last).notice).toMatch(/ It is the last line of the file\.\]$/);
    // Following the bytes reads the rest of that line to the end of the file.
    let args = offered(last)[0];
    let rest = split(last).body;
    while (args) {
      const page = await read(ws, args);
      rest += split(page).body;
      args = offered(page)[0];
    }
    expect(rest).toBe(long);
    expect(size).toBe(64 * MB);
  });

  it('an offset before the start of a large file reads back to the start, then numbers the lines from it', async () => {
    const ws = tempDir();
    // 9 MB of short lines: more than can be counted, but few enough lines to read back through.
    const lines = Array.from({ length: 300_000 }, (_, i) => `row ${i + 1} ${'-'.repeat(20)}`);
    writeFileSync(join(ws, 'rows.txt'), lines.join('\n') + '\n');
    const res = await read(ws, { path: 'rows.txt', offset: -400_000, limit: 2 });
    expect(split(res).body).toBe('row 1 ' + '-'.repeat(20) + '\nrow 2 ' + '-'.repeat(20));
    expect(split(res).notice).toMatch(/^\[offset=-400000 is before the start of rows\.txt, which has 300000 lines; starting at line 1\. Showing lines 1-2 .* and 300000 lines\. .*offset=3, limit=2\)\.\]$/);
  });

  it('property: following from any -n in a large file gives its last n lines, UTF-8 or UTF-16, with or without a final newline', async () => {
    const ws = tempDir();
    const char = fc.constantFrom('a', 'z', ' ', 'é', '€', '😀', '\r');
    const line = fc.array(char, { maxLength: 16 }).map((cs) => cs.join(''));
    let k = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 25 }),
        fc.boolean(),
        fc.constantFrom('utf-8', 'utf-16le', 'utf-16be'),
        fc.nat(),
        fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 16, max: 64 }),
        async (ls, finalNewline, encoding, at, limit, maxLines, maxBytes) => {
          const text = '\n' + ls.join('\n') + (finalNewline ? '\n' : '');
          fc.pre(text !== '\n'); // the newline would only end the hole's line: no line of its own
          const wide = encoding !== 'utf-8';
          const headBytes = wide ? utf16('h\n'.repeat(5000), encoding === 'utf-16be') : head;
          const tailBytes = wide ? utf16(text, encoding === 'utf-16be').subarray(2) : Buffer.from(text);
          const name = `q${k++}.log`;
          sparse(join(ws, name), headBytes, tailBytes, 9 * MB);
          const expected = linesOf(text.slice(1));
          const n = 1 + (at % expected.length);
          const limits = { maxLines, maxBytes };
          const { lines, results } = await followLines(ws, { path: name, offset: -n, ...(limit ? { limit } : {}) }, limits);
          const want = expected.slice(-n);
          expect(lines.length).toBe(want.length);
          lines.forEach((got, i) => {
            if (Buffer.byteLength(want[i]) <= maxBytes) expect(got).toBe(want[i]);
            else expect(want[i].startsWith(got) && got.length > 0 && Buffer.byteLength(got) <= maxBytes).toBe(true);
          });
          const d = results.map((r) => r.details as LineDetails);
          expect(d[0].startLine).toBe(-n);
          expect(d.every((x) => x.countedFromEnd === true && x.totalLines === undefined)).toBe(true);
          expect(d[d.length - 1].endLine).toBe(-1);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('read_file: a huge file is not read whole', () => {
  it('the last lines and a byte range near the end of a sparse 1 GiB file read only their neighbourhood', async () => {
    const ws = tempDir();
    const last = Array.from({ length: 300 }, (_, i) => `final ${i + 1}`).join('\n') + '\n';
    const size = sparse(join(ws, 'giant.log'), Buffer.from('header line\n'.repeat(1000)), Buffer.from('\n' + last), 1024 * MB);

    const started = Date.now();
    io.bytesRead = 0;
    const tail = await read(ws, { path: 'giant.log', offset: -100 });
    const tailBytes = io.bytesRead;
    expect(split(tail).body).toBe(linesOf(last).slice(-100).join('\n'));
    expect(tail.details).toMatchObject({ startLine: -100, endLine: -1, endByte: size });

    io.bytesRead = 0;
    const bytes = await read(ws, { path: 'giant.log', byteOffset: size - 200, byteLength: 100 });
    const rangeBytes = io.bytesRead;
    expect(split(bytes).body).toBe(last.slice(-200, -100));

    // A continuation from the end, and a window before it, stay small too.
    io.bytesRead = 0;
    const window = await read(ws, { path: 'giant.log', offset: -300, limit: 50 });
    const windowBytes = io.bytesRead;
    expect(split(window).body.split('\n')[0]).toBe('final 1');

    // Each read at most the 8 KB sniff, one backward chunk, and one forward chunk (64 KB each).
    expect(rangeBytes).toBeGreaterThanOrEqual(8 * 1024 + 100); // the sniff and the range: the count is real
    expect(tailBytes).toBeLessThan(200 * 1024);
    expect(rangeBytes).toBeLessThan(16 * 1024);
    expect(windowBytes).toBeLessThan(200 * 1024);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('the tool names the real path it reads, for the scheduler, and refuses one outside the workspace', () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'a.txt'), 'x\n');
    const tool = createReadFileTool();
    expect(tool.paths!({ path: './a.txt' }, { cwd: ws })).toEqual([realpathSync(join(ws, 'a.txt'))]);
    expect(() => tool.paths!({ path: '../outside.txt' }, { cwd: ws })).toThrow(/outside the workspace/);
    expect(() => tool.paths!({ path: 'missing.txt' }, { cwd: ws })).toThrow(/file not found/);
  });
});
