// Hooks: beforeToolCall blocks or rewrites, afterToolCall patches, a throwing hook blocks
// (fail-closed); config hooks load from the user config, and from the project's only in a
// trusted workspace (mini-agent trust, --trust-workspace); the example hook protects paths.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAgent, type AgentHooks } from '../src/app/agent.js';
import type { AgentEvent } from '../src/core/events.js';
import { textOf } from '../src/core/types.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, tempDir, writeScript } from './support/helpers.js';

const EXAMPLE_HOOK = fileURLToPath(new URL('../examples/hooks/protect-paths.mjs', import.meta.url));
type ToolEnd = Extract<AgentEvent, { type: 'tool_end' }>;

async function runWithHooks(hooks: AgentHooks, calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>) {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'notes.md'), 'the notes\n');
  const agent = await createAgent({ cwd, home: tempDir('h-'), env: {}, session: 'memory', hooks, tools: undefined, enabledTools: ['read_file', 'write_note'], script: writeScript(cwd, [{ toolCalls: calls }, { text: 'done' }]) });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  await agent.prompt('go');
  await agent.close();
  return { cwd, events, ends: events.filter((e): e is ToolEnd => e.type === 'tool_end') };
}

describe('hooks around tool calls (SDK)', () => {
  it('beforeToolCall blocks with a reason; the tool does not run', async () => {
    const { cwd, ends } = await runWithHooks({ beforeToolCall: (call) => (call.name === 'write_note' ? { block: true, reason: 'notes are frozen' } : undefined) }, [
      { id: 'w', name: 'write_note', arguments: { path: 'out.md', text: 'x' } },
      { id: 'r', name: 'read_file', arguments: { path: 'notes.md' } },
    ]);
    expect(ends.find((e) => e.toolCallId === 'w')!.result).toMatchObject({ isError: true, details: { reason: 'blocked_by_hook' } });
    expect(textOf(ends.find((e) => e.toolCallId === 'w')!.result.content)).toBe('Tool "write_note" was blocked by the SDK hooks: notes are frozen');
    expect(existsSync(join(cwd, 'out.md'))).toBe(false);
    expect(ends.find((e) => e.toolCallId === 'r')!.result.isError).toBe(false);
  });

  it('beforeToolCall rewrites the arguments (validated again); the result says so', async () => {
    const { cwd, ends } = await runWithHooks({ beforeToolCall: (call) => (call.name === 'write_note' ? { arguments: { ...call.arguments, path: 'redirected.md' } } : undefined) }, [
      { id: 'w', name: 'write_note', arguments: { path: 'out.md', text: 'x' } },
    ]);
    expect(readFileSync(join(cwd, 'redirected.md'), 'utf8')).toBe('x');
    expect(existsSync(join(cwd, 'out.md'))).toBe(false);
    expect(ends[0].result.details).toMatchObject({ argumentsRewrittenBy: ['the SDK hooks'] });

    const bad = await runWithHooks({ beforeToolCall: () => ({ arguments: { nonsense: true } }) }, [{ id: 'w', name: 'write_note', arguments: { path: 'out.md', text: 'x' } }]);
    expect(textOf(bad.ends[0].result.content)).toMatch(/rewrote its arguments into invalid ones/);
    expect(existsSync(join(bad.cwd, 'out.md'))).toBe(false);
  });

  it('afterToolCall patches the result', async () => {
    const { ends } = await runWithHooks({ afterToolCall: (_call, result) => ({ ...result, content: [{ type: 'text', text: textOf(result.content).toUpperCase() }] }) }, [{ id: 'r', name: 'read_file', arguments: { path: 'notes.md' } }]);
    expect(textOf(ends[0].result.content)).toBe('THE NOTES');
  });

  it('a throwing hook blocks the call (before) or withholds the result (after): fail-closed, with its error', async () => {
    const before = await runWithHooks(
      {
        beforeToolCall: () => {
          throw new Error('policy server down');
        },
      },
      [{ id: 'w', name: 'write_note', arguments: { path: 'out.md', text: 'x' } }],
    );
    expect(textOf(before.ends[0].result.content)).toBe('Tool "write_note" was blocked by the SDK hooks: the hook failed, so the call is blocked: policy server down');
    expect(existsSync(join(before.cwd, 'out.md'))).toBe(false);

    const after = await runWithHooks(
      {
        afterToolCall: () => {
          throw new Error('scanner crashed');
        },
      },
      [{ id: 'r', name: 'read_file', arguments: { path: 'notes.md' } }],
    );
    expect(after.ends[0].result.isError).toBe(true);
    expect(textOf(after.ends[0].result.content)).toMatch(/withheld by the SDK hooks: it failed: scanner crashed/);
    expect(textOf(after.ends[0].result.content)).not.toContain('the notes');

    const wrong = await runWithHooks({ beforeToolCall: () => 'yes please' as never }, [{ id: 'w', name: 'write_note', arguments: { path: 'out.md', text: 'x' } }]);
    expect(textOf(wrong.ends[0].result.content)).toMatch(/answered a string, not \{ block\?, reason\?, arguments\? \}, so the call is blocked/);
  });

  it('onEvent sees every event', async () => {
    const seen: string[] = [];
    await runWithHooks({ onEvent: (e) => void seen.push(e.type) }, [{ id: 'r', name: 'read_file', arguments: { path: 'notes.md' } }]);
    expect(seen[0]).toBe('run_start');
    expect(seen).toContain('tool_end');
    expect(seen.at(-1)).toBe('run_settled');
  });
});

describe('hooks from the config, and trust', () => {
  function workspace() {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    mkdirSync(join(cwd, '.mini-agent', 'hooks'), { recursive: true });
    copyFileSync(EXAMPLE_HOOK, join(cwd, '.mini-agent', 'hooks', 'protect-paths.mjs'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ hooks: ['hooks/protect-paths.mjs'] }));
    const script = writeScript(cwd, [{ toolCalls: [{ id: 'w', name: 'write_note', arguments: { path: '.env', text: 'TOKEN=x' } }] }, { text: 'done' }]);
    return { cwd, home, script };
  }

  it('an untrusted workspace: its hooks are not loaded, and the warning says how to trust it', async () => {
    const { cwd, home, script } = workspace();
    const r = await cliInProcess(['--json', '--no-session', '--script', script, 'write it'], { cwd, home });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/config\.json came with a workspace you have not trusted: its keys that widen what you allowed are ignored \(hooks\)\. Read it, then run "mini-agent trust" in .* \(or pass --trust-workspace for one run\)/);
    expect(existsSync(join(cwd, '.env'))).toBe(true); // no hook, no protection
  });

  it('mini-agent trust, then the hook runs: the example hook blocks a write to .env', async () => {
    const { cwd, home, script } = workspace();
    const t = await cliInProcess(['trust'], { cwd, home });
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^trusted .*: its \.mini-agent\/config\.json may now widen what you allowed \(hooks\); the hooks and MCP servers it lists will run/);
    expect((await cliInProcess(['trust'], { cwd, home })).stdout).toMatch(/was already trusted for its current config/);
    const r = await cliInProcess(['--json', '--no-session', '--script', script, 'write it'], { cwd, home });
    expect(r.stderr).not.toMatch(/not trusted/);
    const end = parseJsonl(r.stdout).find((e): e is ToolEnd => e.type === 'tool_end')!;
    expect(textOf(end.result.content)).toMatch(/blocked by hook .*protect-paths\.mjs: \.env is protected \(matches \.env\)/);
    expect(existsSync(join(cwd, '.env'))).toBe(false);
  });

  it('--trust-workspace loads them for one run; a user hook needs no trust', async () => {
    const { cwd, home, script } = workspace();
    const once = await cliInProcess(['--json', '--no-session', '--trust-workspace', '--script', script, 'write it'], { cwd, home });
    expect(textOf(parseJsonl(once.stdout).find((e): e is ToolEnd => e.type === 'tool_end')!.result.content)).toMatch(/is protected/);

    const other = tempDir();
    const userHome = tempDir('mini-agent-home-');
    writeFileSync(join(userHome, 'config.json'), JSON.stringify({ hooks: [EXAMPLE_HOOK] }));
    const s2 = writeScript(other, [{ toolCalls: [{ id: 'w', name: 'write_note', arguments: { path: 'keys/server.pem', text: 'x' } }] }, { text: 'done' }]);
    const r = await cliInProcess(['--json', '--no-session', '--script', s2, 'write it'], { cwd: other, home: userHome });
    expect(textOf(parseJsonl(r.stdout).find((e): e is ToolEnd => e.type === 'tool_end')!.result.content)).toMatch(/keys\/server\.pem is protected \(matches \*\.pem\)/);
  });

  it('a hook module that cannot be loaded stops the start with a usage error naming it', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ hooks: ['missing-hook.mjs'] }));
    const r = await cliInProcess(['--no-session', '--script', writeScript(cwd, [{ text: 'x' }]), 'hi'], { cwd, home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot load hook .*missing-hook\.mjs \(from user config/);
  });
});
