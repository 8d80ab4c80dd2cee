// The OpenAI-compatible adapter against the real `openai` SDK: recorded Chat Completions streams
// (test/fixtures/openai-chat) and synthetic ones are served by a local HTTP server, so the SDK's
// own SSE parsing, error mapping and abort handling run as they would against a provider.
import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userMessage, type AssistantMessage, type ModelError } from '../src/core/types.js';
import type { ModelAdapter, ModelRequest, ModelStreamEvent } from '../src/model/adapter.js';
import type { AdapterConfig } from '../src/model/models.js';
import { classifyError } from '../src/model/errors.js';
import { createOpenAIAdapter } from '../src/model/openai.js';
import { sse, startServer, type Reply, type TestServer } from './support/http-server.js';

// ---- helpers ----

const PRICING = { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 0 };

function config(baseUrl: string, over: Partial<AdapterConfig> = {}): AdapterConfig {
  return { provider: 'openai-compatible', model: 'gpt-4o', baseUrl, maxOutputTokens: 1024, pricing: PRICING, ...over };
}

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/openai-chat/${name}`, import.meta.url));

const REQUEST: ModelRequest = { messages: [userMessage('What is the weather?')], tools: [], systemPrompt: 'Be brief.' };

interface Run {
  events: ModelStreamEvent[];
  last: ModelStreamEvent;
  text: string;
  thinking: string;
  /** toolcall_delta fragments joined, by event index. */
  args: Record<number, string>;
}

async function run(adapter: ModelAdapter, request: ModelRequest = REQUEST, onEvent?: (e: ModelStreamEvent) => void): Promise<Run> {
  const events: ModelStreamEvent[] = [];
  const parts: Record<'text' | 'thinking', string[]> = { text: [], thinking: [] };
  const args: Record<number, string[]> = {};
  for await (const e of adapter.stream(request)) {
    events.push(e);
    onEvent?.(e);
    if (e.type === 'text_delta') parts.text.push(e.delta);
    if (e.type === 'thinking_delta') parts.thinking.push(e.delta);
    if (e.type === 'toolcall_start') args[e.index] ??= [];
    if (e.type === 'toolcall_delta') (args[e.index] ??= []).push(e.delta);
  }
  const last = events[events.length - 1];
  // The contract: exactly one terminal event, and it is the last.
  expect(events.filter((e) => e.type === 'done' || e.type === 'error')).toHaveLength(1);
  expect(['done', 'error']).toContain(last.type);
  return {
    events,
    last,
    text: parts.text.join(''),
    thinking: parts.thinking.join(''),
    args: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, v.join('')])),
  };
}

function done(r: Run): AssistantMessage {
  if (r.last.type !== 'done') throw new Error(`expected done, got ${JSON.stringify(r.last)}`);
  return r.last.message;
}

function failed(r: Run): { error: ModelError; partial: AssistantMessage } {
  if (r.last.type !== 'error') throw new Error(`expected error, got ${JSON.stringify(r.last).slice(0, 500)}`);
  return r.last;
}

/**
 * A fetch that serves `body` in exactly the pieces that `cuts()` gives at the time of the request,
 * so chunk boundaries are deterministic (TCP may merge writes).
 */
function piecewiseFetch(body: Buffer, cuts: () => readonly number[]): typeof fetch {
  return async () => {
    const bounds = [0, ...[...new Set(cuts())].filter((c) => c > 0 && c < body.length).sort((a, b) => a - b), body.length];
    let i = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(ctrl) {
        if (i + 1 < bounds.length) {
          ctrl.enqueue(new Uint8Array(body.subarray(bounds[i], bounds[i + 1])));
          i++;
        } else ctrl.close();
      },
    });
    return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}

const chunk = (delta: object, finish: string | null = null, index = 0) => ({
  id: 'chatcmpl-x',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index, delta, logprobs: null, finish_reason: finish }],
});
const usageChunk = (usage: object) => ({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage });
const tc = (index: number, fn: { name?: string; arguments?: string }, id?: string) => ({
  tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: fn }],
});

let server: TestServer;
let reply: Reply | ((index: number) => Reply) = { body: '' };
const adapterFor = (over: Partial<AdapterConfig> = {}) => createOpenAIAdapter(config(`${server.url}/v1`, over));
const serve = (r: Reply) => {
  reply = r;
  return adapterFor();
};

beforeAll(async () => {
  server = await startServer((_req, i) => (typeof reply === 'function' ? reply(i) : reply));
});
afterAll(() => server.close());

// ---- recorded streams ----

describe('recorded streams', () => {
  it('plain text: deltas, stop reason, usage and cost; the request went to /v1/chat/completions', async () => {
    const r = await run(serve({ body: fixture('plain-text.sse') }));
    const m = done(r);
    const expected = "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.";
    expect(r.text).toBe(expected);
    expect(m.content).toEqual([{ type: 'text', text: expected }]);
    expect(m.stopReason).toBe('stop');
    expect(m.usage).toEqual({ input: 14, output: 30, cacheRead: 0, cacheWrite: 0, cost: (14 * 2.5 + 30 * 10) / 1e6 });
    expect(m.provider).toBe('openai-compatible');
    expect(m.model).toBe('gpt-4o');
    expect(m.errorMessage).toBeUndefined();
    const req = server.requests[server.requests.length - 1];
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer not-needed'); // no key configured
    expect(req.body).toMatchObject({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true }, max_tokens: 1024 });
  });

  it('sends the configured key', async () => {
    reply = { body: fixture('plain-text.sse') };
    done(await run(adapterFor({ apiKey: 'sk-test-123' })));
    expect(server.requests[server.requests.length - 1].headers.authorization).toBe('Bearer sk-test-123');
  });

  it('a single tool call: start, argument deltas, end with parsed arguments; stop reason toolUse', async () => {
    const r = await run(serve({ body: fixture('single-tool-call-nonstrict.sse') }));
    const m = done(r);
    const call = { type: 'toolCall', id: 'call_4XzlGBLtUe9dy3GVNV4jhq7h', name: 'get_weather', arguments: { city: 'New York City' } };
    expect(m.content).toEqual([call]);
    expect(m.stopReason).toBe('toolUse');
    expect(r.events.find((e) => e.type === 'toolcall_start')).toEqual({ type: 'toolcall_start', index: 0, id: call.id, name: 'get_weather' });
    expect(r.events.filter((e) => e.type === 'toolcall_delta').length).toBeGreaterThan(3);
    expect(r.args[0]).toBe('{"city":"New York City"}');
    expect(r.events.filter((e) => e.type === 'toolcall_end')).toEqual([{ type: 'toolcall_end', index: 0, toolCall: call }]);
    // toolcall_end comes before done, after every delta
    const kinds = r.events.map((e) => e.type);
    expect(kinds.lastIndexOf('toolcall_delta')).toBeLessThan(kinds.indexOf('toolcall_end'));
  });

  it('two parallel tool calls with usage 149/60', async () => {
    const m = done(await run(serve({ body: fixture('parallel-tool-calls-2-tools-usage.sse') })));
    expect(m.content).toEqual([
      { type: 'toolCall', id: 'call_JMW1whyEaYG438VE1OIflxA2', name: 'GetWeatherArgs', arguments: { city: 'Edinburgh', country: 'GB', units: 'c' } },
      { type: 'toolCall', id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou', name: 'get_stock_price', arguments: { ticker: 'AAPL', exchange: 'NASDAQ' } },
    ]);
    expect(m.stopReason).toBe('toolUse');
    expect(m.usage).toMatchObject({ input: 149, output: 60, cacheRead: 0 });
    expect(m.usage.cost).toBeCloseTo((149 * 2.5 + 60 * 10) / 1e6, 12);
  });

  it('a refusal with no other content is a refused response: kept as text, no text deltas, the explanation set', async () => {
    const r = await run(serve({ body: fixture('refusal.sse') }));
    const m = done(r);
    expect(r.text).toBe('');
    expect(m.content).toEqual([{ type: 'text', text: "I'm sorry, I can't assist with that request." }]);
    expect(m.stopReason).toBe('contentFilter');
    expect(m.refusal).toEqual({ reason: 'refusal', explanation: "I'm sorry, I can't assist with that request." });
  });

  it('finish_reason length → stopReason length', async () => {
    const m = done(await run(serve({ body: fixture('finish-length-max-tokens-1.sse') })));
    expect(m.content).toEqual([{ type: 'text', text: '{"' }]);
    expect(m.stopReason).toBe('length');
    expect(m.usage).toMatchObject({ input: 79, output: 1 });
  });

  it('n=3: only choice 0 is used', async () => {
    const r = await run(serve({ body: fixture('n3-three-choices.sse') }));
    const m = done(r);
    expect(r.text).toBe('{"city":"San Francisco","temperature":65,"units":"f"}');
    expect(m.content).toEqual([{ type: 'text', text: '{"city":"San Francisco","temperature":65,"units":"f"}' }]);
    expect(m.usage).toMatchObject({ input: 79, output: 42 });
  });

  it('a long response with non-ASCII text', async () => {
    const r = await run(serve({ body: fixture('long-json-text-response-format.sse') }));
    const m = done(r);
    expect(r.text).toContain('"temperature": "18°C"');
    expect(JSON.parse(r.text)).toMatchObject({ location: 'San Francisco, CA' });
    expect(m.content).toEqual([{ type: 'text', text: r.text }]);
    expect(m.usage).toMatchObject({ input: 19, output: 177 });
  });
});

// ---- chunk boundaries ----

describe('chunk boundaries do not change the result', () => {
  const FIXTURES = [
    'plain-text.sse',
    'single-tool-call-nonstrict.sse',
    'single-tool-call-strict.sse',
    'single-tool-call-strict-tools-param.sse',
    'parallel-tool-calls-2-tools-usage.sse',
    'refusal.sse',
    'finish-length-max-tokens-1.sse',
    'n3-three-choices.sse',
    'long-json-text-response-format.sse',
  ];
  /** What must not depend on the split: the final message and the concatenated deltas. */
  const summary = (r: Run) => ({ message: done(r), text: r.text, thinking: r.thinking, args: r.args });
  // One adapter per body, reused by every request: the cuts are read when a request is made. A new
  // SDK client per request cost more than the request itself (about 0.6 ms of 1 ms).
  const adapters = new Map<Buffer, { adapter: ModelAdapter; cuts: readonly number[] }>();
  const viaPieces = (body: Buffer, cuts: readonly number[]) => {
    let held = adapters.get(body);
    if (!held) {
      const fresh = { adapter: undefined as unknown as ModelAdapter, cuts };
      fresh.adapter = createOpenAIAdapter(config('http://unused.invalid/v1'), { fetch: piecewiseFetch(body, () => fresh.cuts) });
      adapters.set(body, (held = fresh));
    }
    held.cuts = cuts;
    return run(held.adapter);
  };

  const reference = new Map<string, ReturnType<typeof summary>>();
  beforeAll(async () => {
    for (const name of FIXTURES) reference.set(name, summary(await run(serve({ body: fixture(name) }))));
  });

  it.each(FIXTURES)('%s: one byte per read (every position is a boundary, inside UTF-8 characters too)', async (name) => {
    const body = fixture(name);
    const cuts = Array.from({ length: body.length - 1 }, (_, i) => i + 1);
    expect(summary(await viaPieces(body, cuts))).toEqual(reference.get(name));
  });

  // About 1 ms per request: exhaustive for the small fixtures, random below for all of them.
  const SMALL = FIXTURES.filter((n) => fixture(n).length <= 4100);
  it.each(SMALL)('%s: split in two at every byte position', async (name) => {
    const body = fixture(name);
    const want = reference.get(name);
    for (let cut = 1; cut < body.length; cut++) {
      const got = summary(await viaPieces(body, [cut]));
      if (JSON.stringify(got) !== JSON.stringify(want)) expect({ cut, ...got }).toEqual({ cut, ...want });
    }
  });

  it.each(FIXTURES)('%s: random splits into up to 12 pieces', async (name) => {
    const body = fixture(name);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: body.length - 1 }), { minLength: 1, maxLength: 11 }), async (cuts) => {
        expect(summary(await viaPieces(body, cuts))).toEqual(reference.get(name));
      }),
      { numRuns: 150 },
    );
  });

  it('random splits of the long non-ASCII fixture, biased to positions inside multi-byte characters', async () => {
    const name = 'long-json-text-response-format.sse';
    const body = fixture(name);
    const inside: number[] = []; // positions that fall between the bytes of one character
    for (let i = 1; i < body.length; i++) if ((body[i] & 0xc0) === 0x80) inside.push(i);
    expect(inside.length).toBeGreaterThan(0);
    const position = fc.oneof(fc.constantFrom(...inside), fc.integer({ min: 1, max: body.length - 1 }));
    await fc.assert(
      fc.asyncProperty(fc.array(position, { minLength: 1, maxLength: 40 }), async (cuts) => {
        expect(summary(await viaPieces(body, cuts))).toEqual(reference.get(name));
      }),
      { numRuns: 60 },
    );
  });

  it('random splits over real HTTP (delayed writes, so the client really reads the pieces apart)', async () => {
    const bodies = FIXTURES.map((n) => [n, fixture(n)] as const);
    // Its own server: a keep-alive socket left idle by the long tests above can race the server's close (ECONNRESET).
    const own = { reply: { body: '' } as Reply, server: undefined as unknown as TestServer };
    own.server = await startServer(() => own.reply);
    const adapter = createOpenAIAdapter(config(`${own.server.url}/v1`));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: bodies.length - 1 }).chain((k) => fc.tuple(fc.constant(k), fc.array(fc.integer({ min: 1, max: bodies[k][1].length - 1 }), { minLength: 1, maxLength: 6 }))),
        async ([k, cuts]) => {
          const [name, body] = bodies[k];
          own.reply = { body, chunks: [...new Set(cuts)].sort((a, b) => a - b), delayMs: 2 };
          expect(summary(await run(adapter))).toEqual(reference.get(name));
        },
      ),
      { numRuns: 25 },
    );
    await own.server.close();
  });
});

// ---- synthetic streams ----

describe('synthetic streams', () => {
  it('interleaved parallel calls are kept apart by index; a call without id gets one', async () => {
    const body = sse(
      [
        chunk({ role: 'assistant', content: null }),
        chunk(tc(0, { name: 'read_file', arguments: '' }, 'call_a')),
        chunk(tc(1, { name: 'write_note', arguments: '{"te' })), // no id
        chunk(tc(0, { arguments: '{"path":' })),
        chunk(tc(1, { arguments: 'xt":"hi' })),
        chunk(tc(0, { arguments: '"a.md"}' })),
        chunk(tc(1, { arguments: '"}' })),
        chunk({}, 'tool_calls'),
        usageChunk({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }),
      ],
      { done: true },
    );
    const r = await run(serve({ body }));
    const m = done(r);
    const [a, b] = m.content as Array<{ type: string; id: string; name: string; arguments: unknown }>;
    expect(a).toEqual({ type: 'toolCall', id: 'call_a', name: 'read_file', arguments: { path: 'a.md' } });
    expect(b).toMatchObject({ type: 'toolCall', name: 'write_note', arguments: { text: 'hi' } });
    expect(b.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(r.args).toEqual({ 0: '{"path":"a.md"}', 1: '{"text":"hi"}' });
    const starts = r.events.filter((e) => e.type === 'toolcall_start');
    expect(starts).toEqual([
      { type: 'toolcall_start', index: 0, id: 'call_a', name: 'read_file' },
      { type: 'toolcall_start', index: 1, id: b.id, name: 'write_note' },
    ]);
    expect(r.events.filter((e) => e.type === 'toolcall_end').map((e) => (e as { index: number }).index)).toEqual([0, 1]);
  });

  it('invalid JSON arguments and a call without a name: never a crash, never guessed arguments', async () => {
    const body = sse(
      [
        chunk(tc(0, { name: 'read_file', arguments: '{"path": "a.md"' }, 'call_1')),
        chunk(tc(1, { arguments: '{}' }, 'call_2')),
        chunk(tc(2, { name: 'list', arguments: '[1]' }, 'call_3')),
        chunk(tc(3, { name: 'noargs' }, 'call_4')),
        chunk({}, 'tool_calls'),
      ],
      { done: true },
    );
    const m = done(await run(serve({ body })));
    expect(m.content).toEqual([
      { type: 'toolCall', id: 'call_1', name: 'read_file', arguments: {}, argumentsError: expect.stringMatching(/^the arguments are not valid JSON/), rawArguments: '{"path": "a.md"' },
      { type: 'toolCall', id: 'call_2', name: '', arguments: {}, argumentsError: 'the tool call has no name', rawArguments: '{}' },
      { type: 'toolCall', id: 'call_3', name: 'list', arguments: {}, argumentsError: 'the arguments are not a JSON object', rawArguments: '[1]' },
      { type: 'toolCall', id: 'call_4', name: 'noargs', arguments: {} },
    ]);
  });

  it('a server that numbers every call 0 but gives each its own id: separate calls', async () => {
    const body = sse([chunk(tc(0, { name: 'a', arguments: '{"x":1}' }, 'id_1')), chunk(tc(0, { name: 'b', arguments: '{"y":2}' }, 'id_2')), chunk({}, 'tool_calls')], { done: true });
    const m = done(await run(serve({ body })));
    expect(m.content).toEqual([
      { type: 'toolCall', id: 'id_1', name: 'a', arguments: { x: 1 } },
      { type: 'toolCall', id: 'id_2', name: 'b', arguments: { y: 2 } },
    ]);
  });

  it('reasoning_content becomes a thinking block, kept apart from the text', async () => {
    const body = sse(
      [
        chunk({ role: 'assistant', content: '', reasoning_content: 'Let me ' }),
        chunk({ reasoning_content: 'think.' }),
        chunk({ content: 'The answer', reasoning_content: null }),
        chunk({ content: ' is 4.' }),
        chunk({}, 'stop'),
        usageChunk({ prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 }),
      ],
      { done: true },
    );
    const r = await run(serve({ body }));
    const m = done(r);
    expect(r.thinking).toBe('Let me think.');
    expect(r.text).toBe('The answer is 4.');
    expect(m.content).toEqual([
      { type: 'thinking', thinking: 'Let me think.' },
      { type: 'text', text: 'The answer is 4.' },
    ]);
    expect(r.events.filter((e) => e.type === 'thinking_delta')).toHaveLength(2);
  });

  it('`reasoning` (Ollama, OpenRouter) is thinking too; a server sending both fields is not doubled', async () => {
    const body = sse([chunk({ reasoning: 'hmm' }), chunk({ reasoning: ' ok', reasoning_content: ' ok' }), chunk({ content: 'Hi' }), chunk({}, 'stop')], { done: true });
    const m = done(await run(serve({ body })));
    expect(m.content).toEqual([
      { type: 'thinking', thinking: 'hmm ok' },
      { type: 'text', text: 'Hi' },
    ]);
  });

  it('cached prompt tokens count as cache reads, not input', async () => {
    const body = sse([chunk({ content: 'x' }), chunk({}, 'stop'), usageChunk({ prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050, prompt_tokens_details: { cached_tokens: 800 } })], { done: true });
    const m = done(await run(serve({ body })));
    expect(m.usage).toEqual({ input: 200, output: 50, cacheRead: 800, cacheWrite: 0, cost: (200 * 2.5 + 50 * 10 + 800 * 1.25) / 1e6 });
  });

  it('a server that ignores include_usage: usage stays 0, no failure', async () => {
    const m = done(await run(serve({ body: sse([chunk({ content: 'hello' }), chunk({}, 'stop')], { done: true }) })));
    expect(m.usage).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 });
    expect(m.content).toEqual([{ type: 'text', text: 'hello' }]);
  });

  it.each([
    ['stop', false, 'stop'],
    ['tool_calls', true, 'toolUse'],
    ['function_call', true, 'toolUse'],
    ['length', false, 'length'],
    ['content_filter', false, 'contentFilter'],
    ['eos', false, 'stop'],
    ['eos', true, 'toolUse'],
    ['stop', true, 'toolUse'],
  ])('finish_reason %s (tool call: %s) → %s', async (reason, withCall, want) => {
    const events = [chunk({ content: 'a' }), ...(withCall ? [chunk(tc(0, { name: 'f', arguments: '{}' }, 'c1'))] : []), chunk({}, reason)];
    const m = done(await run(serve({ body: sse(events, { done: true }) })));
    expect(m.stopReason).toBe(want);
  });
});

// ---- completeness and errors ----

describe('incomplete streams', () => {
  it('cut before finish_reason: a retryable network error; the partial keeps text but no unfinished call', async () => {
    const body = sse([chunk({ content: 'Reading ' }), chunk({ content: 'it' }), chunk(tc(0, { name: 'read_file', arguments: '{"pa' }, 'call_1'))]);
    const r = await run(serve({ body, cut: true }));
    const { error, partial } = failed(r);
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(partial.content).toEqual([{ type: 'text', text: 'Reading it' }]);
    expect(partial.stopReason).toBe('error');
    expect(partial.errorMessage).toBe(error.message);
    expect(partial.provider).toBe('openai-compatible');
    expect(r.events.some((e) => e.type === 'toolcall_start')).toBe(true);
    expect(r.events.some((e) => e.type === 'toolcall_end')).toBe(false);
  });

  it('ends cleanly without finish_reason (no [DONE]): INCOMPLETE_STREAM', async () => {
    const { error, partial } = failed(await run(serve({ body: sse([chunk({ content: 'Half' })]) })));
    expect(error).toMatchObject({ kind: 'network', retryable: true, message: 'openai-compatible: the stream ended before the response was complete' });
    expect(partial.content).toEqual([{ type: 'text', text: 'Half' }]);
  });

  it('[DONE] without finish_reason: incomplete too', async () => {
    const { error } = failed(await run(serve({ body: sse([chunk({ content: 'Half' })], { done: true }) })));
    expect(error.kind).toBe('network');
  });

  it('an empty 200 response: incomplete', async () => {
    const { error, partial } = failed(await run(serve({ body: '' })));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(partial.content).toEqual([]);
  });

  it('cut after finish_reason, before usage and [DONE]: success (usage unknown)', async () => {
    const r = await run(serve({ body: sse([chunk({ content: 'All ' }), chunk({ content: 'done' }), chunk({}, 'stop')]), cut: true }));
    const m = done(r);
    expect(m.content).toEqual([{ type: 'text', text: 'All done' }]);
    expect(m.usage.input).toBe(0);
  });

  it('cut after the usage chunk, before [DONE]: success with usage', async () => {
    const body = sse([chunk(tc(0, { name: 'f', arguments: '{"a":1}' }, 'c1')), chunk({}, 'tool_calls'), usageChunk({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 })]);
    const m = done(await run(serve({ body, cut: true })));
    expect(m.content).toEqual([{ type: 'toolCall', id: 'c1', name: 'f', arguments: { a: 1 } }]);
    expect(m.usage).toMatchObject({ input: 3, output: 4 });
  });
});

describe('HTTP errors', () => {
  const json = (status: number, error: object, headers: Record<string, string> = {}): Reply => ({
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ error }),
  });
  const cases: Array<[string, Reply, Partial<ModelError>]> = [
    ['401', json(401, { message: 'Incorrect API key provided: sk-x.', type: 'invalid_request_error', code: 'invalid_api_key' }), { kind: 'auth', retryable: false, status: 401 }],
    ['403', json(403, { message: 'Country, region, or territory not supported', type: 'request_forbidden', code: 'unsupported_country_region_territory' }), { kind: 'auth', retryable: false, status: 403 }],
    ['429 with retry-after: 7', json(429, { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' }, { 'retry-after': '7' }), { kind: 'rate_limit', retryable: true, status: 429, retryAfterMs: 7000 }],
    ['429 insufficient_quota', json(429, { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' }), { kind: 'rate_limit', retryable: false, status: 429 }],
    ['500', json(500, { message: 'The server had an error while processing your request.', type: 'server_error' }), { kind: 'server', retryable: true, status: 500 }],
    ['503', json(503, { message: 'The engine is currently overloaded', type: 'server_error' }), { kind: 'overloaded', retryable: true, status: 503 }],
    ['529', json(529, { message: 'Overloaded', type: 'overloaded_error' }), { kind: 'overloaded', retryable: true, status: 529 }],
    [
      '400 context_length_exceeded',
      json(400, { message: "This model's maximum context length is 128000 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' }),
      { kind: 'context_overflow', retryable: false, status: 400 },
    ],
    ['400 other', json(400, { message: "Invalid value for 'max_tokens'.", type: 'invalid_request_error', param: 'max_tokens', code: null }), { kind: 'bad_request', retryable: false, status: 400 }],
  ];
  it.each(cases)('%s', async (_name, r, want) => {
    const { error, partial } = failed(await run(serve(r)));
    expect(error).toMatchObject(want);
    if (want.retryAfterMs === undefined) expect(error.retryAfterMs).toBeUndefined();
    const apiMessage = JSON.parse(String(r.body)).error.message as string;
    expect(error.message).toContain(apiMessage);
    expect(error.message.startsWith(`openai-compatible ${want.status}: `)).toBe(true);
    expect(partial).toMatchObject({ role: 'assistant', content: [], stopReason: 'error', errorMessage: error.message });
  });

  it('a non-JSON error body', async () => {
    const { error } = failed(await run(serve({ status: 502, headers: { 'content-type': 'text/plain' }, body: 'upstream connect error or disconnect/reset before headers' })));
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: 502 });
    expect(error.message).toBe('openai-compatible 502: upstream connect error or disconnect/reset before headers');
  });

  it('an HTML error page from a proxy: short and readable', async () => {
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{font-family:sans-serif}</style></head>
      <body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.25.3</center>${'<p>padding</p>'.repeat(200)}</body></html>`;
    const { error } = failed(await run(serve({ status: 502, headers: { 'content-type': 'text/html' }, body: page })));
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: 502 });
    expect(error.message).toMatch(/^openai-compatible 502: 502 Bad Gateway/);
    expect(error.message).not.toMatch(/[<>]/);
    expect(error.message).not.toContain('font-family');
    expect(error.message.length).toBeLessThan(360);
  });

  it('an error object sent mid-stream as a data chunk: a typed error, partial text kept', async () => {
    const body = sse([
      chunk({ content: 'Partial ' }),
      chunk({ content: 'answer' }),
      JSON.stringify({ error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } }),
    ]);
    const { error, partial } = failed(await run(serve({ body })));
    expect(error).toMatchObject({ kind: 'server', retryable: true });
    expect(error.message).toContain('The server had an error while processing your request');
    expect(partial.content).toEqual([{ type: 'text', text: 'Partial answer' }]);
  });

  it('a mid-stream error with an HTTP status as its code (OpenRouter style)', async () => {
    const body = sse([chunk({ content: 'x' }), JSON.stringify({ error: { code: 429, message: 'Rate limit exceeded upstream' } })]);
    const { error } = failed(await run(serve({ body })));
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true, status: 429 });
  });

  it('a mid-stream context_length_exceeded error', async () => {
    const body = sse([JSON.stringify({ error: { message: 'too long', type: 'invalid_request_error', code: 'context_length_exceeded' } })]);
    expect(failed(await run(serve({ body }))).error).toMatchObject({ kind: 'context_overflow', retryable: false });
  });

  it('a malformed chunk: a typed error, partial text kept', async () => {
    const body = sse([chunk({ content: 'Before' })]) + 'data: {not json\n\n' + sse([chunk({ content: 'after' }), chunk({}, 'stop')], { done: true });
    const { error, partial } = failed(await run(serve({ body })));
    expect(error).toMatchObject({ kind: 'invalid_response', retryable: true });
    expect(error.message).toMatch(/the provider sent an invalid stream frame \(.*; 9 chars\): \{not json$/);
    expect(partial.content).toEqual([{ type: 'text', text: 'Before' }]);
  });

  it('connection refused: a retryable network error', async () => {
    const closed = await startServer([{ body: '' }]);
    const url = closed.url;
    await closed.close();
    const { error } = failed(await run(createOpenAIAdapter(config(`${url}/v1`))));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
  });

  it("a timeout before the headers (the SDK's own): a retryable network error", async () => {
    const silent = await startServer(() => new Promise<Reply>(() => undefined)); // never answers
    try {
      const { error } = failed(await run(createOpenAIAdapter(config(`${silent.url}/v1`, { timeoutMs: 200 }))));
      expect(error).toMatchObject({ kind: 'network', retryable: true, message: 'openai-compatible: the request timed out' });
    } finally {
      await silent.close();
    }
  });

  it("a body that stalls after the headers is not timed out by the SDK (the loop's idle timeout handles it)", async () => {
    // timeoutMs covers the wait for the headers only. It is generous (a busy machine may take a
    // while to answer), and the caller aborts well after it has run out, counted from the moment
    // the server sent the headers: a timeout that covered the body would end the run first, as a
    // timeout; none does, so the run ends when the caller aborts it.
    const timeoutMs = 2000;
    const body = fixture('plain-text.sse');
    const own = await startServer([{ body, stallAfter: body.indexOf('\n\n') + 2 }]);
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const abortAfterHeaders = (async () => {
      while (own.requests.length === 0 && !controller.signal.aborted) await new Promise((res) => setTimeout(res, 10));
      timer = setTimeout(() => controller.abort(), timeoutMs + 500);
    })();
    try {
      const adapter = createOpenAIAdapter(config(`${own.url}/v1`, { timeoutMs }));
      const started = Date.now();
      const { error } = failed(await run(adapter, { ...REQUEST, signal: controller.signal }));
      expect(error.kind).toBe('aborted'); // ended by the caller, not by timeoutMs
      expect(Date.now() - started).toBeGreaterThanOrEqual(timeoutMs + 450);
    } finally {
      controller.abort();
      await abortAfterHeaders;
      clearTimeout(timer);
      await own.close();
    }
  });
});

// ---- abort ----

describe('abort', () => {
  it('mid-stream: an aborted error, and the HTTP request is really cancelled', async () => {
    const body = fixture('plain-text.sse');
    const secondEvent = body.indexOf('\n\n', body.indexOf('\n\n') + 2) + 2; // role chunk + first text chunk
    const own = await startServer([{ body, stallAfter: secondEvent }]);
    try {
      const controller = new AbortController();
      const adapter = createOpenAIAdapter(config(`${own.url}/v1`));
      const r = await run(adapter, { ...REQUEST, signal: controller.signal }, (e) => {
        if (e.type === 'text_delta') controller.abort();
      });
      const { error, partial } = failed(r);
      expect(error).toMatchObject({ kind: 'aborted', retryable: false });
      expect(partial.stopReason).toBe('aborted');
      expect(partial.content).toEqual([{ type: 'text', text: "I'm" }]);
      for (let i = 0; i < 100 && own.clientAborts < 1; i++) await new Promise((res) => setTimeout(res, 10));
      expect(own.clientAborts).toBeGreaterThanOrEqual(1);
    } finally {
      await own.close();
    }
  });

  it('while waiting for the headers', async () => {
    const own = await startServer(() => new Promise<Reply>(() => undefined)); // never answers
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const { error } = failed(await run(createOpenAIAdapter(config(`${own.url}/v1`)), { ...REQUEST, signal: controller.signal }));
      expect(error.kind).toBe('aborted');
      for (let i = 0; i < 100 && own.clientAborts < 1; i++) await new Promise((res) => setTimeout(res, 10));
      expect(own.clientAborts).toBeGreaterThanOrEqual(1);
    } finally {
      await own.close();
    }
  });

  it('already aborted: no request is sent', async () => {
    const before = server.requests.length;
    const controller = new AbortController();
    controller.abort();
    reply = { body: fixture('plain-text.sse') };
    const { error } = failed(await run(adapterFor(), { ...REQUEST, signal: controller.signal }));
    expect(error.kind).toBe('aborted');
    expect(server.requests.length).toBe(before);
  });

  it('one signal over many requests: no abort listeners left behind', async () => {
    const controller = new AbortController();
    reply = { body: fixture('plain-text.sse') };
    const adapter = adapterFor();
    for (let i = 0; i < 12; i++) done(await run(adapter, { ...REQUEST, signal: controller.signal }));
    reply = { status: 500, body: '{}' };
    failed(await run(adapter, { ...REQUEST, signal: controller.signal }));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a consumer that stops reading cancels the request', async () => {
    const body = fixture('plain-text.sse');
    const own = await startServer([{ body, stallAfter: body.length - 40 }]);
    try {
      for await (const e of createOpenAIAdapter(config(`${own.url}/v1`)).stream(REQUEST)) if (e.type === 'text_delta') break;
      for (let i = 0; i < 100 && own.clientAborts < 1; i++) await new Promise((res) => setTimeout(res, 10));
      expect(own.clientAborts).toBeGreaterThanOrEqual(1);
    } finally {
      await own.close();
    }
  });
});

// ---- errors.ts additions ----

describe('classifyError with bundled SDK classes', () => {
  it('class names renamed by a bundler (APIConnectionTimeoutError2, _APIUserAbortError) are still recognised', () => {
    class APIConnectionTimeoutError2 extends Error {}
    class _APIUserAbortError extends Error {}
    class APIConnectionError3 extends Error {}
    expect(classifyError(new APIConnectionTimeoutError2('Request timed out.'), { provider: 'p' })).toMatchObject({ kind: 'network', retryable: true });
    expect(classifyError(new _APIUserAbortError('Request was aborted.'), { provider: 'p' }).kind).toBe('aborted');
    expect(classifyError(new APIConnectionError3('Connection error.'), { provider: 'p' })).toMatchObject({ kind: 'network', retryable: true });
  });

  it('an APIError without status but with an error body (a mid-stream error) is typed by its type/code', () => {
    const midStream = (error: unknown) => Object.assign(new Error('x'), { status: undefined, error });
    expect(classifyError(midStream({ message: 'm', type: 'server_error' }), { provider: 'p' })).toMatchObject({ kind: 'server', retryable: true });
    expect(classifyError(midStream({ message: 'm', type: 'rate_limit_error' }), { provider: 'p' })).toMatchObject({ kind: 'rate_limit', retryable: true });
    expect(classifyError(midStream({ message: 'm', code: 502 }), { provider: 'p' })).toMatchObject({ kind: 'server', status: 502 });
    expect(classifyError(midStream('plain text'), { provider: 'p' })).toMatchObject({ kind: 'server', message: 'p: the stream reported an error: plain text' });
  });
});
