// Prompt caching through the CLI against local fake servers (issue 23 §1): the requests carry
// cache breakpoints (Anthropic) or prompt_cache_key (OpenAI); cache reads and writes from
// recorded-stream shapes are counted and priced at their own rates; run_settled and the text
// summary show the cache-hit share. No network.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, tempDir } from './support/helpers.js';
import { servePerTest } from './support/http-server.js';

const serve = servePerTest();
const fixture = (path: string) => readFileSync(new URL(`./fixtures/${path}`, import.meta.url), 'utf8');

// The two responses of a recorded Anthropic tool loop (anthropic-sdk-python, MIT: see
// test/fixtures/SOURCES.md), with the usage of the recording (no cache: all zeros) replaced by
// cache figures in the very same shape, including the cache_creation split by time to live.
const LOOP: Array<{ response: { body: string } }> = JSON.parse(fixture('anthropic-messages/recorded-tool-loop-2-turns.http.json'));
function withUsage(body: string, u: { input: number; read: number; write5m: number; write1h: number }): string {
  // message_start has the split; message_delta repeats the totals without it.
  const start = /"usage":\{"input_tokens":\d+,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":\{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0\}/;
  const delta = /"usage":\{"input_tokens":\d+,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens"/;
  expect(body).toMatch(start);
  expect(body).toMatch(delta);
  const totals = `"usage":{"input_tokens":${u.input},"cache_creation_input_tokens":${u.write5m + u.write1h},"cache_read_input_tokens":${u.read}`;
  return body.replace(start, `${totals},"cache_creation":{"ephemeral_5m_input_tokens":${u.write5m},"ephemeral_1h_input_tokens":${u.write1h}}`).replace(delta, `${totals},"output_tokens"`);
}

function workspace(config?: object): { cwd: string; home: string } {
  const cwd = tempDir();
  const home = tempDir('mini-agent-home-');
  if (config) writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  mkdirSync(join(cwd, '.mini-agent'));
  return { cwd, home };
}
const settledOf = (events: AgentEvent[]) => events.find((e) => e.type === 'run_settled') as Extract<AgentEvent, { type: 'run_settled' }>;
const markersOf = (body: any): unknown[] => {
  const found: unknown[] = [];
  JSON.stringify(body, (k, v) => (k === 'cache_control' ? (found.push(v), v) : v));
  return found;
};
const ANTHROPIC = (url: string) => ['--provider', 'anthropic', '--base-url', url, '--model', 'claude-sonnet-4-6'];

describe('Anthropic through the CLI', () => {
  it('default 5m: breakpoints on tools, system and the newest messages; reads and writes priced at their rates; the share in run_settled', async () => {
    const server = await serve([{ body: withUsage(LOOP[0].response.body, { input: 6, read: 0, write5m: 650, write1h: 0 }) }, { body: withUsage(LOOP[1].response.body, { input: 4, read: 650, write5m: 116, write1h: 0 }) }]);
    const { cwd, home } = workspace();
    const r = await cliInProcess([...ANTHROPIC(server.url), '--json', 'what is the weather?'], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    const [first, second] = server.requests.map((q) => q.body);
    expect(markersOf(first)).toEqual([{ type: 'ephemeral' }, { type: 'ephemeral' }, { type: 'ephemeral' }]);
    expect(first.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(first.system[0]).toMatchObject({ type: 'text', cache_control: { type: 'ephemeral' } });
    expect(markersOf(second)).toHaveLength(4);
    expect(second.messages[0].content.at(-1).cache_control).toEqual({ type: 'ephemeral' }); // where the first request ended
    expect(second.messages[2].content.at(-1).cache_control).toEqual({ type: 'ephemeral' });

    const settled = settledOf(parseJsonl(r.stdout));
    expect(settled.usage).toMatchObject({ input: 10, cacheRead: 650, cacheWrite: 766 });
    // claude-sonnet-4-6: 3 in, 15 out, 0.3 read, 3.75 write (5m). Output as recorded: 74 + 38.
    expect(settled.usage.cost).toBeCloseTo((10 * 3 + 112 * 15 + 650 * 0.3 + 766 * 3.75) / 1e6, 10);
    expect(settled.cacheHitShare).toBeCloseTo(650 / (10 + 650 + 766), 10);
  });

  it('1h: every breakpoint has ttl 1h and the hour-long writes cost 2× input; the --verbose summary shows the share', async () => {
    const server = await serve([{ body: withUsage(LOOP[0].response.body, { input: 6, read: 0, write5m: 0, write1h: 650 }) }, { body: withUsage(LOOP[1].response.body, { input: 4, read: 650, write5m: 0, write1h: 116 }) }]);
    const { cwd, home } = workspace({ cache: { retention: '1h' } });
    const r = await cliInProcess([...ANTHROPIC(server.url), '--verbose', 'what is the weather?'], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    for (const q of server.requests) for (const m of markersOf(q.body)) expect(m).toEqual({ type: 'ephemeral', ttl: '1h' });
    const cost = (10 * 3 + 112 * 15 + 650 * 0.3 + 766 * 6) / 1e6;
    expect(r.stderr).toContain(`10 in / 112 out tokens (650 cache read, 766 cache write, 46% cache hits) · $${cost.toFixed(4)}`);
  });

  it('none: no cache_control in any request, the system prompt a plain string; --show-config names the setting', async () => {
    const server = await serve([{ body: LOOP[1].response.body }]);
    const { cwd, home } = workspace({ cache: { retention: 'none' } });
    const r = await cliInProcess([...ANTHROPIC(server.url), 'hi'], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(server.requests[0].body)).not.toContain('cache_control');
    expect(typeof server.requests[0].body.system).toBe('string');
    const shown = await cliInProcess([...ANTHROPIC(server.url), '--show-config'], { cwd, home });
    expect(shown.stdout).toMatch(/cache\.retention\s+none\s+\(user config .*config\.json\)/);
  });
});

// A recorded OpenAI stream (openai-python, Apache-2.0: see test/fixtures/SOURCES.md) whose final
// usage chunk gets the cached-token field of each provider, in the shape each one documents.
function openaiStream(extra: object): string {
  const recorded = fixture('openai-chat/plain-text.sse');
  const usage = '"usage":{"prompt_tokens":14,"completion_tokens":30,"total_tokens":44';
  expect(recorded).toContain(usage);
  return recorded.replace(usage, `"usage":{"prompt_tokens":1400,"completion_tokens":30,"total_tokens":1430,${JSON.stringify(extra).slice(1, -1)}`);
}

describe('OpenAI-compatible through the CLI', () => {
  it('openai: prompt_cache_key is the session id; prompt_tokens_details.cached_tokens count as cache reads', async () => {
    const server = await serve([{ body: openaiStream({ prompt_tokens_details: { cached_tokens: 1280 } }) }]);
    const { cwd, home } = workspace();
    const r = await cliInProcess(['--provider', 'openai', '--base-url', `${server.url}/v1`, '--api-key', 'sk-test', '--model', 'gpt-4.1', '--json', 'hi'], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    const events = parseJsonl(r.stdout);
    const start = events.find((e) => e.type === 'run_start') as Extract<AgentEvent, { type: 'run_start' }>;
    expect(server.requests[0].body.prompt_cache_key).toBe(start.session!.id);
    const settled = settledOf(events);
    expect(settled.usage).toMatchObject({ input: 120, cacheRead: 1280, cacheWrite: 0 });
    expect(settled.usage.cost).toBeCloseTo((120 * 2 + 30 * 8 + 1280 * 0.5) / 1e6, 10);
    expect(settled.cacheHitShare).toBeCloseTo(1280 / 1400, 10);
  });

  it('deepseek: no prompt_cache_key (it caches on its own); prompt_cache_hit_tokens count as cache reads', async () => {
    const server = await serve([{ body: openaiStream({ prompt_cache_hit_tokens: 1024, prompt_cache_miss_tokens: 376 }) }]);
    const { cwd, home } = workspace();
    const r = await cliInProcess(['--provider', 'deepseek', '--base-url', `${server.url}/v1`, '--api-key', 'sk-test', '--model', 'deepseek-chat', '--json', 'hi'], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0].body).not.toHaveProperty('prompt_cache_key');
    const settled = settledOf(parseJsonl(r.stdout));
    expect(settled.usage).toMatchObject({ input: 376, cacheRead: 1024 });
    expect(settled.cacheHitShare).toBeCloseTo(1024 / 1400, 10);
  });
});
