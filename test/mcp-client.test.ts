// The MCP client against real servers: @modelcontextprotocol/server-everything (stdio and
// streamable HTTP), @modelcontextprotocol/server-filesystem, and a small fixture server
// (test/fixtures/mcp/fixture-server.mjs) for what those do not do on demand (exit mid-call, never
// answer, add a tool later). Also the config parsing and the pure helpers, with properties.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { textOf, UsageError } from '../src/core/types.js';
import { McpManager, type McpManagerOptions } from '../src/extensions/mcp-client.js';
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, expandVars, mergeMcpServers, parseMcpServers, type McpServerSpec } from '../src/extensions/mcp-config.js';
import { liveServerProcesses } from '../src/extensions/mcp-stdio.js';
import { contentToText, describeExit, describeTransport, MAX_TOOL_NAME, mcpToolNames, mcpToolParameters } from '../src/extensions/mcp-tools.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { ToolContext, ToolOutput } from '../src/tools/tool.js';
import { tempDir } from './support/helpers.js';

const root = (p: string) => fileURLToPath(new URL(`../${p}`, import.meta.url));
const EVERYTHING = root('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = root('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const FIXTURE = root('test/fixtures/mcp/fixture-server.mjs');
const NODE = process.execPath;

function spec(name: string, transport: McpServerSpec['transport'], extra: Partial<McpServerSpec> = {}): McpServerSpec {
  return { name, scope: 'user', source: 'test config', transport, risk: 'execute', startupTimeoutMs: 20_000, toolTimeoutMs: 20_000, enabled: true, ...extra };
}
const stdio = (args: string[], extra: { env?: Record<string, string>; cwd?: string } = {}): McpServerSpec['transport'] => ({ type: 'stdio', command: NODE, args, env: extra.env ?? {}, ...(extra.cwd ? { cwd: extra.cwd } : {}) });

const managers: McpManager[] = [];
function manager(servers: McpServerSpec[], extra: Partial<McpManagerOptions> = {}): McpManager {
  const m = new McpManager({ servers, trusted: true, cwd: tempDir('mcp-ws-'), env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, clientVersion: 'test', ...extra });
  managers.push(m);
  return m;
}
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

function ctx(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { cwd: tempDir('mcp-call-'), signal, toolCallId: 'call-1' };
}
const text = (out: ToolOutput) => (typeof out.content === 'string' ? out.content : textOf(out.content));

function tool(m: McpManager, name: string) {
  const t = m.tools().find((d) => d.name === name);
  if (!t)
    throw new Error(
      `no tool ${name}; have ${m
        .tools()
        .map((d) => d.name)
        .join(', ')}`,
    );
  return t;
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Alive and not a zombie (where pid 1 does not reap orphans, a killed orphan stays a zombie). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true;
  }
}

function pidOf(m: McpManager, server: string): number {
  const pid = m.status().find((s) => s.name === server)?.pid;
  if (pid === undefined) throw new Error(`${server} has no pid`);
  return pid;
}

describe('parseMcpServers', () => {
  const opts = { source: 'user config /x/config.json', scope: 'user' as const, env: { HOME: '/home/u', GITHUB_TOKEN: 'ghp_1', EMPTY: '' }, baseDir: '/x' };

  it('takes the blocks other agents use, pasted as they are (unknown keys ignored)', () => {
    const claudeCode = {
      github: { type: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
      fs: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${HOME}/code'], env: { LEVEL: '${LOG_LEVEL:-info}' } },
    };
    const cursor = { everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], autoApprove: ['echo'], alwaysAllow: [] }, remote: { url: 'http://localhost:3001/mcp' } };
    const parsed = parseMcpServers({ ...claudeCode, ...cursor }, opts);
    expect(parsed.map((s) => s.name)).toEqual(['github', 'fs', 'everything', 'remote']);
    expect(parsed[0]).toEqual({
      name: 'github',
      scope: 'user',
      source: 'user config /x/config.json',
      transport: { type: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ghp_1' } },
      shown: { url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
      risk: 'execute',
      startupTimeoutMs: DEFAULT_STARTUP_TIMEOUT_MS,
      toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
      enabled: true,
    });
    expect(parsed[1].transport).toEqual({ type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/u/code'], env: { LEVEL: 'info' } });
    expect(parsed[2].transport).toMatchObject({ type: 'stdio', args: ['-y', '@modelcontextprotocol/server-everything'], env: {} });
    expect(parsed[3].transport).toEqual({ type: 'http', url: 'http://localhost:3001/mcp', headers: {} });
  });

  it("reads our keys, other agents' spellings of them, and resolves a relative cwd against the config folder", () => {
    const [a, b, c, d] = parseMcpServers(
      {
        a: { command: 'srv', risk: 'read', startupTimeoutMs: 500, toolTimeoutMs: 1500, disabled: true, cwd: 'tools' },
        b: { command: 'srv', enabled: false, cwd: '/abs' },
        c: { serverUrl: 'https://w.example/mcp', type: 'streamable-http' },
        d: { httpUrl: 'https://g.example/mcp', http_headers: { 'X-Key': '${EMPTY:-fallback}' } },
      },
      { ...opts, scope: 'project' },
    );
    expect(a).toMatchObject({ scope: 'project', risk: 'read', startupTimeoutMs: 500, toolTimeoutMs: 1500, enabled: false, transport: { cwd: '/x/tools' } });
    expect(b).toMatchObject({ enabled: false, transport: { cwd: '/abs' } });
    expect(c.transport).toEqual({ type: 'http', url: 'https://w.example/mcp', headers: {} });
    expect(d.transport).toEqual({ type: 'http', url: 'https://g.example/mcp', headers: { 'X-Key': 'fallback' } });
    expect(parseMcpServers(undefined, opts)).toEqual([]);
  });

  it('names the source, the server and the key of a bad shape', () => {
    const bad = (data: unknown) => {
      try {
        parseMcpServers(data, opts);
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as Error).message;
      }
      throw new Error('no error');
    };
    expect(bad({ fs: { command: 'x', args: 'a b' } })).toBe('user config /x/config.json: mcpServers.fs.args must be an array of strings');
    expect(bad({ fs: { command: 'x', args: ['a', 1] } })).toBe('user config /x/config.json: mcpServers.fs.args must be an array of strings');
    expect(bad({ fs: { command: 'x', env: { PORT: 3000 } } })).toBe('user config /x/config.json: mcpServers.fs.env.PORT must be a string');
    expect(bad({ fs: { command: '' } })).toBe('user config /x/config.json: mcpServers.fs.command must be a non-empty string');
    expect(bad({ s: { type: 'sse', url: 'https://h/sse' } })).toMatch(/^user config \/x\/config.json: mcpServers\.s\.type is "sse": SSE servers are not supported; use the server's streamable HTTP endpoint/);
    expect(bad({ s: { type: 'websocket', url: 'https://h' } })).toMatch(/mcpServers\.s\.type is "websocket"; use "stdio"/);
    expect(bad({ gh: { url: 'https://h/mcp', headers: { Authorization: 'Bearer ${NO_SUCH_TOKEN}' } } })).toBe(
      'user config /x/config.json: mcpServers.gh.headers.Authorization uses ${NO_SUCH_TOKEN}, which is not set; set it, or write ${NO_SUCH_TOKEN:-default}',
    );
    expect(bad({ fs: { command: 'x', args: ['${MISSING}'] } })).toMatch(/mcpServers\.fs\.args\[0\] uses \$\{MISSING\}/);
    expect(bad({ a__b: { command: 'x' } })).toMatch(/server named "a__b"; a name may use only letters, digits, "_" and "-", and not "__"/);
    expect(bad({ 'my server': { command: 'x' } })).toMatch(/server named "my server"/);
    expect(bad({ both: { command: 'x', url: 'https://h' } })).toMatch(/mcpServers\.both has both "command" and "url"/);
    expect(bad({ none: { args: [] } })).toMatch(/mcpServers\.none needs "command" \(a stdio server\) or "url"/);
    expect(bad({ h: { url: 'ftp://h/x' } })).toMatch(/mcpServers\.h\.url must be an http:\/\/ or https:\/\/ URL/);
    expect(bad({ h: { url: 'not a url' } })).toMatch(/mcpServers\.h\.url is not a valid URL/);
    expect(bad({ h: { command: 'x', type: 'http' } })).toMatch(/type is "http" but the server has a "command"/);
    expect(bad({ h: { command: 'x', risk: 'dangerous' } })).toMatch(/mcpServers\.h\.risk must be "read", "write" or "execute"/);
    expect(bad({ h: { command: 'x', toolTimeoutMs: -1 } })).toMatch(/mcpServers\.h\.toolTimeoutMs must be a positive number/);
    expect(bad({ h: { command: 'x', disabled: 'yes' } })).toMatch(/mcpServers\.h\.disabled must be true or false/);
    expect(bad({ h: 'npx server' })).toMatch(/mcpServers\.h must be an object/);
    expect(bad(['a'])).toMatch(/^user config \/x\/config.json: mcpServers must be an object/);
  });

  it('mergeMcpServers: a later layer replaces a same-named server', () => {
    const user = parseMcpServers({ a: { command: 'one' }, b: { command: 'two' } }, opts);
    const project = parseMcpServers({ a: { url: 'https://h/mcp' }, c: { command: 'three' } }, { ...opts, scope: 'project', source: 'project config' });
    const merged = mergeMcpServers([user, project]);
    expect(merged.map((s) => [s.name, s.scope])).toEqual([
      ['a', 'project'],
      ['b', 'user'],
      ['c', 'project'],
    ]);
  });

  it('property: ${VAR} and ${VAR:-default} expand like a shell; an unset variable without default is an error', () => {
    const names = ['A', 'B_2', 'home', '_X'];
    const literal = fc.string({ maxLength: 6 }).filter((s) => !s.includes('$'));
    const part = fc.oneof(
      literal.map((s) => ({ kind: 'lit' as const, s })),
      // A default ends at the first "}", so it cannot hold one.
      fc.record({
        kind: fc.constant('ref' as const),
        name: fc.constantFrom(...names),
        fallback: fc.option(
          literal.filter((s) => !s.includes('}')),
          { nil: undefined },
        ),
      }),
    );
    const env = fc.record(Object.fromEntries(names.map((n) => [n, fc.option(fc.string({ maxLength: 5 }), { nil: undefined })])));
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), env, (parts, vars) => {
        const template = parts.map((p) => (p.kind === 'lit' ? p.s : p.fallback === undefined ? `\${${p.name}}` : `\${${p.name}:-${p.fallback}}`)).join('');
        const missing = parts.some((p) => p.kind === 'ref' && p.fallback === undefined && vars[p.name] === undefined);
        if (missing) {
          expect(() => expandVars(template, vars, 'k')).toThrow(UsageError);
          return;
        }
        const expected = parts.map((p) => (p.kind === 'lit' ? p.s : p.fallback === undefined ? vars[p.name]! : vars[p.name] === undefined || vars[p.name] === '' ? p.fallback : vars[p.name]!)).join('');
        expect(expandVars(template, vars, 'k')).toBe(expected);
      }),
    );
  });
});

describe('MCP tool names, schemas and content', () => {
  it('property: names are valid for every provider, unique, and clean names are kept', () => {
    const mcpName = fc.oneof(fc.string({ minLength: 1, maxLength: 80 }), fc.stringMatching(/^[a-z_-]{1,20}$/), fc.constantFrom('a.b', 'a_b', 'a/b', 'x'.repeat(70)));
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9-]{1,20}$/), fc.uniqueArray(mcpName, { maxLength: 12 }), (server, tools) => {
        const names = mcpToolNames(server, tools);
        expect(names).toHaveLength(tools.length);
        expect(new Set(names).size).toBe(names.length);
        for (const [i, n] of names.entries()) {
          expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
          expect(n.startsWith(`${server}__`)).toBe(true);
          const raw = `${server}__${tools[i]}`;
          if (/^[A-Za-z0-9_-]+$/.test(raw) && raw.length <= MAX_TOOL_NAME) expect(n).toBe(raw);
        }
        expect(mcpToolNames(server, tools)).toEqual(names); // deterministic
      }),
    );
  });

  it('a long name is cut with a hash, and two long names sharing a prefix stay apart', () => {
    const [a, b] = mcpToolNames('srv', ['x'.repeat(80) + 'one', 'x'.repeat(80) + 'two']);
    expect(a).toHaveLength(MAX_TOOL_NAME);
    expect(a).toMatch(/^srv__x+_[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
  });

  it('the schema loses its $schema key; a missing or non-object schema becomes an empty object schema', () => {
    expect(mcpToolParameters({ type: 'object', properties: { a: { type: 'string' } }, $schema: 'http://json-schema.org/draft-07/schema#' })).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    expect(mcpToolParameters(undefined)).toEqual({ type: 'object', properties: {} });
    expect(mcpToolParameters({ type: 'string' })).toEqual({ type: 'object', properties: {} });
  });

  it('content blocks become lines the model can read', () => {
    expect(contentToText({ type: 'image', mimeType: 'image/png', data: Buffer.alloc(1234).toString('base64') })).toBe('[image image/png, 1.2 KB, not shown]');
    expect(contentToText({ type: 'resource_link', uri: 'file:///a.md', name: 'a' })).toBe('[resource link: file:///a.md (a)]');
    expect(contentToText({ type: 'resource', resource: { uri: 'file:///n.txt', text: 'hello' } })).toBe('[resource file:///n.txt]\nhello');
    expect(contentToText({ type: 'hologram' })).toBe('[content of type "hologram", not shown]');
  });

  it('transports and exits are described for messages; a URL query (maybe a key) is elided', () => {
    expect(describeTransport({ type: 'stdio', command: 'npx', args: ['-y', 'srv', 'a dir'], env: {} })).toBe('stdio: npx -y srv "a dir"');
    expect(describeTransport({ type: 'http', url: 'https://user:pw@h.example/mcp?key=secret', headers: {} })).toBe('http: https://h.example/mcp?…');
    expect(describeExit({ code: 3, signal: null }, ['a', '', 'b'])).toBe('exit code 3; stderr: a | b');
    expect(describeExit({ code: null, signal: 'SIGKILL' }, [])).toBe('killed by SIGKILL');
  });
});

describe('server-everything over stdio', () => {
  let m: McpManager;
  let changes = 0;
  beforeAll(async () => {
    m = new McpManager({ servers: [spec('everything', stdio([EVERYTHING, 'stdio']))], trusted: true, cwd: process.cwd(), env: { PATH: process.env.PATH ?? '' }, onChange: () => changes++ });
    expect(await m.start()).toEqual([]);
  });
  afterAll(() => m.close());

  it('lists its tools as registry tools with their token cost', () => {
    const [status] = m.status();
    expect(status).toMatchObject({ name: 'everything', state: 'ready', scope: 'user', transport: `stdio: ${NODE} ${EVERYTHING} stdio` });
    expect(status.tools.map((t) => t.mcpName)).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'trigger-long-running-operation']));
    expect(status.toolTokens).toBe(status.tools.reduce((s, t) => s + t.tokens, 0));
    expect(status.tools.every((t) => t.tokens > 0)).toBe(true);
    const echo = tool(m, 'everything__echo');
    // echo says readOnlyHint: true, which decides its risk over the server's default (execute).
    expect(echo).toMatchObject({ risk: 'read', riskBasis: 'annotation', source: 'mcp:everything', description: expect.stringMatching(/^\[MCP server everything\] /) });
    expect(echo.parameters).toEqual({ type: 'object', properties: { message: { type: 'string', description: 'Message to echo' } }, required: ['message'] });
    expect(changes).toBeGreaterThan(0);
  });

  it('calls echo and get-sum through a ToolRegistry, and directly', async () => {
    const registry = new ToolRegistry(m.tools());
    const echoed = await registry.execute({ type: 'toolCall', id: '1', name: 'everything__echo', arguments: { message: 'hello mcp' } }, { cwd: process.cwd(), signal: new AbortController().signal });
    expect(echoed).toMatchObject({ isError: false, content: [{ type: 'text', text: 'Echo: hello mcp' }] });
    const sum = await registry.execute({ type: 'toolCall', id: '2', name: 'everything__get-sum', arguments: { a: 2, b: 40 } }, { cwd: process.cwd(), signal: new AbortController().signal });
    expect(textOf(sum.content)).toContain('42');
    // The registry validates against the server's schema before anything is sent.
    const invalid = await registry.execute({ type: 'toolCall', id: '3', name: 'everything__get-sum', arguments: { a: 'two', b: 40 } }, { cwd: process.cwd(), signal: new AbortController().signal });
    expect(invalid).toMatchObject({ isError: true, details: { reason: 'invalid_arguments' } });
    const direct = await tool(m, 'everything__get-sum').execute({ a: 1, b: 2 }, ctx());
    expect(direct.isError).toBeUndefined();
    expect(text(direct)).toContain('3');
    expect(direct.details).toMatchObject({ mcpServer: 'everything', mcpTool: 'get-sum' });
  });

  it("an unknown tool: the registry says so, and the server's own error comes back as an error result", async () => {
    const registry = new ToolRegistry(m.tools());
    const local = await registry.execute({ type: 'toolCall', id: '1', name: 'everything__nope', arguments: {} }, { cwd: process.cwd(), signal: new AbortController().signal });
    expect(local).toMatchObject({ isError: true, details: { reason: 'unknown_tool' } });
    const remote = await m.callTool('everything', 'nope', {}, ctx());
    expect(remote.isError).toBe(true);
    expect(text(remote)).toMatch(/Tool nope not found/);
    expect(await m.callTool('nowhere', 'echo', {}, ctx())).toMatchObject({ isError: true, content: 'There is no MCP server named nowhere.' });
  });

  it('get-tiny-image: the image is an image block, between its texts (issue 23: MCP images reach the model)', async () => {
    const out = await tool(m, 'everything__get-tiny-image').execute({}, ctx());
    const content = out.content as Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
    expect(content.map((c) => c.type)).toEqual(['text', 'image', 'text']);
    expect(content[1]).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) });
    expect(text(out)).toBe("Here's the image you requested:The image above is the MCP logo.");
  });

  it('tools/list_changed: the tool the server registers after initialization appears', async () => {
    await until(() => m.tools().some((t) => t.name === 'everything__simulate-research-query'), 'simulate-research-query');
  });

  it('a tool the server runs only as a task (simulate-research-query) is called through the task API', async () => {
    await until(() => m.tools().some((t) => t.name === 'everything__simulate-research-query'), 'simulate-research-query');
    const out = await tool(m, 'everything__simulate-research-query').execute({ topic: 'mcp clients' }, ctx());
    expect(out.isError).toBeUndefined();
    expect(text(out)).toMatch(/mcp clients/i);
  });

  it('a slow call aborted by the signal settles at once as aborted, and the server stays usable', async () => {
    const registry = new ToolRegistry(m.tools());
    const controller = new AbortController();
    const pending = registry.execute({ type: 'toolCall', id: 'slow', name: 'everything__trigger-long-running-operation', arguments: { duration: 60, steps: 60 } }, { cwd: process.cwd(), signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const result = await pending; // the test's timeout (30 s) is half the operation's length
    expect(result).toMatchObject({ isError: true, details: { reason: 'aborted' } });
    expect(textOf(result.content)).toBe('Tool "everything__trigger-long-running-operation" was aborted before it finished.');
    expect(text(await tool(m, 'everything__echo').execute({ message: 'still here' }, ctx()))).toBe('Echo: still here');
  });

  it('progress notifications keep a long call alive past toolTimeoutMs (resetTimeoutOnProgress)', async () => {
    const patient = manager([spec('ev', stdio([EVERYTHING, 'stdio']), { toolTimeoutMs: 1500 })]);
    expect(await patient.start()).toEqual([]);
    // 3 s in all, a progress notification every 100 ms.
    const out = await tool(patient, 'ev__trigger-long-running-operation').execute({ duration: 3, steps: 30 }, ctx());
    expect(out.isError).toBeUndefined();
    expect(text(out)).toContain('Long running operation completed');
  });
});

describe('a server that fails', () => {
  it('exits mid-call (killed): an error result at once, state exited, and start() brings it back', async () => {
    let changes = 0;
    const m = manager([spec('everything', stdio([EVERYTHING, 'stdio']))], { onChange: () => changes++ });
    expect(await m.start()).toEqual([]);
    const pid = pidOf(m, 'everything');
    const longCall = tool(m, 'everything__trigger-long-running-operation');
    const pending = longCall.execute({ duration: 60, steps: 60 }, ctx());
    setTimeout(() => process.kill(pid, 'SIGKILL'), 300);
    const out = await pending;
    expect(out).toMatchObject({ isError: true, details: { reason: 'server_exited', mcpServer: 'everything', mcpTool: 'trigger-long-running-operation' } });
    // The server's last stderr lines follow the signal (here its start-up banner).
    expect(text(out)).toMatch(/^MCP server everything exited during the call of trigger-long-running-operation \(killed by SIGKILL(; stderr: .*)?\)\. It is restarted at the next run\.$/);
    const [status] = m.status();
    expect(status).toMatchObject({ state: 'exited', error: expect.stringMatching(/^killed by SIGKILL/), tools: [] });
    expect(status.pid).toBeUndefined();
    expect(m.tools()).toEqual([]);
    expect(changes).toBeGreaterThan(1);
    // A definition held from before is refused clearly, not sent anywhere.
    const stale = await longCall.execute({ duration: 1, steps: 1 }, ctx());
    expect(stale).toMatchObject({ isError: true, details: { reason: 'not_ready' } });
    expect(text(stale)).toMatch(/^MCP server everything is not running \(exited: killed by SIGKILL.*\), so trigger-long-running-operation cannot be called now\.$/);

    expect(await m.start()).toEqual([]);
    expect(m.status()[0].state).toBe('ready');
    expect(pidOf(m, 'everything')).not.toBe(pid);
    expect(text(await tool(m, 'everything__echo').execute({ message: 'back' }, ctx()))).toBe('Echo: back');
  });

  it('exits mid-call by itself: the message has the exit code and its last stderr lines', async () => {
    const m = manager([spec('fixture', stdio([FIXTURE]))]);
    expect(await m.start()).toEqual([]);
    const out = await tool(m, 'fixture__crash').execute({}, ctx());
    expect(out).toMatchObject({ isError: true, details: { reason: 'server_exited' } });
    expect(text(out)).toMatch(/^MCP server fixture exited during the call of crash \(exit code 3; stderr: (.* \| )?about to crash \| fatal: simulated crash\)\. It is restarted at the next run\.$/);
    expect(m.status()[0]).toMatchObject({ state: 'exited', error: expect.stringMatching(/^exit code 3; stderr: .*fatal: simulated crash$/) });
  });

  it('does not answer in time: the call is cancelled after toolTimeoutMs', async () => {
    const m = manager([spec('fixture', stdio([FIXTURE]), { toolTimeoutMs: 500 })]);
    expect(await m.start()).toEqual([]);
    const out = await tool(m, 'fixture__hang').execute({}, ctx());
    expect(out).toMatchObject({ isError: true, details: { reason: 'timeout' } });
    expect(text(out)).toBe('MCP server fixture did not answer hang within 0.5 s; the call was cancelled.');
    expect(m.status()[0].state).toBe('ready');
    // The server was told: notifications/cancelled reached the tool's handler.
    const count = async () => text(await tool(m, 'fixture__cancelled-count').execute({}, ctx()));
    expect(await count()).toBe('1');
    const controller = new AbortController();
    const pending = tool(m, 'fixture__hang').execute({}, ctx(controller.signal));
    controller.abort();
    await expect(pending).rejects.toThrow('the call of hang on MCP server fixture was cancelled: the run was aborted');
    expect(await count()).toBe('2');
  });

  it('a startup that never answers is reported after startupTimeoutMs, not waited for; close() ends it', async () => {
    const m = manager([spec('silent', { type: 'stdio', command: NODE, args: ['-e', 'setInterval(() => {}, 1000)'], env: {} }, { startupTimeoutMs: 300 }), spec('quick', stdio([FIXTURE]))]);
    const lines = await m.start();
    expect(lines).toEqual(['MCP server silent (test config) is not ready after 0.3 s; it keeps starting in the background and its tools are added when it is ready']);
    expect(m.status().map((s) => s.state)).toEqual(['starting', 'ready']);
    expect(m.tools().every((t) => t.name.startsWith('quick__'))).toBe(true);
    const pid = pidOf(m, 'silent');
    expect(alive(pid)).toBe(true);
    await m.close();
    expect(alive(pid)).toBe(false);
  });

  it('a server that exits at startup, a command that does not exist, a disabled server', async () => {
    const m = manager([
      spec('dies', { type: 'stdio', command: NODE, args: ['-e', 'console.error("boom: no config"); process.exit(2)'], env: {} }),
      spec('missing', { type: 'stdio', command: 'mini-agent-no-such-command', args: [], env: {} }),
      spec('nowhere', stdio([FIXTURE], { cwd: '/no/such/folder' })),
      spec('off', stdio([FIXTURE]), { enabled: false }),
    ]);
    const lines = await m.start();
    expect(lines).toEqual([
      'MCP server dies (test config) failed to start: the server exited before it was ready (exit code 2; stderr: boom: no config)',
      expect.stringMatching(/^MCP server missing \(test config\) failed to start: cannot run "mini-agent-no-such-command": spawn mini-agent-no-such-command ENOENT$/),
      `MCP server nowhere (test config) failed to start: cannot run ${JSON.stringify(NODE)}: its working folder /no/such/folder does not exist`,
    ]);
    expect(m.status().map((s) => s.state)).toEqual(['failed', 'failed', 'failed', 'disabled']);
    expect(m.tools()).toEqual([]);
  });
});

describe('the fixture server: names, content, list_changed, environment', () => {
  let m: McpManager;
  let changes = 0;
  beforeAll(async () => {
    m = new McpManager({
      servers: [spec('fixture', stdio([FIXTURE], { env: { FIXTURE_SHOW: 'PATH,OPENAI_API_KEY,FROM_SPEC', FROM_SPEC: 'given' } }))],
      trusted: true,
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: 'sk-not-for-servers' },
      onChange: () => changes++,
    });
    expect(await m.start()).toEqual([]);
  });
  afterAll(() => m.close());

  it('names are sanitized; a clean name keeps its name and the colliding one gets a hash', async () => {
    const byMcp = Object.fromEntries(m.status()[0].tools.map((t) => [t.mcpName, t.name]));
    expect(byMcp['weird.name/x']).toBe('fixture__weird_name_x');
    expect(byMcp.dotted_tool).toBe('fixture__dotted_tool');
    expect(byMcp['dotted.tool']).toMatch(/^fixture__dotted_tool_[0-9a-f]{8}$/);
    const registry = new ToolRegistry(m.tools());
    const run = (name: string) => registry.execute({ type: 'toolCall', id: name, name, arguments: {} }, { cwd: process.cwd(), signal: new AbortController().signal }).then((r) => textOf(r.content));
    expect(await run('fixture__weird_name_x')).toBe('weird ok');
    expect(await run('fixture__dotted_tool')).toBe('from dotted_tool');
    expect(await run(byMcp['dotted.tool'])).toBe('from dotted.tool');
  });

  it('every kind of content block, structured content alone, and a tool that throws', async () => {
    expect(text(await tool(m, 'fixture__mixed-content').execute({}, ctx()))).toBe(
      'first[audio audio/wav, 2.9 KB, not shown][resource file:///notes.txt (text/plain)]\nembedded text[resource file:///blob.bin, 10 B of binary data, not shown][resource link: file:///linked.md (linked)]',
    );
    expect(text(await tool(m, 'fixture__structured-only').execute({}, ctx()))).toBe('{\n  "answer": 42\n}');
    const failed = await tool(m, 'fixture__fail').execute({}, ctx());
    expect(failed.isError).toBe(true);
    expect(text(failed)).toContain('the fixture tool failed on purpose');
  });

  it('tools/list_changed: a tool added later appears in tools(), and onChange fires', async () => {
    expect(m.tools().some((t) => t.name === 'fixture__added-later')).toBe(false);
    const before = changes;
    expect(text(await tool(m, 'fixture__add-tool').execute({}, ctx()))).toBe('added');
    await until(() => m.tools().some((t) => t.name === 'fixture__added-later'), 'fixture__added-later');
    expect(changes).toBeGreaterThan(before);
    expect(text(await tool(m, 'fixture__added-later').execute({}, ctx()))).toBe('late but here');
  });

  it('a stdio server gets PATH and its own env, not our API keys; the line on stdout that is not JSON-RPC did no harm', async () => {
    const env = JSON.parse(text(await tool(m, 'fixture__env').execute({}, ctx())));
    expect(env).toEqual({ PATH: process.env.PATH, OPENAI_API_KEY: null, FROM_SPEC: 'given' });
  });
});

describe('server-filesystem', () => {
  it('lists and reads in a temp dir; a read outside it is an isError result', async () => {
    const dir = tempDir('mcp-fs-');
    writeFileSync(join(dir, 'notes.md'), 'filesystem works\n');
    const m = manager([spec('fs', stdio([FILESYSTEM, dir]), { risk: 'read' })]);
    expect(await m.start()).toEqual([]);
    const registry = new ToolRegistry(m.tools());
    expect(registry.riskOf('fs__read_text_file')).toBe('read');
    const call = (name: string, args: Record<string, unknown>) => registry.execute({ type: 'toolCall', id: name, name, arguments: args }, { cwd: dir, signal: new AbortController().signal });
    expect(textOf((await call('fs__list_directory', { path: dir })).content)).toContain('[FILE] notes.md');
    expect(await call('fs__read_text_file', { path: join(dir, 'notes.md') })).toMatchObject({ isError: false, content: [{ text: 'filesystem works\n' }] });
    const outside = await call('fs__read_text_file', { path: '/etc/hostname' });
    expect(outside.isError).toBe(true);
    expect(textOf(outside.content)).toMatch(/Access denied - path outside allowed directories/);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe('streamable HTTP', () => {
  let server: ChildProcess | undefined;
  afterEach(() => {
    server?.kill('SIGKILL');
    server = undefined;
  });

  async function startHttpServer(): Promise<number> {
    const port = await freePort();
    server = spawn(NODE, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    server.stdout!.on('data', (d) => (log += d));
    server.stderr!.on('data', (d) => (log += d));
    await until(() => log.includes(`listening on port ${port}`), `the HTTP server (log: ${log})`);
    return port;
  }

  it('lists and calls tools over HTTP; a server that went away gives an error result, not a hang', async () => {
    const port = await startHttpServer();
    const m = manager([spec('remote', { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Test': 'yes' } })]);
    expect(await m.start()).toEqual([]);
    expect(m.status()[0]).toMatchObject({ state: 'ready', transport: `http: http://127.0.0.1:${port}/mcp · headers: X-Test: yes` });
    expect(text(await tool(m, 'remote__echo').execute({ message: 'over http' }, ctx()))).toBe('Echo: over http');
    server!.kill('SIGKILL');
    await new Promise((r) => server!.once('exit', r));
    const out = await tool(m, 'remote__echo').execute({ message: 'anyone?' }, ctx());
    expect(out).toMatchObject({ isError: true, details: { reason: 'mcp_error' } });
    expect(text(out)).toMatch(/^MCP server remote could not run echo: /);
  });

  it('a URL where nothing listens fails to start with the reason', async () => {
    const port = await freePort();
    const m = manager([spec('nobody', { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {} })]);
    const [line] = await m.start();
    expect(line).toMatch(/^MCP server nobody \(test config\) failed to start: .*ECONNREFUSED/);
  });
});

describe('trust', () => {
  it('a project server in an untrusted workspace is not started, and the line says how to trust; user servers start', async () => {
    const cwd = tempDir('mcp-untrusted-');
    const marker = join(cwd, 'started');
    const m = manager(
      [
        spec('repo', { type: 'stdio', command: NODE, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`], env: {} }, { scope: 'project', source: 'project config .mini-agent/config.json' }),
        spec('mine', stdio([FIXTURE])),
      ],
      { trusted: false, cwd },
    );
    expect(m.status()[0].state).toBe('untrusted');
    const lines = await m.start();
    expect(lines).toEqual([`MCP server repo (from project config .mini-agent/config.json) not started because ${cwd} is not trusted; run \`mini-agent trust\` there (or pass --trust-workspace) to start it`]);
    expect(m.status().map((s) => s.state)).toEqual(['untrusted', 'ready']);
    expect(existsSync(marker)).toBe(false);
    expect(m.tools().every((t) => t.source === 'mcp:mine')).toBe(true);
  });

  it('once trusted, the project server starts', async () => {
    const m = manager([spec('repo', stdio([FIXTURE]), { scope: 'project' })], { trusted: false });
    await m.start();
    m.setTrusted(true);
    expect(await m.start()).toEqual([]);
    expect(m.status()[0].state).toBe('ready');
  });
});

describe('close', () => {
  it('leaves no server process alive, removes the exit hook, and is idempotent', async () => {
    const m = manager([spec('a', stdio([FIXTURE])), spec('b', stdio([EVERYTHING, 'stdio']))]);
    expect(await m.start()).toEqual([]);
    const pids = [pidOf(m, 'a'), pidOf(m, 'b')];
    expect(pids.every(alive)).toBe(true);
    expect(liveServerProcesses().exitHook).toBe(true);
    await m.close();
    expect(pids.some(alive)).toBe(false);
    expect(m.tools()).toEqual([]);
    expect(m.status().map((s) => s.state)).toEqual(['idle', 'idle']);
    await m.close();
    expect(await m.start()).toEqual([]);
    expect(m.status().map((s) => s.state)).toEqual(['idle', 'idle']);
    // Other tests' managers may still run servers in this process; none of these remain.
    expect(liveServerProcesses().pids.filter((p) => pids.includes(p))).toEqual([]);
  });

  it('a server that ignores SIGTERM is killed after the grace period', async () => {
    const marker = join(tempDir('mcp-stubborn-'), 'ignoring');
    const stubborn = `process.on('SIGTERM', () => {}); require('fs').writeFileSync(${JSON.stringify(marker)}, ''); setInterval(() => {}, 1000)`;
    const m = manager([spec('stubborn', { type: 'stdio', command: NODE, args: ['-e', stubborn], env: {} }, { startupTimeoutMs: 200 })]);
    expect(await m.start()).toHaveLength(1);
    const pid = pidOf(m, 'stubborn');
    await until(() => existsSync(marker), 'the server to ignore SIGTERM');
    const closing = m.close();
    await new Promise((r) => setTimeout(r, 500));
    expect(alive(pid)).toBe(true); // SIGTERM did nothing
    await closing;
    expect(alive(pid)).toBe(false);
  });

  it('the SDK is loaded only by start(): the modules import nothing of it but types', () => {
    for (const file of ['mcp-client.ts', 'mcp-config.ts', 'mcp-requests.ts', 'mcp-stdio.ts', 'mcp-tools.ts']) {
      const source = readFileSync(root(`src/extensions/${file}`), 'utf8');
      const runtime = [...source.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'(@modelcontextprotocol\/[^']+)'/gm)].map((m) => m[1]);
      expect(runtime, file).toEqual([]);
    }
  });

  it('a process that exits without close() takes its servers with it (the exit hook)', async () => {
    const dir = tempDir('mcp-exit-');
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      `import { McpManager } from ${JSON.stringify(root('src/extensions/mcp-client.ts'))};
const m = new McpManager({ servers: [{ name: 'f', scope: 'user', source: 's', transport: { type: 'stdio', command: process.execPath, args: [${JSON.stringify(FIXTURE)}], env: {} }, risk: 'execute', startupTimeoutMs: 20000, toolTimeoutMs: 20000, enabled: true }], trusted: true, cwd: process.cwd(), env: process.env });
const lines = await m.start();
console.log(JSON.stringify({ lines, pid: m.status()[0].pid }));
process.exit(0);
`,
    );
    const { build } = await import('esbuild');
    const out = join(dir, 'entry.mjs');
    await build({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
      nodePaths: [root('node_modules')],
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    });
    const run = spawnSync(NODE, [out], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(0);
    const { lines, pid } = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(lines).toEqual([]);
    expect(typeof pid).toBe('number');
    await until(() => !alive(pid), `server ${pid} to be gone`, 5000);
  });
});
