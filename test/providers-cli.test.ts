// Full CLI runs against a local server for each provider dialect: a tool call, then a final
// answer, through the real SDKs; failures give one clear line on stderr and a valid session.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { textOf } from '../src/core/types.js';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { SessionStore } from '../src/session/store.js';
import { projectMessages } from '../src/session/projector.js';
import { cliInProcess } from './support/cli-in-process.js';
import { essence, parseJsonl, runCli, tempDir } from './support/helpers.js';
import { sse, servePerTest, TEST_CERT_FILE } from './support/http-server.js';
const BUILTIN_TOOLS = ['read_file', 'list_dir', 'grep', 'find', 'write_file', 'edit_file', 'write_note', 'bash'];

const serve = servePerTest();

// ---- OpenAI Chat Completions bodies ----
const chunk = (delta: object, finish: string | null = null) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usageChunk = (p: number, c: number) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c } });
const openaiToolTurn = sse(
  [
    chunk({ role: 'assistant', content: 'Let me read it. ' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_r1', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"notes.md"}' } }] }),
    chunk({}, 'tool_calls'),
    usageChunk(100, 20),
  ],
  { done: true },
);
const openaiAnswer = sse([chunk({ content: 'The notes say ' }), chunk({ content: 'hello world.' }), chunk({}, 'stop'), usageChunk(150, 10)], { done: true });

// ---- Anthropic Messages bodies ----
const a = (events: object[]) => sse(events, { named: true });
const anthropicToolTurn = a([
  { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me read it.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_r1', name: 'read_file', input: {} } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path": "no' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'tes.md"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } },
  { type: 'message_stop' },
]);
const anthropicAnswer = a([
  { type: 'message_start', message: { id: 'msg_2', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 150, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'The notes say hello world.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 10 } },
  { type: 'message_stop' },
]);

function workspace(pricing = { input: 2, output: 10, cacheRead: 0, cacheWrite: 0 }): string {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'notes.md'), 'hello world\n');
  mkdirSync(join(cwd, '.mini-agent'));
  writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ models: { 'test-model': { pricing } }, retry: { baseDelayMs: 1, maxDelayMs: 50 } }));
  return cwd;
}

const settledOf = (events: AgentEvent[]) => events.at(-1) as Extract<AgentEvent, { type: 'run_settled' }>;

describe.each([
  { dialect: 'openai', turns: [openaiToolTurn, openaiAnswer], args: (url: string) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`] },
  { dialect: 'anthropic', turns: [anthropicToolTurn, anthropicAnswer], args: (url: string) => ['--provider', 'anthropic', '--base-url', url] },
])('CLI against a local $dialect server', ({ dialect, turns, args }) => {
  it('runs a tool call, sends its result back with the matching id, and answers', async () => {
    const server = await serve(turns.map((body) => ({ body })));
    const cwd = workspace();
    const session = join(cwd, 's.jsonl');
    const r = await cliInProcess([...args(server.url), '--model', 'test-model', '--json', '--session', session, 'what do the notes say?'], { cwd });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const events = parseJsonl(r.stdout);
    const end = events.find((e) => e.type === 'tool_end') as Extract<AgentEvent, { type: 'tool_end' }>;
    expect(end).toMatchObject({ name: 'read_file', result: { isError: false } });
    expect(textOf(end.result.content)).toContain('hello world');

    // The second request carries the tool result, tied to the call id, over the same connection:
    // the tool turn is quicker than the HTTP client's release of the first one (connection-reuse.ts).
    expect(server.requests).toHaveLength(2);
    expect(server.connections).toBe(1);
    const body = server.requests[1].body;
    if (dialect === 'openai') {
      const tool = body.messages.find((m: { role: string }) => m.role === 'tool');
      expect(tool).toMatchObject({ tool_call_id: 'call_r1' });
      expect(tool.content).toContain('hello world');
      expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(BUILTIN_TOOLS);
      expect(body.stream_options).toEqual({ include_usage: true });
    } else {
      const last = body.messages.at(-1);
      expect(last.role).toBe('user');
      expect(last.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_r1' });
      expect(body.tools.map((t: { name: string }) => t.name)).toEqual(BUILTIN_TOOLS);
      expect(server.requests[0].url).toBe('/v1/messages');
    }

    // Usage and cost on each assistant message, totals on run_settled.
    const settled = settledOf(events);
    expect(settled).toMatchObject({ stopReason: 'completed', turns: 2, toolCalls: 1 });
    expect(settled.usage.input + settled.usage.cacheRead).toBe(250);
    expect(settled.usage.output).toBe(30);
    expect(settled.usage.cost).toBeCloseTo((250 * 2 + 30 * 10) / 1e6, 10);
    const store = SessionStore.open(session);
    const assistants = projectMessages(store.activePath()).filter((m) => m.role === 'assistant');
    expect(assistants).toHaveLength(2);
    for (const m of assistants) expect(m.role === 'assistant' && m.usage.cost).toBeGreaterThan(0);
    expect(assistants.every((m) => m.role === 'assistant' && m.provider === (dialect === 'openai' ? 'openai-compatible' : 'anthropic'))).toBe(true);
  });

  it('over HTTPS: the run opens one TLS connection (ahead of its first request) and keeps it; an untrusted certificate is a clear network error', async () => {
    const server = await serve(
      turns.map((body) => ({ body })),
      { tls: true },
    );
    const cwd = workspace();
    const trusted = await runCli([...args(server.url), '--model', 'test-model', 'what do the notes say?'], { cwd, env: { NODE_EXTRA_CA_CERTS: TEST_CERT_FILE } });
    expect(trusted.stderr).not.toMatch(/error/i);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain('hello world.');
    expect(server.requests).toHaveLength(2);
    expect(server.connections).toBe(1);
    expect(server.secureConnections).toBe(1);

    const untrusted = await runCli([...args(server.url), '--model', 'test-model', 'again'], { cwd });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(/network.*connection failed.*self[- ]signed certificate/i);
    expect(server.requests).toHaveLength(2); // no request went over a connection that failed its check
  });

  it("MINI_AGENT_TRANSPORT=fetch runs through Node's fetch; a value it does not know is a usage error naming it", async () => {
    const server = await serve(turns.map((body) => ({ body })));
    const cwd = workspace();
    const viaFetch = await runCli([...args(server.url), '--model', 'test-model', '--no-session', 'what do the notes say?'], { cwd, env: { MINI_AGENT_TRANSPORT: 'fetch' } });
    expect(viaFetch.code).toBe(0);
    expect(viaFetch.stdout).toContain('hello world.');
    expect(server.requests).toHaveLength(2);
    const bad = await runCli([...args(server.url), '--model', 'test-model', '--no-session', 'again'], { cwd, env: { MINI_AGENT_TRANSPORT: 'curl' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('MINI_AGENT_TRANSPORT is "curl": use "fetch"');
    expect(server.requests).toHaveLength(2);
  });

  it('a real run recorded with --record replays offline with --script', async () => {
    const server = await serve(turns.map((body) => ({ body })));
    const cwd = workspace();
    const rec = join(cwd, 'rec.json');
    const live = await cliInProcess([...args(server.url), '--model', 'test-model', '--json', '--no-session', '--record', rec, 'go'], { cwd });
    expect(live.code).toBe(0);
    await server.close();
    const replay = await cliInProcess(['--json', '--no-session', '--script', rec, 'go'], { cwd });
    expect(replay.code).toBe(0);
    expect(essence(parseJsonl(replay.stdout))).toEqual(essence(parseJsonl(live.stdout)));
  });

  it('an auth failure: one line naming provider, kind and what to do; exit 1; the session stays valid', async () => {
    const errorBody =
      dialect === 'openai'
        ? JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } })
        : JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    const server = await serve([{ status: 401, headers: { 'content-type': 'application/json' }, body: errorBody }]);
    const cwd = workspace();
    const session = join(cwd, 's.jsonl');
    const r = await cliInProcess([...args(server.url), '--model', 'test-model', '--session', session, 'hi'], { cwd, env: { OPENAI_API_KEY: 'sk-bad' } });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^mini-agent: ${dialect === 'openai' ? 'openai-compatible' : 'anthropic'} auth error: .*401.* — check the API key`));
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(server.requests).toHaveLength(1); // auth errors are not retried
    const store = SessionStore.open(session);
    expect(store.warnings).toEqual([]);
    const path = store.activePath();
    expect(path.map((e) => e.type === 'message' && e.message.role)).toEqual(['user', 'assistant']);
  });

  it('a 429 with retry-after is retried once and then succeeds; an HTML 502 page gives a short readable line', async () => {
    const ok = turns[1];
    const server = await serve([{ status: 429, headers: { 'retry-after': '0', 'content-type': 'application/json' }, body: '{"error":{"message":"slow down"}}' }, { body: ok }]);
    const cwd = workspace();
    const r = await cliInProcess([...args(server.url), '--model', 'test-model', '--json', '--no-session', 'hi'], { cwd, env: { OPENAI_API_KEY: 'k' } });
    expect(r.code).toBe(0);
    const events = parseJsonl(r.stdout);
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ kind: 'rate_limit', attempt: 1 });
    expect(settledOf(events).stopReason).toBe('completed');

    const html = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{}</style></head><body><h1>Bad Gateway</h1><p>nginx</p></body></html>';
    const proxy = await serve([{ status: 502, headers: { 'content-type': 'text/html' }, body: html }]);
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ retry: { maxRetries: 0 } }));
    const bad = await cliInProcess([...args(proxy.url), '--model', 'test-model', '--no-session', 'hi'], { cwd, env: { OPENAI_API_KEY: 'k' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/server error: .*502.*Bad Gateway/);
    expect(bad.stderr).not.toMatch(/<[a-z]/i);
  });
});

describe('a stream that breaks half-way', () => {
  it('is retried as a network error and the session holds one clean answer', async () => {
    const cut = openaiAnswer.slice(0, openaiAnswer.indexOf('hello world'));
    const server = await serve([{ body: cut, cut: true }, { body: openaiAnswer }]);
    const cwd = workspace();
    const session = join(cwd, 's.jsonl');
    const r = await cliInProcess(['--provider', 'openai-compatible', '--base-url', `${server.url}/v1`, '--model', 'test-model', '--json', '--session', session, 'hi'], { cwd });
    expect(r.code).toBe(0);
    const events = parseJsonl(r.stdout);
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ kind: 'network' });
    const text = readFileSync(session, 'utf8');
    expect(text.match(/The notes say /g)).toHaveLength(1); // the failed attempt's text is not stored
    const store = SessionStore.open(session);
    const last = projectMessages(store.activePath()).at(-1)!;
    expect(last.role === 'assistant' && last.content).toEqual([{ type: 'text', text: 'The notes say hello world.' }]);
  });
});
