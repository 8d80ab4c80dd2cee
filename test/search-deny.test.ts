// Issue 22, part 4: deny rules cover search. Through the CLI with the scripted model: a user
// config denies `secrets/**` and `.env*`; read_file of them is refused, and grep, find and
// list_dir leave them out (names and contents) and say how many paths they left out, without
// naming them. A deny rule that names read_file alone hides the same paths; one that names grep
// hides them from grep only.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, tempDir, writeScript } from './support/helpers.js';

type ToolEnd = Extract<AgentEvent, { type: 'tool_end' }>;

function workspace(deny: string[]) {
  const cwd = tempDir();
  const home = tempDir('mini-agent-home-');
  writeFileSync(join(home, 'config.json'), JSON.stringify({ permissions: { deny } }));
  mkdirSync(join(cwd, 'secrets', 'deep'), { recursive: true });
  writeFileSync(join(cwd, 'secrets', 'k'), 'TOPSECRET-K\n');
  writeFileSync(join(cwd, 'secrets', 'deep', 'j'), 'TOPSECRET-J\n');
  writeFileSync(join(cwd, '.env'), 'SECRET=TOPSECRET-ENV\n');
  mkdirSync(join(cwd, 'src'));
  writeFileSync(join(cwd, 'src', 'a.ts'), 'export const a = 1; // TOPSECRET is not here\n');
  writeFileSync(join(cwd, 'README.md'), 'hello\n');
  return { cwd, home, scripts: tempDir('mini-agent-scripts-') };
}

async function run(w: ReturnType<typeof workspace>, calls: { id: string; name: string; arguments: Record<string, unknown> }[]) {
  const script = writeScript(w.scripts, [{ toolCalls: calls }, { text: 'done' }]);
  const r = await cliInProcess(['--json', '--no-session', '--script', script, 'look around'], { cwd: w.cwd, home: w.home });
  expect(r.code, r.stderr).toBe(0);
  const events = parseJsonl(r.stdout);
  return (id: string) => {
    const end = events.find((e): e is ToolEnd => e.type === 'tool_end' && e.toolCallId === id);
    expect(end, `tool_end ${id}`).toBeDefined();
    return { text: end!.result.content.map((c) => ('text' in c ? c.text : '')).join(''), isError: end!.result.isError, details: end!.result.details as Record<string, unknown> };
  };
}

const SEARCHES = [
  { id: 'grep', name: 'grep', arguments: { pattern: '.' } },
  { id: 'grep-secret', name: 'grep', arguments: { pattern: 'TOPSECRET' } },
  { id: 'find', name: 'find', arguments: { glob: '*' } },
  { id: 'ls', name: 'list_dir', arguments: { depth: 3 } },
  { id: 'read', name: 'read_file', arguments: { path: 'secrets/k' } },
];

describe('deny rules cover search (issue 22, part 4)', () => {
  it('a user deny rule on secrets/** and .env* hides them from grep, find and list_dir, and each says how many it left out', async () => {
    const w = workspace(['*(secrets/**)', '*(.env*)']);
    const result = await run(w, SEARCHES);
    expect(result('read').isError).toBe(true);
    for (const id of ['grep', 'grep-secret', 'find', 'ls']) {
      const { text, isError, details } = result(id);
      expect(isError, text).toBe(false);
      expect(text, id).not.toMatch(/secrets|\.env|TOPSECRET-/);
      // secrets/ (one folder, not entered) and .env
      expect(text, id).toContain('[2 paths left out by deny rules (permissions.deny).]');
      expect(details.hidden, id).toBe(2);
    }
    expect(result('grep').text).toContain('README.md:1:hello');
    expect(result('grep-secret').text).toContain('src/a.ts:1:');
    expect(result('find').text).toContain('src/a.ts');
    expect(result('ls').text).toContain('src/a.ts');
  });

  it('a rule that names read_file hides the paths from every search; one that names grep, from grep only', async () => {
    const w = workspace(['read_file(secrets/deep/**)', 'grep(.env)']);
    const result = await run(w, [...SEARCHES, { id: 'grep-file', name: 'grep', arguments: { pattern: '.', path: 'secrets/deep/j' } }]);
    expect(result('grep').text).toContain('secrets/k:1:TOPSECRET-K');
    expect(result('grep').text).not.toMatch(/secrets\/deep|\.env/);
    expect(result('grep').text).toContain('[2 paths left out by deny rules (permissions.deny).]');
    expect(result('grep-file').text).not.toContain('TOPSECRET-J');
    expect(result('grep-file').text).toContain('[1 path left out by deny rules (permissions.deny).]');
    expect(result('find').text).toContain('.env');
    expect(result('find').text).toContain('secrets/k');
    expect(result('find').text).not.toContain('secrets/deep');
    expect(result('find').text).toContain('[1 path left out by deny rules (permissions.deny).]');
    expect(result('ls').text).not.toContain('secrets/deep');
    expect(result('read').isError).toBe(false);
  });
});
