// write_note through the public ToolRegistry: atomic overwrites, ordered appends,
// the size limit, the workspace boundary, and honest failures.
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf, type ToolCall } from '../src/core/types.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { ToolResult } from '../src/tools/tool.js';
import { createWriteNoteTool, MAX_NOTE_BYTES } from '../src/tools/write-note.js';
import { tempDir } from './support/helpers.js';

let ids = 0;
function writeCall(args: Record<string, unknown>): ToolCall {
  return { type: 'toolCall', id: `w${++ids}`, name: 'write_note', arguments: args };
}

function registry(maxBytes?: number): ToolRegistry {
  return new ToolRegistry([createWriteNoteTool(maxBytes)]);
}

function write(reg: ToolRegistry, cwd: string, args: Record<string, unknown>, signal = new AbortController().signal): Promise<ToolResult> {
  return reg.execute(writeCall(args), { cwd, signal });
}

/** Every file under `dir`, recursively, as relative paths. */
function tree(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    out.push(rel);
    if (e.isDirectory()) out.push(...tree(join(dir, e.name), rel));
  }
  return out.sort();
}

const tmpLeftovers = (dir: string) => tree(dir).filter((f) => f.endsWith('.tmp'));

describe('write_note: overwrite', () => {
  it('creates a new file, and the missing folders above it, inside the workspace', async () => {
    const ws = tempDir();
    const res = await write(registry(), ws, { path: 'notes/2024/june/todo.md', text: '# Todo\n- one\n' });
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('Wrote 13 bytes to notes/2024/june/todo.md.');
    expect(res.details).toEqual({ path: 'notes/2024/june/todo.md', mode: 'overwrite', bytes: 13, created: true });
    expect(readFileSync(join(ws, 'notes/2024/june/todo.md'), 'utf8')).toBe('# Todo\n- one\n');
    expect(tree(ws)).toEqual(['notes', 'notes/2024', 'notes/2024/june', 'notes/2024/june/todo.md']);
  });

  it('replaces an existing file exactly, leaving no temp files behind', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'a.md'), 'old content that is much longer than the new one\n'.repeat(100));
    const reg = registry();
    const res = await write(reg, ws, { path: 'a.md', text: 'new' });
    expect(res.isError).toBe(false);
    expect(res.details).toMatchObject({ created: false, mode: 'overwrite', bytes: 3 });
    expect(readFileSync(join(ws, 'a.md'), 'utf8')).toBe('new');
    expect(readdirSync(ws)).toEqual(['a.md']);
  });

  it('writes unicode, empty text and an absolute path inside the workspace exactly', async () => {
    const ws = tempDir();
    const reg = registry();
    const text = 'naïve ☃ 😀\r\nline two\0with a NUL\n';
    const res = await write(reg, ws, { path: join(ws, 'u.txt'), text });
    expect(res.isError).toBe(false);
    expect(res.details).toMatchObject({ path: 'u.txt', bytes: Buffer.byteLength(text) });
    expect(readFileSync(join(ws, 'u.txt'), 'utf8')).toBe(text);
    const empty = await write(reg, ws, { path: 'u.txt', text: '' });
    expect(empty.isError).toBe(false);
    expect(readFileSync(join(ws, 'u.txt'), 'utf8')).toBe('');
  });

  it('keeps the permission bits of the file it replaces', async () => {
    const ws = tempDir();
    const file = join(ws, 'run.sh');
    writeFileSync(file, 'echo old\n');
    chmodSync(file, 0o755);
    const res = await write(registry(), ws, { path: 'run.sh', text: 'echo new\n' });
    expect(res.isError).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o755);
    expect(readFileSync(file, 'utf8')).toBe('echo new\n');
  });

  it('many concurrent overwrites of one file leave exactly the last one, and no temp files', async () => {
    const ws = tempDir();
    const reg = registry();
    const texts = Array.from({ length: 25 }, (_, i) => `version ${i}\n`.repeat(200 + i));
    const results = await Promise.all(texts.map((text) => write(reg, ws, { path: 'doc/v.txt', text })));
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(results.filter((r) => r.details?.created === true)).toHaveLength(1);
    expect(readFileSync(join(ws, 'doc/v.txt'), 'utf8')).toBe(texts[texts.length - 1]);
    expect(tmpLeftovers(ws)).toEqual([]);
    expect(tree(ws)).toEqual(['doc', 'doc/v.txt']);
  });

  it('a reader never sees a half-written file while overwrites are going on', async () => {
    const ws = tempDir();
    const file = join(ws, 'state.json');
    const reg = registry();
    const versions = Array.from({ length: 20 }, (_, i) => JSON.stringify({ i, pad: 'p'.repeat(200_000) }));
    writeFileSync(file, versions[0]);
    let reading = true;
    const seen = new Set<number>();
    const reader = (async () => {
      while (reading) {
        const text = readFileSync(file, 'utf8');
        seen.add((JSON.parse(text) as { i: number }).i); // throws if torn
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (const v of versions.slice(1)) expect((await write(reg, ws, { path: 'state.json', text: v })).isError).toBe(false);
    reading = false;
    await reader;
    expect(readFileSync(file, 'utf8')).toBe(versions[versions.length - 1]);
    expect(seen.size).toBeGreaterThan(0);
  });
});

describe('write_note: append', () => {
  it('appends to an existing file and creates a missing one', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'log.md'), 'start\n');
    const reg = registry();
    const a = await write(reg, ws, { path: 'log.md', text: 'more\n', mode: 'append' });
    expect(a.isError).toBe(false);
    expect(textOf(a.content)).toBe('Appended 5 bytes to log.md.');
    expect(a.details).toEqual({ path: 'log.md', mode: 'append', bytes: 5, created: false });
    expect(readFileSync(join(ws, 'log.md'), 'utf8')).toBe('start\nmore\n');

    const b = await write(reg, ws, { path: 'new/dir/log.md', text: 'first', mode: 'append' });
    expect(b.isError).toBe(false);
    expect(b.details).toMatchObject({ created: true });
    expect(readFileSync(join(ws, 'new/dir/log.md'), 'utf8')).toBe('first');
  });

  it('two appends started together both land, in call order', async () => {
    const ws = tempDir();
    const reg = registry();
    const [one, two] = await Promise.all([write(reg, ws, { path: 'pair.md', text: 'first\n', mode: 'append' }), write(reg, ws, { path: 'pair.md', text: 'second\n', mode: 'append' })]);
    expect(one.isError).toBe(false);
    expect(two.isError).toBe(false);
    expect(readFileSync(join(ws, 'pair.md'), 'utf8')).toBe('first\nsecond\n');
  });

  it('twenty concurrent appends all land, in call order', async () => {
    const ws = tempDir();
    const reg = registry();
    const texts = Array.from({ length: 20 }, (_, i) => `entry ${String(i).padStart(2, '0')} ${'•'.repeat(i * 50)}\n`);
    const results = await Promise.all(texts.map((text) => write(reg, ws, { path: 'journal/log.md', text, mode: 'append' })));
    expect(results.map((r) => r.isError)).toEqual(texts.map(() => false));
    expect(readFileSync(join(ws, 'journal/log.md'), 'utf8')).toBe(texts.join(''));
  });

  it('concurrent appends through different spellings of one path are still ordered', async () => {
    const ws = tempDir();
    mkdirSync(join(ws, 'sub'));
    symlinkSync('sub', join(ws, 'alias'));
    const reg = registry();
    const spellings = ['sub/f.md', './sub/f.md', join(ws, 'sub/f.md'), 'sub/../sub/f.md', 'alias/f.md'];
    const calls = Array.from({ length: 20 }, (_, i) => ({ path: spellings[i % spellings.length], text: `${i};`, mode: 'append' }));
    const results = await Promise.all(calls.map((c) => write(reg, ws, c)));
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(readFileSync(join(ws, 'sub/f.md'), 'utf8')).toBe(calls.map((c) => c.text).join(''));
  });

  it('appends and overwrites to one file apply in call order', async () => {
    const ws = tempDir();
    const reg = registry();
    await Promise.all([
      write(reg, ws, { path: 'mix.md', text: 'a', mode: 'append' }),
      write(reg, ws, { path: 'mix.md', text: 'b', mode: 'append' }),
      write(reg, ws, { path: 'mix.md', text: 'X' }),
      write(reg, ws, { path: 'mix.md', text: 'c', mode: 'append' }),
      write(reg, ws, { path: 'mix.md', text: 'd', mode: 'append' }),
    ]);
    expect(readFileSync(join(ws, 'mix.md'), 'utf8')).toBe('Xcd');
    expect(tmpLeftovers(ws)).toEqual([]);
  });

  it('a failed write in the queue does not stop the writes queued after it', async () => {
    const ws = tempDir();
    const reg = registry();
    const stopped = new AbortController();
    const first = write(reg, ws, { path: 'q.md', text: 'never\n', mode: 'append' }, stopped.signal);
    stopped.abort(); // after the call started, before its turn in the queue
    const second = write(reg, ws, { path: 'q.md', text: 'kept\n', mode: 'append' });
    const [a, b] = await Promise.all([first, second]);
    expect(a.isError).toBe(true);
    expect(textOf(a.content)).toMatch(/abort/);
    expect(b.isError).toBe(false);
    expect(readFileSync(join(ws, 'q.md'), 'utf8')).toBe('kept\n');
  });

  it('separate tool instances still each append everything', async () => {
    const ws = tempDir();
    const regs = [registry(), registry()];
    const texts = Array.from({ length: 10 }, (_, i) => `${i}\n`);
    await Promise.all(texts.map((text, i) => write(regs[i % 2], ws, { path: 'shared.md', text, mode: 'append' })));
    const lines = readFileSync(join(ws, 'shared.md'), 'utf8').split('\n').filter(Boolean);
    expect(lines.sort()).toEqual(texts.map((t) => t.trim()).sort());
  });
});

describe('write_note: the size limit', () => {
  it('refuses text over the limit and writes nothing', async () => {
    const ws = tempDir();
    const reg = registry(100);
    const res = await write(reg, ws, { path: 'big/note.md', text: 'x'.repeat(101) });
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toMatch(/101 B, over the 100 B limit/);
    expect(existsSync(join(ws, 'big'))).toBe(false);
    expect(readdirSync(ws)).toEqual([]);
  });

  it('counts the limit in UTF-8 bytes, not characters', async () => {
    const ws = tempDir();
    const reg = registry(100);
    const res = await write(reg, ws, { path: 'n.md', text: '€'.repeat(34) }); // 102 bytes, 34 characters
    expect(res.isError).toBe(true);
    expect(existsSync(join(ws, 'n.md'))).toBe(false);
    const ok = await write(reg, ws, { path: 'n.md', text: '€'.repeat(33) }); // 99 bytes
    expect(ok.isError).toBe(false);
  });

  it('refuses an oversized append without touching the existing file', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'keep.md'), 'original');
    const res = await write(registry(10), ws, { path: 'keep.md', text: '12345678901', mode: 'append' });
    expect(res.isError).toBe(true);
    expect(readFileSync(join(ws, 'keep.md'), 'utf8')).toBe('original');
  });

  it('allows text exactly at the limit, and the default limit is 1 MB', async () => {
    const ws = tempDir();
    const res = await write(registry(100), ws, { path: 'n.md', text: 'y'.repeat(100) });
    expect(res.isError).toBe(false);
    expect(MAX_NOTE_BYTES).toBe(1024 * 1024);
    const over = await write(registry(), ws, { path: 'm.md', text: 'z'.repeat(MAX_NOTE_BYTES + 1) });
    expect(over.isError).toBe(true);
    expect(existsSync(join(ws, 'm.md'))).toBe(false);
  });
});

describe('write_note: the workspace boundary', () => {
  /** A workspace inside an outer folder; everything outside the workspace is recorded to check it is untouched. */
  function layout() {
    const outer = tempDir();
    const ws = join(outer, 'ws');
    mkdirSync(ws);
    mkdirSync(join(outer, 'private'));
    writeFileSync(join(outer, 'secret.txt'), 'SECRET');
    const before = tree(outer).filter((p) => !p.startsWith('ws'));
    const outsideUnchanged = () => {
      expect(tree(outer).filter((p) => !p.startsWith('ws'))).toEqual(before);
      expect(readFileSync(join(outer, 'secret.txt'), 'utf8')).toBe('SECRET');
      expect(readdirSync(join(outer, 'private'))).toEqual([]);
    };
    return { outer, ws, outsideUnchanged };
  }

  function expectRefused(res: ToolResult, pattern = /outside the workspace/) {
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toMatch(pattern);
    expect(textOf(res.content)).not.toMatch(/^Wrote|^Appended/);
  }

  it.each([
    ['../escape.txt', 'overwrite'],
    ['../secret.txt', 'overwrite'],
    ['../secret.txt', 'append'],
    ['sub/../../escape.txt', 'overwrite'],
    ['../private/new/deep.txt', 'overwrite'],
    ['../../../../../../tmp/escape.txt', 'append'],
    ['..', 'overwrite'],
  ])('refuses %s (%s) and writes nothing outside', async (p, mode) => {
    const { ws, outsideUnchanged } = layout();
    expectRefused(await write(registry(), ws, { path: p, text: 'pwned', mode }));
    outsideUnchanged();
    expect(readdirSync(ws)).toEqual([]);
  });

  it('refuses an absolute path outside the workspace', async () => {
    const { ws, outer, outsideUnchanged } = layout();
    const reg = registry();
    expectRefused(await write(reg, ws, { path: join(outer, 'escape.txt'), text: 'x' }));
    expectRefused(await write(reg, ws, { path: join(outer, 'secret.txt'), text: 'x', mode: 'append' }));
    expectRefused(await write(reg, ws, { path: join(outer, 'private', 'a', 'b.txt'), text: 'x' }));
    const other = tempDir();
    expectRefused(await write(reg, ws, { path: join(other, 'x.txt'), text: 'x' }));
    expect(readdirSync(other)).toEqual([]);
    expectRefused(await write(reg, ws, { path: `${ws}-sibling/x.txt`, text: 'x' }));
    expect(existsSync(`${ws}-sibling`)).toBe(false);
    outsideUnchanged();
  });

  it('refuses a symlink inside the workspace that points to a file outside, in both modes', async () => {
    const { ws, outer, outsideUnchanged } = layout();
    symlinkSync(join(outer, 'secret.txt'), join(ws, 'link.txt'));
    const reg = registry();
    expectRefused(await write(reg, ws, { path: 'link.txt', text: 'pwned' }), /symbolic link/);
    expectRefused(await write(reg, ws, { path: 'link.txt', text: 'pwned', mode: 'append' }), /symbolic link/);
    outsideUnchanged();
    expect(lstatSync(join(ws, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(readdirSync(ws)).toEqual(['link.txt']);
  });

  it('refuses a path under a symlinked folder that points outside, however deep', async () => {
    const { ws, outer, outsideUnchanged } = layout();
    symlinkSync(join(outer, 'private'), join(ws, 'linkdir'));
    const reg = registry();
    expectRefused(await write(reg, ws, { path: 'linkdir/note.md', text: 'pwned' }));
    expectRefused(await write(reg, ws, { path: 'linkdir/a/b/c/note.md', text: 'pwned' }));
    expectRefused(await write(reg, ws, { path: join(ws, 'linkdir', 'note.md'), text: 'pwned', mode: 'append' }));
    outsideUnchanged();
  });

  it('refuses a dangling symlink whose target would be outside, and creates nothing there', async () => {
    const { ws, outer, outsideUnchanged } = layout();
    symlinkSync(join(outer, 'created-by-attack.txt'), join(ws, 'dangling.txt'));
    symlinkSync(join(outer, 'newdir'), join(ws, 'dangling-dir'));
    const reg = registry();
    for (const mode of ['overwrite', 'append']) {
      expectRefused(await write(reg, ws, { path: 'dangling.txt', text: 'pwned', mode }), /symbolic link/);
      expectRefused(await write(reg, ws, { path: 'dangling-dir/x.txt', text: 'pwned', mode }), /symbolic link/);
    }
    expect(existsSync(join(outer, 'created-by-attack.txt'))).toBe(false);
    expect(existsSync(join(outer, 'newdir'))).toBe(false);
    outsideUnchanged();
    expect(readlinkSync(join(ws, 'dangling.txt'))).toBe(join(outer, 'created-by-attack.txt'));
  });

  it('writes through a symlink that stays inside the workspace, to its target, keeping the link', async () => {
    const { ws, outsideUnchanged } = layout();
    mkdirSync(join(ws, 'real'));
    writeFileSync(join(ws, 'real', 'target.md'), 'before');
    symlinkSync('real/target.md', join(ws, 'alias.md'));
    symlinkSync('real', join(ws, 'aliasdir'));
    const reg = registry();
    const res = await write(reg, ws, { path: 'alias.md', text: 'after' });
    expect(res.isError).toBe(false);
    expect(res.details).toMatchObject({ path: join('real', 'target.md') });
    expect(readFileSync(join(ws, 'real', 'target.md'), 'utf8')).toBe('after');
    expect(lstatSync(join(ws, 'alias.md')).isSymbolicLink()).toBe(true);
    const viaDir = await write(reg, ws, { path: 'aliasdir/new.md', text: 'n' });
    expect(viaDir.isError).toBe(false);
    expect(readFileSync(join(ws, 'real', 'new.md'), 'utf8')).toBe('n');
    outsideUnchanged();
  });

  it('refuses an empty path and a path with a NUL byte', async () => {
    const { ws } = layout();
    const reg = registry();
    expectRefused(await write(reg, ws, { path: '', text: 'x' }), /non-empty/);
    expectRefused(await write(reg, ws, { path: '   ', text: 'x' }), /non-empty/);
    expectRefused(await write(reg, ws, { path: 'a\0b', text: 'x' }), /NUL/);
    expect(readdirSync(ws)).toEqual([]);
  });
});

describe('write_note: failures are reported, never claimed as success', () => {
  it('writing to an existing directory is an error, in both modes, and the directory is untouched', async () => {
    const ws = tempDir();
    mkdirSync(join(ws, 'folder'));
    writeFileSync(join(ws, 'folder', 'inner.md'), 'inner');
    const reg = registry();
    for (const mode of ['overwrite', 'append']) {
      for (const p of ['folder', 'folder/', '.', ws]) {
        const res = await write(reg, ws, { path: p, text: 'x', mode });
        expect(res.isError).toBe(true);
        expect(textOf(res.content)).toMatch(/not a regular file|names a folder/);
      }
    }
    expect(statSync(join(ws, 'folder')).isDirectory()).toBe(true);
    expect(readFileSync(join(ws, 'folder', 'inner.md'), 'utf8')).toBe('inner');
    expect(tmpLeftovers(ws)).toEqual([]);
  });

  it('a parent path that is a file is an isError result, and the file is untouched', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'plain.txt'), 'plain');
    const reg = registry();
    for (const [p, mode] of [
      ['plain.txt/note.md', 'overwrite'],
      ['plain.txt/note.md', 'append'],
      ['plain.txt/deeper/note.md', 'overwrite'],
    ]) {
      const res = await write(reg, ws, { path: p, text: 'x', mode });
      expect(res.isError).toBe(true);
      expect(textOf(res.content)).not.toMatch(/^Wrote|^Appended/);
      expect(textOf(res.content)).toMatch(/plain\.txt/);
    }
    expect(readFileSync(join(ws, 'plain.txt'), 'utf8')).toBe('plain');
    expect(readdirSync(ws)).toEqual(['plain.txt']);
  });

  it('a folder that cannot be created is an isError result', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, 'blocker'), '');
    const res = await write(registry(), ws, { path: 'blocker/sub/x.md', text: 'x', mode: 'append' });
    expect(res.isError).toBe(true);
    expect(existsSync(join(ws, 'blocker', 'sub'))).toBe(false);
  });

  it('invalid arguments are refused before anything is written', async () => {
    const ws = tempDir();
    const reg = registry();
    for (const args of [{ path: 'a.md' }, { text: 'x' }, { path: 'a.md', text: 5 }, { path: 'a.md', text: 'x', mode: 'prepend' }, { path: 'a.md', text: 'x', force: true }]) {
      const res = await write(reg, ws, args);
      expect(res.isError).toBe(true);
      expect(textOf(res.content)).toMatch(/Invalid arguments/);
    }
    expect(readdirSync(ws)).toEqual([]);
  });

  it('an aborted run writes nothing', async () => {
    const ws = tempDir();
    const ac = new AbortController();
    ac.abort();
    const res = await write(registry(), ws, { path: 'a.md', text: 'x' }, ac.signal);
    expect(res.isError).toBe(true);
    expect(readdirSync(ws)).toEqual([]);
  });
});
