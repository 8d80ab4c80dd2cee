// Windows learned from the provider, through the CLI against local fake servers (no network):
// an 8k OpenAI-compatible server that states its limit in a 400 error (the run compacts and
// succeeds, the window is stored in the session and shown by --show-config), and the servers
// that tell a model's window up front (vLLM /v1/models, llama.cpp /props, Ollama /api/show).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { SESSION_FORMAT_VERSION, type ModelWindowEntry } from '../src/session/entries.js';
import { SessionEntrySchema, SessionHeaderSchema } from '../src/session/entry-schema.js';
import { SessionStore } from '../src/session/store.js';
import { SUMMARY_SECTIONS, TURN_SECTIONS } from '../src/session/summary-prompts.js';
import { servePerTest, sse, type RecordedRequest, type Reply } from './support/http-server.js';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir } from './support/helpers.js';

const serve = servePerTest();
const ENV = { OPENAI_API_KEY: 'sk-test' };

const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const usage = (p: number, c: number) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c } });
const answer = (text: string, promptTokens: number): Reply => ({
  headers: { 'content-type': 'text/event-stream' },
  body: sse([chunk({ role: 'assistant', content: text }), chunk({}, 'stop'), usage(promptTokens, 20)], { done: true }),
});
const notFound: Reply = { status: 404, headers: { 'content-type': 'application/json' }, body: '{"error":"not found"}' };
/** The fake server's own count of a request: about four characters a token, as a tokenizer might. */
const tokensOf = (req: RecordedRequest) => Math.ceil(JSON.stringify(req.body).length / 4);
const isChat = (req: RecordedRequest) => req.method === 'POST' && req.url === '/v1/chat/completions';
const isSummary = (req: RecordedRequest) => isChat(req) && !(Array.isArray(req.body?.tools) && req.body.tools.length > 0);

/** An OpenAI-compatible server with an 8,192-token window that says so the way OpenAI's API does, and knows no probe route. */
function eightK(limit = 8192) {
  const rejected: number[] = [];
  const handler = (req: RecordedRequest): Reply => {
    if (!isChat(req)) return notFound;
    const tokens = tokensOf(req);
    if (tokens > limit) {
      rejected.push(tokens);
      return {
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          error: {
            message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        }),
      };
    }
    if (isSummary(req)) return answer([...SUMMARY_SECTIONS, ...TURN_SECTIONS].map((s) => `## ${s}\nFACT: summarized ${s.toLowerCase()}`).join('\n\n'), tokens);
    return answer('done', tokens);
  };
  return { handler, rejected };
}

const words = (label: string, chars: number) => `${label} ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(chars / 27))}`.slice(0, chars);

describe('an 8k server that states its limit in a 400 error', () => {
  it('the run compacts with the stated window and succeeds; the window is stored in the session and --show-config says where it came from', async () => {
    const fake = eightK();
    const server = await serve(fake.handler);
    const cwd = tempDir();
    const home = tempDir();
    const file = join(cwd, 's.jsonl');
    const flags = ['--provider', 'openai-compatible', '--base-url', `${server.url}/v1`, '--model', 'local-8k', '--session', file];
    for (let i = 0; i < 2; i++) {
      const r = await cliInProcess([...flags, words(`question ${i}`, 8000)], { cwd, home, env: ENV });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(fake.rejected).toEqual([]);
    // The third prompt takes the request over 8,192 tokens by the server's count; mini-agent assumed 128k.
    const third = await cliInProcess([...flags, words('question 2', 12000)], { cwd, home, env: ENV });
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain('done');
    expect(fake.rejected).toHaveLength(1);
    expect(third.stderr).toMatch(/compacted the conversation \(overflow\)/);
    const store = SessionStore.open(file);
    const learned = store.entries().filter((e): e is ModelWindowEntry => e.type === 'model_window');
    expect(learned).toEqual([expect.objectContaining({ provider: 'openai-compatible', model: 'local-8k', contextWindow: 8192, source: 'error' })]);
    expect(store.entries().filter((e) => e.type === 'compaction')).toHaveLength(1);
    store.close();
    // Every request after the error fit the window.
    const after = server.requests.filter(isChat).slice(-2);
    for (const req of after) expect(tokensOf(req)).toBeLessThanOrEqual(8192);

    const shown = await cliInProcess(['--show-config', '--json', ...flags], { cwd, home, env: ENV });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).contextWindow).toEqual({ value: 8192, source: 'learned from an overflow error' });

    // A resume uses the learned window from its start: the next prompt compacts before the request, and nothing is rejected again.
    const fourth = await cliInProcess([...flags, words('question 3', 16000)], { cwd, home, env: ENV });
    expect(fourth.code, fourth.stderr).toBe(0);
    expect(fake.rejected).toHaveLength(1);
    const again = SessionStore.open(file);
    expect(
      again
        .entries()
        .filter((e) => e.type === 'compaction')
        .map((e) => (e as { reason?: string }).reason),
    ).toEqual(['overflow', 'threshold']);
    again.close();
    // The file, model_window entry included, validates against the published schema (the current format).
    const [h, ...lines] = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(h.version).toBe(SESSION_FORMAT_VERSION);
    expect(Compile(SessionHeaderSchema).Check(h)).toBe(true);
    const entry = Compile(SessionEntrySchema);
    for (const e of lines) expect(entry.Check(e), `${e.type}: ${JSON.stringify([...entry.Errors(e)].slice(0, 3))}`).toBe(true);
    expect(lines.map((e) => e.type)).toContain('model_window');
  });
});

describe('a prompt bigger than the 8k window', () => {
  it('stops, naming the message that is too big, with the window the server stated', async () => {
    const fake = eightK();
    const server = await serve(fake.handler);
    const cwd = tempDir();
    const file = join(cwd, 's.jsonl');
    const r = await cliInProcess(['--provider', 'openai-compatible', '--base-url', `${server.url}/v1`, '--model', 'local-8k', '--session', file, words('paste', 40_000)], { cwd, env: ENV });
    expect(r.code).toBe(1);
    const store = SessionStore.open(file);
    const prompt = store.entries().find((e) => e.type === 'message' && e.message.role === 'user')!;
    store.close();
    expect(r.stderr).toMatch(new RegExp(`the current turn does not fit the model's window \\(8192 tokens\\) even with everything before it summarized .*its largest message is entry ${prompt.id} \\(user, about \\d+ tokens\\)`));
    expect(r.stderr).toContain('context window (8192 tokens); run "mini-agent compact"');
  });
});

describe("asking the server for an unknown model's window, once per session, when the context is large enough for it to matter", () => {
  const chatOr =
    (probe: (req: RecordedRequest) => Reply | undefined) =>
    (req: RecordedRequest): Reply =>
      isChat(req) ? answer('hello', 50) : (probe(req) ?? notFound);
  const cases = [
    {
      name: 'vLLM',
      source: 'vLLM /v1/models',
      window: 32768,
      probe: (req: RecordedRequest) =>
        req.method === 'GET' && req.url === '/v1/models'
          ? {
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                object: 'list',
                data: [
                  { id: 'other', object: 'model', max_model_len: 65536 },
                  { id: 'local-model', object: 'model', owned_by: 'vllm', max_model_len: 32768 },
                ],
              }),
            }
          : undefined,
    },
    {
      name: 'llama.cpp',
      source: 'llama.cpp /props',
      window: 16384,
      probe: (req: RecordedRequest) =>
        req.method === 'GET' && req.url === '/props' ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ default_generation_settings: { n_ctx: 16384, params: {} }, total_slots: 1 }) } : undefined,
    },
    {
      name: 'Ollama',
      source: 'Ollama /api/show',
      window: 40960,
      probe: (req: RecordedRequest) =>
        req.method === 'POST' && req.url === '/api/show' && req.body?.model === 'local-model'
          ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ parameters: 'stop "<|im_end|>"', model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 } }) }
          : undefined,
    },
  ];

  it.each(cases)('$name: the window is stored in the session, used, and shown by --show-config', async ({ source, window, probe }) => {
    const server = await serve(chatOr(probe));
    const cwd = tempDir();
    const home = tempDir();
    const file = join(cwd, 's.jsonl');
    const flags = ['--provider', 'openai-compatible', '--base-url', `${server.url}/v1`, '--model', 'local-model'];
    // A small context: nobody is asked yet (an error would state the window anyway).
    expect((await cliInProcess([...flags, '--session', file, 'hi'], { cwd, home, env: ENV })).code).toBe(0);
    expect(server.requests.every(isChat)).toBe(true);
    // Once the context passes 8,192 tokens, the server is asked.
    const r = await cliInProcess([...flags, '--session', file, words('a long question', 36_000)], { cwd, home, env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/warning/);
    const store = SessionStore.open(file);
    expect(store.entries().filter((e) => e.type === 'model_window')).toEqual([expect.objectContaining({ provider: 'openai-compatible', model: 'local-model', contextWindow: window, source: 'server', detail: source })]);
    store.close();
    const probes = () => server.requests.filter((q) => !isChat(q)).length;
    const asked = probes();
    expect(asked).toBeGreaterThan(0);
    // Once per session: a resume does not ask again.
    expect((await cliInProcess([...flags, '--session', file, words('again', 4000)], { cwd, home, env: ENV })).code).toBe(0);
    expect(probes()).toBe(asked);

    const fromSession = await cliInProcess(['--show-config', '--json', ...flags, '--session', file], { cwd, home, env: ENV });
    expect(JSON.parse(fromSession.stdout).contextWindow).toEqual({ value: window, source: `learned from the server (${source})` });
    const text = await cliInProcess(['--show-config', ...flags], { cwd, home, env: ENV });
    expect(text.stdout).toMatch(new RegExp(`^contextWindow +${window} +\\(learned from the server \\(${source.replace(/[/.]/g, '\\$&')}\\)\\)$`, 'm'));
  });

  it('a server that tells nothing: the run goes on silently with the default; --show-config says why', async () => {
    const server = await serve(chatOr(() => undefined));
    const cwd = tempDir();
    const flags = ['--provider', 'openai-compatible', '--base-url', `${server.url}/v1`, '--model', 'local-model'];
    const r = await cliInProcess([...flags, '--no-session', words('a long question', 36_000)], { cwd, env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(
      server.requests
        .filter((q) => !isChat(q))
        .map((q) => `${q.method} ${q.url}`)
        .sort(),
    ).toEqual(['GET /props', 'GET /v1/models', 'POST /api/show']);
    const shown = JSON.parse((await cliInProcess(['--show-config', '--json', ...flags], { cwd, env: ENV })).stdout).contextWindow;
    expect(shown.value).toBe(128000);
    expect(shown.source).toBe('default (unknown model); the server did not say (vLLM /v1/models: HTTP 404; llama.cpp /props: HTTP 404; Ollama /api/show: HTTP 404)');
    // A known model or a configured window: nobody is asked.
    const before = server.requests.length;
    expect((await cliInProcess([...flags, '--context-window', '65536', '--no-session', words('a long question', 36_000)], { cwd, env: ENV })).code).toBe(0);
    expect(server.requests.slice(before).every(isChat)).toBe(true);
  });
});

describe('a vLLM server whose 8k window cannot hold the default output cap', () => {
  it('learns the window from the error, lowers max_tokens to what the window leaves, and the run succeeds without compacting', async () => {
    // vLLM counts the messages and max_tokens together: "... you requested N tokens (M in the messages, K in the completion)".
    const requests: { messages: number; maxTokens: number }[] = [];
    const handler = (req: RecordedRequest): Reply => {
      if (!isChat(req)) return notFound;
      const messages = tokensOf(req);
      const maxTokens = Number(req.body.max_tokens);
      requests.push({ messages, maxTokens });
      if (messages + maxTokens > 8192) {
        return {
          status: 400,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            object: 'error',
            message: `This model's maximum context length is 8192 tokens. However, you requested ${messages + maxTokens} tokens (${messages} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
            type: 'BadRequestError',
            param: null,
            code: 400,
          }),
        };
      }
      return answer('done', messages);
    };
    const server = await serve(handler);
    const cwd = tempDir();
    const file = join(cwd, 's.jsonl');
    const r = await cliInProcess(['--provider', 'openai-compatible', '--base-url', `${server.url}/v1`, '--model', 'local-vllm', '--session', file, 'hello'], { cwd, env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('done');
    expect(requests).toHaveLength(2);
    expect(requests[0].maxTokens).toBe(8192); // the default cap of a model the table does not know
    expect(requests[1].maxTokens).toBeLessThan(8192 - requests[1].messages);
    expect(requests[1].maxTokens).toBeGreaterThanOrEqual(1024);
    const store = SessionStore.open(file);
    expect(store.entries().filter((e) => e.type === 'compaction')).toHaveLength(0);
    expect(store.entries().filter((e) => e.type === 'model_window')).toEqual([expect.objectContaining({ contextWindow: 8192, source: 'error' })]);
    store.close();
  });
});
