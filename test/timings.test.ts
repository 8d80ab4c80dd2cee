// MINI_AGENT_TIMINGS=FILE (src/core/timings.ts): a print-mode run appends one JSON line of phase
// marks at exit, in the order the phases happen; the run itself is unchanged, and a file that
// cannot be written costs a warning, never the exit code.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './support/helpers.js';
import { servePerTest, sse } from './support/http-server.js';

const serve = servePerTest();

const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const toolTurn = sse([chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] }), chunk({}, 'tool_calls')], { done: true });
const answer = sse([chunk({ content: 'It says hi.' }), chunk({}, 'stop')], { done: true });

/** The phases of a one-tool-turn run, in the order they must happen. */
const PHASES = ['main', 'modules', 'config', 'model', 'session', 'agent', 'prepared', 'sdk', 'request1', 'response1_done', 'tool1_done', 'turn1_end', 'request2', 'response2_done', 'done', 'exit'];

async function oneToolTurn(env: Record<string, string>, cwd = tempDir()) {
  const server = await serve([{ body: toolTurn }, { body: answer }]);
  writeFileSync(join(cwd, 'a.txt'), 'hi\n');
  const r = await runCli(['--provider', 'openai-compatible', '--base-url', `${server.url}/v1`, '--api-key', 'x', '--model', 'm', 'read a.txt'], { cwd, env });
  return { r, cwd, server };
}

describe('MINI_AGENT_TIMINGS', () => {
  it('appends one line per run with every phase, in order, on the process clock', async () => {
    const file = join(tempDir(), 'timings.jsonl');
    const before = Date.now();
    const first = await oneToolTurn({ MINI_AGENT_TIMINGS: file });
    expect(first.r.stderr).not.toContain('MINI_AGENT_TIMINGS');
    expect(first.r.code).toBe(0);
    expect(first.r.stdout).toContain('It says hi.');
    await oneToolTurn({ MINI_AGENT_TIMINGS: file });

    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const { origin, ...marks } = JSON.parse(line) as Record<string, number>;
      expect(Object.keys(marks).sort()).toEqual([...PHASES].sort());
      const times = PHASES.map((p) => marks[p]);
      expect(times.every((t) => Number.isFinite(t) && t > 0)).toBe(true);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      // origin: the process start on the wall clock, so another process can align the marks.
      expect(origin).toBeGreaterThanOrEqual(before - 1000);
      expect(origin + marks.exit).toBeLessThanOrEqual(Date.now() + 1000);
    }
  });

  it('a command that runs no model marks only what happened', async () => {
    const file = join(tempDir(), 'timings.jsonl');
    const r = await runCli(['--version'], { cwd: tempDir(), env: { MINI_AGENT_TIMINGS: file } });
    expect(r.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')))).toEqual(['main', 'done', 'exit', 'origin']);
  });

  it('a file that cannot be written is reported on stderr and does not change the outcome', async () => {
    const { r } = await oneToolTurn({ MINI_AGENT_TIMINGS: join(tempDir(), 'no-such-dir', 'timings.jsonl') });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('It says hi.');
    expect(r.stderr).toMatch(/cannot write MINI_AGENT_TIMINGS file .*no-such-dir.*: ENOENT/);
  });

  it('the run is the same with the variable as without it', async () => {
    const plain = await oneToolTurn({});
    const timed = await oneToolTurn({ MINI_AGENT_TIMINGS: join(tempDir(), 'timings.jsonl') }, plain.cwd);
    const stable = (text: string) => text.replace(/\(\d+ ms\)/g, '(N ms)');
    expect(timed.r.code).toBe(plain.r.code);
    expect(timed.r.stdout).toBe(plain.r.stdout);
    expect(stable(timed.r.stderr)).toBe(stable(plain.r.stderr));
    expect(timed.server.requests.map((q) => q.body)).toEqual(plain.server.requests.map((q) => q.body));
  });
});
