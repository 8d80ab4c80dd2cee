// What the OpenAI-compatible adapter sends: the pure converter, the bodies a server received
// (validated against CreateChatCompletionRequest from OpenAI's OpenAPI spec), and that the SDK
// is loaded only when a request is made.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { build } from 'esbuild';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userMessage, type AssistantMessage, type Message, type ToolResultMessage } from '../src/core/types.js';
import type { ModelRequest, ToolSpec } from '../src/model/adapter.js';
import type { AdapterConfig } from '../src/model/models.js';
import { createOpenAIAdapter, INTERRUPTED_RESULT, toOpenAIMessages, toOpenAIRequest } from '../src/model/openai.js';
import { startServer, type TestServer } from './support/http-server.js';

// ---- helpers ----

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const schema = JSON.parse(readFileSync(new URL('./fixtures/openai-openapi/create-chat-completion-request.schema.json', import.meta.url), 'utf8'));
// strict: false because the spec carries OpenAPI keywords (discriminator, x-oai-*) Ajv does not know.
const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(schema);

function expectValidRequest(body: unknown): void {
  const ok = validate(body);
  if (!ok) expect(validate.errors?.slice(0, 5)).toEqual([]);
  expectAnsweredCalls((body as { messages: Msg[] }).messages);
}

type Msg = { role: string; content?: unknown; tool_calls?: Array<{ id: string }>; tool_call_id?: string };

/** Rules the schema cannot express: each assistant's calls are answered right after it, once each; no stray results. */
function expectAnsweredCalls(messages: Msg[]): void {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'assistant') {
      expect(m.content !== null || (m.tool_calls?.length ?? 0) > 0).toBe(true);
      const ids = (m.tool_calls ?? []).map((c) => c.id);
      const following = messages.slice(i + 1, i + 1 + ids.length);
      expect(following.map((f) => (f.role === 'tool' ? f.tool_call_id : `<${f.role}>`)).sort()).toEqual([...ids].sort());
      expect(messages[i + 1 + ids.length]?.role ?? 'end').not.toBe('tool');
      i += ids.length;
    } else {
      expect(m.role).not.toBe('tool');
    }
  }
}

const CFG: Pick<AdapterConfig, 'provider' | 'model' | 'maxOutputTokens'> = { provider: 'ollama', model: 'qwen3:8b', maxOutputTokens: 4096 };

const READ_FILE: ToolSpec = {
  name: 'read_file',
  description: 'Read a file in the workspace.',
  parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } }, required: ['path'], additionalProperties: false },
};
const WRITE_NOTE: ToolSpec = {
  name: 'write_note',
  description: 'Write a note.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

function assistant(content: AssistantMessage['content'], stopReason: AssistantMessage['stopReason'] = 'toolUse'): AssistantMessage {
  return { role: 'assistant', content, stopReason, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 } };
}
const call = (id: string, name: string, args: Record<string, unknown>) => ({ type: 'toolCall' as const, id, name, arguments: args });
function result(id: string, text: string, isError = false): ToolResultMessage {
  return { role: 'toolResult', toolCallId: id, toolName: 'read_file', content: [{ type: 'text', text }], isError };
}

/** A history with text, thinking, two answered calls, then a call that was never answered. */
const HISTORY: Message[] = [
  userMessage('Summarize notes/todo.md'),
  assistant([
    { type: 'thinking', thinking: 'I should read it first.', signature: 'sig' },
    { type: 'text', text: 'Reading both files.' },
    call('call_1', 'read_file', { path: 'notes/todo.md' }),
    call('call_2', 'read_file', { path: 'notes/done.md', limit: 10 }),
  ]),
  result('call_2', 'done: ship it'),
  result('call_1', '- buy milk'),
  assistant([call('call_3', 'write_note', { text: 'Summary: milk' })]),
  // no result for call_3: the run was killed
  userMessage('Continue'),
];

// ---- the converter ----

describe('toOpenAIRequest', () => {
  it('system prompt first, then the user message; no tools key without tools; max_tokens for compatible servers', () => {
    const body = toOpenAIRequest({ messages: [userMessage('Hi')], tools: [], systemPrompt: 'You are terse.' }, CFG);
    expect(body).toEqual({
      model: 'qwen3:8b',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 4096,
    });
    expectValidRequest(body);
  });

  it('provider openai uses max_completion_tokens', () => {
    const body = toOpenAIRequest({ messages: [userMessage('Hi')], tools: [], systemPrompt: 's' }, { ...CFG, provider: 'openai' });
    expect(body.max_completion_tokens).toBe(4096);
    expect('max_tokens' in body).toBe(false);
    expectValidRequest(body);
  });

  it('an empty system prompt is left out', () => {
    expect(toOpenAIRequest({ messages: [userMessage('Hi')], tools: [], systemPrompt: '' }, CFG).messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('tools become function tools', () => {
    const body = toOpenAIRequest({ messages: [userMessage('Hi')], tools: [READ_FILE, WRITE_NOTE], systemPrompt: 's' }, CFG);
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'read_file', description: 'Read a file in the workspace.', parameters: READ_FILE.parameters } },
      { type: 'function', function: { name: 'write_note', description: 'Write a note.', parameters: WRITE_NOTE.parameters } },
    ]);
    expectValidRequest(body);
  });

  it('assistant text and calls, results as tool messages, thinking dropped, an interrupted call answered', () => {
    expect(toOpenAIMessages(HISTORY)).toEqual([
      { role: 'user', content: 'Summarize notes/todo.md' },
      {
        role: 'assistant',
        content: 'Reading both files.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes/todo.md"}' } },
          { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes/done.md","limit":10}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_2', content: 'done: ship it' },
      { role: 'tool', tool_call_id: 'call_1', content: '- buy milk' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'write_note', arguments: '{"text":"Summary: milk"}' } }] },
      { role: 'tool', tool_call_id: 'call_3', content: INTERRUPTED_RESULT },
      { role: 'user', content: 'Continue' },
    ]);
    expect(INTERRUPTED_RESULT).toBe('No result: the call was interrupted.');
  });

  it('stray results are dropped: unknown id, after a user message, duplicates', () => {
    const out = toOpenAIMessages([
      userMessage('go'),
      result('ghost', 'from nowhere'),
      assistant([call('a', 'read_file', { path: 'x' })]),
      result('a', 'first'),
      result('a', 'second'),
      userMessage('next'),
      result('a', 'late'),
      assistant([{ type: 'text', text: 'ok' }], 'stop'),
    ]);
    expect(out).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path":"x"}' } }] },
      { role: 'tool', tool_call_id: 'a', content: 'first' },
      { role: 'user', content: 'next' },
      { role: 'assistant', content: 'ok' },
    ]);
  });

  it('a trailing assistant call without a result is answered; an empty (aborted) assistant message is skipped', () => {
    const out = toOpenAIMessages([userMessage('go'), { ...assistant([], 'aborted'), errorMessage: 'aborted' }, userMessage('again'), assistant([call('b', 'read_file', { path: 'y' })])]);
    expect(out).toEqual([
      { role: 'user', content: 'go' },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'b', type: 'function', function: { name: 'read_file', arguments: '{"path":"y"}' } }] },
      { role: 'tool', tool_call_id: 'b', content: INTERRUPTED_RESULT },
    ]);
  });

  it('any history gives a valid request (property)', () => {
    const id = fc.constantFrom('c0', 'c1', 'c2', 'c3');
    const text = fc.string({ maxLength: 8 });
    const block = fc.oneof(
      text.map((t) => ({ type: 'text' as const, text: t })),
      text.map((t) => ({ type: 'thinking' as const, thinking: t })),
      fc.tuple(id, fc.constantFrom('read_file', 'write_note'), fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue())).map(([i, n, a]) => call(i, n, a)),
    );
    const message: fc.Arbitrary<Message> = fc.oneof(
      text.map((t) => userMessage(t)),
      fc.array(block, { maxLength: 4 }).map((c) => assistant(c)),
      fc.tuple(id, text).map(([i, t]) => result(i, t)),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (history) => {
        const body = toOpenAIRequest({ messages: history, tools: [READ_FILE], systemPrompt: 'sys' }, CFG);
        expectValidRequest(body);
        // Every call in the history is sent, with its real result when it had one in place.
        const sentCalls = body.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []));
        const historyCalls = history.flatMap((m) => (m.role === 'assistant' ? [...new Set(m.content.flatMap((c) => (c.type === 'toolCall' ? [c.id] : [])))] : []));
        expect(sentCalls.map((c) => c.id)).toEqual(historyCalls);
      }),
      { numRuns: 300 },
    );
  });

  it('the schema check is not vacuous', () => {
    expect(validate({ model: 'm', messages: [] })).toBe(false);
    expect(validate({ model: 'm', messages: [{ role: 'tool', content: 'x' }] })).toBe(false); // no tool_call_id
    expect(validate({ model: 'm', messages: [{ role: 'user', content: 1 }] })).toBe(false);
    expect(validate({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { description: 'no name' } }] })).toBe(false);
    expect(validate({ model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: null })).toBe(true); // nullable rewritten
  });
});

// ---- the bodies a server received ----

describe('request bodies on the wire', () => {
  let server: TestServer;
  const body = readFileSync(new URL('./fixtures/openai-chat/plain-text.sse', import.meta.url));
  beforeAll(async () => {
    server = await startServer(() => ({ body }));
  });
  afterAll(() => server.close());

  const send = async (request: ModelRequest, over: Partial<AdapterConfig> = {}) => {
    const adapter = createOpenAIAdapter({
      provider: 'openai-compatible',
      model: 'gpt-4o-mini',
      baseUrl: `${server.url}/v1`,
      maxOutputTokens: 2048,
      pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      ...over,
    });
    let last;
    for await (const e of adapter.stream(request)) last = e;
    expect(last?.type).toBe('done');
    const received = server.requests[server.requests.length - 1];
    expect(received.url).toBe('/v1/chat/completions');
    expect(received.headers['content-type']).toMatch(/^application\/json/);
    return received.body;
  };

  it('system + user', async () => {
    const got = await send({ messages: [userMessage('Hello')], tools: [], systemPrompt: 'Be brief.' });
    expectValidRequest(got);
    expect(got).toEqual(toOpenAIRequest({ messages: [userMessage('Hello')], tools: [], systemPrompt: 'Be brief.' }, { provider: 'openai-compatible', model: 'gpt-4o-mini', maxOutputTokens: 2048 }));
  });

  it('with tools, for provider openai', async () => {
    const got = await send({ messages: [userMessage('Read a.md')], tools: [READ_FILE, WRITE_NOTE], systemPrompt: 'Be brief.' }, { provider: 'openai' });
    expectValidRequest(got);
    expect(got.tools).toHaveLength(2);
    expect(got.max_completion_tokens).toBe(2048);
  });

  it('assistant tool calls, their results and an interrupted call', async () => {
    const got = await send({ messages: HISTORY, tools: [READ_FILE, WRITE_NOTE], systemPrompt: 'Be brief.' });
    expectValidRequest(got);
    expect(got.messages.map((m: Msg) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'user']);
  });

  it('the synthetic answer for a call cut off at the end of the history, stray results dropped', async () => {
    const got = await send({
      messages: [userMessage('go'), result('ghost', 'x'), assistant([{ type: 'text', text: 'On it.' }, call('call_9', 'read_file', { path: 'a' })])],
      tools: [READ_FILE],
      systemPrompt: 'Be brief.',
    });
    expectValidRequest(got);
    expect(got.messages.slice(1)).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'On it.', tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] },
      { role: 'tool', tool_call_id: 'call_9', content: INTERRUPTED_RESULT },
    ]);
  });
});

// ---- lazy loading ----

describe('the SDK is loaded lazily', () => {
  it('importing the module and creating an adapter does not load `openai`; the first request does', async () => {
    const dir = join(ROOT, 'node_modules', '.cache', `openai-lazy-${process.pid}-${Date.now()}`);
    mkdirSync(dir, { recursive: true });
    try {
      const out = join(dir, 'openai-adapter.mjs');
      const built = await build({
        entryPoints: [join(ROOT, 'src/model/openai.ts')],
        outfile: out,
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        packages: 'external',
        metafile: true,
        logLevel: 'silent',
      });
      // Statically: the only import of the SDK is a dynamic one.
      const sdkImports = Object.values(built.metafile.inputs).flatMap((i) => i.imports.filter((x) => x.path === 'openai' || x.path.startsWith('openai/')));
      expect(sdkImports.map((x) => x.kind)).toEqual(['dynamic-import']);
      // At run time: a resolve hook refuses `openai`; import + construct must succeed, stream() must hit the hook.
      const hook = `export async function resolve(s, c, next) { if (s === 'openai' || s.startsWith('openai/')) throw new Error('BLOCKED: openai was imported'); return next(s, c); }`;
      const script = `
        import { register } from 'node:module';
        register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
        const mod = await import(${JSON.stringify(`file://${out}`)});
        const adapter = mod.createOpenAIAdapter({ provider: 'p', model: 'm', baseUrl: 'http://127.0.0.1:9/v1', maxOutputTokens: 8, pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } });
        const events = [];
        for await (const e of adapter.stream({ messages: [], tools: [], systemPrompt: 'x' })) events.push(e);
        console.log(JSON.stringify({ constructed: typeof adapter.stream, last: events.at(-1) }));
      `;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8', timeout: 20_000 });
      expect(child.stderr).toBe('');
      const report = JSON.parse(child.stdout.trim());
      expect(report.constructed).toBe('function');
      expect(report.last.type).toBe('error');
      expect(report.last.error.message).toContain('BLOCKED: openai was imported');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
