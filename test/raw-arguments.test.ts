// The session stores what the model actually sent. When a model streams tool-call arguments
// that are not valid JSON (cut off, or not an object), the entry keeps the raw text next to the
// parse error; trace, tree and the exports show it; the model is told what it sent; what is
// re-sent to each provider is `{}` (documented in DESIGN.md); --record → --script replays it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { textOf, userMessage, type AssistantMessage, type Message, type ToolCall } from '../src/core/types.js';
import { toAnthropicRequest } from '../src/model/anthropic-convert.js';
import { toOpenAIRequest } from '../src/model/openai-convert.js';
import { CUT_OFF_ARGUMENTS } from '../src/model/tool-call.js';
import { exportHtml } from '../src/session/export-html.js';
import { exportJsonl, exportMarkdown } from '../src/session/export-text.js';
import { projectMessages } from '../src/session/projector.js';
import { SessionStore } from '../src/session/store.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, scriptedRun, tempDir } from './support/helpers.js';
import { sse, servePerTest } from './support/http-server.js';

const serve = servePerTest();

const BROKEN = '{"path": "notes.md", "text": "unfinished';
const NOT_OBJECT = '["notes.md"]';

function callsOf(store: SessionStore): ToolCall[] {
  return store.activePath().flatMap((e) => (e.type === 'message' && e.message.role === 'assistant' ? e.message.content.filter((c): c is ToolCall => c.type === 'toolCall') : []));
}

describe('the ledger keeps the raw arguments', () => {
  it('invalid JSON and a non-object are stored with the text as sent, next to the error; the model is told what it sent', async () => {
    const cwd = tempDir();
    const file = join(cwd, 's.jsonl');
    const store = SessionStore.create(file, { cwd });
    const { events } = await scriptedRun({
      cwd,
      store,
      turns: [
        {
          toolCalls: [
            { id: 'c1', name: 'write_note', arguments: {}, rawArguments: BROKEN },
            { id: 'c2', name: 'read_file', arguments: {}, rawArguments: NOT_OBJECT },
          ],
        },
        { text: 'Sorry.' },
      ],
    });
    store.close();
    // On disk, after a reload: the raw text is there, exactly.
    const calls = callsOf(SessionStore.open(file));
    expect(calls).toEqual([
      { type: 'toolCall', id: 'c1', name: 'write_note', arguments: {}, argumentsError: expect.stringMatching(/^the arguments are not valid JSON/), rawArguments: BROKEN },
      { type: 'toolCall', id: 'c2', name: 'read_file', arguments: {}, argumentsError: 'the arguments are not a JSON object', rawArguments: NOT_OBJECT },
    ]);
    // The events carry it too (message_end), and the tool results quote it.
    const end = events.find((e) => e.type === 'message_end') as Extract<AgentEvent, { type: 'message_end' }>;
    expect((end.message.content[0] as ToolCall).rawArguments).toBe(BROKEN);
    expect(events.find((e) => e.type === 'tool_start')).toMatchObject({ name: 'write_note', arguments: {}, rawArguments: BROKEN });
    const results = events.filter((e): e is Extract<AgentEvent, { type: 'tool_end' }> => e.type === 'tool_end');
    expect(textOf(results[0].result.content)).toContain(`Your arguments began: ${JSON.stringify(BROKEN)}.`);
    expect(results.every((r) => r.result.isError && r.result.details?.reason === 'invalid_json')).toBe(true);
  });

  it('a valid call stores no rawArguments (the parsed object is the text)', async () => {
    const { store } = await scriptedRun({ turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'nope.md' } }] }, { text: 'ok' }] });
    expect(callsOf(store)[0]).not.toHaveProperty('rawArguments');
  });

  it('the quote in the tool result is capped at 200 characters', async () => {
    const long = '{"text": "' + 'x'.repeat(5000);
    const { events } = await scriptedRun({ turns: [{ toolCalls: [{ name: 'write_note', arguments: {}, rawArguments: long }] }, { text: 'ok' }] });
    const end = events.find((e) => e.type === 'tool_end') as Extract<AgentEvent, { type: 'tool_end' }>;
    const text = textOf(end.result.content);
    expect(text).toContain(`${JSON.stringify(long.slice(0, 200))}… (${long.length} chars)`);
    expect(text.length).toBeLessThan(600);
  });

  it('a call cut off by the output limit is reported as cut off, with the partial text kept', async () => {
    const { store } = await scriptedRun({ turns: [{ toolCalls: [{ name: 'write_note', arguments: {}, rawArguments: BROKEN }], stopReason: 'length' }, { text: 'ok' }] });
    expect(callsOf(store)[0]).toMatchObject({ argumentsError: CUT_OFF_ARGUMENTS, rawArguments: BROKEN });
  });
});

describe('what is re-sent to the provider', () => {
  const history: Message[] = [
    userMessage('write it'),
    {
      role: 'assistant',
      content: [{ type: 'toolCall', id: 'c1', name: 'write_note', arguments: {}, argumentsError: 'the arguments are not valid JSON', rawArguments: BROKEN }],
      stopReason: 'toolUse',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 },
    } satisfies AssistantMessage,
    { role: 'toolResult', toolCallId: 'c1', toolName: 'write_note', content: [{ type: 'text', text: 'not run' }], isError: true },
  ];
  const request = { messages: history, tools: [], systemPrompt: '' };

  it('OpenAI-compatible: "{}" as the arguments (servers that render a chat template reject invalid JSON)', () => {
    const body = toOpenAIRequest(request, { provider: 'openai-compatible', model: 'm', maxOutputTokens: 10 });
    const assistant = body.messages.find((m) => m.role === 'assistant') as { tool_calls: Array<{ function: { arguments: string } }> };
    expect(assistant.tool_calls[0].function.arguments).toBe('{}');
  });

  it('Anthropic: input {} (the API requires an object)', () => {
    const body = toAnthropicRequest(request, { model: 'm', maxOutputTokens: 10 });
    expect(body.messages[1].content[0]).toEqual({ type: 'tool_use', id: 'c1', name: 'write_note', input: {} });
  });
});

describe('trace, tree and exports show it', () => {
  async function session(): Promise<{ cwd: string; file: string }> {
    const cwd = tempDir();
    const file = join(cwd, 's.jsonl');
    const script = join(cwd, 'script.json');
    writeFileSync(script, JSON.stringify({ turns: [{ toolCalls: [{ id: 'c1', name: 'write_note', arguments: {}, rawArguments: BROKEN }] }, { text: 'Sorry.' }] }));
    const r = await cliInProcess(['--script', script, '--session', file, '--trace', join(cwd, 't.jsonl'), 'go'], { cwd });
    expect(r.code).toBe(0);
    return { cwd, file };
  }

  it('trace prints the text as sent', async () => {
    const { cwd } = await session();
    const r = await cliInProcess(['trace', join(cwd, 't.jsonl')], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(bad arguments: the arguments are not valid JSON');
    expect(r.stdout).toContain(`as sent: ${JSON.stringify(BROKEN)} (${BROKEN.length} chars)`);
  });

  it('tree shows the start of the text as sent', async () => {
    const { cwd, file } = await session();
    const r = await cliInProcess(['tree', file], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`→ write_note(✗ ${BROKEN})`.replaceAll('"', '\\"'));
  });

  it('Markdown, HTML and JSONL exports keep it', async () => {
    const { file } = await session();
    const store = SessionStore.open(file);
    const md = exportMarkdown(store);
    expect(md).toContain('✗ invalid arguments: the arguments are not valid JSON');
    expect(md).toContain(`as sent by the model:\n\n\`\`\`\n${BROKEN}\n\`\`\``);
    expect(exportHtml(store)).toContain(JSON.stringify(BROKEN).slice(1, -1).replace(/</g, '\\u003c'));
    expect(exportHtml(store)).toContain('as sent by the model (');
    expect(exportJsonl(store)).toContain(`"rawArguments":${JSON.stringify(BROKEN)}`);
  });
});

describe('--record → --script replays them faithfully', () => {
  const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
  const tc = (index: number, id: string, name: string, args: string) => ({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: args } }] });

  it.each([
    { name: 'invalid JSON and a non-object', finish: 'tool_calls' },
    { name: 'a call cut off by the output limit', finish: 'length' },
  ])('$name: the replayed session stores the same calls, raw text included', async ({ finish }) => {
    const broken = sse([chunk(tc(0, 'call_a', 'write_note', BROKEN)), chunk(tc(1, 'call_b', 'read_file', NOT_OBJECT)), chunk({}, finish)], { done: true });
    const answer = sse([chunk({ content: 'Sorry about that.' }), chunk({}, 'stop')], { done: true });
    const server = await serve([{ body: broken }, { body: answer }]);
    const cwd = tempDir();
    const rec = join(cwd, 'rec.json');
    const liveFile = join(cwd, 'live.jsonl');
    const replayFile = join(cwd, 'replay.jsonl');
    const live = await cliInProcess(['--provider', 'openai-compatible', '--base-url', `${server.url}/v1`, '--model', 'm', '--json', '--session', liveFile, '--record', rec, 'go'], { cwd });
    expect(live.code).toBe(0);
    expect(JSON.parse(readFileSync(rec, 'utf8')).turns[0].toolCalls).toEqual([
      { id: 'call_a', name: 'write_note', arguments: {}, rawArguments: BROKEN },
      { id: 'call_b', name: 'read_file', arguments: {}, rawArguments: NOT_OBJECT },
    ]);
    const replay = await cliInProcess(['--json', '--session', replayFile, '--script', rec, 'go'], { cwd });
    expect(replay.code).toBe(0);
    const liveCalls = callsOf(SessionStore.open(liveFile));
    expect(liveCalls.map((c) => c.rawArguments)).toEqual([BROKEN, NOT_OBJECT]);
    expect(callsOf(SessionStore.open(replayFile))).toEqual(liveCalls);
    if (finish === 'length') expect(liveCalls[0].argumentsError).toBe(CUT_OFF_ARGUMENTS);
    const results = (f: string) =>
      projectMessages(SessionStore.open(f).activePath())
        .filter((m) => m.role === 'toolResult')
        .map((m) => textOf(m.content));
    expect(results(replayFile)).toEqual(results(liveFile));
    expect(parseJsonl(replay.stdout).at(-1)).toMatchObject({ stopReason: 'completed' });
  });
});
