// Reasoning control (issue 23 §2): each --thinking level through both dialects' request bodies
// (the pure converters, and the CLI against local servers logging what they received), the note
// for a model without reasoning control, the config key and its checks, RPC set_thinking changing
// the next request, and streamed reasoning stored (with its signature), exported and traced.
import type Anthropic from '@anthropic-ai/sdk';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import { emptyUsage, userMessage, type AssistantMessage } from '../src/core/types.js';
import type { ModelAdapter, ModelRequest, ModelStreamEvent } from '../src/model/adapter.js';
import { toAnthropicRequest } from '../src/model/anthropic-convert.js';
import { toOpenAIRequest } from '../src/model/openai-convert.js';
import { THINKING_BUDGETS, THINKING_LEVELS, nextThinkingLevel, type ThinkingLevel } from '../src/model/thinking.js';
import { cliInProcess } from './support/cli-in-process.js';
import { runCli, tempDir } from './support/helpers.js';
import { sse, servePerTest } from './support/http-server.js';
import { RpcClient, type RpcResponse } from './support/rpc-client.js';

const serve = servePerTest();
const KEYS = { ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-test', DEEPSEEK_API_KEY: 'sk-test' };
const req = (thinking: ThinkingLevel) => ({ messages: [userMessage('hi')], tools: [], systemPrompt: 'sys', thinking });
const anthropic = (model: string, thinking: ThinkingLevel, maxOutputTokens = 64_000) => toAnthropicRequest(req(thinking), { model, maxOutputTokens });
const openai = (model: string, thinking: ThinkingLevel, provider = 'openai') => toOpenAIRequest(req(thinking), { provider, model, maxOutputTokens: 32_000 });

describe('the converters, level by level', () => {
  it("Anthropic budget models (Claude 4.5 and earlier): thinking enabled with the level's budget; off sends no thinking", () => {
    expect(anthropic('claude-sonnet-4-5', 'off')).not.toHaveProperty('thinking');
    for (const level of ['low', 'medium', 'high'] as const) {
      const body = anthropic('claude-sonnet-4-5', level);
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: THINKING_BUDGETS[level] });
      expect(body.max_tokens).toBe(64_000);
      expect(body).not.toHaveProperty('output_config');
    }
    expect(THINKING_BUDGETS).toEqual({ low: 2048, medium: 8192, high: 24576 });
  });

  it('the budget stays >= 1024 and below max_tokens, leaving 1024 for the answer: capped, or max_tokens raised', () => {
    expect(anthropic('claude-opus-4-1', 'high', 10_000)).toMatchObject({ max_tokens: 10_000, thinking: { budget_tokens: 8_976 } });
    expect(anthropic('claude-opus-4-1', 'low', 1_500)).toMatchObject({ max_tokens: 2_048, thinking: { budget_tokens: 1_024 } });
    for (const max of [1_000, 2_048, 3_000, 25_000, 64_000]) {
      for (const level of ['low', 'medium', 'high'] as const) {
        const body = anthropic('claude-haiku-4-5', level, max);
        const budget = body.thinking?.type === 'enabled' ? body.thinking.budget_tokens : 0;
        expect(budget).toBeGreaterThanOrEqual(1024);
        expect(budget).toBeLessThan(body.max_tokens);
      }
    }
  });

  it('Anthropic adaptive models (Claude 4.6 and later): adaptive thinking, shown summarized, the level as output_config.effort; off omits both', () => {
    for (const model of ['claude-sonnet-4-6', 'claude-opus-4-7', 'claude-sonnet-5-5']) {
      const off = anthropic(model, 'off');
      expect(off).not.toHaveProperty('thinking');
      expect(off).not.toHaveProperty('output_config');
      for (const level of ['low', 'medium', 'high'] as const) {
        const body = anthropic(model, level);
        expect(body.thinking).toEqual({ type: 'adaptive', display: 'summarized' });
        expect(body.output_config).toEqual({ effort: level });
        expect(body.max_tokens).toBe(64_000);
      }
    }
  });

  it('Anthropic models the table does not know: nothing is sent, whatever the level', () => {
    for (const level of THINKING_LEVELS) {
      const body = anthropic('claude-test-1', level, 2048);
      expect(body).not.toHaveProperty('thinking');
      expect(body).not.toHaveProperty('output_config');
      expect(body.max_tokens).toBe(2048);
    }
  });

  it('OpenAI effort models: reasoning_effort is the level; off is the least the model takes (minimal for gpt-5, none for gpt-5.x, low for the o-series)', () => {
    for (const level of ['low', 'medium', 'high'] as const) {
      for (const model of ['gpt-5', 'gpt-5-mini', 'o3', 'o4-mini', 'openai/gpt-5']) expect(openai(model, level).reasoning_effort).toBe(level);
    }
    expect(openai('gpt-5', 'off').reasoning_effort).toBe('minimal');
    expect(openai('gpt-5-nano', 'off').reasoning_effort).toBe('minimal');
    expect(openai('gpt-5.1', 'off').reasoning_effort).toBe('none');
    expect(openai('o3', 'off').reasoning_effort).toBe('low');
    expect(openai('openai/o4-mini', 'off', 'openrouter').reasoning_effort).toBe('low');
  });

  it('models without reasoning control, and those that always reason: no reasoning_effort', () => {
    for (const level of THINKING_LEVELS) {
      for (const model of ['gpt-4.1-mini', 'deepseek-chat', 'deepseek-reasoner', 'qwen3:8b', 'some-local-model']) {
        expect(openai(model, level, 'openai-compatible')).not.toHaveProperty('reasoning_effort');
      }
    }
  });

  it("the bodies fit the SDKs and the spec: Anthropic's MessageCreateParamsStreaming (at compile time), OpenAI's CreateChatCompletionRequest schema", () => {
    const adaptive: Anthropic.MessageCreateParamsStreaming = anthropic('claude-opus-4-7', 'high');
    const budget: Anthropic.MessageCreateParamsStreaming = anthropic('claude-haiku-4-5', 'medium');
    expect([adaptive.thinking?.type, budget.thinking?.type]).toEqual(['adaptive', 'enabled']);
    const schema = JSON.parse(readFileSync(new URL('./fixtures/openai-openapi/create-chat-completion-request.schema.json', import.meta.url), 'utf8'));
    const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
    for (const level of THINKING_LEVELS) {
      for (const model of ['gpt-5', 'gpt-5.1', 'o3']) {
        const body = openai(model, level);
        expect(validate(body) ? [] : validate.errors?.slice(0, 3)).toEqual([]);
      }
    }
  });

  it('the interactive key cycles off → low → medium → high → off', () => {
    expect([nextThinkingLevel('off'), nextThinkingLevel('low'), nextThinkingLevel('medium'), nextThinkingLevel('high')]).toEqual(['low', 'medium', 'high', 'off']);
  });
});

// ---- local servers ----
const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const openaiAnswer = (text: string, reasoning?: string) =>
  sse(
    [
      ...(reasoning ? [chunk({ role: 'assistant', reasoning_content: reasoning })] : []),
      chunk({ content: text }),
      chunk({}, 'stop'),
      { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
    ],
    { done: true },
  );
const REASONING = 'The user greets me.\nI should greet back, briefly.';
const SIGNATURE = 'EqQBCkYIBxgCKkBsig-test';
const anthropicAnswer = (text: string) =>
  sse(
    [
      { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The user greets me.\n' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'I should greet back, briefly.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 30 } },
      { type: 'message_stop' },
    ],
    { named: true },
  );

function workspace(config: object = {}): string {
  const cwd = tempDir();
  mkdirSync(join(cwd, '.mini-agent'));
  writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ retry: { baseDelayMs: 1, maxDelayMs: 50 }, ...config }));
  return cwd;
}

describe('the CLI against local servers: what the request carries', () => {
  it('Anthropic: --thinking high to a budget model, medium to an adaptive one, off to either', async () => {
    const server = await serve([{ body: anthropicAnswer('Hello.') }]);
    const cwd = workspace();
    const run = (model: string, level: string) => cliInProcess(['--provider', 'anthropic', '--base-url', server.url, '--model', model, '--thinking', level, '--no-session', 'hi'], { cwd, env: KEYS });
    for (const [model, level] of [
      ['claude-haiku-4-5', 'high'],
      ['claude-sonnet-4-6', 'medium'],
      ['claude-haiku-4-5', 'off'],
      ['claude-opus-4-7', 'off'],
    ]) {
      const r = await run(model, level);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Hello.');
    }
    const bodies = server.requests.map((q) => q.body);
    expect(bodies[0]).toMatchObject({ model: 'claude-haiku-4-5', thinking: { type: 'enabled', budget_tokens: 24576 } });
    expect(bodies[1]).toMatchObject({ model: 'claude-sonnet-4-6', thinking: { type: 'adaptive' }, output_config: { effort: 'medium' } });
    for (const b of bodies.slice(2)) {
      expect(b).not.toHaveProperty('thinking');
      expect(b).not.toHaveProperty('output_config');
    }
  });

  it("OpenAI: --thinking low to gpt-5, the user config's key to o3, off to gpt-5; no --thinking sends off", async () => {
    const server = await serve([{ body: openaiAnswer('Hello.') }]);
    const cwd = workspace();
    const home = tempDir('mini-agent-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ thinking: 'high' }));
    const run = (model: string, more: string[], h = home) => cliInProcess(['--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', model, ...more, '--no-session', 'hi'], { cwd, home: h, env: KEYS });
    expect((await run('gpt-5', ['--thinking', 'low'])).code).toBe(0);
    expect((await run('o3', [])).code).toBe(0);
    expect((await run('gpt-5', ['--thinking', 'off'])).code).toBe(0);
    expect((await run('gpt-5', [], tempDir('mini-agent-home-'))).code).toBe(0);
    expect(server.requests.map((q) => q.body.reasoning_effort)).toEqual(['low', 'high', 'minimal', 'minimal']);
  });

  it('a model without reasoning control: nothing is sent, and one line on stderr says so; the same for one that always reasons', async () => {
    const server = await serve([{ body: openaiAnswer('Hello.', 'Thinking it over.') }]);
    const cwd = workspace();
    const run = (model: string, level: string) => cliInProcess(['--provider', 'deepseek', '--base-url', `${server.url}/v1`, '--model', model, '--thinking', level, '--no-session', 'hi'], { cwd, env: KEYS });
    const chat = await run('deepseek-chat', 'high');
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('Hello.');
    expect(chat.stderr).toBe('mini-agent: warning: thinking high: the model deepseek-chat has no reasoning control that mini-agent knows of; nothing is sent for it\n');
    const reasoner = await run('deepseek-reasoner', 'low');
    expect(reasoner.stderr).toBe('mini-agent: warning: thinking low: the model deepseek-reasoner always reasons and takes no control; nothing is sent for it\n');
    const off = await run('deepseek-chat', 'off');
    expect(off.stderr).toBe('');
    for (const q of server.requests) {
      expect(q.body).not.toHaveProperty('reasoning_effort');
      expect(q.body).not.toHaveProperty('thinking');
    }
  });

  it('a bad level: --thinking and the config key are usage errors naming the values; --show-config shows the level and its source', async () => {
    const cwd = workspace();
    const flag = await runCli(['--thinking', 'max', '--script', 'x.json', 'hi'], { cwd });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--thinking must be one of off, low, medium, high, got "max"');
    const bad = workspace({ thinking: 'lots' });
    const config = await cliInProcess(['--show-config'], { cwd: bad });
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/config\.json: "thinking" must be one of "off", "low", "medium", "high"/);
    const shown = await cliInProcess(['--show-config', '--json', '--thinking', 'medium'], { cwd });
    expect(JSON.parse(shown.stdout).thinking).toEqual({ value: 'medium', source: 'flag --thinking' });
    const byDefault = await cliInProcess(['--show-config', '--json'], { cwd });
    expect(JSON.parse(byDefault.stdout).thinking).toEqual({ value: 'off', source: 'default' });
  });

  it("an untrusted project config may lower the user's level (cheaper), not raise it", async () => {
    const home = tempDir('mini-agent-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ thinking: 'medium' }));
    const lower = await cliInProcess(['--show-config', '--json'], { cwd: workspace({ thinking: 'low' }), home });
    expect(JSON.parse(lower.stdout).thinking.value).toBe('low');
    const higher = await cliInProcess(['--show-config', '--json'], { cwd: workspace({ thinking: 'high' }), home });
    expect(JSON.parse(higher.stdout).thinking.value).toBe('medium');
  });
});

describe('streamed reasoning: stored with its signature, exported, traced', () => {
  it('an Anthropic thinking block reaches the session file with its signature, the Markdown and HTML exports and the trace', async () => {
    const server = await serve([{ body: anthropicAnswer('Hello there.') }]);
    const cwd = workspace();
    const session = join(cwd, 's.jsonl');
    const trace = join(cwd, 'trace.jsonl');
    const r = await cliInProcess(['--provider', 'anthropic', '--base-url', server.url, '--model', 'claude-haiku-4-5', '--thinking', 'low', '--session', session, '--trace', trace, 'hi'], { cwd, env: KEYS });
    expect(r.code).toBe(0);
    expect(server.requests[0].body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    const entries = readFileSync(session, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const assistant = entries.find((e) => e.type === 'message' && e.message.role === 'assistant');
    expect(assistant.message.content[0]).toEqual({ type: 'thinking', thinking: REASONING, signature: SIGNATURE });

    const md = await cliInProcess(['export', session, '--format', 'md'], { cwd });
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('<details><summary>Thinking (49 chars)</summary>');
    expect(md.stdout).toContain('I should greet back, briefly.');
    const html = await cliInProcess(['export', session, '--format', 'html'], { cwd });
    expect(html.code).toBe(0);
    expect(html.stdout).toContain('I should greet back, briefly.');

    const traced = await cliInProcess(['trace', trace], { cwd });
    expect(traced.code).toBe(0);
    expect(traced.stdout).toContain('  thinking (49 chars):\n    The user greets me.\n    I should greet back, briefly.\n');
  });
});

describe('RPC set_thinking', () => {
  it('changes the level from the next request on, says when the model cannot take it, and refuses an unknown level', async () => {
    const server = await serve([{ body: anthropicAnswer('One.') }]);
    const cwd = workspace();
    const client = new RpcClient(['--provider', 'anthropic', '--base-url', server.url, '--model', 'claude-sonnet-4-6', '--no-session'], { cwd, env: KEYS });
    try {
      const settled = (n: number) => () => client.events().filter((e) => e.type === 'run_settled').length >= n;
      const waitSettled = async (n: number) => {
        await client.waitFor((l) => l.type === 'run_settled' && settled(n)());
      };
      expect((await client.send({ type: 'prompt', message: 'one' })).ok).toBe(true);
      await waitSettled(1);
      const set = await client.send({ type: 'set_thinking', level: 'high' });
      expect(set).toMatchObject({ ok: true, result: { level: 'high', note: null } });
      expect((await client.send({ type: 'prompt', message: 'two' })).ok).toBe(true);
      await waitSettled(2);
      expect(server.requests[0].body).not.toHaveProperty('thinking');
      expect(server.requests[1].body).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });

      const bad = (await client.send({ type: 'set_thinking', level: 'max' })) as RpcResponse;
      expect(bad).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
      const other = await client.send({ type: 'set_model', model: 'claude-test-1' });
      expect(other.ok).toBe(true);
      expect(await client.send({ type: 'set_thinking', level: 'low' })).toMatchObject({
        ok: true,
        result: { level: 'low', note: 'thinking low: the model claude-test-1 has no reasoning control that mini-agent knows of; nothing is sent for it' },
      });
    } finally {
      await client.end();
    }
  });
});

describe('the SDK: a change of level during a run', () => {
  it('applies from the next assistant turn: a tool-use loop keeps the level it started with (Anthropic wants one per turn)', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'x.md'), 'x\n');
    const seen: Array<ModelRequest['thinking']> = [];
    const reply = (content: AssistantMessage['content'], stopReason: AssistantMessage['stopReason']): ModelStreamEvent => ({ type: 'done', message: { role: 'assistant', content, stopReason, usage: emptyUsage() } });
    let agent: Awaited<ReturnType<typeof createAgent>> | undefined;
    const model: ModelAdapter = {
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      async *stream(request) {
        seen.push(request.thinking);
        if (seen.length === 1) {
          expect(agent!.setThinking('high')).toEqual({ level: 'high', note: null });
          agent!.followUp('and then?');
          yield reply([{ type: 'toolCall', id: 'c1', name: 'read_file', arguments: { path: 'x.md' } }], 'toolUse');
        } else yield reply([{ type: 'text', text: `answer ${seen.length}` }], 'stop');
      },
    };
    agent = await createAgent({ cwd, home: tempDir(), env: {}, modelAdapter: model, thinking: 'low', session: 'memory' });
    expect(agent.thinking).toBe('low');
    await agent.prompt('read x.md');
    await agent.idle();
    // 1: the run's first turn (low); 2: the same turn after the tool result (still low); 3: the follow-up's turn (high).
    expect(seen).toEqual(['low', 'low', 'high']);
    expect(() => agent!.setThinking('max' as never)).toThrow(/unknown thinking level "max" \(levels: off, low, medium, high\)/);
    await agent.close();
    expect(() => agent!.setThinking('off')).toThrow(/closed/);
  });
});
