// Issue 24 §6 in a real terminal (tmux), at 80 and 40 columns: `/model PROVIDER/MODEL` uses that
// provider's own base URL and key. Two local fake servers, one OpenAI-style (the start: a local
// openai-compatible model) and one Anthropic-style (ANTHROPIC_BASE_URL): after the switch the
// request goes to the second; the Anthropic SDK's deprecation warning is a warning line in the
// scrollback, not text over the input; a provider without a key fails clearly and sends nothing.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { tempDir } from './support/helpers.js';
import { servePerTest, sse, type RecordedRequest } from './support/http-server.js';
import { TMUX, useSystemTool } from './support/system-tools.js';
import { TmuxSession } from './support/tmux.js';

const serve = servePerTest();
const sessions: TmuxSession[] = [];
let tmuxBin: string | undefined;
afterEach(() => {
  while (sessions.length) sessions.pop()!.kill();
});
afterAll(() => {
  if (tmuxBin) TmuxSession.killServer(tmuxBin);
});

const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const openaiAnswer = sse(
  [chunk({ content: 'Answer from the local server.' }), chunk({}, 'stop'), { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }],
  { done: true },
);
const anthropicAnswer = sse(
  [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Answer from the Anthropic-style server.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  ],
  { named: true },
);

/** The POSTs a server got (a model-list probe is a GET). */
const posts = (requests: RecordedRequest[]) => requests.filter((r) => r.method === 'POST');

describe.each([80, 40])('/model across providers at %i columns', (columns) => {
  it("goes to the new provider's base URL with its key; a missing key fails clearly", async (ctx) => {
    const bin = useSystemTool(ctx, TMUX);
    tmuxBin = bin;
    const local = await serve((r) => (r.method === 'POST' ? { headers: { 'content-type': 'text/event-stream' }, body: openaiAnswer } : { status: 404, body: '{"error":{"message":"not here"}}' }));
    const anthropic = await serve((r) => (r.method === 'POST' ? { headers: { 'content-type': 'text/event-stream' }, body: anthropicAnswer } : { status: 404, body: '{}' }));
    const t = new TmuxSession(bin, ['--provider', 'openai-compatible', '--base-url', `${local.url}/v1`, '--model', 'local-model', '--no-session'], {
      cwd: tempDir(),
      columns,
      rows: 40,
      env: { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: '' },
    });
    sessions.push(t);
    await t.waitFor(/❯/);
    t.type('hello');
    t.keys('Enter');
    await t.waitFor(/Answer from the local server\./);
    expect(posts(local.requests)).toHaveLength(1);
    expect(posts(local.requests)[0].url).toBe('/v1/chat/completions');

    t.type('/model anthropic/claude-sonnet-4-5');
    t.keys('Enter');
    await t.waitFor(/model: anthropic\/claude-sonnet-4-5/);
    t.type('and now?');
    t.keys('Enter');
    const after = await t.waitFor(/Answer from the Anthropic-style server\.[\s\S]*❯/);
    expect(posts(local.requests)).toHaveLength(1); // nothing more went to the local server
    expect(posts(anthropic.requests)).toHaveLength(1);
    expect(posts(anthropic.requests)[0].url).toBe('/v1/messages');
    const { headers } = posts(anthropic.requests)[0];
    expect(headers['x-api-key'] ?? headers.authorization).toMatch(/sk-ant-test/); // its own key
    expect(posts(anthropic.requests)[0].body.model).toBe('claude-sonnet-4-5');
    // The SDK's deprecation warning: a warning line of the scrollback, above the answer, never over the input.
    const history = t.history();
    expect(history).toMatch(/^warning: The model 'claude-sonnet-4-5'\s+is deprecated/m);
    expect(history.indexOf("warning: The model 'claude-sonnet-4-5'")).toBeLessThan(history.indexOf('Answer from the Anthropic-style server.'));
    expect(after.trimEnd().split('\n').at(-1)).toMatch(/^❯\s*$/);

    // openai has no key here (OPENAI_API_KEY is empty): a clear error, nothing sent anywhere, the model unchanged.
    t.type('/model openai/gpt-4.1-mini');
    t.keys('Enter');
    const refused = await t.waitFor(/openai: the API key is empty|openai: no API key/);
    expect(refused).toMatch(/OPENAI_API_KEY/);
    for (const line of refused.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    t.type('/status');
    t.keys('Enter');
    await t.waitFor(/model anthropic\/claude-sonnet-4-5/);
    expect(posts(local.requests)).toHaveLength(1);
    expect(posts(anthropic.requests)).toHaveLength(1);
  });
});
