// The file tools through a client's file access (an editor's buffers over ACP), driven through the
// public ToolRegistry with a fake client backed by a Map: an "unsaved buffer" that differs from
// the disk. read_file shows the buffer (same windows and notices as a disk file: a property compares
// them), write_file and edit_file land in the buffer and leave the disk alone, the workspace
// boundary refuses a path before the client is asked, and a client failure is an error naming the file.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textOf, type ToolCall } from '../src/core/types.js';
import { createEditFileTool } from '../src/tools/edit-file.js';
import { PathQueue } from '../src/tools/file-io.js';
import { createReadFileTool } from '../src/tools/read-file.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { FileAccess, ToolResult } from '../src/tools/tool.js';
import type { TruncateLimits } from '../src/tools/truncate.js';
import { createWriteFileTool } from '../src/tools/write-file.js';
import { tempDir } from './support/helpers.js';

/** A client holding buffers by absolute path; it records every call, and may be told to fail. */
class FakeClient implements FileAccess {
  readonly buffers = new Map<string, string>();
  readonly calls: string[] = [];
  failRead?: string;
  failWrite?: string;

  async readTextFile(path: string): Promise<string> {
    this.calls.push(`read ${path}`);
    await new Promise((r) => setTimeout(r, 1)); // a real client answers later, so that queued calls can interleave
    if (this.failRead) throw new Error(this.failRead);
    const text = this.buffers.get(path);
    if (text === undefined) throw new Error(`Resource not found: ${path}`);
    return text;
  }

  async writeTextFile(path: string, content: string): Promise<void> {
    this.calls.push(`write ${path}`);
    await new Promise((r) => setTimeout(r, 1));
    if (this.failWrite) throw new Error(this.failWrite);
    this.buffers.set(path, content);
  }
}

let ids = 0;
function run(reg: ToolRegistry, cwd: string, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const call: ToolCall = { type: 'toolCall', id: `c${++ids}`, name, arguments: args };
  return reg.execute(call, { cwd, signal: new AbortController().signal });
}

function tools(limits?: TruncateLimits) {
  const queue = new PathQueue();
  return [createReadFileTool(limits), createWriteFileTool({ queue }), createEditFileTool({ queue })];
}

const text = (res: ToolResult) => textOf(res.content);

/** A workspace with `f.txt` holding `disk` on disk and `buffer` in the client's buffer. */
function setup(disk: string, buffer?: string, limits?: TruncateLimits) {
  const ws = tempDir();
  const file = join(ws, 'f.txt');
  writeFileSync(file, disk);
  const client = new FakeClient();
  if (buffer !== undefined) client.buffers.set(file, buffer);
  return { ws, file, client, reg: new ToolRegistry(tools(limits), { files: client }) };
}

describe('read_file through the client', () => {
  it("returns the buffer's text, not the disk's, with via: 'client'", async () => {
    const { ws, file, client, reg } = setup('on disk\n', 'unsaved line 1\nunsaved line 2\n');
    const res = await run(reg, ws, 'read_file', { path: 'f.txt' });
    expect(res.isError).toBe(false);
    expect(text(res)).toBe('unsaved line 1\nunsaved line 2');
    expect(res.details).toMatchObject({ path: 'f.txt', via: 'client', totalLines: 2, sizeBytes: 30 });
    expect(client.calls).toEqual([`read ${file}`]);
  });

  it('applies offset and limit (with the continuation notice), a negative offset, and byte ranges to the buffer', async () => {
    const buffer = Array.from({ length: 10 }, (_, i) => `buffer row ${i + 1}`).join('\n') + '\n';
    const { ws, reg } = setup('disk row 1\n', buffer);
    const mid = await run(reg, ws, 'read_file', { path: 'f.txt', offset: 3, limit: 2 });
    expect(text(mid)).toBe('buffer row 3\nbuffer row 4\n\n[Showing lines 3-4 of f.txt; stopped at limit=2. The file has 131 bytes (131 B) and 10 lines. Continue with read_file(path="f.txt", offset=5, limit=2).]');
    expect(mid.details).toMatchObject({ startLine: 3, endLine: 4, truncated: true, via: 'client' });
    const tail = await run(reg, ws, 'read_file', { path: 'f.txt', offset: -2 });
    expect(text(tail)).toMatch(/^buffer row 9\nbuffer row 10\n\n\[Showing lines 9-10 of f.txt, the end of the file\./);
    const bytes = await run(reg, ws, 'read_file', { path: 'f.txt', byteOffset: 7, byteLength: 5 });
    expect(text(bytes)).toMatch(/^row 1\n\n\[Showing bytes 7-11 of f\.txt \(5 bytes\)\./);
  });

  it('says an empty buffer is empty, and refuses a buffer holding NUL characters as binary', async () => {
    const { ws, file, client, reg } = setup('not empty on disk\n', '');
    expect(text(await run(reg, ws, 'read_file', { path: 'f.txt' }))).toBe('(f.txt is empty)');
    client.buffers.set(file, 'a\0b');
    const res = await run(reg, ws, 'read_file', { path: 'f.txt' });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('f.txt looks like a binary file');
  });

  it('gives the same result as reading the same text from disk, for any text and any window (property)', async () => {
    const char = fc.constantFrom('a', 'b', ' ', 'é', '€', '😀', '\r', '\n', '\n', '\t');
    const line = fc.array(char, { maxLength: 30 }).map((cs) => cs.join(''));
    const window = fc.oneof(
      fc.record({ offset: fc.integer({ min: -15, max: 15 }).filter((n) => n !== 0), limit: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }) }),
      fc.record({ byteOffset: fc.integer({ min: 0, max: 120 }), byteLength: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }) }),
      fc.constant({}),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 12 }).map((ls) => ls.join('\n')),
        fc.boolean(),
        window,
        fc.record({ maxLines: fc.integer({ min: 1, max: 8 }), maxBytes: fc.integer({ min: 8, max: 64 }) }),
        async (body, bom, args, limits) => {
          const content = (bom ? '\uFEFF' : '') + body;
          const ws = tempDir();
          writeFileSync(join(ws, 'f.txt'), content);
          const client = new FakeClient();
          client.buffers.set(join(ws, 'f.txt'), content);
          const fromDisk = await run(new ToolRegistry(tools(limits)), ws, 'read_file', { path: 'f.txt', ...args });
          const fromClient = await run(new ToolRegistry(tools(limits), { files: client }), ws, 'read_file', { path: 'f.txt', ...args });
          expect(text(fromClient)).toBe(text(fromDisk));
          expect(fromClient.isError).toBe(fromDisk.isError);
          if (!fromDisk.isError) expect(fromClient.details).toEqual({ ...fromDisk.details, via: 'client' });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('write_file through the client', () => {
  it('writes the buffer and leaves the disk file as it was', async () => {
    const { ws, file, client, reg } = setup('disk content\n', 'old buffer\n');
    const res = await run(reg, ws, 'write_file', { path: 'f.txt', content: 'new text\n' });
    expect(res.isError).toBe(false);
    expect(text(res)).toBe('Overwrote f.txt (9 bytes; through the client).');
    expect(res.details).toEqual({ path: 'f.txt', bytes: 9, created: false, via: 'client' });
    expect(client.buffers.get(file)).toBe('new text\n');
    expect(readFileSync(file, 'utf8')).toBe('disk content\n');
    expect(client.calls).toEqual([`write ${file}`]);
  });

  it('creates a new file only in the client, not on disk (no folders made either)', async () => {
    const { ws, client, reg } = setup('x');
    const res = await run(reg, ws, 'write_file', { path: 'src/new.ts', content: 'export {};\n' });
    expect(text(res)).toBe('Created src/new.ts (11 bytes; through the client).');
    expect(client.buffers.get(join(ws, 'src', 'new.ts'))).toBe('export {};\n');
    expect(existsSync(join(ws, 'src'))).toBe(false);
  });
});

describe('edit_file through the client', () => {
  it('edits the buffer (text only the buffer has), shows the right diff, and leaves the disk alone', async () => {
    const buffer = Array.from({ length: 8 }, (_, i) => `unsaved ${i + 1}`).join('\n') + '\n';
    const { ws, file, client, reg } = setup('saved\n', buffer);
    const res = await run(reg, ws, 'edit_file', { path: 'f.txt', edits: [{ oldText: 'unsaved 5\n', newText: 'five\nfive and a half\n' }] });
    expect(res.isError).toBe(false);
    expect(text(res)).toBe(
      [
        'Edited f.txt through the client: 1 replacement, +2 -1 lines, first change at line 5.',
        '',
        '@@ -2,7 +2,8 @@',
        '  2│unsaved 2',
        '  3│unsaved 3',
        '  4│unsaved 4',
        '- 5│unsaved 5',
        '+ 5│five',
        '+ 6│five and a half',
        '  7│unsaved 6',
        '  8│unsaved 7',
        '  9│unsaved 8',
      ].join('\n'),
    );
    expect(res.details).toEqual({ path: 'f.txt', edits: 1, replacements: 1, tolerant: null, firstChangedLine: 5, linesAdded: 2, linesRemoved: 1, via: 'client' });
    expect(client.buffers.get(file)).toBe(buffer.replace('unsaved 5\n', 'five\nfive and a half\n'));
    expect(readFileSync(file, 'utf8')).toBe('saved\n');
    expect(client.calls).toEqual([`read ${file}`, `write ${file}`]);
  });

  it('keeps the BOM and CRLF line endings of the buffer', async () => {
    const { ws, file, client, reg } = setup('x', '\uFEFFone\r\ntwo\r\nthree\r\n');
    const res = await run(reg, ws, 'edit_file', { path: 'f.txt', edits: [{ oldText: 'two', newText: 'TWO' }] });
    expect(res.isError).toBe(false);
    expect(client.buffers.get(file)).toBe('\uFEFFone\r\nTWO\r\nthree\r\n');
  });

  it('gives the same result and the same new text as editing that text on disk, for random edits (property)', async () => {
    const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'é€', '😀');
    const line = fc.array(word, { minLength: 1, maxLength: 4 }).map((ws) => ws.join(' '));
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 10 }), fc.boolean(), fc.boolean(), fc.nat(), fc.string({ maxLength: 12 }), async (lines, crlf, bom, pick, replacement) => {
        const content = (bom ? '\uFEFF' : '') + lines.join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n');
        const oldText = lines[pick % lines.length];
        const args = { path: 'f.txt', edits: [{ oldText, newText: replacement }], replaceAll: true };
        const disk = tempDir();
        writeFileSync(join(disk, 'f.txt'), content);
        const fromDisk = await run(new ToolRegistry(tools()), disk, 'edit_file', args);
        const { ws, file, client, reg } = setup('saved', content);
        const fromClient = await run(reg, ws, 'edit_file', args);
        expect(text(fromClient)).toBe(text(fromDisk).replace('Edited f.txt:', 'Edited f.txt through the client:'));
        expect(client.buffers.get(file)).toBe(readFileSync(join(disk, 'f.txt'), 'utf8'));
        expect(readFileSync(file, 'utf8')).toBe('saved');
      }),
      { numRuns: 150 },
    );
  });

  it('serializes edits of one path: two edits sent together both land in the buffer', async () => {
    const { ws, file, client, reg } = setup('x', 'first\nsecond\n');
    const [a, b] = await Promise.all([run(reg, ws, 'edit_file', { path: 'f.txt', edits: [{ oldText: 'first', newText: 'FIRST' }] }), run(reg, ws, 'edit_file', { path: 'f.txt', edits: [{ oldText: 'second', newText: 'SECOND' }] })]);
    expect([a.isError, b.isError]).toEqual([false, false]);
    expect(client.buffers.get(file)).toBe('FIRST\nSECOND\n');
    expect(client.calls).toEqual([`read ${file}`, `write ${file}`, `read ${file}`, `write ${file}`]);
  });
});

describe('the boundary and failures', () => {
  it('refuses paths outside the workspace before the client is asked', async () => {
    const { ws, client, reg } = setup('x', 'x');
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    const attempts = [
      ['read_file', { path: '../' + outside.split('/').pop() + '/secret.txt' }],
      ['read_file', { path: join(outside, 'secret.txt') }],
      ['write_file', { path: join(outside, 'secret.txt'), content: 'x' }],
      ['edit_file', { path: join(outside, 'secret.txt'), edits: [{ oldText: 'secret', newText: 'x' }] }],
    ] as const;
    for (const [name, args] of attempts) {
      const res = await run(reg, ws, name, args);
      expect(res.isError).toBe(true);
      expect(text(res)).toContain('is outside the workspace');
    }
    expect(client.calls).toEqual([]);
  });

  it('refuses a folder without asking the client', async () => {
    const { ws, client, reg } = setup('x');
    mkdirSync(join(ws, 'dir'));
    expect(text(await run(reg, ws, 'read_file', { path: 'dir' }))).toContain('dir is not a regular file (a directory)');
    expect(text(await run(reg, ws, 'edit_file', { path: 'dir', edits: [{ oldText: 'a', newText: 'b' }] }))).toContain('dir is a folder, not a file');
    expect(text(await run(reg, ws, 'write_file', { path: 'dir', content: 'x' }))).toContain('dir is a folder');
    expect(client.calls).toEqual([]);
  });

  it("turns a client's failure into an error naming the path, with the client's message", async () => {
    const { ws, file, client, reg } = setup('disk\n', 'buffer\n');
    client.failRead = 'the editor refused';
    const read = await run(reg, ws, 'read_file', { path: 'f.txt' });
    expect(read.isError).toBe(true);
    expect(text(read)).toBe('Tool "read_file" failed: cannot read f.txt through the client: the editor refused');
    const edit = await run(reg, ws, 'edit_file', { path: 'f.txt', edits: [{ oldText: 'buffer', newText: 'b' }] });
    expect(text(edit)).toBe('Tool "edit_file" failed: cannot read f.txt through the client: the editor refused');
    client.failRead = undefined;
    client.failWrite = 'read-only buffer';
    const write = await run(reg, ws, 'write_file', { path: 'f.txt', content: 'x' });
    expect(write.isError).toBe(true);
    expect(text(write)).toBe('Tool "write_file" failed: cannot write f.txt through the client: read-only buffer');
    const edit2 = await run(reg, ws, 'edit_file', { path: 'f.txt', edits: [{ oldText: 'buffer', newText: 'b' }] });
    expect(text(edit2)).toBe('Tool "edit_file" failed: cannot write f.txt through the client: read-only buffer');
    expect(client.buffers.get(file)).toBe('buffer\n');
    expect(readFileSync(file, 'utf8')).toBe('disk\n');
  });

  it('edit_file on a file neither on disk nor in the client says it does not exist and points to write_file', async () => {
    const { ws, reg } = setup('x');
    const res = await run(reg, ws, 'edit_file', { path: 'missing.txt', edits: [{ oldText: 'a', newText: 'b' }] });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain('cannot read missing.txt through the client: Resource not found');
    expect(text(res)).toContain('missing.txt does not exist on disk either; edit_file only changes existing files. To create it, use write_file');
  });

  it('without a client file access, the tools use the disk', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'f.txt'), 'disk\n');
    const res = await run(new ToolRegistry(tools()), ws, 'read_file', { path: 'f.txt' });
    expect(text(res)).toBe('disk');
    expect(res.details).not.toHaveProperty('via');
  });
});

describe('through the SDK', () => {
  it('createAgent({ fileAccess }): the model reads the buffer and its edit lands there, not on disk', async () => {
    const { createAgent } = await import('../src/app/agent.js');
    const { ScriptedModel } = await import('../src/model/scripted.js');
    const cwd = tempDir();
    const file = join(cwd, 'a.txt');
    writeFileSync(file, 'on disk\n');
    const client = new FakeClient();
    client.buffers.set(file, 'unsaved buffer\n');
    const model = new ScriptedModel({
      turns: [
        { toolCalls: [{ id: 'r', name: 'read_file', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ id: 'e', name: 'edit_file', arguments: { path: 'a.txt', edits: [{ oldText: 'unsaved', newText: 'edited' }] } }] },
        { text: 'done' },
      ],
    });
    const agent = await createAgent({ cwd, home: tempDir(), env: {}, modelAdapter: model, fileAccess: client });
    await agent.prompt('edit it');
    const results = agent.messages().flatMap((m) => (m.role === 'toolResult' ? [textOf(m.content)] : []));
    expect(results[0]).toContain('unsaved buffer');
    expect(client.buffers.get(file)).toBe('edited buffer\n');
    expect(readFileSync(file, 'utf8')).toBe('on disk\n');
    await agent.close();
  });
});
