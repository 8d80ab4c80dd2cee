// Issue 21 §5: an MCP tool's risk comes from its annotations first (readOnlyHint: true is read;
// destructiveHint, or readOnlyHint: false, is write), the user's per-server "risk" only sets the
// default for tools without them, and the user's per-tool "tools": {"NAME": {"risk": …}} wins
// over both. --read-only runs only the tools that are read-only by annotation or by the user's
// per-tool word, never one that is "read" only by the server's default. The real attack shape:
// @modelcontextprotocol/server-filesystem, marked "risk": "read" by the user, under --read-only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { parseMcpServers } from '../src/extensions/mcp-config.js';
import { mcpToolRisk } from '../src/extensions/mcp-tools.js';
import type { ScriptTurn } from '../src/model/script.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, tempDir, writeScript } from './support/helpers.js';

const require = createRequire(import.meta.url);
const FILESYSTEM = join(require.resolve('@modelcontextprotocol/server-filesystem/package.json'), '..', 'dist', 'index.js');
const FIXTURE = fileURLToPath(new URL('./fixtures/mcp/fixture-server.mjs', import.meta.url));

/** A workspace with a.txt, and a home whose config holds the given servers. */
function setup(servers: Record<string, unknown>) {
  const cwd = tempDir();
  const home = tempDir('mini-agent-home-');
  writeFileSync(join(cwd, 'a.txt'), 'original text\n');
  writeFileSync(join(home, 'config.json'), JSON.stringify({ mcpServers: servers }));
  return { cwd, home };
}

const fsServer = (cwd: string, extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [FILESYSTEM, cwd], startupTimeoutMs: 20_000, ...extra });

type Decision = Extract<AgentEvent, { type: 'permission_decision' }>;
type End = Extract<AgentEvent, { type: 'tool_end' }>;

async function run(cwd: string, home: string, calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>, flags: string[]) {
  const turns: ScriptTurn[] = [{ toolCalls: calls }, { text: 'done' }];
  const r = await cliInProcess(['--json', '--no-session', ...flags, '--script', writeScript(cwd, turns, 'risk-script.json'), 'go'], { cwd, home, timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  const events = parseJsonl(r.stdout);
  const decisions = new Map(events.flatMap((e) => (e.type === 'permission_decision' ? [[e.toolCallId, e] as [string, Decision]] : [])));
  const ends = new Map(events.flatMap((e) => (e.type === 'tool_end' ? [[e.toolCallId, e] as [string, End]] : [])));
  return { decisions, ends, stderr: r.stderr };
}

const text = (e: End | undefined) => (e?.result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('server-filesystem marked "risk": "read", under --read-only', () => {
  it('its write tools are refused by their annotations; its read tools run', async () => {
    const { cwd, home } = setup({});
    writeFileSync(join(home, 'config.json'), JSON.stringify({ mcpServers: { fs: fsServer(cwd, { risk: 'read' }) } }));
    const file = join(cwd, 'a.txt');
    const rows: Array<{ id: string; name: string; arguments: Record<string, unknown>; runs: boolean }> = [
      { id: 'read', name: 'fs__read_text_file', arguments: { path: file }, runs: true },
      { id: 'list', name: 'fs__list_directory', arguments: { path: cwd }, runs: true },
      { id: 'info', name: 'fs__get_file_info', arguments: { path: file }, runs: true },
      { id: 'search', name: 'fs__search_files', arguments: { path: cwd, pattern: '*.txt' }, runs: true },
      { id: 'write', name: 'fs__write_file', arguments: { path: file, content: 'pwned\n' }, runs: false },
      { id: 'edit', name: 'fs__edit_file', arguments: { path: file, edits: [{ oldText: 'original', newText: 'pwned' }] }, runs: false },
      { id: 'mkdir', name: 'fs__create_directory', arguments: { path: join(cwd, 'made') }, runs: false },
      { id: 'move', name: 'fs__move_file', arguments: { source: file, destination: join(cwd, 'moved.txt') }, runs: false },
    ];
    const { decisions, ends } = await run(cwd, home, rows, ['--read-only']);
    for (const row of rows) {
      const d = decisions.get(row.id)!;
      expect(d, row.name).toBeDefined();
      if (row.runs) {
        expect([row.name, d.decision, d.reason]).toEqual([row.name, 'allow', 'the default for read tools (allow)']);
        expect([row.name, ends.get(row.id)!.result.isError]).toEqual([row.name, false]);
      } else {
        expect([row.name, d.decision, d.source]).toEqual([row.name, 'deny', 'read-only']);
        expect(d.reason).toMatch(new RegExp(`^mini-agent runs read-only \\(--read-only\\); ${row.name} changes files \\(its MCP annotations do not say read-only\\)`));
        expect(text(ends.get(row.id))).toMatch(/Permission denied/);
      }
    }
    expect(text(ends.get('read'))).toContain('original text');
    // Nothing was changed on disk.
    expect(readFileSync(file, 'utf8')).toBe('original text\n');
    expect(existsSync(join(cwd, 'made'))).toBe(false);
    expect(existsSync(join(cwd, 'moved.txt'))).toBe(false);
  });

  it('a tool without annotations is "read" only by the server default: refused under --read-only; the per-tool setting wins over annotations', async () => {
    const { cwd, home } = setup({});
    const file = join(cwd, 'a.txt');
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        mcpServers: {
          fx: { command: process.execPath, args: [FIXTURE], risk: 'read', startupTimeoutMs: 20_000, tools: { 'weird.name/x': { risk: 'read' } } },
          fs: fsServer(cwd, { risk: 'read', tools: { read_text_file: { risk: 'execute' }, create_directory: { risk: 'read' } } }),
        },
      }),
    );
    const calls = [
      { id: 'plain', name: 'fx__dotted_tool', arguments: {} },
      { id: 'named', name: 'fx__weird_name_x', arguments: {} },
      { id: 'read', name: 'fs__read_text_file', arguments: { path: file } },
      { id: 'mkdir', name: 'fs__create_directory', arguments: { path: join(cwd, 'made') } },
      { id: 'list', name: 'fs__list_directory', arguments: { path: cwd } },
    ];
    const { decisions, ends } = await run(cwd, home, calls, ['--read-only']);
    const d = (id: string) => decisions.get(id)!;
    expect(d('plain')).toMatchObject({ decision: 'deny', source: 'read-only' });
    expect(d('plain').reason).toMatch(/fx__dotted_tool is read-only only by its MCP server's default risk, not by its annotations or a per-tool setting/);
    // The user's per-tool word: a tool without annotations made read runs; it wins over annotations both ways.
    expect(d('named')).toMatchObject({ decision: 'allow' });
    expect(text(ends.get('named'))).toBe('weird ok');
    expect(d('read')).toMatchObject({ decision: 'deny', source: 'read-only' });
    expect(d('read').reason).toMatch(/fs__read_text_file runs commands\./);
    expect(d('mkdir')).toMatchObject({ decision: 'allow' });
    expect(existsSync(join(cwd, 'made'))).toBe(true);
    expect(d('list')).toMatchObject({ decision: 'allow' });
  });
});

describe('annotations decide the default permission', () => {
  it('server risk left at execute: read tools (readOnlyHint) run without asking, write tools still ask (refused with no one to ask)', async () => {
    const { cwd, home } = setup({});
    writeFileSync(join(home, 'config.json'), JSON.stringify({ mcpServers: { fs: fsServer(cwd) } }));
    const file = join(cwd, 'a.txt');
    const { decisions } = await run(
      cwd,
      home,
      [
        { id: 'read', name: 'fs__read_text_file', arguments: { path: file } },
        { id: 'write', name: 'fs__write_file', arguments: { path: file, content: 'pwned\n' } },
      ],
      [],
    );
    expect(decisions.get('read')).toMatchObject({ decision: 'allow', reason: 'the default for read tools (allow)' });
    expect(decisions.get('write')).toMatchObject({ decision: 'deny', source: 'no one to ask' });
    expect(decisions.get('write')!.reason).toContain('the default for execute-risk tools');
    expect(readFileSync(file, 'utf8')).toBe('original text\n');
  });

  it('mcp list shows each tool\'s risk, "*" where it is only the server default', async () => {
    const { cwd, home } = setup({});
    writeFileSync(join(home, 'config.json'), JSON.stringify({ mcpServers: { fs: fsServer(cwd, { risk: 'read' }), fx: { command: process.execPath, args: [FIXTURE], risk: 'read' } } }));
    const r = await cliInProcess(['mcp', 'list'], { cwd, home, timeoutMs: 30_000 });
    expect(r.stdout).toMatch(/fs__read_text_file\s+~\s*\d+ tokens {2}read {6}\S/);
    expect(r.stdout).toMatch(/fs__write_file\s+~\s*\d+ tokens {2}write {5}\S/);
    expect(r.stdout).toMatch(/fx__dotted_tool\s+~\s*\d+ tokens {2}read\* {5}\S/);
    expect(r.stdout).toContain(`* the server's default risk (the tool has no annotations)`);
    const json = JSON.parse((await cliInProcess(['mcp', 'list', '--json'], { cwd, home, timeoutMs: 30_000 })).stdout);
    const tools = json.servers.flatMap((s: { tools: unknown[] }) => s.tools);
    expect(tools.find((t: { name: string }) => t.name === 'fs__edit_file')).toMatchObject({ risk: 'write', riskBasis: 'annotation' });
  });
});

describe('the rule, pure', () => {
  const server = (risk: 'read' | 'write' | 'execute', tools = {}) => ({ risk, tools });
  it.each([
    ['readOnlyHint true', { readOnlyHint: true }, 'execute', { risk: 'read', basis: 'annotation' }],
    ['readOnlyHint true wins over destructiveHint', { readOnlyHint: true, destructiveHint: true }, 'execute', { risk: 'read', basis: 'annotation' }],
    ['destructiveHint true on a "read" server', { destructiveHint: true }, 'read', { risk: 'write', basis: 'annotation' }],
    ['readOnlyHint false, not destructive, on a "read" server', { readOnlyHint: false, destructiveHint: false }, 'read', { risk: 'write', basis: 'annotation' }],
    ['readOnlyHint false alone (destructive by the spec default)', { readOnlyHint: false }, 'write', { risk: 'write', basis: 'annotation' }],
    ['destructiveHint on a server left at execute keeps asking', { destructiveHint: true }, 'execute', { risk: 'execute', basis: 'annotation' }],
    ['no hints: the server default', { openWorldHint: true }, 'read', { risk: 'read', basis: 'server-default' }],
    ['no annotations: the server default', undefined, 'write', { risk: 'write', basis: 'server-default' }],
  ] as const)('%s', (_name, annotations, risk, expected) => {
    expect(mcpToolRisk({ name: 't', ...(annotations ? { annotations } : {}) }, server(risk))).toEqual(expected);
  });
  it('the per-tool setting wins; a tool named like an Object method is not confused with one', () => {
    expect(mcpToolRisk({ name: 't', annotations: { readOnlyHint: true } }, server('read', { t: { risk: 'execute' } }))).toEqual({ risk: 'execute', basis: 'tool-setting' });
    expect(mcpToolRisk({ name: 'toString' }, server('write', {}))).toEqual({ risk: 'write', basis: 'server-default' });
  });
  it('"tools" is checked where the server is parsed', () => {
    const parse = (tools: unknown) => parseMcpServers({ s: { command: 'x', tools } }, { source: 'cfg', scope: 'user', env: {}, baseDir: '/' })[0];
    expect(parse({ a: { risk: 'read' }, b: { approval_mode: 'approve' } }).tools).toEqual({ a: { risk: 'read' }, b: {} });
    expect(() => parse(['a'])).toThrow(/cfg: mcpServers\.s\.tools must be an object of tool name/);
    expect(() => parse({ a: 'read' })).toThrow(/mcpServers\.s\.tools\.a must be an object such as \{"risk": "read"\}/);
    expect(() => parse({ a: { risk: 'safe' } })).toThrow(/mcpServers\.s\.tools\.a\.risk must be "read", "write" or "execute"/);
  });
});
