// Issue 22, part 3: tools that always stop. Through the CLI with the scripted model: a regex that
// backtracks exponentially (`(a+)+$` against a long line of `a`s and a `!`) ends within seconds
// with an error that says to simplify it; a glob that backtracks in picomatch (`*a*a*…*a*b`
// against a 200-character name) is answered at once; and SIGINT or SIGTERM during a search (or
// SIGINT right after one such glob) ends the run as aborted (exit 130 or 143), within 2 s. Before, the grep held the main
// thread for longer than the age of the universe, SIGINT went unseen, and the find spun until
// `kill -9`. Timing bounds are loose: CI machines are busy.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, runCli, tempDir, writeScript } from './support/helpers.js';

type ToolEnd = Extract<AgentEvent, { type: 'tool_end' }>;
type Settled = Extract<AgentEvent, { type: 'run_settled' }>;

const EVIL_REGEX = '(a+)+$';
const EVIL_GLOB = `${'*a'.repeat(12)}*b`;

function workspace() {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'line.txt'), `${'a'.repeat(5000)}!\nplain line\n`);
  mkdirSync(join(cwd, 'names'));
  writeFileSync(join(cwd, 'names', 'a'.repeat(200)), 'x\n');
  writeFileSync(join(cwd, 'names', `${'a'.repeat(100)}b`), 'x\n');
  return { cwd, scripts: tempDir('mini-agent-scripts-') };
}

function toolText(events: AgentEvent[], id: string) {
  const end = events.find((e): e is ToolEnd => e.type === 'tool_end' && e.toolCallId === id);
  expect(end, `tool_end ${id}`).toBeDefined();
  return { text: end!.result.content.map((c) => ('text' in c ? c.text : '')).join(''), isError: end!.result.isError };
}

/** Runs the script, sends the signal 300 ms after the named call starts, and reports how long the exit took after it. */
async function interrupted(w: ReturnType<typeof workspace>, turns: Parameters<typeof writeScript>[1], callId: string, signal: NodeJS.Signals = 'SIGINT') {
  const script = writeScript(w.scripts, turns);
  let sentAt = 0;
  let armed = false;
  const r = await runCli(['--json', '--no-session', '--script', script, 'search'], {
    cwd: w.cwd,
    timeoutMs: 30_000,
    onStdout: (soFar, child) => {
      if (armed || !soFar.includes(`"toolCallId":"${callId}"`)) return;
      armed = true;
      setTimeout(() => {
        sentAt = performance.now();
        child.kill(signal);
      }, 300);
    },
  });
  const exitedAfterMs = performance.now() - sentAt;
  expect(sentAt, r.stderr).toBeGreaterThan(0);
  return { r, exitedAfterMs, settled: parseJsonl(r.stdout).find((e): e is Settled => e.type === 'run_settled') };
}

describe('tools that always stop (issue 22, part 3)', () => {
  it('grep "(a+)+$" over a line of 5,000 a and a "!" ends within 10 s with an error that says to simplify the pattern', async () => {
    const w = workspace();
    const script = writeScript(w.scripts, [
      {
        toolCalls: [
          { id: 'evil', name: 'grep', arguments: { pattern: EVIL_REGEX } },
          { id: 'plain', name: 'grep', arguments: { pattern: 'plain\\s+line$' } },
        ],
      },
      { text: 'done' },
    ]);
    const t0 = performance.now();
    const r = await cliInProcess(['--json', '--no-session', '--script', script, 'search'], { cwd: w.cwd, timeoutMs: 30_000 });
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(r.code, r.stderr).toBe(0);
    const events = parseJsonl(r.stdout);
    const evil = toolText(events, 'evil');
    expect(evil.isError).toBe(true);
    expect(evil.text).toMatch(/the pattern "\(a\+\)\+\$" took over \d+ s on line\.txt .*simplify it/);
    expect(evil.text).toContain('(a+)+');
    expect(toolText(events, 'plain')).toEqual({ text: 'line.txt:2:plain line', isError: false });
  }, 40_000);

  it('find and grep with the glob "*a*a*…*a*b" against a 200-character name answer at once', async () => {
    const w = workspace();
    const script = writeScript(w.scripts, [
      {
        toolCalls: [
          { id: 'find', name: 'find', arguments: { glob: EVIL_GLOB } },
          { id: 'grep', name: 'grep', arguments: { pattern: 'x', glob: EVIL_GLOB } },
        ],
      },
      { text: 'done' },
    ]);
    const t0 = performance.now();
    const r = await cliInProcess(['--json', '--no-session', '--script', script, 'search'], { cwd: w.cwd, timeoutMs: 30_000 });
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(r.code, r.stderr).toBe(0);
    const events = parseJsonl(r.stdout);
    expect(toolText(events, 'find')).toEqual({ text: `names/${'a'.repeat(100)}b`, isError: false });
    expect(toolText(events, 'grep')).toEqual({ text: `names/${'a'.repeat(100)}b:1:x`, isError: false });
  }, 40_000);

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s during grep "(a+)+$" ends the run as aborted (exit %i) within 2 s',
    async (signal, code) => {
      const w = workspace();
      const { r, exitedAfterMs, settled } = await interrupted(w, [{ toolCalls: [{ id: 'evil', name: 'grep', arguments: { pattern: EVIL_REGEX } }] }, { text: 'never reached' }], 'evil', signal);
      expect(r.code, r.stderr).toBe(code);
      expect(exitedAfterMs).toBeLessThan(2000);
      expect(settled?.stopReason).toBe('aborted');
      expect(r.stdout).not.toContain('never reached');
    },
    40_000,
  );

  it('SIGINT after find with the glob "*a*a*…*a*b" (it no longer spins) ends the run as aborted (exit 130) within 2 s', async () => {
    const w = workspace();
    const { r, exitedAfterMs, settled } = await interrupted(w, [{ toolCalls: [{ id: 'find', name: 'find', arguments: { glob: EVIL_GLOB, path: 'names' } }] }, { delayMs: 20_000, text: 'never reached' }], 'find');
    expect(r.code, r.stderr).toBe(130);
    expect(exitedAfterMs).toBeLessThan(2000);
    expect(settled?.stopReason).toBe('aborted');
  }, 40_000);
});
