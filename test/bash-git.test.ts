// bash reports the files a command changed when the workspace is in a git repository (git status
// before and after, with sizes and mtimes), and compaction's file lists pick them up.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '../src/session/entries.js';
import { collectFileLists } from '../src/session/file-lists.js';
import { createBashTool } from '../src/tools/bash.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { tempDir } from './support/helpers.js';
import { GIT, useSystemTool } from './support/system-tools.js';

function repo(git: string): string {
  const dir = tempDir();
  const run = (...args: string[]) => execFileSync(git, args, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  run('init', '-q', '.');
  mkdirSync(join(dir, 'sub'));
  for (const [f, text] of [
    ['a.txt', 'a\n'],
    ['b.txt', 'b\n'],
    ['gone.txt', 'g\n'],
    ['sub/s.txt', 's\n'],
  ])
    writeFileSync(join(dir, f), text);
  run('add', '.');
  run('commit', '-q', '-m', 'start');
  writeFileSync(join(dir, 'b.txt'), 'b already changed\n'); // dirty before the command
  return dir;
}

async function bash(cwd: string, command: string, trackGitChanges = true) {
  const registry = new ToolRegistry([createBashTool({ trackGitChanges, outputDir: () => join(cwd, '..', 'out') })]);
  return registry.execute({ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command } }, { cwd, signal: new AbortController().signal });
}

describe('bash: the files a command changed, from git', () => {
  it('new, modified (also a file that was already dirty), deleted; unchanged dirty files are not reported', async (ctx) => {
    const git = useSystemTool(ctx, GIT);
    const cwd = repo(git);
    const r = await bash(cwd, 'echo more >> a.txt; echo again >> b.txt; echo new > new.txt; rm gone.txt; mkdir -p d && echo x > d/e.txt');
    expect(r.isError).toBe(false);
    expect(r.details?.modifiedFiles).toEqual(['a.txt', 'b.txt', 'd/e.txt', 'gone.txt', 'new.txt']);
    const quiet = await bash(cwd, 'cat a.txt > /dev/null');
    expect(quiet.details?.modifiedFiles).toEqual([]);
  });

  it('paths are relative to the workspace, and files outside it are left out; a failing command still reports', async (ctx) => {
    const git = useSystemTool(ctx, GIT);
    const root = repo(git);
    const r = await bash(join(root, 'sub'), 'echo x >> s.txt; echo y >> ../a.txt; exit 3');
    expect(r.isError).toBe(true);
    expect(r.details).toMatchObject({ exitCode: 3, modifiedFiles: ['s.txt'] });
  });

  it('outside a repository, or with tracking off, nothing is reported', async (ctx) => {
    const git = useSystemTool(ctx, GIT);
    const plain = tempDir();
    expect((await bash(plain, 'echo x > f.txt')).details).not.toHaveProperty('modifiedFiles');
    expect((await bash(repo(git), 'echo x > f.txt', false)).details).not.toHaveProperty('modifiedFiles');
  });
});

describe("compaction's file lists", () => {
  it('take the files a tool result reports as changed, even from a failed call', () => {
    const entries: SessionEntry[] = [
      {
        type: 'message',
        id: '1',
        parentId: null,
        timestamp: 't',
        message: { role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'make' } }], stopReason: 'toolUse', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 } },
      },
      {
        type: 'message',
        id: '2',
        parentId: '1',
        timestamp: 't',
        message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: 'x' }], isError: true, details: { modifiedFiles: ['build/out.js', './src/../src/a.ts', '../outside.txt'] } },
      },
    ];
    expect(collectFileLists(entries as never, undefined, '/w')).toEqual({ readFiles: [], modifiedFiles: ['build/out.js', 'src/a.ts'] });
  });
});
