// Prompt caching (issue 23 §1), at the level of pure functions: the request shapes in both
// dialects, the cost of cache reads and writes, the cache-hit share, the billing model's figures,
// the config key, and the session start date in the system prompt.
import type Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSystemPrompt, sessionStartDate } from '../src/agent/system-prompt.js';
import { checkConfig } from '../src/app/config-check.js';
import { resolveConfig } from '../src/app/config.js';
import { showConfig } from '../src/app/config-show.js';
import { narrowProjectConfig } from '../src/app/project-config.js';
import { cacheHitShare } from '../src/core/cache-share.js';
import { emptyUsage, userMessage, type AssistantContent, type AssistantMessage, type Message, type ToolResultMessage } from '../src/core/types.js';
import type { ToolSpec } from '../src/model/adapter.js';
import { toAnthropicRequest, type AnthropicRequestBody } from '../src/model/anthropic-convert.js';
import { anthropicBilling, anthropicBlocks, automaticBilling, promptCost, readShare, uncachedCost, type PromptBlock } from '../src/model/billing.js';
import { cachedCost, type CacheRetention } from '../src/model/cache.js';
import { toOpenAIRequest } from '../src/model/openai-convert.js';

const TOOLS: ToolSpec[] = ['read', 'write', 'bash'].map((name) => ({ name, description: `${name} things`, parameters: { type: 'object', properties: {} } }));
const assistant = (...content: AssistantContent[]): AssistantMessage => ({ role: 'assistant', content, stopReason: 'toolUse', usage: emptyUsage() });
const call = (id: string): AssistantContent => ({ type: 'toolCall', id, name: 'read', arguments: { path: id } });
const result = (id: string): ToolResultMessage => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: `contents of ${id}` }], isError: false });
const anthropic = (messages: Message[], cacheRetention?: CacheRetention, systemPrompt = 'You are a test.') => toAnthropicRequest({ messages, tools: TOOLS, systemPrompt }, { model: 'claude-test', maxOutputTokens: 1000, cacheRetention });

/** Every cache_control in the body, as [where, marker]. */
function markers(body: AnthropicRequestBody): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = [];
  body.tools?.forEach((t, i) => t.cache_control && found.push([`tools[${i}]`, t.cache_control]));
  if (Array.isArray(body.system)) body.system.forEach((s, i) => s.cache_control && found.push([`system[${i}]`, s.cache_control]));
  body.messages.forEach((m, i) => m.content.forEach((c, j) => 'cache_control' in c && c.cache_control && found.push([`messages[${i}][${j}]`, c.cache_control])));
  return found;
}

const TWO_TURNS: Message[] = [userMessage('read a and b'), assistant(call('a'), call('b')), result('a'), result('b'), assistant({ type: 'text', text: 'read both' }, call('c')), result('c')];

describe('Anthropic cache breakpoints', () => {
  it('5m: the last tool, the system prompt as a block, the last block of the last message and where the previous request ended; no ttl', () => {
    const body = anthropic(TWO_TURNS, '5m');
    const e = { type: 'ephemeral' };
    expect(markers(body)).toEqual([
      ['tools[2]', e],
      ['system[0]', e],
      ['messages[2][1]', e], // the previous request ended with b's result
      ['messages[4][0]', e], // this one ends with c's result
    ]);
    expect(body.system).toEqual([{ type: 'text', text: 'You are a test.', cache_control: e }]);
    // The compile-time fit with the SDK holds with markers too.
    const sdk: Anthropic.MessageCreateParamsStreaming = body;
    expect(sdk.stream).toBe(true);
  });

  it('1h: every marker carries ttl "1h"; none (and no retention): no marker at all, the system prompt a plain string', () => {
    const hour = markers(anthropic(TWO_TURNS, '1h'));
    expect(hour).toHaveLength(4);
    for (const [, m] of hour) expect(m).toEqual({ type: 'ephemeral', ttl: '1h' });
    for (const retention of ['none', undefined] as const) {
      const body = anthropic(TWO_TURNS, retention);
      expect(JSON.stringify(body)).not.toContain('cache_control');
      expect(body.system).toBe('You are a test.');
    }
  });

  it('the first request: tools, system and the prompt (3 markers); without tools or system, fewer', () => {
    expect(markers(anthropic([userMessage('hi')], '5m')).map(([w]) => w)).toEqual(['tools[2]', 'system[0]', 'messages[0][0]']);
    const bare = toAnthropicRequest({ messages: [userMessage('hi')], tools: [], systemPrompt: '' }, { model: 'm', maxOutputTokens: 10, cacheRetention: '5m' });
    expect(markers(bare).map(([w]) => w)).toEqual(['messages[0][0]']);
  });

  it('the breakpoint does not change the request it marks: the same body without markers as with none', () => {
    const strip = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x) => (k === 'cache_control' ? undefined : x)));
    const body = strip(anthropic(TWO_TURNS, '5m')) as AnthropicRequestBody;
    expect({ ...body, system: 'You are a test.' }).toEqual(anthropic(TWO_TURNS, 'none'));
  });

  it('property: over random histories, at most 4 markers, never on a thinking block, and the last message always marked', () => {
    const block = fc.oneof(
      fc.record({ kind: fc.constant('user' as const), text: fc.string({ minLength: 1, maxLength: 5 }) }),
      fc.record({ kind: fc.constant('assistant' as const), calls: fc.integer({ min: 0, max: 3 }), thinking: fc.boolean(), text: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 12 }), fc.constantFrom<CacheRetention>('5m', '1h'), (steps, retention) => {
        const history: Message[] = [];
        let id = 0;
        for (const s of steps) {
          if (s.kind === 'user') history.push(userMessage(s.text));
          else {
            const content: AssistantContent[] = [];
            if (s.thinking) content.push({ type: 'thinking', thinking: 't', signature: 'sig' });
            if (s.text) content.push({ type: 'text', text: 'x' });
            const ids = Array.from({ length: s.calls }, () => `c${id++}`);
            content.push(...ids.map(call));
            history.push(assistant(...content));
            history.push(...ids.map(result));
          }
        }
        const body = anthropic(history, retention);
        const found = markers(body);
        expect(found.length).toBeLessThanOrEqual(4);
        for (const [, m] of found) expect(m).toEqual(retention === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' });
        for (const m of body.messages) for (const c of m.content) if (c.type === 'thinking') expect(c).not.toHaveProperty('cache_control');
        const last = body.messages.at(-1);
        if (!last) return; // nothing to send (assistant messages without content are dropped)
        expect(last.content.some((c) => 'cache_control' in c && c.cache_control)).toBe(last.content.some((c) => c.type !== 'thinking'));
      }),
      { numRuns: 300 },
    );
  });
});

describe('OpenAI prompt_cache_key', () => {
  const request = (provider: string, more: { cacheRetention?: CacheRetention; cacheKey?: string } = { cacheRetention: '5m', cacheKey: 'session-123' }) =>
    toOpenAIRequest({ messages: [userMessage('hi')], tools: TOOLS, systemPrompt: 'sys', cacheKey: more.cacheKey }, { provider, model: 'm', maxOutputTokens: 100, cacheRetention: more.cacheRetention });

  it('the session id goes to openai and openrouter; DeepSeek, Ollama and other compatible servers get no such field', () => {
    expect(request('openai').prompt_cache_key).toBe('session-123');
    expect(request('openrouter').prompt_cache_key).toBe('session-123');
    for (const provider of ['deepseek', 'ollama', 'openai-compatible']) expect(request(provider)).not.toHaveProperty('prompt_cache_key');
  });

  it('none, or no key, or no retention: no field', () => {
    expect(request('openai', { cacheRetention: 'none', cacheKey: 's' })).not.toHaveProperty('prompt_cache_key');
    expect(request('openai', { cacheRetention: '5m' })).not.toHaveProperty('prompt_cache_key');
    expect(request('openai', { cacheKey: 's' })).not.toHaveProperty('prompt_cache_key');
  });
});

describe('what cache reads and writes cost', () => {
  const pricing = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const usage = { input: 100, output: 10, cacheRead: 10_000, cacheWrite: 2_000 };

  it('5m writes at the table rate (1.25× input), 1h writes at 2× input, split as the API reports', () => {
    // 100×3 + 10×15 + 10,000×0.3 = 3,450; writes 2,000×3.75 = 7,500 (5m) or 2,000×6 = 12,000 (1h).
    expect(cachedCost(usage, pricing, '5m')).toBeCloseTo((3_450 + 7_500) / 1e6, 12);
    expect(cachedCost(usage, pricing, '1h')).toBeCloseTo((3_450 + 12_000) / 1e6, 12);
    // 500 of the 2,000 written for an hour: 1,500×3.75 + 500×6 = 5,625 + 3,000.
    expect(cachedCost(usage, pricing, '1h', 500)).toBeCloseTo((3_450 + 8_625) / 1e6, 12);
    expect(cachedCost(usage, pricing, 'none', 0)).toBeCloseTo((3_450 + 7_500) / 1e6, 12);
  });

  it('the cache-hit share: cacheRead / (input + cacheRead + cacheWrite); null without prompt tokens', () => {
    expect(cacheHitShare({ input: 100, cacheRead: 800, cacheWrite: 100 })).toBe(0.8);
    expect(cacheHitShare(emptyUsage())).toBeNull();
  });
});

describe('the billing model', () => {
  // 400 bytes = 100 tokens per block.
  const b = (c: string, breakpoint = false): PromptBlock => ({ text: c.repeat(400), breakpoint });

  it('Anthropic: writes at breakpoints, reads the longest cached prefix, input after the last breakpoint (hand-computed)', () => {
    const r1 = [b('t'), b('s', true), b('u'), b('v', true), b('w')]; // 500 tokens, breakpoints at 200 and 400
    const r2 = [b('t'), b('s', true), b('u'), b('v'), b('x'), b('y', true)]; // the same prefix up to v, then new blocks
    const r3 = [b('q'), b('s', true)]; // another prefix: nothing to read
    const billed = anthropicBilling([r1, r2, r3], { minTokens: 150 });
    expect(billed).toEqual([
      { input: 100, cacheRead: 0, cacheWrite: 400 },
      { input: 0, cacheRead: 400, cacheWrite: 200 }, // v's prefix found looking back from y
      { input: 0, cacheRead: 0, cacheWrite: 200 },
    ]);
    // Under the minimum nothing is written, so nothing is read later.
    expect(anthropicBilling([r1, r2], { minTokens: 1000 })).toEqual([
      { input: 500, cacheRead: 0, cacheWrite: 0 },
      { input: 600, cacheRead: 0, cacheWrite: 0 },
    ]);
    // A lookback of 1 block from y (index 5) reaches x, not v: only s's prefix is read.
    expect(anthropicBilling([r1, r2], { minTokens: 150, lookback: 1 })[1]).toEqual({ input: 0, cacheRead: 200, cacheWrite: 400 });
    // Prices: 5m on Sonnet (3 / 0.3 / 3.75 per million): r1 = 100×3 + 400×3.75 = 1,800; r2 = 400×0.3 + 200×3.75 = 870; r3 = 750.
    const pricing = { input: 3, cacheRead: 0.3, cacheWrite: 3.75 };
    expect(promptCost(billed, pricing)).toBeCloseTo(3_420 / 1e6, 12);
    expect(uncachedCost(billed, pricing)).toBeCloseTo((1_300 * 3) / 1e6, 12);
    expect(readShare(billed.slice(1))).toBeCloseTo(400 / 800, 12);
  });

  it('automatic (OpenAI): the shared prefix from 1024 tokens on, in 128-token steps (hand-computed)', () => {
    const base = 'a'.repeat(4 * 1_300); // 1,300 tokens
    const billed = automaticBilling([base, base + 'b'.repeat(4 * 200), 'a'.repeat(4 * 1_000) + 'c'.repeat(4 * 600)]);
    expect(billed).toEqual([
      { input: 1_300, cacheRead: 0, cacheWrite: 0 },
      { input: 1_500 - 1_280, cacheRead: 1_280, cacheWrite: 0 }, // 1,300 shared → 1,024 + 2×128
      { input: 1_600, cacheRead: 0, cacheWrite: 0 }, // 1,000 shared: under the minimum
    ]);
    // gpt-4.1 (2 / 0.5): 1,300×2 + 220×2 + 1,280×0.5 + 1,600×2 = 6,880.
    expect(promptCost(billed, { input: 2, cacheRead: 0.5, cacheWrite: 0 })).toBeCloseTo(6_880 / 1e6, 12);
  });

  it('an Anthropic body becomes blocks in the order the API reads them, markers as breakpoints and out of the text', () => {
    const blocks = anthropicBlocks(anthropic([userMessage('hi')], '5m'));
    expect(blocks.map((x) => x.breakpoint)).toEqual([false, false, true, true, true]);
    expect(blocks.every((x) => !x.text.includes('cache_control'))).toBe(true);
    expect(blocks[4].text).toBe('user:{"type":"text","text":"hi"}');
  });
});

describe('cache.retention', () => {
  const resolve = (user?: object, flags = {}) => resolveConfig({ flags, env: {}, cwd: '/w', user: user ? { file: '/home/u/config.json', data: user } : undefined });

  it('5m by default, from the config otherwise, shown by --show-config with its source', () => {
    expect(resolve().config.cache.retention).toBe('5m');
    const r = resolve({ cache: { retention: '1h' } });
    expect(r.config.cache.retention).toBe('1h');
    expect(showConfig(r, {}).find((row) => row.key === 'cache.retention')).toEqual({ key: 'cache.retention', value: '1h', source: 'user config /home/u/config.json' });
    expect(showConfig(resolve(), {}).find((row) => row.key === 'cache.retention')).toEqual({ key: 'cache.retention', value: '5m', source: 'default' });
  });

  it('a value it does not know is an error naming the file, the key and the choices', () => {
    expect(() => checkConfig({ cache: { retention: '10m' } }, 'c.json')).toThrow('c.json: "cache.retention" must be one of "none", "5m", "1h"');
    expect(() => checkConfig({ cache: { ttl: '5m' } }, 'c.json')).toThrow('"cache.ttl" is not a known setting (retention)');
    expect(() => checkConfig({ cache: '5m' }, 'c.json')).toThrow('"cache" must be an object');
  });

  it('an untrusted project may shorten the retention, not lengthen it', () => {
    const user = resolve().config; // 5m
    const decide = (retention: string) => narrowProjectConfig({ cache: { retention: retention as CacheRetention } }, false, user, 'not trusted').decisions[0];
    expect(decide('none')).toMatchObject({ key: 'cache.retention', effect: 'stricter', applied: true });
    expect(decide('5m')).toMatchObject({ applied: true });
    expect(decide('1h')).toMatchObject({ applied: false });
  });
});

describe('the system prompt is the same every day of a session', () => {
  it("it names the day the session started, from the header's timestamp", () => {
    const date = sessionStartDate('2020-03-04T23:00:00.000Z');
    const prompt = buildSystemPrompt({ cwd: '/w', tools: TOOLS, date });
    expect(prompt).toContain('2020-03-04');
    expect(buildSystemPrompt({ cwd: '/w', tools: TOOLS, date })).toBe(prompt);
    expect(sessionStartDate('not a time')).toBeUndefined();
  });
});
