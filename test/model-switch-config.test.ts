// Issue 24 §6: `/model PROVIDER/MODEL` (Agent.setModel) uses that provider's own base URL and key,
// also when the first provider's URL and key come from the user's config file. A config that
// names no provider is the default provider's (openai) and one that names openai-compatible is
// that provider's: after a switch to Anthropic, its baseUrl and apiKey go nowhere near the
// Anthropic requests, and a switch back finds them again. Two local fake servers, in process.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import { errorKindOf } from '../src/app/errors.js';
import { tempDir } from './support/helpers.js';
import { servePerTest, sse, type RecordedRequest } from './support/http-server.js';

const serve = servePerTest();

const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const openaiAnswer = sse([chunk({ content: 'local answer' }), chunk({}, 'stop')], { done: true });
const anthropicAnswer = sse(
  [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'anthropic answer' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  ],
  { named: true },
);
const posts = (requests: RecordedRequest[]) => requests.filter((r) => r.method === 'POST');

async function servers() {
  const local = await serve((r) => (r.method === 'POST' ? { headers: { 'content-type': 'text/event-stream' }, body: openaiAnswer } : { status: 404, body: '{"error":{"message":"not here"}}' }));
  const anthropic = await serve((r) => (r.method === 'POST' ? { headers: { 'content-type': 'text/event-stream' }, body: anthropicAnswer } : { status: 404, body: '{}' }));
  return { local, anthropic };
}

function home(config: object): string {
  const dir = tempDir();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  return dir;
}

describe.each([
  ['names no provider (the default, openai)', undefined, 'openai'],
  ['names openai-compatible', 'openai-compatible', 'openai-compatible'],
])('a user config that %s', (_, provider, startProvider) => {
  it('keeps its baseUrl and apiKey to its provider across /model switches', async () => {
    const { local, anthropic } = await servers();
    const env = {
      MINI_AGENT_HOME: home({ ...(provider ? { provider } : {}), baseUrl: `${local.url}/v1`, apiKey: 'sk-local-config', model: 'local-model' }),
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: 'sk-ant-test',
    };
    const a = await createAgent({ cwd: tempDir(), env, session: 'memory' });
    expect(a.model).toEqual({ provider: startProvider, id: 'local-model' });
    await a.prompt('one');
    expect(posts(local.requests)).toHaveLength(1);

    expect(await a.setModel({ provider: 'anthropic', model: 'claude-sonnet-4-5' })).toEqual({ provider: 'anthropic', id: 'claude-sonnet-4-5' });
    await a.prompt('two');
    expect(posts(local.requests)).toHaveLength(1);
    const [sent] = posts(anthropic.requests);
    expect(sent.url).toBe('/v1/messages'); // the preset's path on ANTHROPIC_BASE_URL, not /v1/v1/messages on the local server
    expect(JSON.stringify(sent.headers)).toContain('sk-ant-test');
    expect(JSON.stringify(sent.headers)).not.toContain('sk-local-config'); // the config's key stays with its provider
    expect(sent.body.model).toBe('claude-sonnet-4-5');

    // Back to the config's provider: its URL and key again.
    await a.setModel({ provider: startProvider, model: 'local-model' });
    await a.prompt('three');
    expect(posts(local.requests)).toHaveLength(2);
    expect(posts(local.requests)[1].headers.authorization).toBe('Bearer sk-local-config');
    expect(posts(anthropic.requests)).toHaveLength(1);
    await a.close();
  });

  it('fails clearly when the other provider has no key (the local config key is not used for it), and sends nothing', async () => {
    const { local, anthropic } = await servers();
    const env = { MINI_AGENT_HOME: home({ ...(provider ? { provider } : {}), baseUrl: `${local.url}/v1`, apiKey: 'sk-local-config', model: 'local-model' }) }; // Anthropic's own URL: a key is needed there
    const a = await createAgent({ cwd: tempDir(), env, session: 'memory' });
    const err = await a.setModel({ provider: 'anthropic', model: 'claude-sonnet-4-5' }).catch((e: unknown) => e);
    expect(errorKindOf(err)).toBe('invalid_argument');
    expect(String((err as Error).message)).toMatch(/anthropic: .*ANTHROPIC_API_KEY/);
    expect(a.model).toEqual({ provider: startProvider, id: 'local-model' });
    expect(posts(local.requests)).toHaveLength(0);
    expect(posts(anthropic.requests)).toHaveLength(0);
    await a.close();
  });
});
