// read_file through the public ToolRegistry: the workspace boundary, windows and continuation,
// encodings, binary refusal, and bounded memory on huge files.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { textOf, type ToolCall } from '../src/core/types.js';
import { createReadFileTool } from '../src/tools/read-file.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { ToolResult } from '../src/tools/tool.js';
import { cutToBytes, type TruncateLimits } from '../src/tools/truncate.js';
import { tempDir } from './support/helpers.js';

let ids = 0;
async function read(cwd: string, args: Record<string, unknown>, limits?: TruncateLimits): Promise<ToolResult> {
  const reg = new ToolRegistry([createReadFileTool(limits)]);
  const call: ToolCall = { type: 'toolCall', id: `r${++ids}`, name: 'read_file', arguments: args };
  return reg.execute(call, { cwd, signal: new AbortController().signal });
}

const NOTICE = /\n\n\[(?:Showing lines \d+-\d+ of .*?; stopped at .*?\. Use offset=(\d+) to continue\.|Line (\d+) is longer than .*?; showing only its start \(the rest of this line cannot be read with read_file\)\. Lines after it, if any, start at offset=(\d+)\.)\]$/;

/** Splits a window into its body and the offset its notice says to continue at (undefined: no notice). */
function window(res: ToolResult): { body: string; next?: number; longLine?: number } {
  const text = textOf(res.content);
  const m = NOTICE.exec(text);
  if (!m) return { body: text };
  const body = text.slice(0, m.index);
  if (m[2] !== undefined) return { body, next: Number(m[3]), longLine: Number(m[2]) };
  return { body, next: Number(m[1]) };
}

/** The lines read_file should see in a file: split on \n, one trailing \r dropped, no empty last line after a final \n. */
function linesOf(content: string): string[] {
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => l.replace(/\r$/, ''));
}

/** Reads a whole file window by window, following each notice's offset; returns the lines and the windows. */
async function readAll(cwd: string, path: string, limits?: TruncateLimits) {
  const lines: string[] = [];
  const windows: ToolResult[] = [];
  let offset = 1;
  for (let guard = 0; guard < 10_000; guard++) {
    const res = await read(cwd, { path, offset }, limits);
    windows.push(res);
    if (res.isError) throw new Error(`window at offset ${offset} failed: ${textOf(res.content)}`);
    const w = window(res);
    if (w.longLine !== undefined) {
      expect(w.longLine).toBe(offset);
      lines.push(w.body); // only the start of that line
    } else {
      lines.push(...w.body.split('\n'));
      if (w.next !== undefined) expect(w.next).toBe(offset + w.body.split('\n').length);
    }
    if (w.next === undefined) return { lines, windows };
    if (w.longLine !== undefined) {
      // A cut line does not know whether more lines follow; if none do, its offset is past the end.
      const probe = await read(cwd, { path, offset: w.next }, limits);
      if (probe.isError && /past the end/.test(textOf(probe.content))) return { lines, windows };
    }
    offset = w.next;
  }
  throw new Error('did not finish');
}

describe('read_file: reading', () => {
  it('reads a small file whole, with details', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'hello.txt'), 'first line\nsecond line\nthird line\n');
    const res = await read(ws, { path: 'hello.txt' });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('first line\nsecond line\nthird line');
    expect(res.details).toEqual({ path: 'hello.txt', sizeBytes: 34, startLine: 1, endLine: 3, truncated: false });
  });

  it('reads a file without a final newline, and keeps empty lines', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'a.txt'), '\n\nx\n\ny');
    const res = await read(ws, { path: 'a.txt' });
    expect(textOf(res.content)).toBe('\n\nx\n\ny');
    expect(res.details).toMatchObject({ startLine: 1, endLine: 5, truncated: false });
  });

  it('reads a file in a sub-folder and shows the path relative to the workspace', async () => {
    const ws = tempDir();
    mkdirSync(join(ws, 'src', 'deep'), { recursive: true });
    writeFileSync(join(ws, 'src', 'deep', 'x.ts'), 'export {};\n');
    const res = await read(ws, { path: './src/../src/deep/x.ts' });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('export {};');
    expect(res.details).toMatchObject({ path: join('src', 'deep', 'x.ts') });
  });

  it('says when a file is empty', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'empty.txt'), '');
    const res = await read(ws, { path: 'empty.txt' });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toMatch(/empty/);
    expect(res.details).toMatchObject({ sizeBytes: 0 });
  });

  it('handles CRLF line endings, and keeps a lone \\r inside a line', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'dos.txt'), 'one\r\ntwo\r\nthr\ree\r\nlast\r');
    const res = await read(ws, { path: 'dos.txt' });
    expect(textOf(res.content)).toBe('one\ntwo\nthr\ree\nlast');
    expect(res.details).toMatchObject({ endLine: 4 });
  });

  it('handles a CRLF split across the internal read chunks', async () => {
    const ws = tempDir();
    // The \r is the last byte of the first 64 KB, the \n the first of the next.
    const first = 'a'.repeat(64 * 1024 - 1);
    writeFileSync(join(ws, 'split.txt'), `${first}\r\nnext\r\n`);
    const res = await read(ws, { path: 'split.txt' }, { maxLines: 100, maxBytes: 1024 * 1024 });
    expect(textOf(res.content)).toBe(`${first}\nnext`);
  });

  it('decodes multi-byte UTF-8 characters split across chunks', async () => {
    const ws = tempDir();
    const line = 'é€😀'.repeat(100); // 2, 3 and 4 byte characters
    const content = Array.from({ length: 200 }, () => line).join('\n') + '\n'; // ~180 KB
    writeFileSync(join(ws, 'utf8.txt'), content);
    const { lines } = await readAll(ws, 'utf8.txt');
    expect(lines).toEqual(linesOf(content));
    expect(lines.join('')).not.toContain('\uFFFD');
  });

  it('drops a UTF-8 byte order mark', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'bom.txt'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hello\n')]));
    const res = await read(ws, { path: 'bom.txt' });
    expect(textOf(res.content)).toBe('hello');
  });

  it('decodes a UTF-16LE file with a byte order mark', async () => {
    const ws = tempDir();
    const text = 'héllo wörld\nsecond ☃ line\r\nthird\n';
    writeFileSync(join(ws, 'u16le.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const res = await read(ws, { path: 'u16le.txt' });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('héllo wörld\nsecond ☃ line\nthird');
    expect(res.details).toMatchObject({ encoding: 'utf-16le', endLine: 3 });
  });

  it('decodes a UTF-16BE file with a byte order mark', async () => {
    const ws = tempDir();
    const le = Buffer.from('big endian ☃\nok\n', 'utf16le');
    const be = Buffer.alloc(le.length);
    for (let i = 0; i < le.length; i += 2) {
      be[i] = le[i + 1];
      be[i + 1] = le[i];
    }
    writeFileSync(join(ws, 'u16be.txt'), Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
    const res = await read(ws, { path: 'u16be.txt' });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('big endian ☃\nok');
    expect(res.details).toMatchObject({ encoding: 'utf-16be' });
  });

  it('still reads Latin-1 text (invalid UTF-8, no NUL) as text', async () => {
    const ws = tempDir();
    // "café crème\nnaïve\n" in ISO-8859-1
    writeFileSync(join(ws, 'latin1.txt'), Buffer.from('café crème\nnaïve\n', 'latin1'));
    const res = await read(ws, { path: 'latin1.txt' });
    expect(res.isError).toBe(false);
    const lines = textOf(res.content).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^caf. cr.me$/u);
    expect(lines[1]).toMatch(/^na.ve$/u);
    expect(res.details).toMatchObject({ endLine: 2, truncated: false });
  });
});

describe('read_file: binary files', () => {
  it('refuses a file with NUL bytes near the start, giving its size', async () => {
    const ws = tempDir();
    const bytes = Buffer.alloc(3000, 0x41);
    bytes[10] = 0;
    writeFileSync(join(ws, 'blob.bin'), bytes);
    const res = await read(ws, { path: 'blob.bin' });
    expect(res.isError).toBe(true);
    const text = textOf(res.content);
    expect(text).toMatch(/binary/);
    expect(text).toContain('3000 bytes');
    expect(text).toContain('2.9 KB');
    expect(text).not.toContain('AAAA');
  });

  it('refuses a PNG-like file', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
    const res = await read(ws, { path: 'img.png' });
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toMatch(/binary.*16 bytes/);
  });
});

describe('read_file: the workspace boundary', () => {
  /** A workspace inside an outer folder that holds a secret file next to it. */
  function layout() {
    const outer = tempDir();
    const ws = join(outer, 'ws');
    mkdirSync(join(ws, 'sub'), { recursive: true });
    writeFileSync(join(outer, 'secret.txt'), 'TOP SECRET\n');
    mkdirSync(join(outer, 'private'));
    writeFileSync(join(outer, 'private', 'key.txt'), 'PRIVATE KEY\n');
    writeFileSync(join(ws, 'inside.txt'), 'inside\n');
    return { outer, ws };
  }

  function expectRefused(res: ToolResult) {
    expect(res.isError).toBe(true);
    const text = textOf(res.content);
    expect(text).toMatch(/outside the workspace/);
    expect(text).not.toMatch(/SECRET|PRIVATE|root:/);
  }

  it.each(['../secret.txt', 'sub/../../secret.txt', '../../etc/passwd', '..', '../ws/../secret.txt'])('refuses %s', async (p) => {
    const { ws } = layout();
    expectRefused(await read(ws, { path: p }));
  });

  it('refuses an absolute path outside the workspace, even to an existing file', async () => {
    const { ws, outer } = layout();
    expectRefused(await read(ws, { path: join(outer, 'secret.txt') }));
    const other = tempDir();
    writeFileSync(join(other, 'other.txt'), 'SECRET elsewhere\n');
    expectRefused(await read(ws, { path: join(other, 'other.txt') }));
    expectRefused(await read(ws, { path: '/etc/passwd' }));
  });

  it('refuses a sibling folder whose name starts with the workspace name', async () => {
    const { ws } = layout();
    mkdirSync(`${ws}-evil`);
    writeFileSync(`${ws}-evil/x.txt`, 'SECRET sibling\n');
    expectRefused(await read(ws, { path: `${ws}-evil/x.txt` }));
    expectRefused(await read(ws, { path: '../ws-evil/x.txt' }));
  });

  it('refuses a symlink inside the workspace that points to a file outside', async () => {
    const { ws, outer } = layout();
    symlinkSync(join(outer, 'secret.txt'), join(ws, 'link.txt'));
    symlinkSync('../../secret.txt', join(ws, 'sub', 'rel-link.txt'));
    const res = await read(ws, { path: 'link.txt' });
    expectRefused(res);
    expect(textOf(res.content)).toMatch(/symbolic link/);
    expectRefused(await read(ws, { path: 'sub/rel-link.txt' }));
  });

  it('refuses a file under a symlinked folder that points outside', async () => {
    const { ws, outer } = layout();
    symlinkSync(join(outer, 'private'), join(ws, 'linkdir'));
    expectRefused(await read(ws, { path: 'linkdir/key.txt' }));
    expectRefused(await read(ws, { path: join(ws, 'linkdir', 'key.txt') }));
  });

  it('refuses a chain of symlinks that ends outside', async () => {
    const { ws, outer } = layout();
    symlinkSync(join(outer, 'secret.txt'), join(ws, 'hop2'));
    symlinkSync('hop2', join(ws, 'hop1'));
    expectRefused(await read(ws, { path: 'hop1' }));
  });

  it('allows an absolute path inside the workspace', async () => {
    const { ws } = layout();
    const res = await read(ws, { path: join(ws, 'inside.txt') });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('inside');
    expect(res.details).toMatchObject({ path: 'inside.txt' });
  });

  it('allows a symlink that stays inside the workspace, and a name that merely starts with ".."', async () => {
    const { ws } = layout();
    symlinkSync('../inside.txt', join(ws, 'sub', 'alias.txt'));
    const res = await read(ws, { path: 'sub/alias.txt' });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('inside');
    expect(res.details).toMatchObject({ path: 'inside.txt' });
    writeFileSync(join(ws, '..notes'), 'dots\n');
    const dots = await read(ws, { path: '..notes' });
    expect(dots.isError).toBe(false);
    expect(textOf(dots.content)).toBe('dots');
  });

  it('works when the workspace is given through a symlink to it', async () => {
    const { ws, outer } = layout();
    symlinkSync(ws, join(outer, 'ws-link'));
    const cwd = join(outer, 'ws-link');
    const rel = await read(cwd, { path: 'inside.txt' });
    expect(textOf(rel.content)).toBe('inside');
    const abs = await read(cwd, { path: join(ws, 'inside.txt') });
    expect(abs.isError).toBe(false);
    expectRefused(await read(cwd, { path: '../secret.txt' }));
  });

  it('refuses a directory as not a regular file', async () => {
    const { ws } = layout();
    for (const p of ['sub', '.', ws]) {
      const res = await read(ws, { path: p });
      expect(res.isError).toBe(true);
      expect(textOf(res.content)).toMatch(/not a regular file.*directory/);
    }
  });

  it('says "file not found" for a missing file, and for a dangling symlink', async () => {
    const { ws } = layout();
    const res = await read(ws, { path: 'nope/missing.txt' });
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toContain('file not found: nope/missing.txt');
    symlinkSync(join(ws, 'gone.txt'), join(ws, 'dangling'));
    const d = await read(ws, { path: 'dangling' });
    expect(d.isError).toBe(true);
    expect(textOf(d.content)).toMatch(/file not found/);
  });

  it('refuses an empty path and a path with a NUL byte', async () => {
    const { ws } = layout();
    const empty = await read(ws, { path: '' });
    expect(empty.isError).toBe(true);
    expect(textOf(empty.content)).toMatch(/non-empty/);
    const nul = await read(ws, { path: 'inside.txt\0../../etc/passwd' });
    expect(nul.isError).toBe(true);
    expect(textOf(nul.content)).toMatch(/NUL/);
  });

  describe('a named pipe', () => {
    let writer: ChildProcess | undefined;
    afterEach(() => {
      writer?.kill('SIGKILL');
      writer = undefined;
    });

    it('is refused at once as a special file, without waiting for a writer', async () => {
      const ws = tempDir();
      const fifo = join(ws, 'pipe');
      execFileSync('mkfifo', [fifo]);
      // A watchdog: if read_file blocks opening the pipe (blocking the whole process),
      // this child opens the other end after 3 s so the test ends instead of hanging.
      writer = spawn(process.execPath, ['-e', `setTimeout(() => require('fs').openSync(${JSON.stringify(fifo)}, 'w'), 3000)`], {
        stdio: 'ignore',
      });
      const started = Date.now();
      const res = await read(ws, { path: 'pipe' });
      const elapsed = Date.now() - started;
      expect(res.isError).toBe(true);
      expect(textOf(res.content)).toMatch(/not a regular file/);
      expect(elapsed).toBeLessThan(2000);
    });
  });
});

describe('read_file: windows, offsets and limits', () => {
  it('cuts a 10,000-line file at 2000 lines with a notice, and the offsets page through it exactly', async () => {
    const ws = tempDir();
    const lines = Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}`);
    const content = lines.join('\n') + '\n';
    writeFileSync(join(ws, 'big.txt'), content);

    const first = await read(ws, { path: 'big.txt' });
    expect(first.isError).toBe(false);
    const w = window(first);
    expect(w.body).toBe(lines.slice(0, 2000).join('\n'));
    expect(textOf(first.content)).toContain('offset=2001');
    expect(w.next).toBe(2001);
    expect(first.details).toMatchObject({ startLine: 1, endLine: 2000, truncated: true });
    // The registry left the tool's own notice alone.
    expect(textOf(first.content)).not.toContain('[Output truncated');

    const second = await read(ws, { path: 'big.txt', offset: 2001 });
    expect(window(second).body.split('\n')[0]).toBe('line 2001');

    const all = await readAll(ws, 'big.txt');
    expect(all.windows).toHaveLength(5);
    expect(all.lines.join('\n') + '\n').toBe(content);
    expect(all.windows[4].details).toMatchObject({ startLine: 8001, endLine: 10_000, truncated: false });
  });

  it('cuts a file over 50 KB at the byte limit, on a line boundary, and continues exactly', async () => {
    const ws = tempDir();
    const lines = Array.from({ length: 1200 }, (_, i) => `${String(i + 1).padStart(5, '0')} ${'x'.repeat(100)}`); // ~128 KB
    const content = lines.join('\r\n') + '\r\n';
    writeFileSync(join(ws, 'wide.txt'), content);
    const first = await read(ws, { path: 'wide.txt' });
    const w = window(first);
    expect(Buffer.byteLength(w.body)).toBeLessThanOrEqual(50 * 1024);
    expect(w.next).toBeDefined();
    expect(w.body.split('\n')).toEqual(lines.slice(0, w.next! - 1));
    expect(textOf(first.content)).toMatch(/stopped at 50\.0 KB\. Use offset=\d+ to continue/);
    const all = await readAll(ws, 'wide.txt');
    expect(all.lines).toEqual(lines);
    for (const win of all.windows) expect(Buffer.byteLength(window(win).body)).toBeLessThanOrEqual(50 * 1024);
  });

  it('honours offset and limit', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'ten.txt'), Array.from({ length: 10 }, (_, i) => `L${i + 1}`).join('\n') + '\n');
    const mid = await read(ws, { path: 'ten.txt', offset: 4, limit: 3 });
    expect(window(mid).body).toBe('L4\nL5\nL6');
    expect(window(mid).next).toBe(7);
    expect(mid.details).toMatchObject({ startLine: 4, endLine: 6, truncated: true });

    const tail = await read(ws, { path: 'ten.txt', offset: 8, limit: 3 });
    expect(textOf(tail.content)).toBe('L8\nL9\nL10');
    expect(tail.details).toMatchObject({ startLine: 8, endLine: 10, truncated: false });

    const last = await read(ws, { path: 'ten.txt', offset: 10 });
    expect(textOf(last.content)).toBe('L10');

    const one = await read(ws, { path: 'ten.txt', limit: 1 });
    expect(window(one)).toEqual({ body: 'L1', next: 2 });
  });

  it('a limit larger than the tool maximum is capped at the maximum', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'f.txt'), Array.from({ length: 50 }, (_, i) => `${i + 1}`).join('\n'));
    const res = await read(ws, { path: 'f.txt', limit: 1000 }, { maxLines: 20, maxBytes: 10_000 });
    expect(window(res).body.split('\n')).toHaveLength(20);
    expect(window(res).next).toBe(21);
  });

  it('an offset past the end is an error that gives the number of lines', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'three.txt'), 'a\nb\nc\n');
    writeFileSync(join(ws, 'three-nonl.txt'), 'a\nb\nc');
    for (const p of ['three.txt', 'three-nonl.txt']) {
      const res = await read(ws, { path: p, offset: 4 });
      expect(res.isError).toBe(true);
      expect(textOf(res.content)).toMatch(/offset 4 is past the end .*\(3 lines\)/);
      const far = await read(ws, { path: p, offset: 1000 });
      expect(far.isError).toBe(true);
      expect(textOf(far.content)).toMatch(/past the end/);
    }
  });

  it('invalid offset and limit values are refused by validation', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'f.txt'), 'x\n');
    for (const args of [{ offset: 0 }, { offset: -3 }, { limit: 0 }, { offset: 1.5 }, { offset: '2' }]) {
      const res = await read(ws, { path: 'f.txt', ...args });
      expect(res.isError).toBe(true);
      expect(textOf(res.content)).toMatch(/Invalid arguments/);
    }
  });

  it('cuts a single line longer than the byte limit, says so, and continues after it', async () => {
    const ws = tempDir();
    const long = 'é'.repeat(100_000); // 200 KB in one line
    writeFileSync(join(ws, 'long.txt'), `short\n${long}\nafter\n`);
    const first = await read(ws, { path: 'long.txt' });
    expect(window(first)).toEqual({ body: 'short', next: 2 });

    const res = await read(ws, { path: 'long.txt', offset: 2 });
    expect(res.isError).toBe(false);
    const w = window(res);
    expect(w.longLine).toBe(2);
    expect(w.next).toBe(3);
    expect(textOf(res.content)).toMatch(/Line 2 is longer than 50\.0 KB; showing only its start/);
    expect(w.body).toBe(cutToBytes(long, 50 * 1024));
    expect(w.body).not.toContain('\uFFFD');
    expect(res.details).toMatchObject({ startLine: 2, endLine: 2, truncated: true });

    const after = await read(ws, { path: 'long.txt', offset: 3 });
    expect(textOf(after.content)).toBe('after');
  });

  it('cuts a long line that ends the file without a newline, and one just over the limit', async () => {
    const ws = tempDir();
    const limits = { maxLines: 100, maxBytes: 1000 };
    writeFileSync(join(ws, 'a.txt'), 'x'.repeat(1500)); // between 1x and 2x the limit
    const a = window(await read(ws, { path: 'a.txt' }, limits));
    expect(a).toEqual({ body: 'x'.repeat(1000), next: 2, longLine: 1 });
    writeFileSync(join(ws, 'b.txt'), 'y'.repeat(1001) + '\nz\n');
    const b = window(await read(ws, { path: 'b.txt' }, limits));
    expect(b).toEqual({ body: 'y'.repeat(1000), next: 2, longLine: 1 });
    writeFileSync(join(ws, 'c.txt'), 'w'.repeat(1000) + '\n');
    expect(textOf((await read(ws, { path: 'c.txt' }, limits)).content)).toBe('w'.repeat(1000));
  });

  it('skips a very long line before the window without keeping it', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'f.txt'), `${'q'.repeat(300_000)}\nwanted\n`);
    const res = await read(ws, { path: 'f.txt', offset: 2 });
    expect(textOf(res.content)).toBe('wanted');
  });

  it('property: following the notices reproduces any text file, within the limits', async () => {
    const ws = tempDir();
    const char = fc.constantFrom('a', 'b', ' ', 'é', '€', '😀', '\r', '\t');
    const line = fc.array(char, { maxLength: 30 }).map((cs) => cs.join(''));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 6, max: 80 }),
        async (ls, finalNewline, maxLines, maxBytes) => {
          const content = ls.join('\n') + (finalNewline ? '\n' : '');
          fc.pre(content !== '');
          const name = `p${n++}.txt`;
          writeFileSync(join(ws, name), content);
          const limits = { maxLines, maxBytes };
          const expected = linesOf(content);
          const { lines, windows } = await readAll(ws, name, limits);
          // A line longer than maxBytes shows only its start; every other line comes back whole.
          expect(lines.length).toBe(expected.length);
          lines.forEach((got, i) => {
            const want = expected[i];
            if (Buffer.byteLength(want) > maxBytes) expect(got).toBe(cutToBytes(want, maxBytes));
            else expect(got).toBe(want);
          });
          for (const w of windows) {
            const body = window(w).body;
            expect(Buffer.byteLength(body)).toBeLessThanOrEqual(maxBytes);
            expect(body.split('\n').length).toBeLessThanOrEqual(maxLines);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('read_file: huge files', () => {
  const MB = 1024 * 1024;

  function measure<T>(run: () => Promise<T>) {
    return async () => {
      const before = process.memoryUsage();
      const started = Date.now();
      const value = await run();
      const elapsed = Date.now() - started;
      const after = process.memoryUsage();
      return { value, elapsed, rss: after.rss - before.rss, arrayBuffers: after.arrayBuffers - before.arrayBuffers };
    };
  }

  it('reads the first window of a 200 MB file without reading it whole', async () => {
    const ws = tempDir();
    const file = join(ws, 'huge.log');
    const head = Array.from({ length: 20_000 }, (_, i) => `entry ${i + 1}`).join('\n') + '\n'; // ~250 KB
    writeFileSync(file, head);
    truncateSync(file, 200 * MB); // sparse: the rest is a hole, never written to disk
    const m = await measure(() => read(ws, { path: 'huge.log' }))();
    expect(m.value.isError).toBe(false);
    const w = window(m.value);
    expect(w.next).toBe(2001);
    expect(w.body.split('\n')[1999]).toBe('entry 2000');
    expect(m.value.details).toMatchObject({ sizeBytes: 200 * MB });
    expect(textOf(m.value.content)).toContain('200.0 MB');
    expect(m.elapsed).toBeLessThan(3000);
    expect(m.rss).toBeLessThan(60 * MB);
    expect(m.arrayBuffers).toBeLessThan(20 * MB);
  });

  it('cuts a 200 MB file whose first line never ends without reading it whole', async () => {
    const ws = tempDir();
    const file = join(ws, 'oneline.txt');
    writeFileSync(file, 'z'.repeat(16 * 1024)); // text first, so it is not taken for binary
    truncateSync(file, 200 * MB);
    const m = await measure(() => read(ws, { path: 'oneline.txt' }))();
    expect(m.value.isError).toBe(false);
    const w = window(m.value);
    expect(w.longLine).toBe(1);
    expect(w.body.startsWith('z'.repeat(16 * 1024))).toBe(true);
    expect(Buffer.byteLength(w.body)).toBeLessThanOrEqual(50 * 1024);
    expect(m.elapsed).toBeLessThan(3000);
    expect(m.rss).toBeLessThan(60 * MB);
    expect(m.arrayBuffers).toBeLessThan(20 * MB);
  });

  it('refuses a huge sparse binary file at once', async () => {
    const ws = tempDir();
    const file = join(ws, 'disk.img');
    writeFileSync(file, '');
    truncateSync(file, 200 * MB);
    const m = await measure(() => read(ws, { path: 'disk.img' }))();
    expect(m.value.isError).toBe(true);
    expect(textOf(m.value.content)).toContain(`${200 * MB} bytes`);
    expect(m.elapsed).toBeLessThan(3000);
    expect(m.rss).toBeLessThan(60 * MB);
  });
});
