// Which calls of one assistant message run at the same time: reads overlap, writes to one path
// never do (and wait for earlier reads of it), bash runs alone; results are stored in call order,
// each exactly once, while tool_end events come as calls finish, each with its call id.
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { conflicts, overlaps, runScheduled } from '../src/agent/tool-schedule.js';
import type { AgentEvent } from '../src/core/events.js';
import type { ToolDefinition, ToolRisk } from '../src/tools/tool.js';
import { resolveForWrite } from '../src/tools/workspace.js';
import { scriptedRun } from './support/helpers.js';

/** A tool that takes `ms` to run and records when it started and ended. */
function timedTool(name: string, risk: ToolRisk, log: Array<{ id: string; start: number; end: number }>): ToolDefinition {
  return {
    name,
    description: name,
    risk,
    parameters: Type.Object({ path: Type.Optional(Type.String()), ms: Type.Integer(), tag: Type.String() }, { additionalProperties: false }),
    paths: risk === 'execute' ? undefined : (args: { path?: string }, ctx) => [resolveForWrite(ctx, args.path ?? 'x')],
    async execute(args: { ms: number; tag: string }) {
      const start = performance.now();
      await new Promise((r) => setTimeout(r, args.ms));
      log.push({ id: args.tag, start, end: performance.now() });
      return { content: `done ${args.tag}` };
    },
  };
}

function overlapped(log: Array<{ id: string; start: number; end: number }>, a: string, b: string): boolean {
  const x = log.find((e) => e.id === a)!;
  const y = log.find((e) => e.id === b)!;
  return x.start < y.end && y.start < x.end;
}

describe('tool scheduling within one message', () => {
  it('read-only calls run in parallel: four 300 ms reads take about 300 ms, not 1.2 s', async () => {
    const log: Array<{ id: string; start: number; end: number }> = [];
    const calls = ['a', 'b', 'c', 'd'].map((tag) => ({ id: tag, name: 'slow_read', arguments: { path: `${tag}.txt`, ms: 300, tag } }));
    const started = performance.now();
    const { result } = await scriptedRun({ tools: [timedTool('slow_read', 'read', log)], turns: [{ toolCalls: calls }, { text: 'ok' }] });
    const took = performance.now() - started;
    expect(result.stopReason).toBe('completed');
    expect(overlapped(log, 'a', 'd')).toBe(true);
    expect(overlapped(log, 'b', 'c')).toBe(true);
    expect(took).toBeLessThan(1100); // serial would be at least 1,200 ms
  });

  it('writes to the same path never overlap; writes to other paths do; a read of a path waits for an earlier write to it', async () => {
    const log: Array<{ id: string; start: number; end: number }> = [];
    const tools = [timedTool('slow_write', 'write', log), timedTool('slow_read', 'read', log)];
    const calls = [
      { id: 'w1', name: 'slow_write', arguments: { path: 'same.txt', ms: 150, tag: 'w1' } },
      { id: 'w2', name: 'slow_write', arguments: { path: 'same.txt', ms: 150, tag: 'w2' } },
      { id: 'w3', name: 'slow_write', arguments: { path: 'other.txt', ms: 150, tag: 'w3' } },
      { id: 'r1', name: 'slow_read', arguments: { path: 'same.txt', ms: 50, tag: 'r1' } },
    ];
    const { events, store } = await scriptedRun({ tools, turns: [{ toolCalls: calls }, { text: 'ok' }] });
    expect(overlapped(log, 'w1', 'w2')).toBe(false);
    expect(log.find((e) => e.id === 'w1')!.end).toBeLessThanOrEqual(log.find((e) => e.id === 'w2')!.start + 1);
    expect(overlapped(log, 'w1', 'w3')).toBe(true);
    expect(log.find((e) => e.id === 'r1')!.start).toBeGreaterThanOrEqual(log.find((e) => e.id === 'w2')!.end - 1);
    // Results are stored in call order, each once; tool_end events carry the call id.
    const results = store.activePath().flatMap((e) => (e.type === 'message' && e.message.role === 'toolResult' ? [e.message.toolCallId] : []));
    expect(results).toEqual(['w1', 'w2', 'w3', 'r1']);
    const ends = events.filter((e): e is Extract<AgentEvent, { type: 'tool_end' }> => e.type === 'tool_end');
    expect(ends.map((e) => e.toolCallId).sort()).toEqual(['r1', 'w1', 'w2', 'w3']);
  });

  it('an execute call (bash) runs alone: nothing overlaps it, before or after', async () => {
    const log: Array<{ id: string; start: number; end: number }> = [];
    const tools = [timedTool('slow_read', 'read', log), timedTool('run', 'execute', log)];
    const calls = [
      { id: 'r1', name: 'slow_read', arguments: { path: 'a', ms: 100, tag: 'r1' } },
      { id: 'x', name: 'run', arguments: { ms: 100, tag: 'x' } },
      { id: 'r2', name: 'slow_read', arguments: { path: 'b', ms: 100, tag: 'r2' } },
    ];
    await scriptedRun({ tools, turns: [{ toolCalls: calls }, { text: 'ok' }] });
    expect(overlapped(log, 'r1', 'x')).toBe(false);
    expect(overlapped(log, 'x', 'r2')).toBe(false);
  });

  it('with parallelExecute, execute calls overlap like reads', async () => {
    const log: Array<{ id: string; start: number; end: number }> = [];
    const calls = ['x', 'y'].map((tag) => ({ id: tag, name: 'run', arguments: { ms: 200, tag } }));
    await scriptedRun({ tools: [timedTool('run', 'execute', log)], registry: { parallelExecute: true }, turns: [{ toolCalls: calls }, { text: 'ok' }] });
    expect(overlapped(log, 'x', 'y')).toBe(true);
  });
});

describe('the scheduling rules', () => {
  it('paths overlap when one holds the other', () => {
    expect(overlaps('/w/a', '/w/a')).toBe(true);
    expect(overlaps('/w', '/w/a/b')).toBe(true);
    expect(overlaps('/w/a', '/w/ab')).toBe(false);
    expect(conflicts({ kind: 'read', paths: ['/w'] }, { kind: 'read', paths: ['/w'] })).toBe(false);
    expect(conflicts({ kind: 'read', paths: ['/w'] }, { kind: 'write', paths: ['/w/x'] })).toBe(true);
    expect(conflicts({ kind: 'write', paths: ['/w/x'] }, { kind: 'write', paths: ['/w/y'] })).toBe(false);
    expect(conflicts({ kind: 'exclusive', paths: [] }, { kind: 'read', paths: [] })).toBe(true);
  });

  it('runScheduled starts a task only after the earlier tasks it conflicts with', async () => {
    const order: string[] = [];
    const tick = () => new Promise((r) => setTimeout(r, 5));
    await runScheduled(
      [
        { kind: 'write', paths: ['/w/a'] },
        { kind: 'read', paths: ['/w/b'] },
        { kind: 'read', paths: ['/w/a'] },
      ],
      async (i) => {
        order.push(`start ${i}`);
        await tick();
        order.push(`end ${i}`);
      },
    );
    expect(order.indexOf('start 2')).toBeGreaterThan(order.indexOf('end 0'));
    expect(order.indexOf('start 1')).toBeLessThan(order.indexOf('end 0'));
  });
});
