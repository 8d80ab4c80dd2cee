// MCP through the public interfaces (issue 12 §4): the SDK with the scripted model calling a real
// server's tool through the registry, the workspace trust rule, lazy starts (never for commands
// that run no model, nor for a run whose --tools leaves the server out), `mini-agent mcp list`,
// and no orphan server after mini-agent is stopped. The client itself: mcp-client.test.ts.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import { parseMcpServers } from '../src/extensions/mcp-config.js';
import type { AgentEvent } from '../src/core/events.js';
import { ScriptedModel } from '../src/model/scripted.js';
import { cliInProcess } from './support/cli-in-process.js';
import { runCli, tempDir, writeScript } from './support/helpers.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(require.resolve('@modelcontextprotocol/server-everything/package.json'), '..', 'dist', 'index.js');
const FIXTURE = fileURLToPath(new URL('./fixtures/mcp/fixture-server.mjs', import.meta.url));
const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };

function setup(where: 'user' | 'project', servers: Record<string, unknown>) {
  const cwd = tempDir();
  const home = tempDir('mini-agent-home-');
  const dir = where === 'user' ? home : join(cwd, '.mini-agent');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ mcpServers: servers }));
  return { cwd, home };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function gone(pid: number, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

describe('MCP tools in a run', () => {
  it('the model calls server__tool through the registry; the server is described by name in the system prompt; close stops it', async () => {
    const { cwd, home } = setup('user', { everything: { ...everything, risk: 'read' } });
    const model = new ScriptedModel({
      turns: [
        {
          toolCalls: [
            { id: 'c1', name: 'everything__echo', arguments: { message: 'hello mcp' } },
            { id: 'c2', name: 'everything__get-sum', arguments: { a: 2, b: 3 } },
          ],
        },
        { text: 'done' },
      ],
    });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model });
    expect(agent.mcpServers()).toMatchObject([{ name: 'everything', state: 'idle' }]); // not started by createAgent
    expect(await agent.startMcpServers()).toEqual([]);
    expect(agent.mcpServers()[0].state).toBe('ready');
    const events: AgentEvent[] = [];
    agent.subscribe((e) => events.push(e));
    const result = await agent.prompt('use the tools');
    expect(result.stopReason).toBe('completed');
    const first = model.requests[0];
    expect(first.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_file', 'everything__echo', 'everything__get-sum']));
    expect(first.systemPrompt).toMatch(/- \d+ tools from the MCP server everything \(named everything__TOOL\)/);
    expect(first.systemPrompt).not.toContain('Echoes back');
    const results = events.flatMap((e) => (e.type === 'tool_end' ? [e] : []));
    expect(results.map((e) => [e.name, e.result.isError])).toEqual([
      ['everything__echo', false],
      ['everything__get-sum', false],
    ]);
    expect(JSON.stringify(agent.messages())).toContain('Echo: hello mcp');
    expect(JSON.stringify(agent.messages())).toMatch(/sum of 2 and 3 is 5/i);
    const [status] = agent.mcpServers();
    expect(status.state).toBe('ready');
    expect(status.toolTokens).toBeGreaterThan(100);
    // What --show-config and /status say of it: the state and the context cost first.
    expect(agent.showConfig().find((r) => r.key === 'mcp server everything')?.value).toMatch(/^ready, \d+ tools, ~[\d,]+ tokens · stdio: /);
    const pid = status.pid!;
    expect(alive(pid)).toBe(true);
    await agent.close();
    expect(await gone(pid)).toBe(true);
  });

  it("the mcpServers option adds servers in code (an editor passes them over ACP); they start like the user's own", async () => {
    const cwd = tempDir();
    const model = new ScriptedModel({ turns: [{ toolCalls: [{ id: 'c1', name: 'ed__echo', arguments: { message: 'from the editor' } }] }, { text: 'ok' }] });
    const agent = await createAgent({ cwd, home: tempDir('mini-agent-home-'), env: {}, modelAdapter: model, mcpServers: { ed: { ...everything, risk: 'read' } } });
    await agent.prompt('go');
    expect(JSON.stringify(agent.messages())).toContain('Echo: from the editor');
    expect(agent.mcpServers()[0]).toMatchObject({ name: 'ed', scope: 'flag', source: 'the mcpServers option' });
    await agent.close();
  });

  it('risk execute (the default) asks; without an asker the call is refused with how to allow it', async () => {
    const { cwd, home } = setup('user', { everything });
    // A tool that does not say it is read-only (echo does, with readOnlyHint, and so runs: see mcp-risk.test.ts).
    const model = new ScriptedModel({ turns: [{ toolCalls: [{ id: 'c1', name: 'everything__toggle-simulated-logging', arguments: {} }] }, { text: 'ok' }] });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model });
    await agent.prompt('go');
    const text = JSON.stringify(agent.messages());
    expect(text).toContain('Permission denied for tool \\"everything__toggle-simulated-logging\\"');
    await agent.close();
  });

  it("a workspace's own server does not start until the workspace is trusted, and the warning says how", async () => {
    const { cwd, home } = setup('project', { everything: { ...everything, risk: 'read' } });
    const model = new ScriptedModel({ turns: [{ text: 'one' }, { text: 'two' }] });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model });
    const warnings: string[] = [];
    agent.subscribe((e) => void (e.type === 'warning' && warnings.push(e.message)));
    await agent.prompt('hi');
    expect(model.requests[0].tools.some((t) => t.name.startsWith('everything__'))).toBe(false);
    expect(warnings.join('\n')).toMatch(/everything.*not started.*not trusted.*mini-agent trust/s);
    expect(agent.mcpServers()[0].state).toBe('untrusted');
    await agent.close();
    const trusted = new ScriptedModel({ turns: [{ text: 'one' }] });
    const again = await createAgent({ cwd, home, env: {}, modelAdapter: trusted, trustWorkspace: true });
    await again.prompt('hi');
    expect(trusted.requests[0].tools.some((t) => t.name === 'everything__echo')).toBe(true);
    await again.close();
  });
});

describe('the README', () => {
  it('the copy-paste config for the filesystem server is a valid mcpServers block', () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const block = /## MCP servers[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)![1];
    const specs = parseMcpServers(JSON.parse(block).mcpServers, { source: 'README', scope: 'user', env: { DOCS_TOKEN: 't0k' }, baseDir: '/' });
    expect(specs.map((s) => [s.name, s.transport.type, s.risk])).toEqual([
      ['fs', 'stdio', 'write'],
      ['docs', 'http', 'execute'],
    ]);
    expect(specs[0].transport).toMatchObject({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'] });
    expect(specs[1].transport).toMatchObject({ headers: { Authorization: 'Bearer t0k' } });
  });
});

describe('MCP from the CLI', () => {
  it('servers start only for a run that needs them: not for --version, sessions, --show-config, nor a run whose --tools leaves them out', async () => {
    const cwd = tempDir();
    const marker = join(cwd, 'started');
    // The "server" leaves a mark when it is started, then serves as the fixture does.
    const server = { command: 'sh', args: ['-c', `echo started >> "${marker}"; exec "${process.execPath}" "${FIXTURE}"`], risk: 'read' };
    const mcp = join(cwd, 'mcp.json');
    writeFileSync(mcp, JSON.stringify({ mcpServers: { fx: server } }));
    const script = writeScript(cwd, [{ text: 'ok' }, { text: 'ok' }]);
    for (const args of [['--version'], ['sessions'], ['--show-config'], ['--script', script, '--tools', 'read_file', 'hi']]) {
      const r = await runCli(['--mcp-config', mcp, ...args], { cwd });
      expect(r.code, args.join(' ') + r.stderr).toBe(0);
    }
    expect(existsSync(marker)).toBe(false);
    const shown = await cliInProcess(['--mcp-config', mcp, '--show-config'], { cwd });
    expect(shown.stdout).toMatch(/mcp server fx\s+idle · stdio: sh -c .*\(--mcp-config /);
    const run = await cliInProcess(['--mcp-config', mcp, '--script', writeScript(cwd, [{ text: 'ok' }]), 'hi'], { cwd });
    expect(run.code).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('started\n');
  });

  it('mcp list: status, tools and their token cost; --json; an untrusted workspace server is listed, not started', async () => {
    const { cwd, home } = setup('user', { everything });
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ mcpServers: { repo: { command: process.execPath, args: [FIXTURE] } } }));
    const text = await cliInProcess(['mcp', 'list'], { cwd, home, timeoutMs: 30_000 });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^everything {2}ready {2}stdio: /m);
    expect(text.stdout).toMatch(/\d+ tools, ~[\d,]+ tokens of tool definitions in every request/);
    expect(text.stdout).toMatch(/everything__echo\s+~\s*\d+ tokens {2}\S/);
    expect(text.stdout).toMatch(/^repo {2}untrusted/m);
    expect(text.stderr).toMatch(/repo.*mini-agent trust/);
    const json = await cliInProcess(['mcp', 'list', '--json'], { cwd, home, timeoutMs: 30_000 });
    const data = JSON.parse(json.stdout);
    expect(data.servers.map((s: { name: string; state: string }) => [s.name, s.state])).toEqual([
      ['everything', 'ready'],
      ['repo', 'untrusted'],
    ]);
    const echo = data.servers[0].tools.find((t: { name: string }) => t.name === 'everything__echo');
    expect(echo).toMatchObject({ mcpName: 'echo', tokens: expect.any(Number) });
    const none = await cliInProcess(['mcp', 'list'], { cwd: tempDir(), timeoutMs: 30_000 });
    expect(none.stdout).toContain('no MCP servers configured');
    // A server that cannot start: listed as failed with why, and exit code 1 for scripts.
    const broken = join(cwd, 'broken.json');
    writeFileSync(broken, JSON.stringify({ mcpServers: { gone: { command: join(cwd, 'no-such-server') } } }));
    const failed = await cliInProcess(['mcp', 'list', '--mcp-config', broken], { cwd, home, timeoutMs: 30_000 });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^gone {2}failed/m);
  });

  it('SIGTERM during an MCP call: the run stops and the server process does not outlive mini-agent', async () => {
    const cwd = tempDir();
    const pidFile = join(cwd, 'server.pid');
    const mcp = join(cwd, 'mcp.json');
    writeFileSync(mcp, JSON.stringify({ mcpServers: { fx: { command: 'sh', args: ['-c', `echo $$ > "${pidFile}"; exec "${process.execPath}" "${FIXTURE}"`], risk: 'read' } } }));
    const script = writeScript(cwd, [{ toolCalls: [{ id: 'h', name: 'fx__hang', arguments: {} }] }, { text: 'never' }]);
    let sent = false;
    const r = await runCli(['--mcp-config', mcp, '--script', script, '--json', 'hang'], {
      cwd,
      onStdout: (out, child) => {
        if (!sent && out.includes('"type":"tool_start"')) {
          sent = true;
          child.kill('SIGTERM');
        }
      },
    });
    expect(sent).toBe(true);
    expect(r.code).toBe(143);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await gone(pid)).toBe(true);
  });
});
