// The workspace boundary every file tool shares: a table of path cases (as written, through
// symbolic links, missing, odd), for reading and for writing, with and without --allow-path.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { textOf } from '../src/core/types.js';
import { createReadFileTool } from '../src/tools/read-file.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { displayPath, resolveForRead, resolveForWrite, type Boundary } from '../src/tools/workspace.js';
import { createWriteNoteTool } from '../src/tools/write-note.js';
import { tempDir } from './support/helpers.js';

/** A workspace with files, folders and links in and out, an outside folder, and an allowed folder. */
function fixture(base = tempDir()) {
  const ws = join(base, 'ws');
  const out = join(base, 'outside');
  const allowed = join(base, 'allowed');
  for (const d of [ws, out, allowed, join(ws, 'src', 'deep'), join(ws, 'docs')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(ws, 'a.txt'), 'a\n');
  writeFileSync(join(ws, 'src', 'deep', 'b.ts'), 'b\n');
  writeFileSync(join(ws, 'ünï cödé.md'), 'u\n');
  writeFileSync(join(out, 'secret.txt'), 'secret\n');
  writeFileSync(join(allowed, 'shared.txt'), 'shared\n');
  symlinkSync(join(ws, 'a.txt'), join(ws, 'link-in.txt'));
  symlinkSync(join(out, 'secret.txt'), join(ws, 'link-out.txt'));
  symlinkSync(join(ws, 'src'), join(ws, 'dir-in'));
  symlinkSync(out, join(ws, 'dir-out'));
  symlinkSync(join(ws, 'loop-b'), join(ws, 'loop-a'));
  symlinkSync(join(ws, 'loop-a'), join(ws, 'loop-b'));
  symlinkSync(join(ws, 'nowhere'), join(ws, 'dangling'));
  symlinkSync(join(ws, 'docs'), join(allowed, 'back-in'));
  // A workspace reached through a symlink of its own.
  symlinkSync(ws, join(base, 'ws-link'));
  return { base, ws, out, allowed };
}

type Expect = { ok: string } | { error: RegExp };

describe('the workspace boundary: a table of paths', () => {
  // One fixture for the whole table (tempDir() folders go after each test).
  const f = fixture(realpathSync(mkdtempSync(join(tmpdir(), 'mini-agent-boundary-'))));
  afterAll(() => rmSync(f.base, { recursive: true, force: true }));
  const b: Boundary = { cwd: f.ws };
  const withAllowed: Boundary = { cwd: f.ws, allowedPaths: [f.allowed] };
  const viaLink: Boundary = { cwd: join(f.base, 'ws-link') };
  const OUTSIDE = /is outside the workspace/;
  const LINK_OUT = /is outside the workspace .* through a symbolic link/;

  // [case, boundary, path, expected for read, expected for write]
  const cases: Array<[string, Boundary, string, Expect, Expect]> = [
    ['a relative file', b, 'a.txt', { ok: 'a.txt' }, { ok: 'a.txt' }],
    ['a nested file', b, 'src/deep/b.ts', { ok: 'src/deep/b.ts' }, { ok: 'src/deep/b.ts' }],
    ['dots that stay inside', b, './src/../a.txt', { ok: 'a.txt' }, { ok: 'a.txt' }],
    ['the workspace itself', b, '.', { ok: '.' }, { error: /names a folder|is not|outside/ }],
    ['..', b, '..', { error: OUTSIDE }, { error: OUTSIDE }],
    ['../ a sibling', b, '../outside/secret.txt', { error: OUTSIDE }, { error: OUTSIDE }],
    ['in and back out', b, 'src/../../outside/secret.txt', { error: OUTSIDE }, { error: OUTSIDE }],
    ['an absolute path inside', b, join(f.ws, 'a.txt'), { ok: 'a.txt' }, { ok: 'a.txt' }],
    ['an absolute path outside', b, '/etc/passwd', { error: OUTSIDE }, { error: OUTSIDE }],
    ['a symlinked file pointing inside', b, 'link-in.txt', { ok: 'a.txt' }, { ok: 'a.txt' }],
    ['a symlinked file pointing out', b, 'link-out.txt', { error: LINK_OUT }, { error: LINK_OUT }],
    ['a symlinked folder pointing inside', b, 'dir-in/deep/b.ts', { ok: 'src/deep/b.ts' }, { ok: 'src/deep/b.ts' }],
    ['a symlinked folder pointing out', b, 'dir-out/secret.txt', { error: LINK_OUT }, { error: LINK_OUT }],
    ['a new file in a symlinked folder pointing out', b, 'dir-out/new.txt', { error: /file not found|outside/ }, { error: LINK_OUT }],
    ['a symlink loop', b, 'loop-a', { error: /loop of symbolic links/ }, { error: /loop of symbolic links/ }],
    ['a dangling symlink', b, 'dangling', { error: /file not found/ }, { error: /symbolic link whose target does not exist/ }],
    ['a missing nested path', b, 'new/deeper/file.txt', { error: /file not found/ }, { ok: 'new/deeper/file.txt' }],
    ['through a file as a folder', b, 'a.txt/child', { error: /file not found/ }, { error: /goes through a file as if it were a folder/ }],
    ['a unicode name', b, 'ünï cödé.md', { ok: 'ünï cödé.md' }, { ok: 'ünï cödé.md' }],
    ['a trailing slash on a folder', b, 'src/', { ok: 'src' }, { error: /names a folder/ }],
    ['an empty path', b, '', { error: /non-empty string/ }, { error: /non-empty string/ }],
    ['a NUL byte', b, 'a.txt\0.png', { error: /NUL/ }, { error: /NUL/ }],
    ['a tilde is a plain name', b, '~/x.txt', { error: /file not found/ }, { ok: '~/x.txt' }],
    ['an allowed folder outside', withAllowed, join(f.allowed, 'shared.txt'), { ok: join(f.allowed, 'shared.txt') }, { ok: join(f.allowed, 'shared.txt') }],
    ['outside both', withAllowed, join(f.out, 'secret.txt'), { error: /or the allowed paths/ }, { error: /or the allowed paths/ }],
    ['a link in the allowed folder back into the workspace', withAllowed, join(f.allowed, 'back-in'), { ok: 'docs' }, { error: /names a folder|EISDIR|not/ }],
    ['a workspace reached through a symlink, relative', viaLink, 'a.txt', { ok: 'a.txt' }, { ok: 'a.txt' }],
    ['a workspace reached through a symlink, absolute via the link', viaLink, join(f.base, 'ws-link', 'src'), { ok: 'src' }, { ok: 'src' }],
  ];

  it.each(cases)('%s', (_name, boundary, path, read, write) => {
    for (const [expected, resolveFn] of [
      [read, resolveForRead],
      [write, resolveForWrite],
    ] as const) {
      let shown: string | undefined;
      let error: string | undefined;
      try {
        shown = displayPath(boundary, resolveFn(boundary, path));
      } catch (err) {
        error = (err as Error).message;
      }
      if ('ok' in expected) {
        // A folder given to resolveForWrite resolves too; the tools refuse it when they open it.
        expect(error, `${resolveFn.name}(${JSON.stringify(path)})`).toBeUndefined();
        expect(shown).toBe(expected.ok);
      } else if (error === undefined) {
        // resolveForWrite accepts an existing folder (the write itself then fails): only allowed for these rows.
        expect(resolveFn, `${resolveFn.name}(${JSON.stringify(path)}) resolved to ${shown}`).toBe(resolveForWrite);
        expect(['.', 'docs']).toContain(shown);
      } else {
        expect(error, `${resolveFn.name}(${JSON.stringify(path)})`).toMatch(expected.error);
      }
    }
  });

  it('has at least 20 cases', () => expect(cases.length).toBeGreaterThanOrEqual(20));
});

describe('the boundary through the tools', () => {
  it('read_file refuses a link out and names --allow-path; the registry allows a folder given as allowed', async () => {
    const f = fixture();
    const call = (path: string) => ({ type: 'toolCall' as const, id: 'c', name: 'read_file', arguments: { path } });
    const plain = new ToolRegistry([createReadFileTool()]);
    const refused = await plain.execute(call('link-out.txt'), { cwd: f.ws, signal: new AbortController().signal });
    expect(refused.isError).toBe(true);
    expect(textOf(refused.content)).toMatch(/outside the workspace .*--allow-path DIR/);

    const widened = new ToolRegistry([createReadFileTool()], { allowedPaths: [f.out] });
    const ok = await widened.execute(call('link-out.txt'), { cwd: f.ws, signal: new AbortController().signal });
    expect(ok.isError).toBe(false);
    expect(textOf(ok.content)).toBe('secret');
    expect(ok.details).toMatchObject({ path: join(f.out, 'secret.txt') });
  });

  it('write_note cannot create a file through a folder link that points out', async () => {
    const f = fixture();
    const reg = new ToolRegistry([createWriteNoteTool()]);
    const res = await reg.execute({ type: 'toolCall', id: 'w', name: 'write_note', arguments: { path: 'dir-out/new.txt', text: 'x' } }, { cwd: f.ws, signal: new AbortController().signal });
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toMatch(/through a symbolic link/);
  });
});
