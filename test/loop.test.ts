// Behaviour of the agent loop and the session runner, run in process on the scripted model.
// Assertions look at what a user or a model would see: events, stored entries, requests.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { SessionRunner } from '../src/agent/runner.js';
import type { AgentEvent } from '../src/core/events.js';
import { addUsage, emptyUsage, textOf, type AssistantMessage, type Message, type ToolResultMessage } from '../src/core/types.js';
import { ScriptedModel } from '../src/model/scripted.js';
import { projectMessages } from '../src/session/projector.js';
import { SessionStore } from '../src/session/store.js';
import { createReadFileTool } from '../src/tools/read-file.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { ToolDefinition } from '../src/tools/tool.js';
import { createWriteNoteTool } from '../src/tools/write-note.js';
import { scriptedRun, tempDir } from './support/helpers.js';
import { EVENT_SCHEMA_VERSION } from '../src/core/events.js';

// ---- local helpers ----

function ofType<T extends AgentEvent['type']>(events: readonly AgentEvent[], type: T): Extract<AgentEvent, { type: T }>[] {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

function settled(events: readonly AgentEvent[]): Extract<AgentEvent, { type: 'run_settled' }> {
  const last = events[events.length - 1];
  expect(last?.type).toBe('run_settled');
  return last as Extract<AgentEvent, { type: 'run_settled' }>;
}

function activeMessages(store: SessionStore): Message[] {
  return store.activePath().flatMap((e) => (e.type === 'message' ? [e.message] : []));
}

function assistants(store: SessionStore): AssistantMessage[] {
  return activeMessages(store).filter((m): m is AssistantMessage => m.role === 'assistant');
}

function toolResults(messages: readonly Message[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === 'toolResult');
}

/**
 * The invariant every request relies on: each tool call of an assistant message has exactly
 * one result, and the results follow that message directly, in call order.
 */
function expectValidPath(store: SessionStore): void {
  const messages = activeMessages(store);
  const allResults = toolResults(messages);
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const calls = m.content.filter((c) => c.type === 'toolCall');
    const following = messages.slice(i + 1, i + 1 + calls.length);
    expect(following.map((f) => (f.role === 'toolResult' ? f.toolCallId : `<${f.role}>`))).toEqual(calls.map((c) => c.id));
    for (const c of calls) expect(allResults.filter((r) => r.toolCallId === c.id)).toHaveLength(1);
  });
  // No orphan results either.
  const callIds = new Set(messages.flatMap((m) => (m.role === 'assistant' ? m.content.flatMap((c) => (c.type === 'toolCall' ? [c.id] : [])) : [])));
  for (const r of allResults) expect(callIds.has(r.toolCallId)).toBe(true);
}

const EmptyParams = Type.Object({}, { additionalProperties: false });

function recorderTool(name = 'recorder'): ToolDefinition & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name,
    description: 'records its calls',
    parameters: Type.Object({ tag: Type.Optional(Type.String()) }),
    risk: 'write',
    calls,
    async execute(args) {
      calls.push(args);
      return { content: `recorded ${JSON.stringify(args)}` };
    },
  };
}

const LONG_TEXT = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

// ---- tests ----

describe('loop: plain answers', () => {
  it('answers in one turn and streams the text as increments', async () => {
    const text = 'The answer is forty two, as you surely knew already.';
    const { result, events, store, model } = await scriptedRun({ turns: [{ text }], prompt: 'what is the answer?' });

    expect(result.stopReason).toBe('completed');
    expect(result.turns).toBe(1);
    const end = settled(events);
    expect(end.stopReason).toBe('completed');
    expect(end.error).toBeNull();
    expect(end.turns).toBe(1);
    expect(end.toolCalls).toBe(0);

    const stored = assistants(store);
    expect(stored).toHaveLength(1);
    expect(textOf(stored[0].content)).toBe(text);
    expect(stored[0].stopReason).toBe('stop');

    const deltas = ofType(events, 'text_delta').map((e) => e.delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    for (const d of deltas) {
      expect(d.length).toBeGreaterThan(0);
      expect(d).not.toBe(text);
    }
    // Never a cumulative "text so far" either: each delta is shorter than the text.
    expect(Math.max(...deltas.map((d) => d.length))).toBeLessThan(text.length);

    expect(model.requests).toHaveLength(1);
    expect(model.requests[0].messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'what is the answer?' }] }]);
    expect(activeMessages(store).map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});

describe('loop: tools', () => {
  it('text → read_file → final answer: the result reaches the second request', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    const { result, events, store, model } = await scriptedRun({
      cwd,
      prompt: 'summarize notes.txt',
      turns: [{ text: 'Let me read the notes first.', toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'The notes list alpha, beta and gamma.' }],
    });

    expect(result.stopReason).toBe('completed');
    expect(result.turns).toBe(2);
    expect(result.toolCalls).toBe(1);
    expect(result.toolErrors).toBe(0);
    expect(model.requests).toHaveLength(2);

    // The first request saw only the prompt.
    expect(model.requests[0].messages.map((m) => m.role)).toEqual(['user']);
    // The second saw the call and its result.
    const second = model.requests[1].messages;
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult']);
    const call = (second[1] as AssistantMessage).content.find((c) => c.type === 'toolCall');
    expect(call).toMatchObject({ id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } });
    const res = second[2] as ToolResultMessage;
    expect(res.toolCallId).toBe('call_read');
    expect(res.toolName).toBe('read_file');
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toContain('beta');

    const toolEnd = ofType(events, 'tool_end');
    expect(toolEnd).toHaveLength(1);
    expect(toolEnd[0].result.isError).toBe(false);
    expect(store.get(toolEnd[0].entryId)).toMatchObject({ type: 'message', message: { role: 'toolResult', toolCallId: 'call_read' } });

    expect(textOf(assistants(store).at(-1)!.content)).toBe('The notes list alpha, beta and gamma.');
    expectValidPath(store);
  });

  it('invalid arguments give an error result, and the model corrects itself', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'a.txt'), 'contents of a\n');
    const { result, events, store, model } = await scriptedRun({
      cwd,
      turns: [{ toolCalls: [{ id: 'bad', name: 'read_file', arguments: { file: 'a.txt' } }] }, { toolCalls: [{ id: 'good', name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'a.txt says: contents of a' }],
    });
    expect(result.stopReason).toBe('completed');
    expect(result.turns).toBe(3);
    expect(result.toolCalls).toBe(2);
    expect(result.toolErrors).toBe(1);

    const ends = ofType(events, 'tool_end');
    expect(ends.map((e) => [e.toolCallId, e.result.isError])).toEqual([
      ['bad', true],
      ['good', false],
    ]);
    const errorText = textOf(ends[0].result.content);
    expect(errorText).toMatch(/Invalid arguments/);
    expect(errorText).toMatch(/path/);

    // The model saw the error in its second request, and the real content in its third.
    const badResult = toolResults(model.requests[1].messages).find((r) => r.toolCallId === 'bad');
    expect(badResult?.isError).toBe(true);
    expect(textOf(badResult!.content)).toBe(errorText);
    const goodResult = toolResults(model.requests[2].messages).find((r) => r.toolCallId === 'good');
    expect(textOf(goodResult!.content)).toContain('contents of a');
    expectValidPath(store);
  });

  it('arguments that are not valid JSON give an error result and the tool is not run', async () => {
    const rec = recorderTool();
    const { result, events, model } = await scriptedRun({
      tools: [rec],
      turns: [{ toolCalls: [{ id: 'c1', name: 'recorder', arguments: {}, rawArguments: '{"tag": "x"' }] }, { text: 'ok' }],
    });
    expect(result.stopReason).toBe('completed');
    expect(rec.calls).toEqual([]);
    const end = ofType(events, 'tool_end')[0];
    expect(end.result.isError).toBe(true);
    expect(textOf(end.result.content)).toMatch(/not valid JSON/);
    expect(toolResults(model.requests[1].messages)[0].isError).toBe(true);
  });

  it('a tool that throws and an unknown tool both become error results; the run completes', async () => {
    const boom: ToolDefinition = {
      name: 'boom',
      description: 'always fails',
      parameters: EmptyParams,
      risk: 'read',
      async execute() {
        throw new Error('kaboom: disk on fire');
      },
    };
    const { result, events, store, model } = await scriptedRun({
      tools: [boom],
      turns: [
        {
          toolCalls: [
            { id: 't1', name: 'boom', arguments: {} },
            { id: 't2', name: 'no_such_tool', arguments: { x: 1 } },
          ],
        },
        { text: 'Both failed; giving up politely.' },
      ],
    });
    expect(result.stopReason).toBe('completed');
    expect(settled(events).stopReason).toBe('completed');
    expect(result.toolCalls).toBe(2);
    expect(result.toolErrors).toBe(2);

    const results = toolResults(model.requests[1].messages);
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ['t1', true],
      ['t2', true],
    ]);
    expect(textOf(results[0].content)).toContain('kaboom: disk on fire');
    expect(textOf(results[1].content)).toMatch(/Unknown tool "no_such_tool"/);
    expect(textOf(results[1].content)).toContain('boom'); // lists the tools that do exist
    expectValidPath(store);
  });

  it('several calls in one response: one result per call, stored in call order', async () => {
    // Read-only calls run concurrently; make later ones finish first.
    const finished: string[] = [];
    const sleeper: ToolDefinition<{ ms: number; tag: string }> = {
      name: 'sleeper',
      description: 'sleeps, then answers its tag',
      parameters: Type.Object({ ms: Type.Integer({ minimum: 0 }), tag: Type.String() }),
      risk: 'read',
      async execute(args) {
        await new Promise((r) => setTimeout(r, args.ms));
        finished.push(args.tag);
        return { content: `tag ${args.tag}` };
      },
    };
    const calls = [
      { id: 'c-a', name: 'sleeper', arguments: { ms: 60, tag: 'a' } },
      { id: 'c-b', name: 'sleeper', arguments: { ms: 5, tag: 'b' } },
      { id: 'c-c', name: 'sleeper', arguments: { ms: 30, tag: 'c' } },
      { id: 'c-d', name: 'sleeper', arguments: { ms: 0, tag: 'd' } },
    ];
    const { result, events, store, model } = await scriptedRun({ tools: [sleeper], turns: [{ toolCalls: calls }, { text: 'done' }] });
    expect(result.stopReason).toBe('completed');
    expect(finished).not.toEqual(['a', 'b', 'c', 'd']); // they really did finish out of order

    const stored = toolResults(activeMessages(store));
    expect(stored.map((r) => r.toolCallId)).toEqual(['c-a', 'c-b', 'c-c', 'c-d']);
    expect(stored.map((r) => textOf(r.content))).toEqual(['tag a', 'tag b', 'tag c', 'tag d']);
    expect(ofType(events, 'tool_end').map((e) => e.toolCallId)).toEqual(['c-a', 'c-b', 'c-c', 'c-d']);
    expect(
      ofType(events, 'tool_start')
        .map((e) => e.toolCallId)
        .sort(),
    ).toEqual(['c-a', 'c-b', 'c-c', 'c-d']);
    expect(toolResults(model.requests[1].messages).map((r) => r.toolCallId)).toEqual(['c-a', 'c-b', 'c-c', 'c-d']);
    // The message_end turn_end bookkeeping agrees.
    expect(ofType(events, 'turn_end')[0].toolCalls).toBe(4);
    expectValidPath(store);
  });

  it('two write_note appends to the same file in one response land in order', async () => {
    const { result, cwd, store } = await scriptedRun({
      turns: [
        {
          toolCalls: [
            { id: 'w1', name: 'write_note', arguments: { path: 'out/log.md', text: 'first line\n', mode: 'append' } },
            { id: 'w2', name: 'write_note', arguments: { path: 'out/log.md', text: 'second line\n', mode: 'append' } },
          ],
        },
        { text: 'Wrote both.' },
      ],
    });
    expect(result.stopReason).toBe('completed');
    expect(result.toolErrors).toBe(0);
    expect(readFileSync(join(cwd, 'out/log.md'), 'utf8')).toBe('first line\nsecond line\n');
    expect(toolResults(activeMessages(store)).map((r) => r.toolCallId)).toEqual(['w1', 'w2']);
  });
});

describe('loop: aborts', () => {
  it('abort mid-stream: aborted, the path stays valid, and the next run continues from it', async () => {
    const cwd = tempDir();
    const store = SessionStore.inMemory({ cwd });
    const controller = new AbortController();
    const first = await scriptedRun({
      cwd,
      store,
      prompt: 'tell me a long story',
      signal: controller.signal,
      turns: [{ text: LONG_TEXT, delayMs: 5 }, { text: 'never reached' }],
      onEvent: (e) => {
        if (e.type === 'text_delta') controller.abort();
      },
    });
    expect(first.result.stopReason).toBe('aborted');
    const end = settled(first.events);
    expect(end.stopReason).toBe('aborted');
    expect(end.error?.kind).toBe('aborted');
    expect(first.model.remaining).toBe(1); // it stopped at the first turn
    const deltas = ofType(first.events, 'text_delta')
      .map((e) => e.delta)
      .join('');
    expect(deltas.length).toBeLessThan(LONG_TEXT.length);
    expectValidPath(store);

    // The partial answer is stored, marked as aborted.
    const partial = assistants(store);
    expect(partial).toHaveLength(1);
    expect(partial[0].stopReason).toBe('aborted');
    expect(LONG_TEXT.startsWith(textOf(partial[0].content))).toBe(true);

    const second = await scriptedRun({ cwd, store, prompt: 'go on', turns: [{ text: 'Continuing.' }] });
    expect(second.result.stopReason).toBe('completed');
    const req = second.model.requests[0].messages;
    expect(req.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(textOf(req[0].content)).toBe('tell me a long story');
    expect(textOf(req[1].content)).toBe(textOf(partial[0].content));
    expect(textOf(req[2].content)).toBe('go on');
    expectValidPath(store);
  });

  it('abort while a response is streaming tool calls: complete calls get aborted results', async () => {
    const rec = recorderTool();
    const cwd = tempDir();
    const store = SessionStore.inMemory({ cwd });
    const controller = new AbortController();
    const first = await scriptedRun({
      cwd,
      store,
      tools: [rec],
      signal: controller.signal,
      turns: [
        {
          delayMs: 5,
          text: 'calling three tools',
          toolCalls: [
            { id: 'k1', name: 'recorder', arguments: { tag: 'one' } },
            { id: 'k2', name: 'recorder', arguments: { tag: 'two' } },
            { id: 'k3', name: 'recorder', arguments: { tag: 'three' } },
          ],
        },
      ],
      onEvent: (e) => {
        if (e.type === 'toolcall_start' && e.index === 1) controller.abort();
      },
    });
    expect(first.result.stopReason).toBe('aborted');
    expect(rec.calls).toEqual([]); // nothing runs after an abort
    expectValidPath(store);
    const results = toolResults(activeMessages(store));
    expect(results.map((r) => r.toolCallId)).toEqual(['k1']);
    expect(results[0].isError).toBe(true);
    expect(textOf(results[0].content)).toMatch(/aborted/);

    const second = await scriptedRun({ cwd, store, tools: [rec], prompt: 'again', turns: [{ text: 'ok' }] });
    expect(second.result.stopReason).toBe('completed');
    expect(second.model.requests[0].messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'user']);
  });

  it('abort mid-tool: the running tool sees the signal and gets an aborted error result', async () => {
    const cwd = tempDir();
    const store = SessionStore.inMemory({ cwd });
    const controller = new AbortController();
    let started = false;
    let sawAbort = false;
    const slow: ToolDefinition = {
      name: 'slow',
      description: 'waits until aborted',
      parameters: EmptyParams,
      risk: 'execute',
      execute(_args, ctx) {
        started = true;
        return new Promise((_resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('the test waited too long')), 10_000);
          ctx.signal.addEventListener(
            'abort',
            () => {
              sawAbort = true;
              clearTimeout(timer);
              reject(new Error('cancelled'));
            },
            { once: true },
          );
        });
      },
    };
    const first = await scriptedRun({
      cwd,
      store,
      tools: [slow],
      signal: controller.signal,
      turns: [{ toolCalls: [{ id: 's1', name: 'slow', arguments: {} }] }, { text: 'never reached' }],
      onEvent: (e) => {
        if (e.type === 'tool_start') setTimeout(() => controller.abort(), 30);
      },
    });
    expect(started).toBe(true);
    expect(sawAbort).toBe(true);
    expect(first.result.stopReason).toBe('aborted');
    expect(settled(first.events).stopReason).toBe('aborted');
    expect(first.model.requests).toHaveLength(1);

    const end = ofType(first.events, 'tool_end')[0];
    expect(end.toolCallId).toBe('s1');
    expect(end.result.isError).toBe(true);
    expect(end.result.details).toMatchObject({ reason: 'aborted' });
    expect(textOf(end.result.content)).toMatch(/abort/);
    expectValidPath(store);

    const second = await scriptedRun({ cwd, store, tools: [slow], prompt: 'resume', turns: [{ text: 'Resumed.' }] });
    expect(second.result.stopReason).toBe('completed');
    const req = second.model.requests[0].messages;
    expect(req.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'user']);
    expect((req[2] as ToolResultMessage).toolCallId).toBe('s1');
    expect((req[2] as ToolResultMessage).isError).toBe(true);
  });

  it('a signal aborted before the run starts stops it before any request', async () => {
    const controller = new AbortController();
    controller.abort();
    const { result, events, model, store } = await scriptedRun({ signal: controller.signal, turns: [{ text: 'unused' }] });
    expect(result.stopReason).toBe('aborted');
    expect(model.requests).toHaveLength(0);
    expect(settled(events).stopReason).toBe('aborted');
    expect(activeMessages(store).map((m) => m.role)).toEqual(['user']);
  });
});

describe('loop: limits and failures', () => {
  it('max turns: stops after N turns with max_turns', async () => {
    const rec = recorderTool();
    const turns = Array.from({ length: 5 }, (_, i) => ({ toolCalls: [{ id: `m${i}`, name: 'recorder', arguments: { tag: String(i) } }] }));
    const { result, events, model, store } = await scriptedRun({ tools: [rec], turns, maxTurns: 2 });
    expect(result.stopReason).toBe('max_turns');
    expect(result.turns).toBe(2);
    const end = settled(events);
    expect(end.stopReason).toBe('max_turns');
    expect(end.turns).toBe(2);
    expect(end.error).toBeNull();
    expect(ofType(events, 'run_start')[0].maxTurns).toBe(2);
    expect(ofType(events, 'run_end')[0]).toMatchObject({ turns: 2, stopReason: 'max_turns' });
    expect(model.requests).toHaveLength(2);
    expect(rec.calls).toHaveLength(2); // both turns' tools ran; the limit stops before a third request
    expectValidPath(store);
  });

  it('a response cut off by the output limit: its tool call is not run, the model is told, the run goes on', async () => {
    const rec = recorderTool();
    const { result, events, model, store } = await scriptedRun({
      tools: [rec],
      turns: [{ toolCalls: [{ id: 'len1', name: 'recorder', arguments: { tag: 'maybe-incomplete' } }], stopReason: 'length' }, { toolCalls: [{ id: 'len2', name: 'recorder', arguments: { tag: 'complete' } }] }, { text: 'done' }],
    });
    expect(result.stopReason).toBe('completed');
    expect(result.turns).toBe(3);
    expect(rec.calls).toEqual([{ tag: 'complete' }]);

    const first = ofType(events, 'tool_end')[0];
    expect(first.toolCallId).toBe('len1');
    expect(first.result.isError).toBe(true);
    expect(textOf(first.result.content)).toMatch(/output (token )?limit/);
    const seen = toolResults(model.requests[1].messages)[0];
    expect(seen.toolCallId).toBe('len1');
    expect(seen.isError).toBe(true);
    expectValidPath(store);
  });

  it('an exhausted script ends the run with an error that says so', async () => {
    const { result, events } = await scriptedRun({ turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'nope.txt' } }] }] });
    expect(result.stopReason).toBe('error');
    const end = settled(events);
    expect(end.stopReason).toBe('error');
    expect(end.error?.message).toMatch(/no more turns/);
    expect(end.turns).toBe(2);
  });

  it('an empty script fails on the first request', async () => {
    const { result, events, store } = await scriptedRun({ turns: [] });
    expect(result.stopReason).toBe('error');
    expect(settled(events).error?.message).toMatch(/script has no more turns/);
    // The failed (empty) response is not shown to the model later.
    expect(projectMessages(store.activePath()).map((m) => m.role)).toEqual(['user']);
  });

  it('a scripted model error ends the run with that kind', async () => {
    const { result, events, store } = await scriptedRun({
      turns: [{ text: 'partial', error: { kind: 'overloaded', message: 'x', retryable: false } }],
    });
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatchObject({ kind: 'overloaded', message: 'x' });
    const end = settled(events);
    expect(end.stopReason).toBe('error');
    expect(end.error).toMatchObject({ kind: 'overloaded', message: 'x', retryable: false });
    const msg = assistants(store)[0];
    expect(msg.stopReason).toBe('error');
    expect(msg.errorMessage).toBe('x');
    expectValidPath(store);
  });

  it('a model error after complete tool calls still answers every call', async () => {
    const rec = recorderTool();
    const { result, store } = await scriptedRun({
      tools: [rec],
      turns: [{ toolCalls: [{ id: 'e1', name: 'recorder', arguments: {} }], error: { kind: 'server', message: 'upstream 500', retryable: false } }],
    });
    expect(result.stopReason).toBe('error');
    expect(rec.calls).toEqual([]);
    expectValidPath(store);
    const r = toolResults(activeMessages(store));
    expect(r.map((x) => x.toolCallId)).toEqual(['e1']);
    expect(textOf(r[0].content)).toMatch(/server/);
  });
});

describe('loop: events', () => {
  it('a tool run emits events in order, with seq from 0 and usage totals on run_settled', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'f.txt'), 'hello\n');
    const { events, store } = await scriptedRun({
      cwd,
      turns: [
        { text: 'Reading it now.', toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'f.txt' } }], usage: { input: 100, output: 20, cost: 0.001 } },
        { text: 'It says hello.', usage: { input: 150, output: 7, cacheRead: 50, cost: 0.002 } },
      ],
    });

    // Collapse runs of deltas so the sequence reads as a story.
    const types: string[] = [];
    for (const e of events) if (!(e.type === 'text_delta' && types.at(-1) === 'text_delta')) types.push(e.type);
    expect(types).toEqual(['run_start', 'turn_start', 'text_delta', 'toolcall_start', 'message_end', 'tool_start', 'tool_end', 'turn_end', 'turn_start', 'text_delta', 'message_end', 'turn_end', 'run_end', 'run_settled']);

    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    for (const e of events) expect(e.schemaVersion).toBe(EVENT_SCHEMA_VERSION);
    for (let i = 1; i < events.length; i++) expect(events[i].time).toBeGreaterThanOrEqual(events[i - 1].time);

    const turnStarts = ofType(events, 'turn_start');
    expect(turnStarts.map((t) => t.turn)).toEqual([1, 2]);
    expect(turnStarts[0]).toMatchObject({ messageCount: 1, roles: { user: 1, assistant: 0, toolResult: 0 }, compacted: false });
    expect(turnStarts[1]).toMatchObject({ messageCount: 3, roles: { user: 1, assistant: 1, toolResult: 1 } });

    const start = ofType(events, 'run_start')[0];
    expect(store.get(start.promptEntryId)).toMatchObject({ type: 'message', message: { role: 'user' } });
    expect(start.session).toBeNull(); // an in-memory store has no file
    expect(ofType(events, 'toolcall_start')[0]).toMatchObject({ turn: 1, index: 0, toolCallId: 'r1', name: 'read_file' });
    expect(ofType(events, 'tool_start')[0]).toMatchObject({ turn: 1, toolCallId: 'r1', arguments: { path: 'f.txt' } });

    const end = settled(events);
    const messageUsages = ofType(events, 'message_end').map((e) => e.message.usage);
    const sum = messageUsages.reduce(addUsage, emptyUsage());
    expect(end.usage.input).toBe(sum.input);
    expect(end.usage.output).toBe(sum.output);
    expect(end.usage.cacheRead).toBe(sum.cacheRead);
    expect(end.usage.cacheWrite).toBe(sum.cacheWrite);
    expect(end.usage.cost).toBeCloseTo(sum.cost, 10);
    expect(end.usage).toMatchObject({ input: 250, output: 27, cacheRead: 50, cacheWrite: 0 });
    expect(end.usage.cost).toBeCloseTo(0.003, 10);
    // ... and the stored messages agree with the events.
    const stored = assistants(store)
      .map((m) => m.usage)
      .reduce(addUsage, emptyUsage());
    expect(stored).toEqual(sum);
    expect(end.leafId).toBe(store.leafId);
    expect(end).toMatchObject({ turns: 2, toolCalls: 1, toolErrors: 0 });
  });

  it('seq restarts at 0 for each run of a runner', async () => {
    const cwd = tempDir();
    const store = SessionStore.inMemory({ cwd });
    const model = new ScriptedModel({ turns: [{ text: 'one' }, { text: 'two' }] });
    const runner = new SessionRunner({ store, model, tools: new ToolRegistry([createReadFileTool()]), cwd });
    const events: AgentEvent[] = [];
    runner.subscribe((e) => events.push(e));
    await runner.run('first');
    await runner.run('second');
    const starts = events.flatMap((e, i) => (e.type === 'run_start' ? [i] : []));
    expect(starts).toHaveLength(2);
    expect(events[starts[0]].seq).toBe(0);
    expect(events[starts[1]].seq).toBe(0);
    expect(events[starts[1] - 1].type).toBe('run_settled');
  });

  it('a listener that throws does not break the run', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'x.txt'), 'x\n');
    const store = SessionStore.inMemory({ cwd });
    const model = new ScriptedModel({
      turns: [{ text: 'reading', toolCalls: [{ name: 'read_file', arguments: { path: 'x.txt' } }] }, { text: 'done reading' }],
    });
    const runner = new SessionRunner({ store, model, tools: new ToolRegistry([createReadFileTool(), createWriteNoteTool()]), cwd });
    const seen: AgentEvent[] = [];
    runner.subscribe(() => {
      throw new Error('listener bug');
    });
    runner.subscribe((e) => seen.push(e));
    runner.subscribe((e) => {
      if (e.type === 'tool_end' || e.type === 'run_settled') throw new TypeError('picky listener');
    });
    const result = await runner.run('read x');
    expect(result.stopReason).toBe('completed');
    expect(result.turns).toBe(2);
    expect(seen.at(-1)?.type).toBe('run_settled');
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i));
    expect(runner.errors.length).toBe(seen.length + 2);
    expect((runner.errors[0] as Error).message).toBe('listener bug');
    expect(textOf(assistants(store).at(-1)!.content)).toBe('done reading');
  });

  it('prompts sent while a run is in progress wait their turn', async () => {
    const cwd = tempDir();
    const store = SessionStore.inMemory({ cwd });
    const model = new ScriptedModel({ turns: [{ text: 'first answer here', delayMs: 5 }, { text: 'second answer' }] });
    const runner = new SessionRunner({ store, model, tools: new ToolRegistry([]), cwd });
    const types: string[] = [];
    runner.subscribe((e) => types.push(e.type));
    const [a, b] = await Promise.all([runner.run('one'), runner.run('two')]);
    expect(a.stopReason).toBe('completed');
    expect(b.stopReason).toBe('completed');
    // Runs never interleave: the second run_start comes after the first run_settled.
    expect(types.indexOf('run_settled')).toBeLessThan(types.lastIndexOf('run_start'));
    expect(model.requests[1].messages.map((m) => textOf(m.content))).toEqual(['one', 'first answer here', 'two']);
    expect(runner.busy).toBe(false);
  });
});

describe('loop: interrupted runs', () => {
  it('answers tool calls left without results by a killed run before the next request', async () => {
    const cwd = tempDir();
    const file = join(cwd, 'killed.jsonl');
    const before = SessionStore.create(file, { cwd });
    before.appendMessage({ role: 'user', content: [{ type: 'text', text: 'write two notes' }] });
    before.appendMessage({
      role: 'assistant',
      content: [
        { type: 'toolCall', id: 'k1', name: 'write_note', arguments: { path: 'a.md', text: 'a' } },
        { type: 'toolCall', id: 'k2', name: 'write_note', arguments: { path: 'b.md', text: 'b' } },
      ],
      stopReason: 'toolUse',
      usage: emptyUsage(),
    });
    // The process died after storing the first result only.
    before.appendMessage({ role: 'toolResult', toolCallId: 'k1', toolName: 'write_note', content: [{ type: 'text', text: 'ok' }], isError: false });
    before.close();

    const store = SessionStore.open(file);
    const { events, model, result } = await scriptedRun({ cwd, store, turns: [{ text: 'resumed' }], prompt: 'go on' });
    expect(result.stopReason).toBe('completed');
    const seen = model.requests[0].messages;
    expect(seen.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'toolResult', 'user']);
    const repaired = seen[3] as ToolResultMessage;
    expect(repaired.toolCallId).toBe('k2');
    expect(repaired.isError).toBe(true);
    expect(textOf(repaired.content)).toMatch(/interrupted before completion/);
    expect(ofType(events, 'warning').some((w) => /interrupted run/.test(w.message))).toBe(true);
    // The repair is stored, so a reload sees a valid tree too.
    const reloaded = SessionStore.open(file);
    expect(projectMessages(reloaded.activePath()).filter((m) => m.role === 'toolResult')).toHaveLength(2);
  });

  it('a complete path is left alone', async () => {
    const { model, events } = await scriptedRun({
      turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'nope.txt' } }] }, { text: 'ok' }],
    });
    expect(model.requests[1].messages.filter((m) => m.role === 'toolResult')).toHaveLength(1);
    expect(ofType(events, 'warning')).toHaveLength(0);
  });
});
