// A refusal is never an empty success. A response ended by a refusal (Anthropic
// `stop_reason: "refusal"` with `stop_details`, an OpenAI `refusal` with no answer) or by a
// content filter (`finish_reason: "content_filter"`) settles the run as `refused`, with the
// provider's category and explanation, exit code 4 and one stderr line. Recorded streams are
// served by a local server, so the real SDKs parse them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { userMessage, type AssistantMessage } from '../src/core/types.js';
import type { ModelAdapter, ModelStreamEvent } from '../src/model/adapter.js';
import { createAnthropicAdapter } from '../src/model/anthropic.js';
import { createOpenAIAdapter } from '../src/model/openai.js';
import type { RunEntry } from '../src/session/entries.js';
import { SessionStore } from '../src/session/store.js';
import { cliInProcess } from './support/cli-in-process.js';
import { essence, parseJsonl, scriptedRun, tempDir } from './support/helpers.js';
import { sse, servePerTest } from './support/http-server.js';

const fixture = (path: string) => readFileSync(new URL(`./fixtures/${path}`, import.meta.url));
const ANTHROPIC_REFUSAL = fixture('anthropic-messages/refusal-stop-details.sse');
const OPENAI_REFUSAL = fixture('openai-chat/refusal.sse');
const POLICY = 'This request was refused due to policy.';
const SORRY = "I'm sorry, I can't assist with that request.";

const serve = servePerTest();

const PRICING = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
async function respond(adapter: ModelAdapter): Promise<{ message: AssistantMessage; events: ModelStreamEvent[] }> {
  const events: ModelStreamEvent[] = [];
  for await (const e of adapter.stream({ messages: [userMessage('hi')], tools: [], systemPrompt: '' })) events.push(e);
  const last = events.at(-1)!;
  if (last.type !== 'done') throw new Error(`expected done, got ${JSON.stringify(last)}`);
  return { message: last.message, events };
}
const anthropic = (url: string) => createAnthropicAdapter({ provider: 'anthropic', model: 'm', baseUrl: url, apiKey: 'k', maxOutputTokens: 100, pricing: PRICING });
const openai = (url: string) => createOpenAIAdapter({ provider: 'openai-compatible', model: 'm', baseUrl: `${url}/v1`, maxOutputTokens: 100, pricing: PRICING });

const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });

describe('adapters: a refusal is reported with its details', () => {
  it('Anthropic stop_reason "refusal" keeps stop_details category and explanation', async () => {
    const server = await serve([{ body: ANTHROPIC_REFUSAL }]);
    const { message } = await respond(anthropic(server.url));
    expect(message.stopReason).toBe('contentFilter');
    expect(message.refusal).toEqual({ reason: 'refusal', category: 'cyber', explanation: POLICY });
    expect(message.content).toEqual([]);
  });

  it('Anthropic: thinking and text before a refusal are kept; the refusal is still reported', async () => {
    const server = await serve([{ body: fixture('anthropic-messages/thinking-signature-then-refusal.sse') }]);
    const { message } = await respond(anthropic(server.url));
    expect(message.stopReason).toBe('contentFilter');
    expect(message.refusal?.reason).toBe('refusal');
    expect(message.content.map((c) => c.type)).toContain('thinking');
  });

  it('OpenAI: a refusal delta with no other content is a refusal, its text the explanation', async () => {
    const server = await serve([{ body: OPENAI_REFUSAL }]);
    const { message, events } = await respond(openai(server.url));
    expect(message.stopReason).toBe('contentFilter');
    expect(message.refusal).toEqual({ reason: 'refusal', explanation: SORRY });
    expect(events.some((e) => e.type === 'text_delta')).toBe(false);
  });

  it('OpenAI: finish_reason content_filter is a refusal by the content filter, text already streamed kept', async () => {
    const server = await serve([{ body: sse([chunk({}, 'content_filter')], { done: true }) }, { body: sse([chunk({ content: 'Here is the first part' }), chunk({}, 'content_filter')], { done: true }) }]);
    const empty = await respond(openai(server.url));
    expect(empty.message).toMatchObject({ stopReason: 'contentFilter', refusal: { reason: 'content_filter' }, content: [] });
    const partial = await respond(openai(server.url));
    expect(partial.message).toMatchObject({ stopReason: 'contentFilter', refusal: { reason: 'content_filter' } });
    expect(partial.message.content).toEqual([{ type: 'text', text: 'Here is the first part' }]);
  });

  it('OpenAI: a refusal delta alongside a normal answer stays text, in order, and the response is not refused', async () => {
    const server = await serve([
      { body: sse([chunk({ content: 'Sure. ' }), chunk({ refusal: 'But not that part.' }), chunk({}, 'stop')], { done: true }) },
      { body: sse([chunk({ refusal: 'Not this. ' }), chunk({ content: 'Here is the rest.' }), chunk({}, 'stop')], { done: true }) },
    ]);
    const after = await respond(openai(server.url));
    expect(after.message.stopReason).toBe('stop');
    expect(after.message.refusal).toBeUndefined();
    expect(after.message.content).toEqual([{ type: 'text', text: 'Sure. But not that part.' }]);
    expect(
      after.events
        .filter((e) => e.type === 'text_delta')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('Sure. But not that part.');
    const before = await respond(openai(server.url));
    expect(before.message.stopReason).toBe('stop');
    expect(before.message.content).toEqual([{ type: 'text', text: 'Not this. Here is the rest.' }]);
  });
});

describe('the loop: refused is its own outcome', () => {
  it('settles as refused with the details; tool calls of the refused response are not run; the run record keeps it', async () => {
    const cwd = tempDir();
    const store = SessionStore.inMemory({ cwd });
    const { result, events } = await scriptedRun({
      cwd,
      store,
      turns: [{ toolCalls: [{ name: 'write_note', arguments: { path: 'x.md', text: 'no' } }], refusal: { reason: 'refusal', category: 'cyber', explanation: POLICY } }],
    });
    expect(result.stopReason).toBe('refused');
    const settled = events.at(-1) as Extract<AgentEvent, { type: 'run_settled' }>;
    expect(settled).toMatchObject({ type: 'run_settled', stopReason: 'refused', error: null, refusal: { reason: 'refusal', category: 'cyber', explanation: POLICY } });
    expect(events.find((e) => e.type === 'run_end')).toMatchObject({ stopReason: 'refused' });
    const end = events.find((e) => e.type === 'tool_end') as Extract<AgentEvent, { type: 'tool_end' }>;
    expect(end.result).toMatchObject({ isError: true, details: { reason: 'refused' } });
    const run = store.entries().find((e): e is RunEntry => e.type === 'run')!;
    expect(run).toMatchObject({ stopReason: 'refused', refusal: { reason: 'refusal', category: 'cyber' } });
  });

  it('a plain stopReason contentFilter (no details) settles as refused by the content filter', async () => {
    const { events } = await scriptedRun({ turns: [{ text: 'partial', stopReason: 'contentFilter' }] });
    expect(events.at(-1)).toMatchObject({ stopReason: 'refused', refusal: { reason: 'content_filter' } });
  });

  it('a completed run says refusal: null', async () => {
    const { events } = await scriptedRun({ turns: [{ text: 'fine' }] });
    expect(events.at(-1)).toMatchObject({ stopReason: 'completed', refusal: null });
  });
});

describe('the CLI: exit code 4 and one stderr line', () => {
  const cases = [
    {
      dialect: 'anthropic',
      body: ANTHROPIC_REFUSAL,
      args: (url: string) => ['--provider', 'anthropic', '--base-url', url],
      line: `mini-agent: the model refused: ${POLICY} (category: cyber)`,
      refusal: { reason: 'refusal', category: 'cyber', explanation: POLICY },
    },
    {
      dialect: 'openai',
      body: OPENAI_REFUSAL,
      args: (url: string) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`],
      line: `mini-agent: the model refused: ${SORRY}`,
      refusal: { reason: 'refusal', explanation: SORRY },
    },
  ];

  it.each(cases)('$dialect: text mode prints nothing on stdout, the refusal on stderr, exits 4', async ({ body, args, line }) => {
    const server = await serve([{ body }]);
    const cwd = tempDir();
    const r = await cliInProcess([...args(server.url), '--model', 'm', '--no-session', 'do the thing'], { cwd });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([line]);
  });

  it.each(cases)('$dialect: --json settles as refused with the details; the session stores the refusal', async ({ body, args, refusal }) => {
    const server = await serve([{ body }]);
    const cwd = tempDir();
    const session = join(cwd, 's.jsonl');
    const r = await cliInProcess([...args(server.url), '--model', 'm', '--json', '--session', session, 'do the thing'], { cwd });
    expect(r.code).toBe(4);
    const events = parseJsonl(r.stdout);
    expect(events.at(-1)).toMatchObject({ type: 'run_settled', stopReason: 'refused', error: null, refusal });
    const store = SessionStore.open(session);
    const assistant = store.activePath().at(-1)!;
    expect(assistant.type === 'message' && assistant.message).toMatchObject({ role: 'assistant', stopReason: 'contentFilter', refusal });
  });

  it('a refusal recorded with --record replays with --script: same events, same exit code', async () => {
    const server = await serve([{ body: ANTHROPIC_REFUSAL }]);
    const cwd = tempDir();
    const rec = join(cwd, 'rec.json');
    const live = await cliInProcess(['--provider', 'anthropic', '--base-url', server.url, '--api-key', 'k', '--model', 'm', '--json', '--no-session', '--record', rec, 'go'], { cwd });
    expect(live.code).toBe(4);
    const replay = await cliInProcess(['--json', '--no-session', '--script', rec, 'go'], { cwd });
    expect(replay.code).toBe(4);
    expect(essence(parseJsonl(replay.stdout))).toEqual(essence(parseJsonl(live.stdout)));
    expect(parseJsonl(replay.stdout).at(-1)).toMatchObject({ refusal: { reason: 'refusal', category: 'cyber', explanation: POLICY } });
  });
});
