// The Anthropic adapter against a local HTTP server, so the real SDK makes the request and
// splits the SSE stream. Bodies are recorded Messages API streams (test/fixtures/SOURCES.md)
// or small synthetic ones for the failure cases.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { userMessage, type AssistantMessage, type Message, type ModelError, type ToolCall } from '../src/core/types.js';
import type { ModelRequest, ModelStreamEvent, ToolSpec } from '../src/model/adapter.js';
import { createAnthropicAdapter } from '../src/model/anthropic.js';
import { CUT_OFF_ARGUMENTS } from '../src/model/tool-call.js';
import type { AdapterConfig } from '../src/model/models.js';
import { sse, startServer, type Reply, type TestServer } from './support/http-server.js';

const FIXTURES = new URL('./fixtures/anthropic-messages/', import.meta.url);
const fixture = (name: string): Buffer => readFileSync(new URL(name, FIXTURES));
const SSE_FIXTURES = ['basic-text-with-ping.sse', 'text-then-tool-use.sse', 'max-tokens-truncated-tool-json.sse', 'thinking-signature-then-refusal.sse', 'refusal-stop-details.sse'];
interface Exchange {
  request: { url: string; body: any };
  response: { status_code: number; headers: Record<string, string>; body: string };
}
const LOOP: Exchange[] = JSON.parse(fixture('recorded-tool-loop-2-turns.http.json').toString('utf8'));

const servers: TestServer[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
  vi.restoreAllMocks();
});
async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const s = await startServer(handler);
  servers.push(s);
  return s;
}

const PRICING = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
function config(url: string, over: Partial<AdapterConfig> = {}): AdapterConfig {
  return { provider: 'anthropic', model: 'claude-test-1', baseUrl: url, apiKey: 'test-key', maxOutputTokens: 1024, pricing: PRICING, ...over };
}
const ask = (text = 'hi', more: Partial<ModelRequest> = {}): ModelRequest => ({ messages: [userMessage(text)], tools: [], systemPrompt: 'Be brief.', ...more });

async function collect(url: string, request: ModelRequest = ask(), over: Partial<AdapterConfig> = {}): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const ev of createAnthropicAdapter(config(url, over)).stream(request)) events.push(ev);
  return events;
}
function done(events: ModelStreamEvent[]): AssistantMessage {
  const last = events[events.length - 1];
  expect(last?.type, JSON.stringify(last)).toBe('done');
  return (last as Extract<ModelStreamEvent, { type: 'done' }>).message;
}
function failed(events: ModelStreamEvent[]): { error: ModelError; partial: AssistantMessage } {
  const last = events[events.length - 1];
  expect(last?.type, JSON.stringify(last)).toBe('error');
  expect(events.filter((e) => e.type === 'error' || e.type === 'done')).toHaveLength(1);
  return last as Extract<ModelStreamEvent, { type: 'error' }>;
}
/** What the stream said, independent of how it was chunked. */
function summary(events: ModelStreamEvent[]) {
  const join = (t: string, index?: number) =>
    events
      .filter((e) => e.type === t && (index === undefined || (e as { index: number }).index === index))
      .map((e) => (e as { delta: string }).delta)
      .join('');
  const starts = events.filter((e) => e.type === 'toolcall_start');
  return {
    text: join('text_delta'),
    thinking: join('thinking_delta'),
    calls: starts.map((s) => ({ ...s, args: join('toolcall_delta', (s as { index: number }).index) })),
    ends: events.filter((e) => e.type === 'toolcall_end'),
    last: events[events.length - 1],
  };
}
const ok = (body: string | Buffer, more: Partial<Reply> = {}): Reply => ({ body, ...more });

// Synthetic stream pieces.
const start = (usage: object = { input_tokens: 5, output_tokens: 1 }) => ({
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'm', stop_reason: null, usage },
});
const textBlock = (index: number, ...texts: string[]) => [
  { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
  ...texts.map((text) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })),
  { type: 'content_block_stop', index },
];
const toolBlock = (index: number, id: string, name: string, parts: string[], stop = true) => [
  { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } },
  ...parts.map((partial_json) => ({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } })),
  ...(stop ? [{ type: 'content_block_stop', index }] : []),
];
const end = (stop_reason: string, output_tokens = 9) => [{ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { output_tokens } }, { type: 'message_stop' }];
const named = (events: object[]) => sse(events, { named: true });

describe('recorded streams', () => {
  it('text with a ping: deltas, usage, stop; the request the SDK sends', async () => {
    const server = await serve([ok(fixture('basic-text-with-ping.sse'))]);
    const events = await collect(server.url);
    const message = done(events);
    expect(message).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Hello there!' }], stopReason: 'stop', provider: 'anthropic' });
    expect(message.usage).toEqual({ input: 11, output: 6, cacheRead: 0, cacheWrite: 0, cost: (11 * 3 + 6 * 15) / 1e6 });
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e as { delta: string }).delta)).toEqual(['Hello', ' there', '!']);
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/messages');
    expect(req.body).toEqual({ model: 'claude-test-1', max_tokens: 1024, system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: true });
    expect(req.headers['anthropic-version']).toBeTruthy();
    expect(req.headers['x-api-key'] ?? req.headers.authorization).toMatch(/^(Bearer )?test-key$/);
  });

  it('text then tool_use: the empty first fragment is not an event; arguments parse once', async () => {
    const server = await serve([ok(fixture('text-then-tool-use.sse'))]);
    const events = await collect(server.url);
    const message = done(events);
    const call: ToolCall = { type: 'toolCall', id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', arguments: { location: 'Paris' } };
    expect(message.content).toEqual([{ type: 'text', text: "I'll check the current weather in Paris for you." }, call]);
    expect(message.stopReason).toBe('toolUse');
    expect(message.usage).toMatchObject({ input: 377, output: 65 });
    expect(events.find((e) => e.type === 'toolcall_start')).toEqual({ type: 'toolcall_start', index: 0, id: call.id, name: 'get_weather' });
    const deltas = events.filter((e) => e.type === 'toolcall_delta').map((e) => (e as { delta: string }).delta);
    expect(deltas).toEqual(['{"locati', 'on": "P', 'ar', 'is"}']);
    expect(events.filter((e) => e.type === 'toolcall_end')).toEqual([{ type: 'toolcall_end', index: 0, toolCall: call }]);
  });

  it('max_tokens while a tool call is open: stop length, the call is marked cut off', async () => {
    const server = await serve([ok(fixture('max-tokens-truncated-tool-json.sse'))]);
    const message = done(await collect(server.url));
    expect(message.stopReason).toBe('length');
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^I'll create a comprehensive tax guide.*for you now\.$/) });
    // The partial JSON the model streamed is kept as it was sent.
    expect(message.content[1]).toEqual({
      type: 'toolCall',
      id: 'toolu_01EKqbqmZrGRXy18eN7m9kvY',
      name: 'make_file',
      arguments: {},
      argumentsError: CUT_OFF_ARGUMENTS,
      rawArguments: expect.stringMatching(/^\{"filename": "taxes\.txt", "lines_of_text": \[\n"# COMPREHENSIVE TAX GUIDE/),
    });
    expect(message.usage).toMatchObject({ input: 450, output: 124, cacheRead: 0, cacheWrite: 0 });
  });

  it('thinking with a signature, then text, stop refusal → contentFilter', async () => {
    const server = await serve([ok(fixture('thinking-signature-then-refusal.sse'))]);
    const events = await collect(server.url);
    const message = done(events);
    expect(message.stopReason).toBe('contentFilter');
    expect(message.content).toHaveLength(2);
    const thinking = message.content[0];
    expect(thinking).toMatchObject({ type: 'thinking', signature: 'c3ludGhldGljLXNpZ25hdHVyZS1maXh0dXJlLWEtbm90LWEtcmVhbC1zaWduYXR1cmU=' });
    expect(thinking.type === 'thinking' && thinking.thinking).toMatch(/^Simple educational question .* roll with it politely\.$/);
    expect(summary(events).thinking).toBe(thinking.type === 'thinking' ? thinking.thinking : '');
    expect(message.content[1]).toEqual({ type: 'text', text: 'Hi' });
    expect(message.usage).toMatchObject({ input: 28, output: 106 });
  });

  it('a body ending in a single newline after message_stop still succeeds (the stop reason arrived)', async () => {
    const body = fixture('refusal-stop-details.sse');
    expect(body.toString('utf8').endsWith('{"type":"message_stop"}\n')).toBe(true);
    const server = await serve([ok(body)]);
    const message = done(await collect(server.url));
    expect(message).toMatchObject({ content: [], stopReason: 'contentFilter', usage: { input: 20, output: 0 } });
  });

  it('a recorded two-turn tool loop: the second request carries the matching tool_result', async () => {
    const server = await serve(LOOP.map((x) => ok(x.response.body, { status: x.response.status_code, headers: x.response.headers })));
    const rec = LOOP.map((x) => x.request.body);
    const tools: ToolSpec[] = rec[0].tools.map((t: any) => ({ name: t.name, description: t.description, parameters: t.input_schema }));
    const cfg = { model: 'claude-haiku-4-5', maxOutputTokens: rec[0].max_tokens };
    const first: Message[] = [userMessage(rec[0].messages[0].content)];
    const turn1 = done(await collect(server.url, { messages: first, tools, systemPrompt: '' }, cfg));
    const call = turn1.content.find((c): c is ToolCall => c.type === 'toolCall')!;
    expect(call).toEqual({ type: 'toolCall', id: 'toolu_018acGYLtfR52q9yDbWaEdQZ', name: 'get_weather', arguments: { location: 'San Francisco, CA', units: 'f' } });
    expect(turn1.stopReason).toBe('toolUse');
    const resultText: string = rec[1].messages[2].content[0].content;
    const second: Message[] = [...first, turn1, { role: 'toolResult', toolCallId: call.id, toolName: call.name, content: [{ type: 'text', text: resultText }], isError: false }];
    const turn2 = done(await collect(server.url, { messages: second, tools, systemPrompt: '' }, cfg));
    expect(turn2.content).toEqual([{ type: 'text', text: expect.stringContaining('68°F') }]);
    expect(turn2.usage).toMatchObject({ input: 770, output: 38 });

    // Ours against the recorded requests, modulo the forms the SDK helper used (string content, `caller`).
    const [ours1, ours2] = server.requests.map((r) => r.body);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/messages', '/v1/messages']);
    for (const [ours, recorded] of [
      [ours1, rec[0]],
      [ours2, rec[1]],
    ]) {
      expect({ ...ours, messages: undefined }).toEqual({ ...recorded, messages: undefined });
    }
    const normalized = rec[1].messages.map((m: any) => ({
      role: m.role,
      content:
        typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content.map(({ caller: _caller, ...b }: any) => (b.type === 'tool_result' ? { ...b, content: [{ type: 'text', text: b.content }], is_error: false } : b)),
    }));
    expect(ours2.messages).toEqual(normalized);
    expect(ours2.messages[2].content[0].tool_use_id).toBe(ours2.messages[1].content[0].id);
  });
});

describe('chunk boundaries', () => {
  const bodies: Array<[string, Buffer]> = [...SSE_FIXTURES.map((n): [string, Buffer] => [n, fixture(n)]), ...LOOP.map((x, i): [string, Buffer] => [`recorded loop turn ${i + 1}`, Buffer.from(x.response.body, 'utf8')])];
  const STRIDE = 24;

  it.each(bodies)('%s: split at every byte position gives the same result', async (_name, body) => {
    // Request k cuts the body at k, k+STRIDE, k+2·STRIDE, …: every position is a boundary once.
    const server = await serve((_req, i) => ok(body, i === 0 ? {} : { chunks: range(i - 1, body.length, STRIDE).filter((c) => c > 0), delayMs: 1 }));
    const reference = summary(await collect(server.url));
    expect(reference.last?.type).toBe('done');
    // In parallel: each request waits 1 ms between chunks, so that they arrive separately.
    const results = await Promise.all(range(0, STRIDE, 1).map(() => collect(server.url)));
    for (const events of results) expect(summary(events)).toEqual(reference);
    expect(server.requests).toHaveLength(STRIDE + 1);
  });

  it('random splits, including inside multi-byte characters, give the same result', async () => {
    const body = Buffer.from(LOOP[1].response.body, 'utf8');
    const degree = body.indexOf(Buffer.from('°'));
    expect(body[degree]).toBe(0xc2); // "°" is two bytes: a split at degree+1 lands inside it
    let cuts: number[] = [];
    const server = await serve(() => ok(body, { chunks: cuts, delayMs: 1 }));
    const reference = summary(await collect(server.url));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 12 }), async (random) => {
        cuts = [...new Set([...random, degree + 1])].sort((a, b) => a - b);
        expect(summary(await collect(server.url))).toEqual(reference);
      }),
      { numRuns: 25 },
    );
  });
});

function range(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i += step) out.push(i);
  return out;
}

describe('HTTP errors', () => {
  const apiError = (type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message } });
  const json = { 'content-type': 'application/json' };
  const cases: Array<[string, Reply, Partial<ModelError>]> = [
    ['401', { status: 401, headers: json, body: apiError('authentication_error', 'invalid x-api-key') }, { kind: 'auth', retryable: false, status: 401 }],
    ['403', { status: 403, headers: json, body: apiError('permission_error', 'no access') }, { kind: 'auth', retryable: false, status: 403 }],
    ['429 retry-after', { status: 429, headers: { ...json, 'retry-after': '7' }, body: apiError('rate_limit_error', 'slow down') }, { kind: 'rate_limit', retryable: true, retryAfterMs: 7000 }],
    ['500', { status: 500, headers: json, body: apiError('api_error', 'Internal server error') }, { kind: 'server', retryable: true }],
    ['503', { status: 503, headers: json, body: apiError('api_error', 'unavailable') }, { kind: 'overloaded', retryable: true }],
    ['529', { status: 529, headers: json, body: apiError('overloaded_error', 'Overloaded') }, { kind: 'overloaded', retryable: true, status: 529 }],
    ['400 prompt too long', { status: 400, headers: json, body: apiError('invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum') }, { kind: 'context_overflow', retryable: false }],
    ['400 other', { status: 400, headers: json, body: apiError('invalid_request_error', 'messages.0.content: Field required') }, { kind: 'bad_request', retryable: false }],
    ['non-JSON body', { status: 500, headers: { 'content-type': 'text/plain' }, body: 'upstream connect error or disconnect/reset before headers' }, { kind: 'server', retryable: true }],
  ];
  it.each(cases)('%s', async (_name, reply, expected) => {
    const server = await serve([reply]);
    const { error, partial } = failed(await collect(server.url));
    expect(error).toMatchObject(expected);
    expect(error.message).toMatch(/^anthropic \d{3}: /);
    const apiMessage = /"message":"([^"]*)"/.exec(String(reply.body))?.[1] ?? String(reply.body);
    expect(error.message).toContain(apiMessage);
    expect(partial).toMatchObject({ role: 'assistant', content: [], stopReason: 'error', errorMessage: error.message });
    expect(server.requests).toHaveLength(1); // the SDK does not retry on its own
  });

  it('an HTML error page from a proxy becomes a short readable message', async () => {
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head><body><h1>Bad Gateway</h1><p>The proxy could not reach the upstream server.</p>${'<div>filler</div>'.repeat(200)}</body></html>`;
    const server = await serve([{ status: 502, headers: { 'content-type': 'text/html' }, body: page }]);
    const { error } = failed(await collect(server.url));
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: 502 });
    expect(error.message).toContain('502 Bad Gateway');
    expect(error.message).not.toMatch(/[<>]|color:red/);
    expect(error.message.length).toBeLessThan(400);
  });

  it('no response headers within timeoutMs is a network error (the SDK timeout)', async () => {
    const server = await serve(async () => {
      await new Promise((r) => setTimeout(r, 3000));
      return ok(fixture('basic-text-with-ping.sse'));
    });
    const started = Date.now();
    const { error } = failed(await collect(server.url, ask(), { timeoutMs: 100 }));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(error.message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(2500); // the server answers after 3 s: loose, for a loaded machine
  });

  it('a refused connection is a network error', async () => {
    const server = await serve([ok('')]);
    const url = server.url;
    await server.close();
    servers.length = 0;
    const { error } = failed(await collect(url));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
  });
});

describe('stream failures', () => {
  it('an error event mid-stream: overloaded, retryable, with the text so far', async () => {
    const body = named([start(), textBlock(0, 'Hel').slice(0, 2), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }].flat());
    const server = await serve([ok(body)]);
    const events = await collect(server.url);
    const { error, partial } = failed(events);
    expect(error).toMatchObject({ kind: 'overloaded', retryable: true });
    expect(error.message).toContain('Overloaded');
    expect(partial).toMatchObject({ content: [{ type: 'text', text: 'Hel' }], stopReason: 'error' });
    expect(summary(events).text).toBe('Hel');
  });

  it('a malformed data line: an invalid_response error quoting the frame, nothing printed', async () => {
    const spies = (['error', 'warn', 'log', 'info', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => undefined));
    const good = named([start(), ...textBlock(0, 'ok').slice(0, 2)]);
    const server = await serve([ok(good + 'event: content_block_delta\ndata: {"type":"content_block_delta",\n\n' + named(end('end_turn')))]);
    const { error, partial } = failed(await collect(server.url));
    expect(error).toMatchObject({ kind: 'invalid_response', retryable: true });
    expect(error.message).toMatch(/the provider sent an invalid stream frame \(.*\): \{"type":"content_block_delta",$/);
    expect(partial.content).toEqual([{ type: 'text', text: 'ok' }]);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  const beforeStop = named([start(), ...textBlock(0, 'Hello', ' wor')]);
  it.each([
    ['cut', true],
    ['ended cleanly', false],
  ])('a stream %s before message_delta is an incomplete response (network, retryable)', async (_how, cut) => {
    const server = await serve([ok(beforeStop, { cut })]);
    const { error, partial } = failed(await collect(server.url));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(partial).toMatchObject({ content: [{ type: 'text', text: 'Hello wor' }], stopReason: 'error' });
  });

  it.each([
    ['cut', true],
    ['ended cleanly', false],
  ])('a stream %s after message_delta but before message_stop succeeds', async (_how, cut) => {
    const server = await serve([ok(beforeStop + named(end('end_turn', 4).slice(0, 1)), { cut })]);
    const message = done(await collect(server.url));
    expect(message).toMatchObject({ content: [{ type: 'text', text: 'Hello wor' }], stopReason: 'stop', usage: { input: 5, output: 4 } });
  });

  it('an empty 200 response is incomplete', async () => {
    const server = await serve([ok('')]);
    const { error, partial } = failed(await collect(server.url));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(partial.content).toEqual([]);
  });

  it('a partial message keeps only complete tool calls', async () => {
    const body = named([start(), ...toolBlock(0, 'toolu_a', 'read', ['{"path":"a"}']), ...toolBlock(1, 'toolu_b', 'read', ['{"pa'], false)]);
    const server = await serve([ok(body, { cut: true })]);
    const { partial } = failed(await collect(server.url));
    expect(partial.content).toEqual([{ type: 'toolCall', id: 'toolu_a', name: 'read', arguments: { path: 'a' } }]);
  });
});

describe('stream details', () => {
  it('empty arguments mean {}; invalid JSON gives argumentsError', async () => {
    const body = named([start(), ...toolBlock(0, 'toolu_a', 'now', ['']), ...toolBlock(1, 'toolu_b', 'read', ['{"path":', '}']), ...end('tool_use')]);
    const server = await serve([ok(body)]);
    const message = done(await collect(server.url));
    expect(message.content[0]).toEqual({ type: 'toolCall', id: 'toolu_a', name: 'now', arguments: {} });
    expect(message.content[1]).toMatchObject({ type: 'toolCall', id: 'toolu_b', arguments: {}, argumentsError: expect.stringContaining('JSON') });
    expect(message.stopReason).toBe('toolUse');
  });

  it('unknown and unsupported blocks and deltas are ignored', async () => {
    const body = named([
      start(),
      { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'xyz' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"q":"x"}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'brand_new_block' } },
      { type: 'content_block_stop', index: 2 },
      ...textBlock(3, 'answer'),
      { type: 'content_block_delta', index: 3, delta: { type: 'citations_delta', citation: {} } },
      { type: 'some_future_event' },
      ...end('end_turn'),
    ]);
    const server = await serve([ok(body)]);
    const events = await collect(server.url);
    expect(done(events).content).toEqual([{ type: 'text', text: 'answer' }]);
    expect(events.map((e) => e.type)).toEqual(['text_delta', 'done']);
  });

  it.each([
    ['end_turn', false, 'stop'],
    ['stop_sequence', false, 'stop'],
    ['pause_turn', false, 'stop'],
    ['tool_use', true, 'toolUse'],
    ['max_tokens', false, 'length'],
    ['refusal', false, 'contentFilter'],
    ['something_new', false, 'stop'],
    ['something_new', true, 'toolUse'],
    ['constructor', false, 'stop'],
  ])('stop reason %s (calls: %s) → %s', async (reason, withCall, expected) => {
    const blocks = withCall ? toolBlock(1, 'toolu_x', 'read', ['{}']) : [];
    const server = await serve([ok(named([start(), ...textBlock(0, 'x'), ...blocks, ...end(reason)]))]);
    expect(done(await collect(server.url)).stopReason).toBe(expected);
  });

  it('cache usage and cost; output usage is cumulative', async () => {
    const usage = { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200, output_tokens: 1 };
    const body = named([start(usage), ...textBlock(0, 'x'), { type: 'message_delta', delta: { stop_reason: null }, usage: { output_tokens: 3 } }, ...end('end_turn', 7)]);
    const server = await serve([ok(body)]);
    const message = done(await collect(server.url, ask(), { pricing: PRICING }));
    expect(message.usage).toEqual({ input: 10, output: 7, cacheRead: 1000, cacheWrite: 200, cost: (10 * 3 + 7 * 15 + 1000 * 0.3 + 200 * 3.75) / 1e6 });
  });
});

describe('cancellation', () => {
  const body = fixture('basic-text-with-ping.sse');
  const afterFirstDelta = body.indexOf('"Hello"}}\n\n') + '"Hello"}}\n\n'.length;

  async function waitFor(check: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(check()).toBe(true);
  }

  it('abort mid-stream: kind aborted, and the HTTP request is really cancelled', async () => {
    const server = await serve([ok(body, { stallAfter: afterFirstDelta })]);
    const controller = new AbortController();
    const events: ModelStreamEvent[] = [];
    for await (const ev of createAnthropicAdapter(config(server.url)).stream(ask('hi', { signal: controller.signal }))) {
      events.push(ev);
      if (ev.type === 'text_delta') controller.abort();
    }
    const { error, partial } = failed(events);
    expect(error).toMatchObject({ kind: 'aborted', retryable: false });
    expect(partial).toMatchObject({ stopReason: 'aborted', content: [{ type: 'text', text: 'Hello' }] });
    await waitFor(() => server.clientAborts >= 1);
  });

  it('an already aborted signal sends nothing', async () => {
    const server = await serve([ok(body)]);
    const { error } = failed(await collect(server.url, ask('hi', { signal: AbortSignal.abort() })));
    expect(error.kind).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });

  it('a consumer that stops reading cancels the request', async () => {
    const server = await serve([ok(body, { stallAfter: afterFirstDelta })]);
    for await (const ev of createAnthropicAdapter(config(server.url)).stream(ask())) if (ev.type === 'text_delta') break;
    await waitFor(() => server.clientAborts >= 1);
  });
});

describe('lazy loading', () => {
  it('importing the adapter does not load the SDK; the first request does', async () => {
    // Bundle the module as CommonJS with the SDK external and dynamic import lowered: a static
    // import becomes a top-level require, the dynamic one a require inside stream(). A child
    // process records every require of the SDK.
    const dir = mkdtempSync(join(tmpdir(), 'anthropic-lazy-'));
    try {
      const out = join(dir, 'anthropic.cjs');
      await build({
        entryPoints: [fileURLToPath(new URL('../src/model/anthropic.ts', import.meta.url))],
        bundle: true,
        format: 'cjs',
        platform: 'node',
        external: ['@anthropic-ai/sdk'],
        supported: { 'dynamic-import': false },
        outfile: out,
        logLevel: 'silent',
      });
      const probe = `
        const Module = require('node:module');
        const seen = [];
        const load = Module._load;
        Module._load = function (request, ...rest) { if (request.startsWith('@anthropic-ai/sdk')) seen.push(request); return load.call(this, request, ...rest); };
        const { createAnthropicAdapter } = require(${JSON.stringify(out)});
        const afterImport = seen.length;
        const adapter = createAnthropicAdapter({ provider: 'anthropic', model: 'm', baseUrl: 'http://127.0.0.1:9', apiKey: 'k', maxOutputTokens: 1, pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } });
        (async () => {
          const afterCreate = seen.length;
          for await (const ev of adapter.stream({ messages: [], tools: [], systemPrompt: '', signal: AbortSignal.abort() })) {}
          console.log(JSON.stringify({ afterImport, afterCreate, afterStream: seen.length }));
        })();`;
      const nodePath = fileURLToPath(new URL('../node_modules', import.meta.url));
      const result = execFileSync(process.execPath, ['-e', probe], { env: { ...process.env, NODE_PATH: nodePath }, encoding: 'utf8' });
      // The first request loads two of the SDK's modules: its base client and the Messages resource.
      expect(JSON.parse(result.trim())).toEqual({ afterImport: 0, afterCreate: 0, afterStream: 2 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
