// Asking for approval, by front end: print mode on a real terminal (tmux) asks yes / no / always;
// without a terminal an ask is a refusal that says how to allow the call; RPC mode sends a
// permission_request event and waits for the permission_response command (an abort cancels it).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { textOf } from '../src/core/types.js';
import { RpcClient } from './support/rpc-client.js';
import { cliInProcess } from './support/cli-in-process.js';
import { BIN, parseJsonl, tempDir, writeScript } from './support/helpers.js';
import { TMUX, useSystemTool } from './support/system-tools.js';

type ToolEnd = Extract<AgentEvent, { type: 'tool_end' }>;

/** A workspace whose script writes a note into a folder outside it (allowed with --allow-path): the default policy asks. */
function outsideWrite() {
  const cwd = tempDir();
  const outside = tempDir('mini-agent-outside-');
  const script = writeScript(cwd, [{ toolCalls: [{ id: 'w', name: 'write_note', arguments: { path: join(outside, 'note.md'), text: 'hello' } }] }, { text: 'done' }]);
  return { cwd, outside, script, target: join(outside, 'note.md') };
}

describe('print mode without a terminal', () => {
  it('an ask is refused with a message that says how to allow it; --yes and --approve allow it', async () => {
    const { cwd, outside, script, target } = outsideWrite();
    const trace = join(cwd, 'trace.jsonl');
    const r = await cliInProcess(['--json', '--no-session', '--allow-path', outside, '--trace', trace, '--script', script, 'write'], { cwd });
    expect(r.code).toBe(0);
    const account = await cliInProcess(['trace', trace], { cwd });
    expect(account.stdout).toMatch(/permission deny write_note: no one to ask {2}\[w\]/);
    const end = parseJsonl(r.stdout).find((e): e is ToolEnd => e.type === 'tool_end')!;
    expect(textOf(end.result.content)).toMatch(/needs approval \(the default for writes outside the workspace \(ask\)\), and there is no one to ask .*--yes, with --approve 'write_note\(.*note\.md\)'/);
    expect(existsSync(target)).toBe(false);

    const yes = await cliInProcess(['--json', '--no-session', '--allow-path', outside, '--yes', '--script', script, 'write'], { cwd });
    expect(parseJsonl(yes.stdout).find((e) => e.type === 'permission_decision')).toMatchObject({ decision: 'allow', source: 'flag --yes' });
    expect(readFileSync(target, 'utf8')).toBe('hello');
  });

  it('a deny rule in the project config wins over --yes', async () => {
    const { cwd, outside, script, target } = outsideWrite();
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ permissions: { deny: ['write_note'] } }));
    const r = await cliInProcess(['--json', '--no-session', '--allow-path', outside, '--yes', '--script', script, 'write'], { cwd });
    expect(parseJsonl(r.stdout).find((e) => e.type === 'permission_decision')).toMatchObject({ decision: 'deny', rule: 'write_note' });
    expect(existsSync(target)).toBe(false);
  });
});

describe('print mode on a terminal (tmux)', () => {
  function tmux(bin: string, args: string[]): string {
    return execFileSync(bin, args, { encoding: 'utf8' });
  }
  async function waitForPane(bin: string, session: string, test: (text: string) => boolean, timeoutMs = 15_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    let text = '';
    while (Date.now() < until) {
      text = tmux(bin, ['capture-pane', '-p', '-J', '-t', session, '-S', '-200']);
      if (test(text)) return text;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the pane never showed what was expected:\n${text}`);
  }

  it.for([
    ['y', true],
    ['n', false],
    ['a', true],
  ] as const)('answer %s: written %s', async ([answer, written], ctx) => {
    const source = 'user';
    const bin = useSystemTool(ctx, TMUX);
    const { cwd, outside, script, target } = outsideWrite();
    const home = tempDir('mini-agent-home-');
    const trace = join(cwd, 'trace.jsonl');
    const session = `mini-agent-test-${process.pid}-${Math.random().toString(16).slice(2, 8)}`;
    const command = [process.execPath, BIN, '--no-session', '--allow-path', outside, '--trace', trace, '--script', script, 'write'].map((a) => `'${a}'`).join(' ');
    tmux(bin, ['new-session', '-d', '-s', session, '-x', '200', '-y', '50', `env MINI_AGENT_HOME='${home}' HOME='${home}' ${command}; echo EXIT=$?; sleep 30`]);
    try {
      await waitForPane(bin, session, (t) => t.includes('Allow? [y]es, [n]o, [a]lways for this session'));
      const pane = tmux(bin, ['capture-pane', '-p', '-J', '-t', session]);
      expect(pane).toMatch(/mini-agent: write_note wants to change .*note\.md/);
      expect(pane).toMatch(/it needs approval: the default for writes outside the workspace \(ask\)/);
      tmux(bin, ['send-keys', '-t', session, answer, 'Enter']);
      const done = await waitForPane(bin, session, (t) => /EXIT=\d+/.test(t));
      expect(done).toMatch(/EXIT=0/);
    } finally {
      tmux(bin, ['kill-session', '-t', session]);
    }
    expect(existsSync(target)).toBe(written);
    const events = parseJsonl(readFileSync(trace, 'utf8'));
    expect(events.find((e) => e.type === 'permission_request')).toMatchObject({ tool: 'write_note', risk: 'write' });
    expect(events.find((e) => e.type === 'permission_decision')).toMatchObject({ decision: written ? 'allow' : 'deny', source, asked: true });
  });
});

describe('RPC mode', () => {
  async function rpcWith(answer: (client: RpcClient, request: Extract<AgentEvent, { type: 'permission_request' }>) => Promise<void>) {
    const { cwd, outside, script, target } = outsideWrite();
    const client = new RpcClient(['--no-session', '--allow-path', outside, '--script', script], { cwd });
    const started = await client.send({ type: 'prompt', message: 'write' });
    expect(started).toMatchObject({ ok: true });
    const request = (await client.waitFor((l) => l.type === 'permission_request')) as Extract<AgentEvent, { type: 'permission_request' }>;
    expect(request).toMatchObject({ tool: 'write_note', risk: 'write', suggestedRule: expect.stringMatching(/^write_note\(.*note\.md\)$/) });
    await answer(client, request);
    const settled = (await client.waitFor((l) => l.type === 'run_settled')) as Extract<AgentEvent, { type: 'run_settled' }>;
    await client.end();
    return { client, target, settled };
  }

  it('permission_request → permission_response allow: the call runs', async () => {
    const { client, target, settled } = await rpcWith(async (c, req) => {
      expect(await c.send({ type: 'permission_response', requestId: req.requestId, decision: 'allow' })).toMatchObject({ ok: true, result: { answered: true } });
    });
    expect(settled.stopReason).toBe('completed');
    expect(readFileSync(target, 'utf8')).toBe('hello');
    expect(client.events().find((e) => e.type === 'permission_decision')).toMatchObject({ decision: 'allow', source: 'user', asked: true });
  });

  it('deny with a reason: the model is told; an unknown or repeated requestId is not_found; a bad rule is invalid_argument', async () => {
    const { client, target } = await rpcWith(async (c, req) => {
      expect(await c.send({ type: 'permission_response', requestId: req.requestId, decision: 'always', rule: 'write_note(' })).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
      expect(await c.send({ type: 'permission_response', requestId: 'nope', decision: 'allow' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
      expect(await c.send({ type: 'permission_response', requestId: req.requestId, decision: 'deny', reason: 'not there' })).toMatchObject({ ok: true });
      expect(await c.send({ type: 'permission_response', requestId: req.requestId, decision: 'allow' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    });
    expect(existsSync(target)).toBe(false);
    const end = client.events().find((e): e is ToolEnd => e.type === 'tool_end')!;
    expect(textOf(end.result.content)).toMatch(/the user declined this call: not there/);
  });

  it('abort while a request waits: the request is withdrawn, the call refused, the run aborted', async () => {
    const { client, target, settled } = await rpcWith(async (c, req) => {
      expect(await c.send({ type: 'abort' })).toMatchObject({ ok: true, result: { aborted: true } });
      expect(await c.send({ type: 'permission_response', requestId: req.requestId, decision: 'allow' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    });
    expect(settled.stopReason).toBe('aborted');
    expect(existsSync(target)).toBe(false);
    expect(client.events().find((e) => e.type === 'permission_decision')).toMatchObject({ decision: 'deny' });
  });
});
