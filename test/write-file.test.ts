// write_file through the public ToolRegistry: creating files and their folders, overwriting
// atomically (no temp files left, the mode kept), the size limit, the workspace boundary, and
// refusing a folder or a special file.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf, type ToolCall } from '../src/core/types.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { ToolResult } from '../src/tools/tool.js';
import { createWriteFileTool } from '../src/tools/write-file.js';
import { tempDir } from './support/helpers.js';

let ids = 0;
function write(cwd: string, args: Record<string, unknown>, reg = new ToolRegistry([createWriteFileTool()])): Promise<ToolResult> {
  const call: ToolCall = { type: 'toolCall', id: `w${++ids}`, name: 'write_file', arguments: args };
  return reg.execute(call, { cwd, signal: new AbortController().signal });
}

const text = (res: ToolResult) => textOf(res.content);

describe('write_file', () => {
  it('creates a file and its missing parent folders inside the workspace', async () => {
    const ws = tempDir();
    const res = await write(ws, { path: 'src/deep/er/mod.ts', content: 'export const x = 1;\n' });
    expect(res.isError).toBe(false);
    expect(text(res)).toBe('Created src/deep/er/mod.ts (20 bytes).');
    expect(res.details).toEqual({ path: 'src/deep/er/mod.ts', bytes: 20, created: true });
    expect(readFileSync(join(ws, 'src/deep/er/mod.ts'), 'utf8')).toBe('export const x = 1;\n');
  });

  it('overwrites an existing file exactly (unicode, CRLF, empty), leaving no temp files', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'a.txt'), 'old and much longer content\n'.repeat(50));
    const content = 'naïve ☃ 😀\r\nline two\n';
    const res = await write(ws, { path: 'a.txt', content });
    expect(res.isError).toBe(false);
    expect(text(res)).toBe(`Overwrote a.txt (${Buffer.byteLength(content)} bytes; it had 1400).`);
    // The diff from the old text is for the front ends (details only; the model gets one line).
    expect(res.details).toEqual({ path: 'a.txt', bytes: Buffer.byteLength(content), created: false, diff: expect.stringMatching(/^@@ -1,50 \+1,2 @@\n- 1│old and much/), linesAdded: 2, linesRemoved: 50 });
    expect(res.details!.diff).toContain('+ 1│naïve ☃ 😀');
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe(content);
    expect((await write(ws, { path: 'a.txt', content: '' })).isError).toBe(false);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('');
    expect(readdirSync(ws)).toEqual(['a.txt']);
  });

  it('keeps the mode of the file it replaces', async () => {
    const ws = tempDir();
    const file = join(ws, 'run.sh');
    writeFileSync(file, 'echo old\n');
    chmodSync(file, 0o750);
    expect((await write(ws, { path: 'run.sh', content: 'echo new\n' })).isError).toBe(false);
    expect(statSync(file).mode & 0o7777).toBe(0o750);
    expect(readFileSync(file, 'utf8')).toBe('echo new\n');
  });

  it('refuses a folder, and a path through a file', async () => {
    const ws = tempDir();
    mkdirSync(join(ws, 'dir'));
    writeFileSync(join(ws, 'plain'), 'x');
    const dir = await write(ws, { path: 'dir', content: 'x' });
    expect(dir.isError).toBe(true);
    expect(text(dir)).toContain('dir is a folder; give the path of a file inside it');
    const trailing = await write(ws, { path: 'dir/', content: 'x' });
    expect(text(trailing)).toContain('names a folder');
    const through = await write(ws, { path: 'plain/child.txt', content: 'x' });
    expect(through.isError).toBe(true);
    expect(text(through)).toContain('goes through a file as if it were a folder');
    expect(readdirSync(ws).sort()).toEqual(['dir', 'plain']);
    expect(readdirSync(join(ws, 'dir'))).toEqual([]);
  });

  it('refuses a special file', async () => {
    const ws = tempDir();
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    const res = await write(ws, { path: 'pipe', content: 'x' });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('is not a regular file');
  });

  it('refuses paths outside the workspace: relative, absolute, and through a symbolic link', async () => {
    const ws = tempDir();
    const outside = tempDir();
    symlinkSync(outside, join(ws, 'escape'));
    for (const path of ['../evil.txt', join(outside, 'evil.txt'), 'escape/evil.txt', 'escape/new/dir/evil.txt']) {
      const res = await write(ws, { path, content: 'x' });
      expect(res.isError, path).toBe(true);
      expect(text(res)).toContain('outside the workspace');
    }
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses content over the size limit, writing nothing', async () => {
    const ws = tempDir();
    const reg = new ToolRegistry([createWriteFileTool({ maxBytes: 10 })]);
    const res = await write(ws, { path: 'big.txt', content: 'x'.repeat(11) }, reg);
    expect(res.isError).toBe(true);
    expect(text(res)).toContain("content is 11 B (11 bytes), over write_file's limit of 10 B; nothing was written");
    expect(readdirSync(ws)).toEqual([]);
  });

  it('serializes writes to one path: the last one queued wins, every write whole', async () => {
    const ws = tempDir();
    const reg = new ToolRegistry([createWriteFileTool()]);
    const contents = Array.from({ length: 8 }, (_, i) => `${i}`.repeat(50_000));
    const results = await Promise.all(contents.map((content) => write(ws, { path: 'same.txt', content }, reg)));
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(results.filter((r) => r.details?.created)).toHaveLength(1);
    expect(readFileSync(join(ws, 'same.txt'), 'utf8')).toBe(contents[7]);
    expect(readdirSync(ws)).toEqual(['same.txt']);
  });

  it('declares the real path it writes, for the scheduler', () => {
    const ws = tempDir();
    expect(createWriteFileTool().paths!({ path: 'a/b.txt', content: '' }, { cwd: ws })).toEqual([join(ws, 'a/b.txt')]);
  });
});
