// Issue 23 §6, cost honesty and limits, through the CLI (and RPC, SDK) against a local OpenAI-compatible server:
// a model whose price is unknown is shown as "cost unknown" (never $0.0000) in the text summary,
// run_settled and --show-config; a known price is still shown in dollars; --max-cost (and
// budget.maxCostUsd) stops a run before a request that could pass the budget, with exit 3 and one
// clear line; a budget with an unknown price is refused before anything runs; a project config
// may only lower the user's budget.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import type { AgentEvent } from '../src/core/events.js';
import { Compile } from 'typebox/compile';
import { AgentEventSchema } from '../src/core/event-schema.js';
import { statusLine } from '../src/interactive/view.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, tempDir } from './support/helpers.js';
import { servePerTest, sse } from './support/http-server.js';
import { RpcClient, type RpcLine } from './support/rpc-client.js';

const serve = servePerTest();

const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const usage = (p: number, c: number) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c } });
/** A read_file call, billed as `prompt` input tokens and 100 output tokens. */
const toolTurn = (prompt: number) =>
  sse([chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] }), chunk({}, 'tool_calls'), usage(prompt, 100)], { done: true });
/** The answer, billed as `prompt` input tokens and 50 output tokens. */
const answer = (prompt: number) => sse([chunk({ role: 'assistant', content: 'It says hello.' }), chunk({}, 'stop'), usage(prompt, 50)], { done: true });

const settled = (stdout: string) => parseJsonl(stdout).at(-1) as Extract<AgentEvent, { type: 'run_settled' }>;
const flags = (url: string, model: string) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`, '--api-key', 'k', '--model', model, '--no-session'];

function workspace(project?: object): string {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'a.txt'), 'hello\n');
  if (project) {
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify(project));
  }
  return cwd;
}

function home(config?: object): string {
  const dir = tempDir('mini-agent-home-');
  if (config) writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

describe('an unknown price is "cost unknown", not $0', () => {
  it('a model missing from the table, without configured prices: the text summary and run_settled say so', async () => {
    const server = await serve([{ body: answer(1000) }]);
    const cwd = workspace();
    const text = await cliInProcess([...flags(server.url, 'my-local-model'), '--verbose', 'hi'], { cwd });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(/completed · 1 turn · 0 tool calls · 1000 in \/ 50 out tokens · cost unknown\]/);
    expect(text.stderr).not.toContain('$0.0000');

    const json = await cliInProcess([...flags(server.url, 'my-local-model'), '--json', 'hi'], { cwd });
    expect(json.code, json.stderr).toBe(0);
    const end = settled(json.stdout);
    expect(end.usage).toMatchObject({ input: 1000, output: 50, cost: 0, costUnknown: true });
    const message = parseJsonl(json.stdout).find((e) => e.type === 'message_end') as Extract<AgentEvent, { type: 'message_end' }>;
    expect(message.message.role === 'assistant' && message.message.usage.costUnknown).toBe(true);
  });

  it('--show-config: the pricing rows of an unknown model say "unknown" and name the key to set; zeros in the config say "free"', async () => {
    const cwd = workspace();
    const r = await cliInProcess(['--provider', 'openai-compatible', '--model', 'my-local-model', '--show-config'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^pricing\.input +unknown +\(unknown: my-local-model is not in the model table; set models\.my-local-model\.pricing\.input and \.output/m);
    expect(r.stdout).toMatch(/^pricing\.output +unknown /m);
    expect(r.stdout).toMatch(/^budget\.maxCostUsd +\(none\) +\(default \(no budget\)\)/m);
    const free = await cliInProcess(['--provider', 'openai-compatible', '--model', 'my-local-model', '--show-config', '--json'], { cwd, home: home({ models: { 'my-local-model': { pricing: { input: 0, output: 0 } } } }) });
    const rows = JSON.parse(free.stdout);
    expect(rows['pricing.input']).toMatchObject({ value: 0, source: expect.stringMatching(/^user config /) });
    expect(rows['pricing.cacheRead']).toEqual({ value: 0, source: 'default (the input price)' });
    // A local ollama server bills nothing: its models are priced $0 unless configured.
    const ollama = JSON.parse((await cliInProcess(['--provider', 'ollama', '--model', 'qwen3:8b', '--show-config', '--json'], { cwd })).stdout);
    expect(ollama['pricing.output']).toEqual({ value: 0, source: 'preset ollama (every model of this provider)' });
  });

  it('the interactive status line and a session\'s stats and export say "cost unknown" too', async () => {
    const plain = { dim: (t: string) => t } as Parameters<typeof statusLine>[1];
    expect(statusLine({ model: 'openai-compatible/my-local-model', input: 1000, output: 50, cost: 0, costUnknown: true, contextFraction: 0.1, session: 's' }, plain)).toBe(
      'openai-compatible/my-local-model · ↑1000 ↓50 · cost unknown · context 10% · s',
    );
    const server = await serve([{ body: answer(1000) }]);
    const cwd = workspace();
    const file = join(cwd, 's.jsonl');
    const run = await cliInProcess([...flags(server.url, 'my-local-model').filter((f) => f !== '--no-session'), '--session', file, 'hi'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    const md = await cliInProcess(['export', file, '--format', 'md'], { cwd });
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain('**Cost:** cost unknown');
    expect(md.stdout).not.toContain('$0.0000');
  });

  it('a known price is still shown in dollars (gpt-4.1: $2 in, $8 out per million)', async () => {
    const server = await serve([{ body: answer(1000) }]);
    const r = await cliInProcess([...flags(server.url, 'gpt-4.1'), '--verbose', '--json', 'hi'], { cwd: workspace() });
    expect(r.code, r.stderr).toBe(0);
    const end = settled(r.stdout);
    expect(end.usage.cost).toBeCloseTo((1000 * 2 + 50 * 8) / 1e6, 10);
    expect(end.usage).not.toHaveProperty('costUnknown');
    const text = await cliInProcess([...flags(server.url, 'gpt-4.1'), '--verbose', 'hi'], { cwd: workspace() });
    expect(text.stderr).toContain('· 1000 in / 50 out tokens · $0.0024]');
    const show = await cliInProcess(['--provider', 'openai-compatible', '--model', 'gpt-4.1', '--show-config'], { cwd: workspace() });
    expect(show.stdout).toMatch(/^pricing\.input +2 +\(model table\)/m);
  });
});

describe('--max-cost and budget.maxCostUsd', () => {
  // gpt-4.1 caps each request at 32,768 output tokens ($0.262 at $8 per million): the first request
  // (a small context) could cost about $0.27; the second, after a turn billed as 20,000 input
  // tokens ($0.04 spent), about $0.30 more.
  it('stops before the request that could pass the budget: exit 3, one clear line, stopReason "budget" with the figures', async () => {
    const server = await serve([{ body: toolTurn(20_000) }, { body: answer(20_200) }]);
    const r = await cliInProcess([...flags(server.url, 'gpt-4.1'), '--max-cost', '0.30', '--json', 'read a.txt'], { cwd: workspace() });
    expect(r.code, r.stderr).toBe(3);
    expect(server.requests).toHaveLength(1);
    const spent = (20_000 * 2 + 100 * 8) / 1e6;
    expect(r.stderr).toMatch(/^mini-agent: stopped: the next request could cost up to \$0\.\d{4}, more than is left of the budget \(\$0\.30; spent \$0\.0408\)$/m);
    const end = settled(r.stdout);
    expect(end).toMatchObject({ stopReason: 'budget', turns: 1, toolCalls: 1 });
    expect(end.budget?.maxCostUsd).toBe(0.3);
    expect(end.budget?.spentUsd).toBeCloseTo(spent, 10);
    expect(end.budget!.spentUsd + end.budget!.nextRequestUsd).toBeGreaterThan(0.3);
    expect(end.budget!.nextRequestUsd).toBeGreaterThan((20_000 * 2 + 32_768 * 8) / 1e6);
    // The text mode says the same, in the same line.
    const server2 = await serve([{ body: toolTurn(20_000) }, { body: answer(20_200) }]);
    const text = await cliInProcess([...flags(server2.url, 'gpt-4.1'), '--max-cost', '$0.30', 'read a.txt'], { cwd: workspace() });
    expect(text.code).toBe(3);
    expect(text.stderr).toMatch(/mini-agent: stopped: the next request could cost up to \$0\.\d{4}, more than is left of the budget \(\$0\.30; spent \$0\.0408\)/);
  });

  it('a budget that covers the run changes nothing; one too small for the first request sends nothing', async () => {
    const server = await serve([{ body: toolTurn(20_000) }, { body: answer(20_200) }]);
    const ok = await cliInProcess([...flags(server.url, 'gpt-4.1'), '--max-cost', '1', 'read a.txt'], { cwd: workspace() });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('It says hello.');
    expect(server.requests).toHaveLength(2);
    const none = await serve([{ body: answer(10) }]);
    const tiny = await cliInProcess([...flags(none.url, 'gpt-4.1'), '--max-cost', '0.01', '--json', 'hi'], { cwd: workspace() });
    expect(tiny.code).toBe(3);
    expect(none.requests).toHaveLength(0);
    expect(settled(tiny.stdout)).toMatchObject({ stopReason: 'budget', turns: 0, budget: { maxCostUsd: 0.01, spentUsd: 0 } });
  });

  it('with an unknown price a budget cannot be kept: refused before anything runs (exit 2), naming the key to set', async () => {
    const server = await serve([{ body: answer(10) }]);
    const r = await cliInProcess([...flags(server.url, 'my-local-model'), '--max-cost', '0.50', 'hi'], { cwd: workspace() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mini-agent: a budget \(flag --max-cost: \$0\.5\) cannot be kept: the prices of my-local-model are unknown; set models\.my-local-model\.pricing\.input and \.output/m);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['0', /--max-cost must be an amount of US dollars > 0, e\.g\. 0\.50, got "0"/],
    ['-1', /--max-cost must be an amount of US dollars > 0, e\.g\. 0\.50, got "-1"/],
    ['lots', /--max-cost must be an amount of US dollars > 0, e\.g\. 0\.50, got "lots"/],
  ])('--max-cost %s is a usage error', async (value, message) => {
    const r = await cliInProcess([`--max-cost=${value}`, 'hi'], { cwd: workspace() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('budget.maxCostUsd in the user config works like the flag; a malformed one is a usage error naming the key', async () => {
    const server = await serve([{ body: toolTurn(20_000) }, { body: answer(20_200) }]);
    const r = await cliInProcess([...flags(server.url, 'gpt-4.1'), 'read a.txt'], { cwd: workspace(), home: home({ budget: { maxCostUsd: 0.3 } }) });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/stopped: the next request could cost up to .*budget \(\$0\.30; spent \$0\.0408\)/);
    const bad = await cliInProcess(['--show-config'], { cwd: workspace(), home: home({ budget: { maxCostUsd: 0 } }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/config\.json: "budget\.maxCostUsd" must be a number > 0 \(US dollars\)/);
  });

  it("an untrusted project config can lower the user's budget, not raise it", async () => {
    const lowered = await serve([{ body: toolTurn(20_000) }, { body: answer(20_200) }]);
    const low = await cliInProcess([...flags(lowered.url, 'gpt-4.1'), 'read a.txt'], { cwd: workspace({ budget: { maxCostUsd: 0.3 } }), home: home({ budget: { maxCostUsd: 5 } }) });
    expect(low.code, low.stderr).toBe(3);
    expect(lowered.requests).toHaveLength(1);
    // Without a budget of the user's own, the project's is a lower limit than none.
    const noneShow = JSON.parse((await cliInProcess(['--provider', 'openai-compatible', '--model', 'gpt-4.1', '--show-config', '--json'], { cwd: workspace({ budget: { maxCostUsd: 0.3 } }) })).stdout);
    expect(noneShow['budget.maxCostUsd']).toEqual({ value: 0.3, source: expect.stringMatching(/^project config /) });
    expect(noneShow['project budget.maxCostUsd']).toEqual({ value: 'applied', source: 'lower: lowers the limit (none without it)' });

    const raised = await serve([{ body: toolTurn(20_000) }, { body: answer(20_200) }]);
    const cwd = workspace({ budget: { maxCostUsd: 5 } });
    const userHome = home({ budget: { maxCostUsd: 0.3 } });
    const high = await cliInProcess([...flags(raised.url, 'gpt-4.1'), 'read a.txt'], { cwd, home: userHome });
    expect(high.code).toBe(3);
    expect(raised.requests).toHaveLength(1);
    const show = JSON.parse((await cliInProcess(['--provider', 'openai-compatible', '--model', 'gpt-4.1', '--show-config', '--json'], { cwd, home: userHome })).stdout);
    expect(show['budget.maxCostUsd']).toEqual({ value: 0.3, source: expect.stringMatching(/^user config /) });
    expect(show['project budget.maxCostUsd']).toMatchObject({ value: 'ignored', source: expect.stringMatching(/^lower: would raise the limit above 0\.3/) });

    // Nor can it make the budget lax by pricing the model lower than the table: the budget counts the table's prices.
    const cheap = await serve([{ body: toolTurn(20_000) }, { body: answer(20_200) }]);
    const free = { models: { 'gpt-4.1': { pricing: { input: 0, output: 0 } } } };
    const lax = await cliInProcess([...flags(cheap.url, 'gpt-4.1'), 'read a.txt'], { cwd: workspace(free), home: home({ budget: { maxCostUsd: 0.3 } }) });
    expect(lax.code, lax.stderr).toBe(3);
    expect(cheap.requests).toHaveLength(1);
  });

  it('RPC: the budget stop is a run_settled with stopReason "budget" and its figures, valid against the event schema', async () => {
    const server = await serve([{ body: toolTurn(20_000) }, { body: answer(20_200) }]);
    const cwd = workspace();
    const client = new RpcClient([...flags(server.url, 'gpt-4.1'), '--max-cost', '0.30'], { cwd });
    expect((await client.send({ type: 'prompt', message: 'read a.txt' })).ok).toBe(true);
    const end = (await client.waitFor((l: RpcLine) => l.type === 'run_settled')) as Extract<AgentEvent, { type: 'run_settled' }>;
    expect(end).toMatchObject({ stopReason: 'budget', budget: { maxCostUsd: 0.3 } });
    expect(Compile(AgentEventSchema).Check(end)).toBe(true);
    expect(server.requests).toHaveLength(1);
    await client.end();
  });

  it('the SDK: maxCost stops the run with stopReason "budget" and says why in the result', async () => {
    const server = await serve([{ body: toolTurn(20_000) }, { body: answer(20_200) }]);
    const cwd = workspace();
    const agent = await createAgent({ cwd, home: home(), env: {}, session: 'memory', provider: 'openai-compatible', baseUrl: `${server.url}/v1`, apiKey: 'k', model: 'gpt-4.1', maxCost: 0.3 });
    try {
      const result = await agent.prompt('read a.txt');
      expect(result.stopReason).toBe('budget');
      expect(result.budget).toMatchObject({ maxCostUsd: 0.3 });
      expect(result.usage.cost).toBeCloseTo((20_000 * 2 + 100 * 8) / 1e6, 10);
    } finally {
      await agent.close();
    }
  });
});
