// The loop guard: the same call with the same arguments, again and again. A warning in the result
// from the third repeat; at the sixth the call is not run and the run stops (loop_detected, exit 5).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callSignature, RepeatCounter } from '../src/agent/loop-guard.js';
import type { AgentEvent } from '../src/core/events.js';
import { textOf } from '../src/core/types.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, scriptedRun, tempDir, writeScript } from './support/helpers.js';

const same = { name: 'read_file', arguments: { path: 'notes.md' } };
const ends = (events: AgentEvent[]) => events.filter((e): e is Extract<AgentEvent, { type: 'tool_end' }> => e.type === 'tool_end');

describe('the loop guard', () => {
  it('warns from the third identical call and stops the run at the sixth, which is not run', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'notes\n');
    const turns = [...Array.from({ length: 7 }, () => ({ toolCalls: [same] })), { text: 'never' }];
    const { result, events, model } = await scriptedRun({ cwd, turns });
    expect(result.stopReason).toBe('loop_detected');
    const e = ends(events);
    expect(e).toHaveLength(6);
    expect(e.slice(0, 2).every((x) => !textOf(x.result.content).includes('same arguments'))).toBe(true);
    expect(textOf(e[2].result.content)).toContain('you have called read_file with the same arguments 3 times in a row');
    expect(e[4].result.isError).toBe(false);
    expect(e[5].result).toMatchObject({ isError: true, details: { reason: 'loop_detected' } });
    expect(model.requests).toHaveLength(6); // no request after the stop
    expect(events.at(-1)).toMatchObject({ type: 'run_settled', stopReason: 'loop_detected' });
  });

  it('a different call in between resets the count; argument order does not matter', () => {
    const c = new RepeatCounter();
    expect(c.see({ name: 'x', arguments: { a: 1, b: 2 } })).toBe(1);
    expect(c.see({ name: 'x', arguments: { b: 2, a: 1 } })).toBe(2);
    expect(c.see({ name: 'y', arguments: {} })).toBe(1);
    expect(c.see({ name: 'x', arguments: { a: 1, b: 2 } })).toBe(1);
    expect(callSignature({ name: 'x', arguments: { a: [1, { c: 2, b: 1 }] } })).toBe(callSignature({ name: 'x', arguments: { a: [1, { b: 1, c: 2 }] } }));
  });

  it('thresholds come from the options', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'notes\n');
    const { result, events } = await scriptedRun({ cwd, loopGuard: { warnAfter: 2, stopAfter: 3 }, turns: [{ toolCalls: [same] }, { toolCalls: [same, same] }, { text: 'never' }] });
    expect(result.stopReason).toBe('loop_detected');
    expect(textOf(ends(events)[1].result.content)).toContain('2 times in a row');
    expect(ends(events)[2].result.details).toMatchObject({ reason: 'loop_detected' });
  });

  it('the CLI exits 5 and run_settled says loop_detected', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'notes\n');
    const script = writeScript(cwd, [...Array.from({ length: 6 }, () => ({ toolCalls: [same] })), { text: 'never' }]);
    const r = await cliInProcess(['--json', '--no-session', '--script', script, 'loop'], { cwd });
    expect(r.code).toBe(5);
    expect(parseJsonl(r.stdout).at(-1)).toMatchObject({ type: 'run_settled', stopReason: 'loop_detected' });
    const t = await cliInProcess(['--no-session', '--script', script, 'loop'], { cwd });
    expect(t.code).toBe(5);
    expect(t.stderr).toMatch(/loop detected: the same call \(read_file with the same arguments\) was made 6 times in a row/);
  });
});
