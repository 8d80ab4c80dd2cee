// Steering and follow-up queues in the runner, used by every front end. A steer is delivered
// after the current tool batch (every call of the response still runs) and before the next
// request; a follow-up only when the run would otherwise end. Items have ids, can be listed and
// cancelled, and are handed back, never dropped, when a run is aborted or fails.
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { textOf, type Message } from '../src/core/types.js';
import type { ToolDefinition } from '../src/tools/tool.js';
import { scriptedRun } from './support/helpers.js';

type Ev<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) => events.filter((e): e is Ev<T> => e.type === type);
const roles = (messages: readonly Message[]) => messages.map((m) => (m.role === 'user' ? `user:${textOf(m.content)}` : m.role === 'toolResult' ? `result:${m.toolName}` : 'assistant'));

/** A tool that runs until released, so messages can be sent while it runs. */
function slowTool(name = 'slow'): { tool: ToolDefinition; started: Promise<void>; release(): void; finished: string[] } {
  let release!: () => void;
  let markStarted!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const started = new Promise<void>((r) => (markStarted = r));
  const finished: string[] = [];
  const tool: ToolDefinition = {
    name,
    description: 'waits',
    parameters: Type.Object({ tag: Type.String() }),
    risk: 'read',
    async execute(args: { tag: string }) {
      markStarted();
      await gate;
      finished.push(args.tag);
      return { content: `done ${args.tag}` };
    },
  };
  return { tool, started, release, finished };
}

describe('steer', () => {
  it('during a slow tool: every call of that response completes, and the next request holds the steer right after their results', async () => {
    const slow = slowTool();
    let steerId = '';
    const { result, events, model } = await scriptedRun({
      tools: [slow.tool],
      turns: [
        {
          toolCalls: [
            { name: 'slow', arguments: { tag: 'a' } },
            { name: 'slow', arguments: { tag: 'b' } },
          ],
        },
        { text: 'Understood, looking there.' },
      ],
      onEvent: (e, runner) => {
        if (e.type === 'tool_start' && !steerId) {
          steerId = runner.steer('look at the other file instead').id;
          setTimeout(() => slow.release(), 20);
        }
      },
    });
    expect(result.stopReason).toBe('completed');
    expect(slow.finished.sort()).toEqual(['a', 'b']);
    expect(ofType(events, 'tool_end').every((e) => !e.result.isError)).toBe(true);
    expect(roles(model.requests[1].messages)).toEqual(['user:go', 'assistant', 'result:slow', 'result:slow', 'user:look at the other file instead']);
    const delivered = ofType(events, 'steer_delivered');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ id: steerId, text: 'look at the other file instead' });
    // The steer was queued, then taken: two queue updates, the last one empty.
    expect(ofType(events, 'queue_update').map((e) => e.items.map((i) => i.id))).toEqual([[steerId], []]);
    // Delivered after the last tool_end, before the next turn_start.
    const order = events.map((e) => e.type);
    expect(order.indexOf('steer_delivered')).toBeGreaterThan(order.lastIndexOf('tool_end'));
    expect(order.indexOf('steer_delivered')).toBeLessThan(order.lastIndexOf('turn_start'));
  });

  it('that arrives while the final answer streams keeps the run going: it is answered in the same run', async () => {
    let sent = false;
    const { result, events, model } = await scriptedRun({
      turns: [{ text: 'one two three four five six', delayMs: 5 }, { text: 'Answering the steer.' }],
      onEvent: (e, runner) => {
        if (e.type === 'text_delta' && !sent) {
          sent = true;
          runner.steer('also mention seven');
        }
      },
    });
    expect(result).toMatchObject({ stopReason: 'completed', turns: 2 });
    expect(ofType(events, 'run_start')).toHaveLength(1);
    expect(roles(model.requests[1].messages).at(-1)).toBe('user:also mention seven');
  });

  it('with no run in progress starts one: its text is the prompt, reported as delivered', async () => {
    const { runner, store } = await scriptedRun({ turns: [{ text: 'first' }, { text: 'steered' }] });
    const events: AgentEvent[] = [];
    runner.subscribe((e) => events.push(e));
    const item = runner.steer('a new direction');
    expect(runner.busy).toBe(true);
    await runner.idle();
    const start = ofType(events, 'run_start')[0];
    expect(start.prompt).toBe('a new direction');
    expect(ofType(events, 'steer_delivered')).toEqual([expect.objectContaining({ id: item.id, entryId: start.promptEntryId })]);
    expect(events.at(-1)).toMatchObject({ type: 'run_settled', stopReason: 'completed' });
    expect(store.activePath().length).toBe(4);
  });
});

describe('follow-up', () => {
  it('is delivered only when the run would end, and starts a new turn in the same run', async () => {
    const slow = slowTool();
    let followId = '';
    const { result, events, model } = await scriptedRun({
      tools: [slow.tool],
      turns: [{ toolCalls: [{ name: 'slow', arguments: { tag: 'a' } }] }, { text: 'The first answer.' }, { text: 'The answer to the follow-up.' }],
      onEvent: (e, runner) => {
        if (e.type === 'tool_start') {
          followId = runner.followUp('now summarize it').id;
          slow.release();
        }
      },
    });
    expect(result).toMatchObject({ stopReason: 'completed', turns: 3, undelivered: [] });
    expect(ofType(events, 'run_start')).toHaveLength(1);
    // Not delivered after the tool batch (that is for steers): the second request has no follow-up.
    expect(roles(model.requests[1].messages).at(-1)).toBe('result:slow');
    expect(roles(model.requests[2].messages).slice(-2)).toEqual(['assistant', 'user:now summarize it']);
    expect(ofType(events, 'follow_up_delivered')).toEqual([expect.objectContaining({ id: followId, text: 'now summarize it' })]);
  });

  it('with no run in progress starts one', async () => {
    const { runner } = await scriptedRun({ turns: [{ text: 'first' }, { text: 'second' }] });
    const events: AgentEvent[] = [];
    runner.subscribe((e) => events.push(e));
    const item = runner.followUp('and another thing');
    await runner.idle();
    expect(ofType(events, 'follow_up_delivered')).toEqual([expect.objectContaining({ id: item.id })]);
    expect(ofType(events, 'run_settled')[0].stopReason).toBe('completed');
  });

  it('when the turn limit leaves no room, the follow-up starts the next run instead of being lost', async () => {
    let sent = false;
    const { events, runner } = await scriptedRun({
      maxTurns: 1,
      turns: [{ text: 'answer', delayMs: 2 }, { text: 'next run' }],
      onEvent: (e, r) => {
        if (e.type === 'turn_start' && !sent) {
          sent = true;
          r.followUp('one more');
        }
      },
    });
    // The first run ended at its limit; the follow-up is not lost: it is the prompt of the next run.
    const first = events.findIndex((e) => e.type === 'run_settled');
    expect(events[first]).toMatchObject({ stopReason: 'completed', undelivered: [] });
    await runner.idle();
    const later = events.slice(first + 1);
    expect(ofType(later, 'run_start')[0].prompt).toBe('one more');
    expect(ofType(later, 'follow_up_delivered')).toHaveLength(1);
    expect(later.at(-1)).toMatchObject({ type: 'run_settled', stopReason: 'completed' });
  });
});

describe('listing, cancelling and handing back', () => {
  it('items can be listed and cancelled before delivery', async () => {
    const slow = slowTool();
    const { result, events, model } = await scriptedRun({
      tools: [slow.tool],
      turns: [{ toolCalls: [{ name: 'slow', arguments: { tag: 'a' } }] }, { text: 'done' }],
      onEvent: (e, runner) => {
        if (e.type !== 'tool_start') return;
        const keep = runner.followUp('keep me');
        const drop = runner.steer('drop me');
        expect(runner.queued()).toEqual([keep, drop]);
        expect(runner.cancel(drop.id)).toBe(true);
        expect(runner.cancel(drop.id)).toBe(false);
        expect(runner.cancel('q_unknown')).toBe(false);
        expect(runner.queued()).toEqual([keep]);
        expect(runner.cancel(keep.id)).toBe(true);
        slow.release();
      },
    });
    expect(result.stopReason).toBe('completed');
    expect(ofType(events, 'steer_delivered')).toHaveLength(0);
    expect(ofType(events, 'follow_up_delivered')).toHaveLength(0);
    expect(model.requests.flatMap((r) => roles(r.messages))).not.toContain('user:drop me');
    expect(ofType(events, 'queue_update').at(-1)?.items).toEqual([]);
  });

  it('abort hands back what was not delivered, in the abort call and in the run result; nothing is delivered', async () => {
    const slow = slowTool();
    let handedBack: unknown[] = [];
    const { result, events, store } = await scriptedRun({
      tools: [slow.tool],
      turns: [{ toolCalls: [{ name: 'slow', arguments: { tag: 'a' } }] }, { text: 'never' }],
      onEvent: (e, runner) => {
        if (e.type !== 'tool_start') return;
        runner.steer('steer me');
        runner.followUp('follow me');
        handedBack = runner.abort();
        expect(runner.queued()).toEqual([]);
        slow.release();
      },
    });
    expect(result.stopReason).toBe('aborted');
    expect(handedBack.map((i) => (i as { text: string }).text)).toEqual(['steer me', 'follow me']);
    expect(result.undelivered).toEqual(handedBack);
    expect(events.at(-1)).toMatchObject({ type: 'run_settled', stopReason: 'aborted', undelivered: handedBack });
    const texts = store.activePath().flatMap((e) => (e.type === 'message' && e.message.role === 'user' ? [textOf(e.message.content)] : []));
    expect(texts).toEqual(['go']);
  });

  it('a failed run hands back its waiting items too', async () => {
    const { result } = await scriptedRun({
      turns: [{ text: 'partial', delayMs: 2, error: { kind: 'auth', message: 'bad key' } }],
      onEvent: (e, runner) => {
        if (e.type === 'turn_start') runner.followUp('after that');
      },
    });
    expect(result.stopReason).toBe('error');
    expect(result.undelivered.map((i) => i.text)).toEqual(['after that']);
  });
});
