// read_file through the public ToolRegistry: the workspace boundary, line windows and byte ranges,
// the continuation notices (followed exactly as a model would), encodings, binary refusal, and
// bounded memory on huge files.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
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

/** What a notice offers next: a line window (offset/limit) or a byte range (byteOffset/byteLength). */
interface NextCall {
  path: string;
  offset?: number;
  limit?: number;
  byteOffset?: number;
  byteLength?: number;
}

const CALL = /read_file\(path=("(?:[^"\\]|\\.)*"), (offset|byteOffset)=(\d+)(?:, (limit|byteLength)=(\d+))?\)/g;

/** Splits a result into its body and the notice read_file ends a cut result with (undefined: none). */
function split(res: ToolResult): { body: string; notice?: string } {
  const text = textOf(res.content);
  const at = text.lastIndexOf('\n\n[');
  const notice = at >= 0 ? text.slice(at + 2) : '';
  if (!/^\[(Showing lines|Showing bytes|Line \d+ of) .*\]$/s.test(notice)) return { body: text };
  return { body: text.slice(0, at), notice };
}

/**
 * A result's body, and the calls its notice offers, parsed as a model would read them: `next` is
 * the line offset offered, `bytes` the byte range offered, `longLine` the number of a line cut at the byte limit.
 */
function window(res: ToolResult): { body: string; next?: number; longLine?: number; bytes?: { byteOffset: number; byteLength: number } } {
  const { body, notice } = split(res);
  const out: ReturnType<typeof window> = { body };
  if (notice === undefined) return out;
  const long = /^\[Line (\d+) of /.exec(notice);
  if (long) out.longLine = Number(long[1]);
  for (const m of notice.matchAll(CALL)) {
    const call = parseCall(m);
    if (call.byteOffset !== undefined) out.bytes = { byteOffset: call.byteOffset, byteLength: call.byteLength! };
    else out.next = call.offset;
  }
  return out;
}

function parseCall(m: RegExpMatchArray): NextCall {
  const call: NextCall = { path: JSON.parse(m[1]) as string, [m[2]]: Number(m[3]) };
  if (m[4] !== undefined) (call as unknown as Record<string, number>)[m[4]] = Number(m[5]);
  return call;
}

/** The first call a notice offers ("Continue with …" / "Continue inside this line with …"), as arguments for the next read. */
function nextCall(res: ToolResult): NextCall | undefined {
  const { notice } = split(res);
  const m = notice === undefined ? undefined : [...notice.matchAll(CALL)][0];
  return m ? parseCall(m) : undefined;
}

/** The lines read_file should see in a file: split on \n, one trailing \r dropped, no empty last line after a final \n. */
function linesOf(content: string): string[] {
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => l.replace(/\r$/, ''));
}

/** Reads a whole file window by window, following each notice's line offset; returns the lines and the windows. */
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
      if (w.next !== undefined) expect(w.next).toBe(offset + 1);
    } else {
      lines.push(...w.body.split('\n'));
      if (w.next !== undefined) expect(w.next).toBe(offset + w.body.split('\n').length);
    }
    // Small files have their lines counted, so a cut last line offers no offset after it.
    if (w.next === undefined) return { lines, windows };
    offset = w.next;
  }
  throw new Error('did not finish');
}

/** Reads a file from `first` on, always making exactly the call the previous notice offers; returns the bodies and results. */
async function follow(cwd: string, first: Record<string, unknown>, limits?: TruncateLimits, maxCalls = 10_000) {
  const bodies: string[] = [];
  const results: ToolResult[] = [];
  let args: Record<string, unknown> | undefined = first;
  while (args) {
    if (results.length >= maxCalls) throw new Error('did not finish');
    const res = await read(cwd, args, limits);
    if (res.isError) throw new Error(`read_file(${JSON.stringify(args)}) failed: ${textOf(res.content)}`);
    results.push(res);
    bodies.push(window(res).body);
    args = nextCall(res) as Record<string, unknown> | undefined;
  }
  return { bodies, results };
}

describe('read_file: reading', () => {
  it('reads a small file whole, with details', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'hello.txt'), 'first line\nsecond line\nthird line\n');
    const res = await read(ws, { path: 'hello.txt' });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('first line\nsecond line\nthird line');
    expect(res.details).toEqual({ path: 'hello.txt', sizeBytes: 34, startLine: 1, endLine: 3, startByte: 0, endByte: 34, totalLines: 3, truncated: false });
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

  it('a file that starts like a PNG but is cut off is an image that cannot be sent: a note says so (images are read_file results, issue 23)', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
    const res = await read(ws, { path: 'img.png' });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toMatch(/^\[image: img\.png, PNG, 16 B — not sent: it could not be decoded \(.+\)\]$/);
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
    expect(split(first).notice).toBe('[Showing lines 1-2000 of big.txt; stopped at 2000 lines. The file has 98894 bytes (96.6 KB) and 10000 lines. ' + 'Continue with read_file(path="big.txt", offset=2001).]');
    expect(w.next).toBe(2001);
    expect(first.details).toEqual({
      path: 'big.txt',
      sizeBytes: 98_894,
      startLine: 1,
      endLine: 2000,
      startByte: 0,
      endByte: Buffer.byteLength(lines.slice(0, 2000).join('\n') + '\n'),
      totalLines: 10_000,
      truncated: true,
    });
    // The registry left the tool's own notice alone.
    expect(textOf(first.content)).not.toContain('[Output truncated');

    const second = await read(ws, { path: 'big.txt', offset: 2001 });
    expect(window(second).body.split('\n')[0]).toBe('line 2001');

    const all = await readAll(ws, 'big.txt');
    expect(all.windows).toHaveLength(5);
    expect(all.lines.join('\n') + '\n').toBe(content);
    expect(all.windows[4].details).toMatchObject({ startLine: 8001, endLine: 10_000, truncated: false });
    // Each window's byte range holds exactly its lines, and the ranges follow one another.
    const bytes = Buffer.from(content);
    let at = 0;
    for (const win of all.windows) {
      const d = win.details as { startByte: number; endByte: number };
      expect(d.startByte).toBe(at);
      expect(bytes.subarray(d.startByte, d.endByte).toString()).toBe(window(win).body + '\n');
      at = d.endByte;
    }
    expect(at).toBe(bytes.length);
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
    expect(split(first).notice).toBe(
      `[Showing lines 1-${w.next! - 1} of wide.txt; stopped at 50.0 KB. The file has ${Buffer.byteLength(content)} bytes (126.6 KB) and 1200 lines. ` + `Continue with read_file(path="wide.txt", offset=${w.next}).]`,
    );
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
    // The continuation keeps the limit the model chose.
    expect(split(mid).notice).toBe('[Showing lines 4-6 of ten.txt; stopped at limit=3. The file has 31 bytes (31 B) and 10 lines. Continue with read_file(path="ten.txt", offset=7, limit=3).]');
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
      expect(textOf(res.content)).toMatch(/offset 4 is past the end of three(-nonl)?\.txt, which has 3 lines \(\d bytes\)/);
      const far = await read(ws, { path: p, offset: 1000 });
      expect(far.isError).toBe(true);
      expect(textOf(far.content)).toMatch(/past the end/);
    }
  });

  it('invalid offset and limit values are refused by validation', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'f.txt'), 'x\n');
    // offset 0 and negative offsets are not schema errors: see test/read-file-tail.test.ts.
    for (const args of [{ limit: 0 }, { offset: 1.5 }, { offset: '2' }]) {
      const res = await read(ws, { path: 'f.txt', ...args });
      expect(res.isError).toBe(true);
      expect(textOf(res.content)).toMatch(/Invalid arguments/);
    }
  });

  it('cuts a single line longer than the byte limit; bytes continue inside it, offset after it', async () => {
    const ws = tempDir();
    const long = 'é'.repeat(100_000); // 200 KB in one line
    const content = `short\n${long}\nafter\n`;
    writeFileSync(join(ws, 'long.txt'), content);
    const first = await read(ws, { path: 'long.txt' });
    expect(window(first)).toEqual({ body: 'short', next: 2 });

    const res = await read(ws, { path: 'long.txt', offset: 2 });
    expect(res.isError).toBe(false);
    expect(split(res).notice).toBe(
      '[Line 2 of long.txt is longer than 50.0 KB; showing its first 51200 bytes (bytes 6-51205 of the file). ' +
        'The file has 200013 bytes (195.3 KB) and 3 lines. ' +
        'Continue inside this line with read_file(path="long.txt", byteOffset=51206, byteLength=51200). ' +
        'For the lines after it, use read_file(path="long.txt", offset=3).]',
    );
    const w = window(res);
    expect(w.body).toBe(cutToBytes(long, 50 * 1024));
    expect(w.body).not.toContain('\uFFFD');
    expect(res.details).toEqual({
      path: 'long.txt',
      sizeBytes: 200_013,
      startLine: 2,
      endLine: 2,
      startByte: 6,
      endByte: 51_206,
      totalLines: 3,
      truncated: true,
    });

    // Following the byte ranges reads the rest of that line, then on to the end of the file.
    const { bodies } = await follow(ws, { path: 'long.txt', offset: 2 });
    expect(bodies.join('')).toBe(content.slice('short\n'.length));

    const after = await read(ws, { path: 'long.txt', offset: 3 });
    expect(textOf(after.content)).toBe('after');
  });

  it('cuts a long line that ends the file without a newline, and one just over the limit', async () => {
    const ws = tempDir();
    const limits = { maxLines: 100, maxBytes: 1000 };
    writeFileSync(join(ws, 'a.txt'), 'x'.repeat(1500)); // between 1x and 2x the limit
    const a = window(await read(ws, { path: 'a.txt' }, limits));
    // Counted: it is the last line, so only the byte range is offered.
    expect(a).toEqual({ body: 'x'.repeat(1000), longLine: 1, bytes: { byteOffset: 1000, byteLength: 1000 } });
    writeFileSync(join(ws, 'b.txt'), 'y'.repeat(1001) + '\nz\n');
    const b = window(await read(ws, { path: 'b.txt' }, limits));
    expect(b).toEqual({ body: 'y'.repeat(1000), next: 2, longLine: 1, bytes: { byteOffset: 1000, byteLength: 1000 } });
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
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 40 }), fc.boolean(), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 6, max: 80 }), async (ls, finalNewline, maxLines, maxBytes) => {
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
      }),
      { numRuns: 150 },
    );
  });
});

/** `text` as a UTF-16 file with its byte order mark. */
function utf16(text: string, bigEndian: boolean): Buffer {
  const le = Buffer.from(text, 'utf16le');
  if (bigEndian) le.swap16();
  return Buffer.concat([Buffer.from(bigEndian ? [0xfe, 0xff] : [0xff, 0xfe]), le]);
}

type ByteDetails = { path: string; sizeBytes: number; startByte: number; endByte: number; totalLines?: number; truncated: boolean };

describe('read_file: byte ranges', () => {
  it('the schema offers byteOffset and byteLength, described for the model', () => {
    const [spec] = new ToolRegistry([createReadFileTool()]).specs();
    const schema = JSON.parse(JSON.stringify(spec.parameters)) as Record<string, any>;
    expect(schema.properties.byteOffset).toMatchObject({ type: 'integer', minimum: 0 });
    expect(schema.properties.byteLength).toMatchObject({ type: 'integer', minimum: 1 });
    expect(schema.properties.byteOffset.description).toMatch(/too long to read whole.*offset\/limit/s);
    expect(schema.properties.byteLength.description).toMatch(/51200.*clamped/);
    expect(schema.required).toEqual(['path']);
    expect(spec.description).toMatch(/byteOffset\/byteLength/);
  });

  it('reads a byte range; the notice gives the range, the size, the line count and the next call', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'f.txt'), 'alpha\nbeta\ngamma\n');
    const res = await read(ws, { path: 'f.txt', byteOffset: 3, byteLength: 5 });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('ha\nbe\n\n[Showing bytes 3-7 of f.txt (5 bytes). The file has 17 bytes (17 B) and 3 lines. Continue with read_file(path="f.txt", byteOffset=8, byteLength=5).]');
    expect(res.details).toEqual({ path: 'f.txt', sizeBytes: 17, startByte: 3, endByte: 8, totalLines: 3, truncated: true });

    const end = await read(ws, { path: 'f.txt', byteOffset: 8, byteLength: 100 });
    expect(textOf(end.content)).toBe('ta\ngamma\n\n\n[Showing bytes 8-16 of f.txt (9 bytes). The file has 17 bytes (17 B) and 3 lines. This is the end of the file.]');
    expect(split(end).body).toBe('ta\ngamma\n');
    expect(end.details).toMatchObject({ startByte: 8, endByte: 17, truncated: false });
  });

  it('byteOffset alone reads up to the cap; byteLength alone starts at byte 0', async () => {
    const ws = tempDir();
    const content = 'x'.repeat(60_000);
    writeFileSync(join(ws, 'f.txt'), content);
    const a = await read(ws, { path: 'f.txt', byteOffset: 100 });
    expect(a.details).toMatchObject({ startByte: 100, endByte: 51_300 });
    expect(window(a).bytes).toEqual({ byteOffset: 51_300, byteLength: 51_200 });
    const b = await read(ws, { path: 'f.txt', byteLength: 10 });
    expect(split(b).body).toBe('x'.repeat(10));
    expect(b.details).toMatchObject({ startByte: 0, endByte: 10 });
  });

  it('a byteLength over the cap is clamped, and the notice says so', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'f.txt'), 'y'.repeat(120_000));
    const res = await read(ws, { path: 'f.txt', byteOffset: 0, byteLength: 1_000_000 });
    expect(Buffer.byteLength(split(res).body)).toBe(51_200);
    expect(split(res).notice).toBe(
      '[Showing bytes 0-51199 of f.txt (51200 bytes). byteLength=1000000 is over the 50.0 KB cap; clamped to 51200. ' +
        'The file has 120000 bytes (117.2 KB) and 1 line. Continue with read_file(path="f.txt", byteOffset=51200, byteLength=51200).]',
    );
  });

  it('mixing line and byte arguments is an error; invalid byte values are refused by validation', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'f.txt'), 'x\n');
    for (const args of [
      { offset: 1, byteOffset: 0 },
      { limit: 5, byteLength: 10 },
      { offset: 2, byteLength: 1 },
    ]) {
      const res = await read(ws, { path: 'f.txt', ...args });
      expect(res.isError).toBe(true);
      expect(textOf(res.content)).toContain('offset/limit (lines) and byteOffset/byteLength (bytes) cannot be combined');
    }
    for (const args of [{ byteOffset: -1 }, { byteLength: 0 }, { byteOffset: 1.5 }, { byteLength: '10' }]) {
      const res = await read(ws, { path: 'f.txt', ...args });
      expect(res.isError).toBe(true);
      expect(textOf(res.content)).toMatch(/Invalid arguments/);
    }
  });

  it('a byteOffset past the end is an error that gives the size', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'f.txt'), 'abc\n');
    for (const byteOffset of [4, 5000]) {
      const res = await read(ws, { path: 'f.txt', byteOffset });
      expect(res.isError).toBe(true);
      expect(textOf(res.content)).toContain(`byteOffset ${byteOffset} is past the end of f.txt, which has 4 bytes (4 B); the last byte is at byteOffset 3`);
    }
    const last = await read(ws, { path: 'f.txt', byteOffset: 3 });
    expect(split(last).body).toBe('\n');
    // An empty file is simply empty, whatever the arguments.
    writeFileSync(join(ws, 'e.txt'), '');
    expect(textOf((await read(ws, { path: 'e.txt', byteOffset: 10 })).content)).toBe('(e.txt is empty)');
  });

  it('never cuts inside a UTF-8 character: the start moves forward, the end backs off, the notice gives the actual range', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'm.txt'), 'a€b😀c'); // a: 0, €: 1-3, b: 4, 😀: 5-8, c: 9
    const inside = await read(ws, { path: 'm.txt', byteOffset: 2, byteLength: 3 });
    expect(textOf(inside.content)).toBe(
      'b\n\n[Showing bytes 4-4 of m.txt (1 byte). byteOffset=2 is inside a character; starting at 4, the next character boundary. ' +
        'The file has 10 bytes (10 B) and 1 line. Continue with read_file(path="m.txt", byteOffset=5, byteLength=3).]',
    );
    expect(inside.details).toMatchObject({ startByte: 4, endByte: 5 });
    // A byteLength shorter than the character at the start still returns that whole character.
    const whole = await read(ws, { path: 'm.txt', byteOffset: 5, byteLength: 2 });
    expect(split(whole).body).toBe('😀');
    expect(whole.details).toMatchObject({ startByte: 5, endByte: 9 });
    // Inside the last character, nothing starts after it.
    const tail = await read(ws, { path: 'm.txt', byteOffset: 7 });
    expect(split(tail).body).toBe('c');
    writeFileSync(join(ws, 'n.txt'), 'ab😀');
    const none = await read(ws, { path: 'n.txt', byteOffset: 4 });
    expect(none.isError).toBe(true);
    expect(textOf(none.content)).toContain('byteOffset 4 is inside the last character of n.txt (6 bytes); nothing starts after it');
  });

  it('skips a UTF-8 byte order mark, and says so when asked to start inside it', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'bom.txt'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hello\n')]));
    const res = await read(ws, { path: 'bom.txt', byteOffset: 0 });
    expect(split(res).body).toBe('hello\n');
    expect(split(res).notice).toContain('byteOffset=0 is inside the byte order mark; starting at 3.');
    expect(res.details).toMatchObject({ startByte: 3, endByte: 9, totalLines: 1 });
    // A file that holds only a byte order mark is empty, read either way.
    writeFileSync(join(ws, 'only.txt'), Buffer.from([0xef, 0xbb, 0xbf]));
    for (const args of [{}, { byteOffset: 0 }, { offset: 1 }]) expect(textOf((await read(ws, { path: 'only.txt', ...args })).content)).toBe('(only.txt is empty)');
  });

  it('UTF-16 files: ranges count file bytes and snap to whole code units and surrogate pairs', async () => {
    const ws = tempDir();
    const text = 'a😀b\nc'; // LE: BOM 0-1, a 2-3, 😀 4-7, b 8-9, \n 10-11, c 12-13
    writeFileSync(join(ws, 'le.txt'), utf16(text, false));
    const first = await read(ws, { path: 'le.txt', byteOffset: 0, byteLength: 4 });
    expect(split(first).body).toBe('a'); // 2-5 would split the surrogate pair: backs off to 4
    expect(split(first).notice).toBe(
      '[Showing bytes 2-3 of le.txt (2 bytes). byteOffset=0 is inside the byte order mark; starting at 2. ' + 'The file has 14 bytes (14 B) and 2 lines. Continue with read_file(path="le.txt", byteOffset=4, byteLength=4).]',
    );
    expect(first.details).toMatchObject({ startByte: 2, endByte: 4, encoding: 'utf-16le' });
    for (const byteOffset of [5, 6, 7]) {
      const res = await read(ws, { path: 'le.txt', byteOffset, byteLength: 2 });
      expect(res.details).toMatchObject({ startByte: 8, endByte: 10 });
      expect(split(res).body).toBe('b');
    }
    for (const big of [false, true]) {
      writeFileSync(join(ws, 'u.txt'), utf16(text, big));
      const { bodies } = await follow(ws, { path: 'u.txt', byteOffset: 0, byteLength: 3 });
      expect(bodies).toEqual(['a', '😀', 'b', '\n', 'c']);
    }
    // A long UTF-16 line continues by bytes too.
    writeFileSync(join(ws, 'long16.txt'), utf16('abcdefghijklmnop\nq', false));
    const limits = { maxLines: 100, maxBytes: 10 };
    const long = await read(ws, { path: 'long16.txt' }, limits);
    expect(window(long)).toEqual({ body: 'abcde', longLine: 1, next: 2, bytes: { byteOffset: 12, byteLength: 10 } });
    const { bodies } = await follow(ws, { path: 'long16.txt' }, limits);
    expect(bodies.join('')).toBe('abcdefghijklmnop\nq');
  });

  it('bytes that are not UTF-8 (Latin-1) are paged too, each page kept under the cap once decoded', async () => {
    const ws = tempDir();
    const latin = Buffer.from('é'.repeat(30_000) + '\nafter\n', 'latin1'); // each é: one byte, shown as a 3-byte U+FFFD
    writeFileSync(join(ws, 'l1.txt'), latin);
    const long = await read(ws, { path: 'l1.txt' });
    const w = window(long);
    expect(w.longLine).toBe(1);
    expect(w.next).toBe(2);
    expect(Buffer.byteLength(w.body)).toBeLessThanOrEqual(50 * 1024);
    expect((long.details as ByteDetails).endByte).toBeLessThan(30_000); // stays inside line 1
    const { results } = await follow(ws, { path: 'l1.txt', byteOffset: 0 });
    let at = 0;
    for (const r of results) {
      const d = r.details as ByteDetails;
      expect(d.startByte).toBe(at);
      expect(Buffer.byteLength(split(r).body)).toBeLessThanOrEqual(50 * 1024);
      at = d.endByte;
    }
    expect(at).toBe(latin.length);
    expect(results.map((r) => split(r).body).join('')).toBe('\uFFFD'.repeat(30_000) + '\nafter\n');
  });

  it('pages through a 3 MB one-line minified file with the notices’ own arguments until every byte is read', async () => {
    const ws = tempDir();
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < 3 * 1024 * 1024; i++) {
      const part = `var a${i}=function(b,c){return b?"é€${i}😀":c*${i}+[1,2,3].map(function(d){return d+"ü"})};`;
      parts.push(part);
      size += Buffer.byteLength(part);
    }
    const content = parts.join('');
    expect(content).not.toContain('\n');
    writeFileSync(join(ws, 'x.min.js'), content);

    const { bodies, results } = await follow(ws, { path: 'x.min.js' });
    // The first call, by lines, meets one line longer than the cap and points into it by bytes.
    expect(split(results[0]).notice).toBe(
      `[Line 1 of x.min.js is longer than 50.0 KB; showing its first ${Buffer.byteLength(bodies[0])} bytes (bytes 0-${Buffer.byteLength(bodies[0]) - 1} of the file). ` +
        `The file has ${size} bytes (3.0 MB) and 1 line. ` +
        `Continue inside this line with read_file(path="x.min.js", byteOffset=${Buffer.byteLength(bodies[0])}, byteLength=51200). It is the last line of the file.]`,
    );
    expect(results.length).toBeGreaterThan(60);
    for (const r of results.slice(1)) {
      expect(split(r).notice).toMatch(new RegExp(`^\\[Showing bytes \\d+-\\d+ of x\\.min\\.js \\(\\d+ bytes\\)\\. The file has ${size} bytes \\(3\\.0 MB\\) and 1 line\\. `));
      expect(Buffer.byteLength(split(r).body)).toBeLessThanOrEqual(51_200);
    }
    expect(split(results[results.length - 1]).notice).toMatch(/This is the end of the file\.\]$/);
    expect(bodies.join('')).toBe(content);
    expect(bodies.join('')).not.toContain('\uFFFD');
  });

  const pieces = fc.constantFrom('a', 'Z', ' ', '\n', '\r', '\t', 'é', 'ß', '€', '中', '😀', '🎉');
  const text = fc.array(pieces, { minLength: 1, maxLength: 120 }).map((cs) => cs.join(''));

  it('property: consecutive byte pages cover every byte exactly once (random UTF-8 text, random byteLengths)', async () => {
    const ws = tempDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(text, fc.array(fc.integer({ min: 1, max: 24 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 4, max: 32 }), async (content, lengths, maxBytes) => {
        const name = `u${n++}.txt`;
        writeFileSync(join(ws, name), content);
        const bytes = Buffer.from(content);
        const limits = { maxLines: 2000, maxBytes };
        const pages: Buffer[] = [];
        let byteOffset = 0;
        for (let k = 0; ; k++) {
          const byteLength = lengths[k % lengths.length];
          const res = await read(ws, { path: name, byteOffset, byteLength }, limits);
          expect(res.isError).toBe(false);
          const d = res.details as ByteDetails;
          const page = Buffer.from(split(res).body);
          expect(d.startByte).toBe(byteOffset);
          expect(page.length).toBe(d.endByte - d.startByte);
          expect(page.length).toBeGreaterThan(0);
          expect(page.length).toBeLessThanOrEqual(Math.max(Math.min(byteLength, maxBytes), 4)); // one whole character at least
          pages.push(page);
          const next = nextCall(res);
          if (!next) {
            expect(d.endByte).toBe(bytes.length);
            break;
          }
          expect(next).toEqual({ path: name, byteOffset: d.endByte, byteLength: Math.min(byteLength, maxBytes) });
          byteOffset = next.byteOffset!;
        }
        expect(Buffer.concat(pages).equals(bytes)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('property: a byteOffset anywhere starts at the next character boundary, and the notice says where', async () => {
    const ws = tempDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(text, fc.nat(), fc.integer({ min: 1, max: 24 }), async (content, at, byteLength) => {
        const name = `s${n++}.txt`;
        writeFileSync(join(ws, name), content);
        const bytes = Buffer.from(content);
        const byteOffset = at % bytes.length;
        const continuation = (i: number) => i < bytes.length && (bytes[i] & 0xc0) === 0x80;
        let start = byteOffset;
        while (continuation(start)) start++;
        const res = await read(ws, { path: name, byteOffset, byteLength });
        if (start === bytes.length) {
          expect(textOf(res.content)).toMatch(/is inside the last character/);
          return;
        }
        const d = res.details as ByteDetails;
        expect(d.startByte).toBe(start);
        expect(split(res).body).toBe(bytes.subarray(d.startByte, d.endByte).toString());
        expect(continuation(d.endByte)).toBe(false);
        expect(split(res).notice!.includes(`byteOffset=${byteOffset} is inside a character; starting at ${start}`)).toBe(start !== byteOffset);
      }),
      { numRuns: 300 },
    );
  });

  // Any bytes but NUL (a NUL makes it binary), often behind a byte order mark (UTF-8, UTF-16 BE or LE), sometimes nothing else.
  const anyBytes = fc
    .tuple(fc.constantFrom([], [], [0xef, 0xbb, 0xbf], [0xfe, 0xff], [0xff, 0xfe]), fc.uint8Array({ min: 1, max: 255, minLength: 0, maxLength: 80 }))
    .map(([mark, rest]) => Uint8Array.from([...mark, ...rest]))
    .filter((data) => data.length > 0);

  it('property: pages chain without gap or overlap over any bytes, even invalid UTF-8 or behind a byte order mark', async () => {
    const ws = tempDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(anyBytes, fc.integer({ min: 1, max: 16 }), async (data, byteLength) => {
        const name = `r${n++}.bin`;
        writeFileSync(join(ws, name), data);
        const limits = { maxLines: 2000, maxBytes: 12 };
        const { results } = await follow(ws, { path: name, byteOffset: 0, byteLength }, limits);
        // A byte order mark is skipped: UTF-8's three bytes, or UTF-16's two (FE FF, FF FE: the file is then read as UTF-16).
        const utf16 = (data[0] === 0xfe && data[1] === 0xff) || (data[0] === 0xff && data[1] === 0xfe);
        let at = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? 3 : utf16 ? 2 : 0;
        if (at === data.length) {
          // Nothing but the mark: one answer that the file is empty, and no page.
          expect(results).toHaveLength(1);
          expect(textOf(results[0].content)).toBe(`(${name} is empty)`);
          return;
        }
        for (const r of results) {
          const d = r.details as ByteDetails;
          expect(d.startByte).toBe(at);
          expect(d.endByte).toBeGreaterThan(d.startByte);
          expect(Buffer.byteLength(split(r).body)).toBeLessThanOrEqual(12);
          at = d.endByte;
        }
        expect(at).toBe(data.length);
      }),
      { numRuns: 200 },
    );
  });

  it('property: UTF-16 files (LE and BE) page back to their text exactly', async () => {
    const ws = tempDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(text, fc.boolean(), fc.integer({ min: 1, max: 24 }), async (content, big, byteLength) => {
        const name = `w${n++}.txt`;
        writeFileSync(join(ws, name), utf16(content, big));
        const { bodies, results } = await follow(ws, { path: name, byteOffset: 0, byteLength });
        expect(bodies.join('')).toBe(content);
        let at = 2;
        for (const r of results) {
          const d = r.details as ByteDetails;
          expect(d.startByte).toBe(at);
          expect(d.endByte - d.startByte).toBeLessThanOrEqual(Math.max(byteLength, 4));
          at = d.endByte;
        }
        expect(at).toBe(2 + Buffer.byteLength(content, 'utf16le'));
      }),
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
      return {
        value,
        elapsed,
        rss: after.rss - before.rss,
        heap: after.heapUsed - before.heapUsed,
        arrayBuffers: after.arrayBuffers - before.arrayBuffers,
      };
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
    expect(m.value.details).toMatchObject({ sizeBytes: 200 * MB, truncated: true });
    expect(m.value.details).not.toHaveProperty('totalLines');
    expect(split(m.value).notice).toBe(
      '[Showing lines 1-2000 of huge.log; stopped at 2000 lines. The file has 209715200 bytes (200.0 MB); ' + 'its line count was not computed (over 8.0 MB). Continue with read_file(path="huge.log", offset=2001).]',
    );
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
    // Not counted, so the lines after it are offered "if any"; inside it, bytes continue.
    expect(split(m.value).notice).toBe(
      '[Line 1 of oneline.txt is longer than 50.0 KB; showing its first 51200 bytes (bytes 0-51199 of the file). ' +
        'The file has 209715200 bytes (200.0 MB); its line count was not computed (over 8.0 MB). ' +
        'Continue inside this line with read_file(path="oneline.txt", byteOffset=51200, byteLength=51200). ' +
        'For the lines after it, if any, use read_file(path="oneline.txt", offset=2).]',
    );
    expect(m.elapsed).toBeLessThan(3000);
    expect(m.rss).toBeLessThan(60 * MB);
    expect(m.arrayBuffers).toBeLessThan(20 * MB);
  });

  it('reads bytes near the end of a sparse 1 GiB file with a positioned read: quick, memory bounded', async () => {
    const ws = tempDir();
    const file = join(ws, 'giant.log');
    writeFileSync(file, 'header line\n'.repeat(1000)); // 12 KB of text: the binary sniff sees only text
    const far = 'needle: found at the far end\n';
    const fd = openSync(file, 'r+');
    writeSync(fd, far, 1_000_000_000);
    closeSync(fd);
    truncateSync(file, 1024 * MB); // sparse: only the two ends are on disk

    const m = await measure(() => read(ws, { path: 'giant.log', byteOffset: 1_000_000_000, byteLength: far.length }))();
    expect(m.value.isError).toBe(false);
    expect(split(m.value).body).toBe(far);
    expect(split(m.value).notice).toBe(
      `[Showing bytes 1000000000-${1_000_000_000 + far.length - 1} of giant.log (${far.length} bytes). The file has 1073741824 bytes (1024.0 MB); ` +
        `its line count was not computed (over 8.0 MB). Continue with read_file(path="giant.log", byteOffset=${1_000_000_000 + far.length}, byteLength=${far.length}).]`,
    );
    expect(m.value.details).toEqual({ path: 'giant.log', sizeBytes: 1024 * MB, startByte: 1_000_000_000, endByte: 1_000_000_000 + far.length, truncated: true });
    expect(m.elapsed).toBeLessThan(3000);
    expect(m.rss).toBeLessThan(64 * MB);
    expect(m.heap).toBeLessThan(64 * MB);

    // A full page just before the needle, the very end, and the first window of lines are bounded too.
    const page = await measure(() => read(ws, { path: 'giant.log', byteOffset: 1_000_000_000 - 40_000 }))();
    expect(split(page.value).body.slice(40_000, 40_000 + far.length)).toBe(far);
    const end = await measure(() => read(ws, { path: 'giant.log', byteOffset: 1024 * MB - 3 }))();
    expect(split(end.value).body).toBe('\0\0\0');
    expect(split(end.value).notice).toMatch(/This is the end of the file\.\]$/);
    const lines = await measure(() => read(ws, { path: 'giant.log' }))();
    expect(window(lines.value).next).toBe(1001); // 1000 header lines, then a line of NULs longer than the cap
    for (const x of [page, end, lines]) {
      expect(x.elapsed).toBeLessThan(3000);
      expect(x.rss).toBeLessThan(64 * MB);
      expect(x.heap).toBeLessThan(64 * MB);
    }
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
