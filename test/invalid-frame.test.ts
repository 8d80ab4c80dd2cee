// An invalid stream frame is named as such. A `data:` line that is not JSON (or JSON that is not
// an event object) is its own error kind, `invalid_response`: the message says the provider sent
// an invalid stream frame and quotes about 200 characters of it; it is retried at most twice.
// Both dialects, through the real SDKs against a local server.
import { describe, expect, it, vi, afterEach } from 'vitest';
import { decideRetry, DEFAULT_RETRY } from '../src/agent/retry.js';
import { userMessage, type ModelError } from '../src/core/types.js';
import type { ModelAdapter, ModelStreamEvent } from '../src/model/adapter.js';
import { createAnthropicAdapter } from '../src/model/anthropic.js';
import { classifyError } from '../src/model/errors.js';
import { createOpenAIAdapter } from '../src/model/openai.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, tempDir } from './support/helpers.js';
import { sse, servePerTest } from './support/http-server.js';

const serve = servePerTest();
afterEach(() => {
  vi.restoreAllMocks();
});

const PRICING = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const openai = (url: string) => createOpenAIAdapter({ provider: 'openai-compatible', model: 'm', baseUrl: `${url}/v1`, maxOutputTokens: 100, pricing: PRICING });
const anthropic = (url: string) => createAnthropicAdapter({ provider: 'anthropic', model: 'm', baseUrl: url, apiKey: 'k', maxOutputTokens: 100, pricing: PRICING });

async function failure(adapter: ModelAdapter): Promise<ModelError> {
  const events: ModelStreamEvent[] = [];
  for await (const e of adapter.stream({ messages: [userMessage('hi')], tools: [], systemPrompt: '' })) events.push(e);
  const last = events.at(-1)!;
  if (last.type !== 'error') throw new Error(`expected an error, got ${JSON.stringify(last).slice(0, 300)}`);
  return last.error;
}

// ---- bodies ----
const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
/** A frame of over 3,000 characters whose JSON string is never closed (a proxy cut it and went on). */
const LONG_BROKEN = `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${'lorem ipsum '.repeat(280)}`;
const openaiBroken = (frame: string) => sse([chunk({ role: 'assistant', content: 'Hello' })]) + `data: ${frame}\n\n` + sse([chunk({ content: ' world' }), chunk({}, 'stop')], { done: true });
const openaiGood = sse([chunk({ content: 'All good.' }), chunk({}, 'stop')], { done: true });

const start = { type: 'message_start', message: { id: 'msg', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } };
const named = (events: object[]) => sse(events, { named: true });
const ANTHROPIC_LONG_BROKEN = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${'dolor sit amet '.repeat(220)}`;
const anthropicBroken = (frame: string, event = 'content_block_delta') =>
  named([start, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }]) +
  `event: ${event}\ndata: ${frame}\n\n` +
  named([{ type: 'content_block_stop', index: 0 }, { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } }, { type: 'message_stop' }]);

/** The quoted frame: everything after "chars): ". */
function quoted(message: string): string {
  const at = message.indexOf(' chars): ');
  expect(at, message).toBeGreaterThan(0);
  return message.slice(at + ' chars): '.length);
}

describe.each([
  { dialect: 'openai', adapter: openai, broken: openaiBroken(LONG_BROKEN), frame: LONG_BROKEN },
  { dialect: 'anthropic', adapter: anthropic, broken: anthropicBroken(ANTHROPIC_LONG_BROKEN), frame: ANTHROPIC_LONG_BROKEN },
])('$dialect: a frame of invalid JSON', ({ adapter, broken, frame }) => {
  it('is an invalid_response error that quotes about 200 characters of a frame over 3,000, and prints nothing', async () => {
    expect(frame.length).toBeGreaterThan(3000);
    const spies = (['error', 'warn', 'log', 'info', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => undefined));
    const server = await serve([{ body: broken }]);
    const error = await failure(adapter(server.url));
    expect(error.kind).toBe('invalid_response');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/: the provider sent an invalid stream frame \(/);
    expect(error.message).not.toMatch(/connection closed|network/);
    expect(error.message).toContain(`; ${frame.length} chars): `);
    // Exactly the first 200 characters of the frame, as sent, then an ellipsis.
    expect(quoted(error.message)).toBe(`${frame.slice(0, 200).replace(/\s+/g, ' ')}…`);
    expect(error.message.length).toBeLessThan(400);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});

describe('frames that are JSON but not events', () => {
  it('openai: `data: 42` is an invalid frame, quoted whole', async () => {
    const server = await serve([{ body: openaiBroken('42') }]);
    const error = await failure(openai(server.url));
    expect(error).toMatchObject({ kind: 'invalid_response', retryable: true });
    expect(quoted(error.message)).toBe('42');
  });

  it('anthropic: an event whose data is an array is an invalid frame', async () => {
    const server = await serve([{ body: anthropicBroken('[1,2]') }]);
    const error = await failure(anthropic(server.url));
    expect(error).toMatchObject({ kind: 'invalid_response', retryable: true });
    expect(quoted(error.message)).toBe('[1,2]');
  });
});

describe('classification', () => {
  it('a body cut mid-way ("terminated") is still a network error; "Unterminated string" is not', () => {
    const cut = Object.assign(new TypeError('terminated'), { cause: new Error('other side closed') });
    expect(classifyError(cut, { provider: 'p' }).kind).toBe('network');
    expect(classifyError(new SyntaxError('Unterminated string in JSON at position 12'), { provider: 'p' }).kind).toBe('invalid_response');
  });

  it('invalid_response is retried at most twice, and never more than the policy allows', () => {
    const err: ModelError = { kind: 'invalid_response', message: 'x', retryable: true };
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 1 };
    expect(decideRetry(err, 1, policy).retry).toBe(true);
    expect(decideRetry(err, 2, policy).retry).toBe(true);
    expect(decideRetry(err, 3, policy)).toEqual({ retry: false, reason: 'gave up after 2 retries' });
    expect(decideRetry(err, 2, { ...policy, maxRetries: 1 })).toEqual({ retry: false, reason: 'gave up after 1 retry' });
    // Other kinds keep the policy's count.
    expect(decideRetry({ ...err, kind: 'network' }, 4, policy).retry).toBe(true);
  });
});

describe('the CLI', () => {
  const args = (url: string) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`, '--model', 'm', '--no-session'];
  const quickRetries = (cwd: string) => ({ cwd, env: { MINI_AGENT_HOME: cwd } });

  it('retries a broken frame and completes: the retry event names invalid_response', async () => {
    const server = await serve([{ body: openaiBroken(LONG_BROKEN) }, { body: openaiGood }]);
    const cwd = tempDir();
    const config = JSON.stringify({ retry: { baseDelayMs: 1, maxDelayMs: 10 } });
    await import('node:fs').then((fs) => fs.writeFileSync(`${cwd}/config.json`, config));
    const r = await cliInProcess([...args(server.url), '--json', 'hi'], quickRetries(cwd));
    expect(r.code).toBe(0);
    const events = parseJsonl(r.stdout);
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ kind: 'invalid_response', attempt: 1 });
    expect(events.at(-1)).toMatchObject({ stopReason: 'completed' });
    expect(server.requests).toHaveLength(2);
  });

  it('a server that always sends broken frames: 3 requests, exit 1, one stderr line quoting the frame', async () => {
    const server = await serve([{ body: openaiBroken(LONG_BROKEN) }]);
    const cwd = tempDir();
    await import('node:fs').then((fs) => fs.writeFileSync(`${cwd}/config.json`, JSON.stringify({ retry: { baseDelayMs: 1, maxDelayMs: 10 } })));
    const r = await cliInProcess([...args(server.url), 'hi'], quickRetries(cwd));
    expect(r.code).toBe(1);
    expect(server.requests).toHaveLength(3);
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('retrying after'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mini-agent: openai-compatible invalid_response error: openai-compatible: the provider sent an invalid stream frame \(.*\): \{"id":"c","object"/);
    expect(lines[0]).toContain(`; ${LONG_BROKEN.length} chars): `);
    expect(lines[0]).toMatch(/gave up after 2 retries/);
    expect(lines[0]).toMatch(/sent a broken stream/);
    expect(lines[0].length).toBeLessThan(700);
  });
});
