// Flags that every front end takes alike (issue 25): --verbose works in print, RPC, ACP and the
// interactive mode; an empty --fork, --branch or --resume is a usage error (exit 2, one line
// naming the flag), in print mode, RPC mode and the SDK, never a flag silently left out.
// Run `npm run build` first (the CLI and RPC tests spawn bin/mini-agent).
import { describe, expect, it } from 'vitest';
import { createAgent, type CreateAgentOptions } from '../src/app/agent.js';
import { UsageError } from '../src/core/types.js';
import { cliInProcess } from './support/cli-in-process.js';
import { runCli, tempDir, writeScript } from './support/helpers.js';
import { interactiveSessions, READY } from './support/interactive.js';
import { RpcClient, type RpcLine } from './support/rpc-client.js';

const start = interactiveSessions();

/** A workspace and home with one session of one exchange in it. */
async function oneSession(): Promise<{ cwd: string; home: string; script: string }> {
  const cwd = tempDir();
  const home = tempDir('mini-agent-home-');
  const script = writeScript(cwd, [{ text: 'first answer' }, { text: 'second answer' }]);
  const first = await cliInProcess(['--script', script, 'hello'], { cwd, home });
  expect(first.code, first.stderr).toBe(0);
  return { cwd, home, script };
}

describe('--verbose in every mode', () => {
  it('RPC mode takes it: the session, each command and each run on stderr; stdout stays the protocol', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'hi there' }]);
    const client = new RpcClient(['--script', script, '--verbose'], { cwd });
    const response = await client.send({ type: 'prompt', message: 'hello', id: 'p1' });
    expect(response.ok, client.stderr).toBe(true);
    await client.waitFor((l: RpcLine) => l.type === 'run_settled');
    const bad = await client.send({ type: 'no_such_command', id: 'x1' });
    expect(bad.ok).toBe(false);
    expect((await client.end()).code).toBe(0);
    expect(
      client.lines.every((l) => typeof l === 'object'),
      'stdout is JSON lines only',
    ).toBe(true);
    expect(client.stderr).not.toContain('Unknown option');
    expect(client.stderr).toMatch(/^mini-agent: session [0-9a-f-]{36} \(.*\.jsonl\)$/m);
    expect(client.stderr).toContain('mini-agent: command prompt (id "p1"): ok');
    expect(client.stderr).toMatch(/^mini-agent: run completed after 1 turns, 0 tool calls$/m);
    expect(client.stderr).toMatch(/^mini-agent: command no_such_command \(id "x1"\): unknown_command: /m);
  });

  it('RPC mode without it logs none of that, and its --help lists it', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'hi there' }]);
    const client = new RpcClient(['--script', script], { cwd });
    expect((await client.send({ type: 'prompt', message: 'hello', id: 'p1' })).ok).toBe(true);
    await client.waitFor((l: RpcLine) => l.type === 'run_settled');
    expect((await client.end()).code).toBe(0);
    expect(client.stderr).not.toContain('command prompt');
    const help = await runCli(['--rpc', '--help'], { cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}--verbose {11}\S/m);
  });

  it('the interactive mode takes it: the model reasoning is shown in full from the start', async (ctx) => {
    const { t } = start(ctx, [{ thinking: 'First I look.\nThen I answer.', text: 'The answer.' }], ['--verbose']);
    await t.waitFor(READY);
    t.type('a question');
    t.keys('Enter');
    const screen = await t.waitFor(/The answer\.[\s\S]*scripted\/script/);
    expect(screen).toMatch(/thinking \(2 lines\):\n {2}First I look\.\n {2}Then I answer\./);
    expect(screen).not.toContain('Ctrl+O to expand');
  });
});

describe('an empty --fork, --branch or --resume is a usage error', () => {
  const cases = [
    { flags: ['-c', '--fork', ''], message: '--fork needs an entry: an id, a unique id prefix or a label' },
    { flags: ['-c', '--branch', ''], message: '--branch needs an entry: an id, a unique id prefix or a label' },
    { flags: ['--resume', ''], message: '--resume needs a session: a path, an id, a unique id prefix or a name' },
  ];

  it('in print mode: exit 2, one line naming the flag, and nothing ran', async () => {
    const { cwd, home, script } = await oneSession();
    for (const { flags, message } of cases) {
      const r = await cliInProcess([...flags, '--script', script, 'again'], { cwd, home });
      expect(r.code, `${flags.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(`mini-agent: ${message}`);
      expect(r.stdout).toBe('');
    }
  });

  it('in RPC mode: exit 2, the same line', async () => {
    const { cwd, home, script } = await oneSession();
    for (const { flags, message } of cases) {
      const client = new RpcClient(['--script', script, ...flags], { cwd, home });
      const { code } = await client.end();
      expect(code, `${flags.join(' ')}: ${client.stderr}`).toBe(2);
      expect(client.stderr.split('\n')[0]).toBe(`mini-agent: ${message}`);
    }
  });

  it('through the SDK: createAgent rejects with a UsageError naming the option', async () => {
    const { cwd, home, script } = await oneSession();
    const attempts: Array<[Partial<CreateAgentOptions>, string]> = [
      [{ session: 'continue', fork: '' }, 'fork needs an entry: an id, a unique id prefix or a label'],
      [{ session: 'continue', branch: '' }, 'branch needs an entry: an id, a unique id prefix or a label'],
      [{ session: { resume: '' } }, 'resume needs a session: a path, an id, a unique id prefix or a name'],
    ];
    for (const [options, message] of attempts) {
      const outcome = await createAgent({ cwd, home, env: {}, script, ...options }).then(
        async (agent) => (await agent.close(), 'created'),
        (err: unknown) => err,
      );
      expect(outcome, JSON.stringify(options)).toBeInstanceOf(UsageError);
      expect((outcome as UsageError).message).toBe(message);
    }
  });
});
