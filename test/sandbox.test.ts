// The bash sandbox (issue 22, part 1), through the CLI with --yes and the scripted model: writes
// outside the workspace and into protected paths fail while writes inside work; /proc holds no
// key; loopback is refused unless bash.network; a refusal says so; leaving the sandbox takes the
// user's own approval; `required` without bubblewrap refuses, `auto` warns once. Tests that need
// bubblewrap skip visibly without it (and fail under MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, tempDir, writeScript } from './support/helpers.js';
import { BWRAP, REQUIRE_ENV, useSystemTool } from './support/system-tools.js';

/** A file at the root of the filesystem that a sandboxed command must not be able to create (unique: code without the sandbox, run as root, would). */
const ROOT_FILE = `/mini-agent-sandbox-test-${process.pid}-${Date.now()}`;
afterEach(() => rmSync(ROOT_FILE, { force: true }));

/** bubblewrap's path, once it is known to make a sandbox here; else the test is skipped (or fails in CI). */
function useSandbox(ctx: { skip(note?: string): never }): string {
  const bwrap = useSystemTool(ctx, BWRAP);
  const probe = spawnSync(bwrap, ['--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--unshare-all', '--die-with-parent', '--', '/bin/sh', '-c', 'true'], { encoding: 'utf8' });
  if (probe.status === 0) return bwrap;
  const why = `${BWRAP.need}: ${bwrap} cannot make a sandbox here (${(probe.stderr || probe.error?.message || '').trim()}); unprivileged user namespaces may be off`;
  if (process.env[REQUIRE_ENV] === '1') throw new Error(`${why}, and ${REQUIRE_ENV}=1 makes it mandatory`);
  return ctx.skip(why);
}

/** One bash call through the CLI (--yes, --json); its result text and details, the events and stderr. */
async function bashOnce(cwd: string, args: Record<string, unknown>, o: { home?: string; env?: Record<string, string>; flags?: string[] } = {}) {
  const script = writeScript(tempDir('mini-agent-script-'), [{ toolCalls: [{ id: 'c1', name: 'bash', arguments: args }] }, { text: 'done' }]);
  const run = await cliInProcess(['--yes', '--json', '--no-session', '--script', script, ...(o.flags ?? []), 'go'], { cwd, home: o.home, env: o.env, timeoutMs: 60_000 });
  const events = parseJsonl(run.stdout);
  const end = events.find((e): e is Extract<AgentEvent, { type: 'tool_end' }> => e.type === 'tool_end');
  expect(end, run.stderr).toBeDefined();
  return { text: end!.result.content.map((c) => (c.type === 'text' ? c.text : '')).join(''), isError: end!.result.isError, details: (end!.result.details ?? {}) as Record<string, unknown>, events, stderr: run.stderr, code: run.code };
}

describe('bash in the sandbox (bubblewrap)', { timeout: 90_000 }, () => {
  it('a write inside the workspace works; outside it and into .mini-agent/ or .git/config it fails, and the result says why', async (ctx) => {
    const bwrap = useSandbox(ctx);
    const cwd = tempDir();
    const outside = tempDir('mini-agent-outside-');
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), '{}\n');
    mkdirSync(join(cwd, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(cwd, '.git', 'config'), '[core]\n');
    // Programs, not redirections: the protected-path guard reads redirections off the text, the sandbox stops the rest.
    const command = [
      'echo in > inside.txt',
      `cp inside.txt ${outside}/outside.txt`,
      `touch ${ROOT_FILE}`,
      'cp inside.txt .mini-agent/config.json',
      'cp inside.txt .git/hooks/pre-commit',
      'cp inside.txt .git/config',
      'mv .git moved-git',
      'echo end',
    ].join('; ');
    const r = await bashOnce(cwd, { command }, { env: { MINI_AGENT_BWRAP: bwrap } });
    expect(readFileSync(join(cwd, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(existsSync(join(outside, 'outside.txt'))).toBe(false);
    expect(existsSync(ROOT_FILE)).toBe(false);
    expect(readFileSync(join(cwd, '.mini-agent', 'config.json'), 'utf8')).toBe('{}\n');
    expect(existsSync(join(cwd, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(cwd, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(join(cwd, 'moved-git'))).toBe(false);
    expect(r.text).toMatch(/Read-only file system/);
    expect(r.details).toMatchObject({ sandbox: 'bubblewrap' });
    // The last command succeeded, so the exit code is 0; a failing one gets the note.
    const failing = await bashOnce(cwd, { command: 'cp inside.txt .mini-agent/config.json' }, { env: { MINI_AGENT_BWRAP: bwrap } });
    expect(failing.isError).toBe(true);
    expect(failing.details).toMatchObject({ sandbox: 'bubblewrap', sandboxRefusal: 'filesystem' });
    expect(failing.text).toMatch(/\[Sandbox: .*refusing a write.*"sandbox": false.*the user is always asked/s);
    expect(readFileSync(join(cwd, '.mini-agent', 'config.json'), 'utf8')).toBe('{}\n');
  });

  it('/proc shows only the sandbox: no process environment holds the key, /proc/$PPID/environ included', async (ctx) => {
    const bwrap = useSandbox(ctx);
    const cwd = tempDir();
    const key = 'sk-test-sandbox-0123456789abcdefghij';
    const command = "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; echo ---; tr '\\0' '\\n' < /proc/$PPID/environ; echo ---; tr '\\0' ' ' < /proc/$PPID/cmdline; echo; ls /proc | grep -c '^[0-9]'";
    const r = await bashOnce(cwd, { command }, { env: { MINI_AGENT_BWRAP: bwrap, OPENAI_API_KEY: key, MY_SECRET_TOKEN: key } });
    expect(r.isError).toBe(false);
    expect(r.text).not.toContain(key);
    expect(r.text).not.toMatch(/OPENAI_API_KEY|MY_SECRET_TOKEN/);
    expect(r.text).not.toMatch(/node[^\n]*bin\/mini-agent/); // the parent is the sandbox's init, not mini-agent
    expect(r.text).toMatch(/PATH=/); // the scrubbed environment is there
    const processes = Number(r.text.trim().split('\n').at(-3)?.trim() ?? 'NaN');
    expect(processes).toBeLessThan(10);
  });

  it('a loopback connection is refused by default (the result says it is the sandbox) and works with bash.network: true', async (ctx) => {
    const bwrap = useSandbox(ctx);
    const server = createServer((socket) => socket.end('hello from the test server\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const cwd = tempDir();
      const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
      const off = await bashOnce(cwd, { command }, { env: { MINI_AGENT_BWRAP: bwrap } });
      expect(off.isError).toBe(true);
      expect(off.text).toMatch(/Connection refused/);
      expect(off.text).not.toContain('hello from the test server');
      expect(off.details).toMatchObject({ sandbox: 'bubblewrap', sandboxRefusal: 'network' });
      expect(off.text).toMatch(/\[Sandbox: .*the network is off.*"network": true/s);

      const home = tempDir('mini-agent-home-');
      writeFileSync(join(home, 'config.json'), JSON.stringify({ bash: { network: true } }));
      const on = await bashOnce(cwd, { command }, { home, env: { MINI_AGENT_BWRAP: bwrap } });
      expect(on.text).toContain('hello from the test server');
      expect(on.isError).toBe(false);
      expect(on.details).toMatchObject({ sandbox: 'bubblewrap', network: true });
    } finally {
      server.close();
    }
  });

  it('leaving the sandbox is never approved by --yes alone: "sandbox": false needs the user, or their --approve of that exact command', async (ctx) => {
    const bwrap = useSandbox(ctx);
    const cwd = tempDir();
    const outside = tempDir('mini-agent-outside-');
    const command = `echo out > ${outside}/escaped.txt`;
    const refused = await bashOnce(cwd, { command, sandbox: false }, { env: { MINI_AGENT_BWRAP: bwrap } });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/OUTSIDE the sandbox.*--approve 'bash\(echo out > .*escaped\.txt\)'/s);
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
    expect(refused.events.find((e) => e.type === 'permission_decision')).toMatchObject({ decision: 'deny', source: 'sandbox' });

    const network = await bashOnce(cwd, { command: 'echo hi', network: true }, { env: { MINI_AGENT_BWRAP: bwrap } });
    expect(network.isError).toBe(true);
    expect(network.text).toMatch(/gets the network inside the sandbox/);

    const approved = await bashOnce(cwd, { command, sandbox: false }, { env: { MINI_AGENT_BWRAP: bwrap }, flags: ['--approve', `bash(${command})`] });
    expect(approved.isError, approved.text).toBe(false);
    expect(approved.details).toMatchObject({ sandbox: 'off' });
    expect(readFileSync(join(outside, 'escaped.txt'), 'utf8')).toBe('out\n');
  });

  it('an untrusted project config cannot turn the sandbox off or the network on; it can require the sandbox', async (ctx) => {
    const bwrap = useSandbox(ctx);
    const cwd = tempDir();
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ bash: { sandbox: 'off', network: true } }));
    const r = await bashOnce(cwd, { command: `touch ${ROOT_FILE}` }, { env: { MINI_AGENT_BWRAP: bwrap } });
    expect(r.details).toMatchObject({ sandbox: 'bubblewrap' });
    expect(r.details.network).toBeUndefined();
    expect(existsSync(ROOT_FILE)).toBe(false);
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ bash: { sandbox: 'required' } }));
    const show = await cliInProcess(['--show-config'], { cwd, env: { MINI_AGENT_BWRAP: bwrap } });
    expect(show.stdout).toMatch(/bash\.sandbox +required: bubblewrap/);
    expect(show.stdout).toMatch(/project bash\.sandbox +applied/);
  });
});

describe('bash without a sandbox', { timeout: 90_000 }, () => {
  it('bash.sandbox "required" refuses to run when bubblewrap is missing, and says why', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ bash: { sandbox: 'required' } }));
    const r = await bashOnce(cwd, { command: 'echo ran > ran.txt' }, { home, env: { MINI_AGENT_BWRAP: '/nonexistent/bwrap' } });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/not run: bash\.sandbox is "required" and no sandbox is available here \(MINI_AGENT_BWRAP=\/nonexistent\/bwrap is not an executable file\)/);
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false);
    const show = await cliInProcess(['--show-config'], { cwd, home, env: { MINI_AGENT_BWRAP: '/nonexistent/bwrap' } });
    expect(show.stdout).toMatch(/bash\.sandbox +required: none available \(MINI_AGENT_BWRAP=\/nonexistent\/bwrap is not an executable file\); bash refuses to run/);
  });

  it('"auto" runs without one and warns once per run on stderr, and --show-config says so', async () => {
    const cwd = tempDir();
    const script = writeScript(tempDir('mini-agent-script-'), [
      { toolCalls: [{ id: 'a', name: 'bash', arguments: { command: 'echo one' } }] },
      { toolCalls: [{ id: 'b', name: 'bash', arguments: { command: 'echo two' } }] },
      { text: 'done' },
    ]);
    const env = { MINI_AGENT_BWRAP: '/nonexistent/bwrap' };
    const run = await cliInProcess(['--yes', '--no-session', '--script', script, 'go'], { cwd, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('done');
    const warnings = run.stderr.split('\n').filter((l) => /bash runs without a sandbox/.test(l));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/MINI_AGENT_BWRAP=\/nonexistent\/bwrap is not an executable file/);
    const show = await cliInProcess(['--show-config'], { cwd, env });
    expect(show.stdout).toMatch(/bash\.sandbox +auto: none available \(.*\); commands run without a sandbox +\(default\)/);
  });
});
