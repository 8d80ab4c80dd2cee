// The bash tool through the public ToolRegistry, each test in a temp workspace: exit codes, the
// merged output order, cleaning (escapes, progress redraws, binary), tail truncation and the
// full-output file (its size cap, lines not counted in a big one), stdin, timeouts, aborts and the
// process group (no process outlives a call, nor mini-agent's exit; a background writer neither
// hangs the call nor survives it), 100 MB of output in bounded memory, the scrubbed environment.
// Then the pure parts on their own: scrubEnv, the cleaning of a tail, and the output file's tail.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { textOf } from '../src/core/types.js';
import { createBashTool, type BashToolOptions } from '../src/tools/bash.js';
import { isSecretVariable, scrubEnv } from '../src/tools/env-scrub.js';
import { COUNT_LINES_MAX_BYTES, OutputFile } from '../src/tools/output-capture.js';
import { cleanTail } from '../src/tools/output-text.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { ToolResult } from '../src/tools/tool.js';
import { tempDir } from './support/helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Digits unique to this run, put in the command lines of the processes the tests look for. */
const RUN = `${process.pid % 10000}${Date.now() % 100000}`;
let ids = 0;

interface Ran {
  res: ToolResult;
  text: string;
  details: Record<string, any>;
  ms: number;
}

/** `running(needle)` once it is empty, or after `ms` have passed. */
async function runningAfter(needle: string, ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const pids = running(needle);
    if (pids.length === 0 || Date.now() >= until) return pids;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function bash(args: Record<string, unknown>, opts: BashToolOptions & { cwd?: string; signal?: AbortSignal } = {}): Promise<Ran> {
  const { cwd = tempDir(), signal = new AbortController().signal, ...toolOptions } = opts;
  const out = tempDir('mini-agent-bash-out-');
  const reg = new ToolRegistry([createBashTool({ outputDir: () => out, ...toolOptions })]);
  const started = Date.now();
  const res = await reg.execute({ type: 'toolCall', id: `call_${++ids}`, name: 'bash', arguments: args }, { cwd, signal });
  return { res, text: textOf(res.content), details: (res.details ?? {}) as Record<string, any>, ms: Date.now() - started };
}

/** Pids of running processes (zombies excluded) whose command line contains `needle`. */
function running(needle: string): number[] {
  if (existsSync('/proc/self/stat')) {
    const pids: number[] = [];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
        const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
        const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        if (cmdline.includes(needle) && state !== 'Z') pids.push(Number(name));
      } catch {
        /* gone */
      }
    }
    return pids;
  }
  const ps = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length > 2 && !f[1].startsWith('Z') && f.slice(2).join(' ').includes(needle))
    .map((f) => Number(f[0]));
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

afterAll(() => {
  // Whatever a failed test left behind: report it, and do not leave it running.
  const left = running(`.${RUN}`);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  expect(left).toEqual([]);
});

describe('bash: running a command', () => {
  it('returns the output and exit code 0, runs in the workspace', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'here.txt'), 'x');
    const r = await bash({ command: 'echo hello; ls' }, { cwd });
    expect(r.res.isError).toBe(false);
    expect(r.text).toBe('hello\nhere.txt\n\n[Exit code 0]');
    expect(r.details).toMatchObject({ exitCode: 0, signal: null, timedOut: false, aborted: false, truncated: false, totalLines: 2, totalBytes: 15 });
    expect(r.details.outputFile).toBeUndefined();
    expect(typeof r.details.durationMs).toBe('number');
  });

  it('a non-zero exit is an error that keeps the output', async () => {
    const r = await bash({ command: 'echo out; echo err >&2; exit 3' });
    expect(r.res.isError).toBe(true);
    expect(r.details.exitCode).toBe(3);
    expect(r.text).toBe('out\nerr\n\n[Exit code 3]');
  });

  it('merges stdout and stderr in the order they were written', async () => {
    const r = await bash({ command: 'for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done; ls /nonexistent-dir-xyz; echo last' });
    const lines = r.text.split('\n');
    expect(lines.slice(0, 10)).toEqual(['out1', 'err1', 'out2', 'err2', 'out3', 'err3', 'out4', 'err4', 'out5', 'err5']);
    expect(lines[10]).toMatch(/nonexistent-dir-xyz/);
    expect(lines[11]).toBe('last');
  });

  it('keeps stdout and stderr in order through thousands of writes, in the saved file too', async () => {
    const r = await bash({ command: 'for i in $(seq 1 5000); do echo "out $i"; echo "err $i" >&2; done' }, { limits: { maxLines: 50, maxBytes: 10_000 } });
    const expected = Array.from({ length: 5000 }, (_, i) => `out ${i + 1}\nerr ${i + 1}\n`).join('');
    expect(r.details).toMatchObject({ exitCode: 0, truncated: true, totalLines: 10_000, totalBytes: Buffer.byteLength(expected) });
    expect(readFileSync(r.details.outputFile, 'utf8')).toBe(expected);
    expect(r.text.split('\n').slice(1, 51)).toEqual(expected.split('\n').slice(-51, -1));
  });

  it('a command that reopens its output by name (> /dev/stderr) erases what came before, but what follows is intact', async () => {
    // A known limit of writing the output to a file (the same as for `cmd > file 2>&1` in a shell):
    // the reopening truncates it. O_APPEND keeps what follows at the end, without NUL bytes.
    const r = await bash({ command: 'echo first; echo warn > /dev/stderr; echo last' });
    expect(r.text).toBe('warn\nlast\n\n[Exit code 0]');
    expect(r.details).toMatchObject({ totalBytes: 10, totalLines: 2, truncated: false });
  });

  it('reports syntax errors (with their real line) and set -e failures', async () => {
    const syntax = await bash({ command: 'echo before\nif then\necho after' });
    expect(syntax.details.exitCode).toBe(2);
    expect(syntax.text.indexOf('before')).toBeLessThan(syntax.text.indexOf('syntax error'));
    expect(syntax.text).toMatch(/line 2: syntax error/);
    expect(syntax.text).not.toMatch(/^after$/m);
    const setE = await bash({ command: 'set -e; echo a; false; echo b' });
    expect(setE.res.isError).toBe(true);
    expect(setE.details.exitCode).toBe(1);
    expect(setE.text).toBe('a\n\n[Exit code 1]');
  });

  it('reports a death by signal', async () => {
    const r = await bash({ command: 'kill -SEGV $$' });
    expect(r.res.isError).toBe(true);
    expect(r.details).toMatchObject({ exitCode: null, signal: 'SIGSEGV' });
    expect(r.text).toContain('[Killed by signal SIGSEGV]');
  });

  it('stdin is empty: a command reading it gets end-of-file at once', async () => {
    const r = await bash({ command: 'cat; read line; echo "read=$? [$line]"' });
    expect(r.text).toBe('read=1 []\n\n[Exit code 0]');
    expect(r.ms).toBeLessThan(10_000);
  });

  it('rejects an empty command, and a command that cannot start', async () => {
    const empty = await bash({ command: '  ' });
    expect(empty.res.isError).toBe(true);
    expect(empty.text).toMatch(/command is empty/);
    const cwd = join(tempDir(), 'missing');
    const r = await bash({ command: 'echo hi' }, { cwd });
    expect(r.res.isError).toBe(true);
    expect(r.text).toMatch(/could not be started .*: the workspace folder .*missing does not exist/);
  });
});

describe('bash: output cleaning and truncation', () => {
  it('strips terminal escape sequences and keeps the last state of progress lines', async () => {
    const r = await bash({ command: String.raw`printf '\033[1;31mred\033[0m \033]0;title\007plain\n'; printf 'get 10%%\rget 50%%\rget 100%%\r\n'; printf 'crlf\r\n'` });
    expect(r.text).toBe('red plain\nget 100%\ncrlf\n\n[Exit code 0]');
  });

  it('binary output is sanitized: no control characters or raw bytes reach the model', async () => {
    // Four control bytes first: random data can start with a short clean line such as "(", which is
    // shown as text (only short lines between two binary ones join them), and the test then flaked.
    const r = await bash({ command: "printf '\\001\\002\\003\\004'; head -c 4096 /dev/urandom; echo; echo after" });
    expect(r.text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(r.text).toBe(Buffer.from(r.text, 'utf8').toString('utf8')); // well-formed: no lone surrogates
    expect(r.text).toMatch(/^\[Binary data in the output is not shown\. Full output: .*\]\n\[binary data, /);
    expect(r.text).toMatch(/\nafter\n\n\[Exit code 0\]$/);
    expect(r.details.outputFile).toBeDefined();
    expect(statSync(r.details.outputFile).size).toBe(4 + 4096 + 7);
    // Text around binary data stays; the data becomes one note.
    const nul = await bash({ command: "echo before; head -c 3000 /dev/zero; printf '\\001\\002\\003\\n'; head -c 5000 /dev/zero; echo; echo after" });
    expect(nul.text.split('\n').slice(1)).toEqual(['before', '[binary data, 7.8 KB, not shown]', 'after', '', '[Exit code 0]']);
    // One odd byte in a line of text is replaced, not hidden.
    const odd = await bash({ command: "printf 'caf\\351 ok\\n'" });
    expect(odd.text).toBe('caf\uFFFD ok\n\n[Exit code 0]');
  });

  it('keeps the tail, says how much was left out, and saves the whole output to a 0600 file', async () => {
    const r = await bash({ command: 'seq 1 100000' }, { limits: { maxLines: 100, maxBytes: 50 * 1024 } });
    const lines = r.text.split('\n');
    expect(lines[0]).toMatch(/^\[Output truncated: showing the last 100 lines of 100,000 lines, .*; 99,900 earlier lines not shown\. Full output: .*\]$/);
    expect(lines.slice(1, 101)).toEqual(Array.from({ length: 100 }, (_, i) => String(99_901 + i)));
    expect(r.details).toMatchObject({ truncated: true, totalLines: 100_000, exitCode: 0 });
    const file = r.details.outputFile as string;
    expect(lines[0]).toContain(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(execFileSync('seq', ['1', '100000'], { encoding: 'utf8' }));
    expect(r.details.totalBytes).toBe(statSync(file).size);
  });

  it('without an output folder, the file goes in a private folder of its own (0700)', async () => {
    const reg = new ToolRegistry([createBashTool({ limits: { maxLines: 10, maxBytes: 1000 } })]);
    const res = await reg.execute({ type: 'toolCall', id: 'call_private', name: 'bash', arguments: { command: 'seq 1 1000' } }, { cwd: tempDir(), signal: new AbortController().signal });
    const file = (res.details as Record<string, string>).outputFile;
    try {
      expect(file).toMatch(/bash-call_private\.log$/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
      expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(1001);
    } finally {
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });

  it('an output folder that does not exist yet is made (0700); one that cannot be used is reported, the file made in a private temp folder', async () => {
    const nested = join(tempDir(), 'session', 'outputs');
    const made = await bash({ command: 'seq 1 100' }, { outputDir: () => nested, limits: { maxLines: 5, maxBytes: 1000 } });
    expect(dirname(made.details.outputFile)).toBe(nested);
    expect(statSync(nested).mode & 0o777).toBe(0o700);
    expect(statSync(dirname(nested)).mode & 0o777).toBe(0o700);
    const blocker = join(tempDir(), 'a-file');
    writeFileSync(blocker, '');
    const cases: Array<[() => string, RegExp]> = [
      [() => join(blocker, 'sub'), /ENOTDIR|not a directory/],
      [
        () => {
          throw new Error('no session folder');
        },
        /no session folder/,
      ],
    ];
    for (const [outputDir, why] of cases) {
      const r = await bash({ command: 'seq 1 100' }, { outputDir, limits: { maxLines: 5, maxBytes: 1000 } });
      const file = r.details.outputFile as string;
      try {
        expect(r.res.isError).toBe(false);
        expect(r.text).toMatch(/^\[Output truncated: showing the last 5 lines of 100 lines, .* Full output: .*\]\n96\n/);
        expect(r.details.outputDirError).toMatch(why);
        expect(dirname(file)).toMatch(/mini-agent-bash-/);
        expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
        expect(readFileSync(file, 'utf8')).toBe(execFileSync('seq', ['1', '100'], { encoding: 'utf8' }));
      } finally {
        rmSync(dirname(file), { recursive: true, force: true });
      }
    }
  });

  it('the private temp folder is removed once no kept file is left in it', async () => {
    const reg = new ToolRegistry([createBashTool({ limits: { maxLines: 10, maxBytes: 1000 } })]);
    const call = (id: string, command: string) => reg.execute({ type: 'toolCall', id, name: 'bash', arguments: { command } }, { cwd: tempDir(), signal: new AbortController().signal });
    const big = await call('call_keep', 'seq 1 1000');
    const dir = dirname((big.details as Record<string, string>).outputFile);
    try {
      expect(existsSync(dir)).toBe(true);
      unlinkSync((big.details as Record<string, string>).outputFile);
      const small = await call('call_small', 'echo small');
      expect(textOf(small.content)).toBe('small\n\n[Exit code 0]');
      expect(existsSync(dir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the file is capped at maxOutputFileBytes, and the result says so', async () => {
    const r = await bash({ command: 'seq 1 100000' }, { maxOutputFileBytes: 1000, limits: { maxLines: 10, maxBytes: 1000 } });
    expect(r.details).toMatchObject({ outputFileCapped: true, totalLines: 100_000, truncated: true });
    expect(statSync(r.details.outputFile).size).toBe(1000);
    expect(readFileSync(r.details.outputFile, 'utf8')).toBe(execFileSync('seq', ['1', '100000'], { encoding: 'utf8' }).slice(0, 1000));
    expect(r.text).toMatch(/Full output \(only its first 1000 B: the file size limit\): /);
    expect(r.text.split('\n').slice(1, 11)).toEqual(Array.from({ length: 10 }, (_, i) => String(99_991 + i)));
  });

  it('output passing maxOutputFileBytes while the command runs stops it; the file is cut to the cap', async () => {
    // About 4 KB every 10 ms: the size, looked at every 150 ms, passes 100 KB within a second.
    const chunk = execFileSync('seq', ['1', '1000'], { encoding: 'utf8' });
    const r = await bash({ command: `while :; do seq 1 1000; sleep 0.01${RUN}8; done`, timeout: 60 }, { maxOutputFileBytes: 100_000, killGraceMs: 300, limits: { maxLines: 10, maxBytes: 1000 } });
    expect(r.res.isError).toBe(true);
    expect(r.details).toMatchObject({ outputLimitReached: true, outputFileCapped: true, truncated: true, timedOut: false, aborted: false, exitCode: null });
    expect(r.details.totalBytes).toBeGreaterThan(100_000);
    expect(statSync(r.details.outputFile).size).toBe(100_000);
    expect(readFileSync(r.details.outputFile, 'utf8')).toBe(chunk.repeat(30).slice(0, 100_000));
    expect(r.text).toMatch(/Full output \(only its first 97\.7 KB: the file size limit\): /);
    expect(r.text).toMatch(/\n\[Stopped: the output passed the 97\.7 KB limit of the full-output file; the command and the processes it started were stopped \(SIGTERM, then SIGKILL\)\.\]$/);
    expect(r.ms).toBeLessThan(20_000);
    expect(running(`sleep 0.01${RUN}8`)).toEqual([]);
  });

  it('output over the counting limit: the lines are not counted, and the result says so', async () => {
    const bytes = COUNT_LINES_MAX_BYTES + 100_000;
    const r = await bash({ command: `head -c ${bytes} /dev/zero | tr '\\0' a | fold -w 99` }, { limits: { maxLines: 20, maxBytes: 5000 } });
    expect(r.details).toMatchObject({ exitCode: 0, truncated: true, totalBytes: bytes + Math.ceil(bytes / 99) - 1 });
    expect(r.details).not.toHaveProperty('totalLines');
    expect(r.text).toMatch(/^\[Output truncated: showing the last 20 lines, [\d.]+ KB of 8\.2 MB \(lines not counted: the output is over 8\.0 MB\)\. Full output: /);
    expect(statSync(r.details.outputFile).size).toBe(r.details.totalBytes);
  });

  it('a line longer than the byte limit is shown by its end', async () => {
    const r = await bash({ command: "echo first; head -c 300000 /dev/zero | tr '\\0' x; echo" }, { limits: { maxLines: 100, maxBytes: 1000 } });
    const [notice, ...rest] = r.text.split('\n');
    expect(notice).toMatch(/^\[Output truncated: showing the last 1 line of 2 lines, 1000 B of 293\.0 KB; 1 earlier line not shown\. The first line shown is only the end of a longer line\. Full output: /);
    expect(rest[0]).toBe('x'.repeat(1000));
    expect(statSync(r.details.outputFile).size).toBe(6 + 300_001);
    // A long line before a short last one: the last whole line only.
    const r2 = await bash({ command: "head -c 300000 /dev/zero | tr '\\0' x; echo; echo tail-line" }, { limits: { maxLines: 100, maxBytes: 1000 } });
    expect(r2.text.split('\n').slice(1, 3)).toEqual(['tail-line', '']);
    expect(r2.text).toMatch(/^\[Output truncated: showing the last 1 line of 2 lines/);
  });

  it('100 MB of output: memory stays bounded, the file is intact and in order', async () => {
    const dir = tempDir();
    const bundle = await bundleTool(dir);
    const command = "head -c 100000000 /dev/zero | tr '\\0' 'a' | fold -w 100";
    writeFileSync(
      join(dir, 'big.mjs'),
      `import { readFileSync, writeFileSync } from 'node:fs';
import { createBashTool, ToolRegistry } from ${JSON.stringify(bundle)};
const [cwd, out, command] = process.argv.slice(2);
const reg = new ToolRegistry([createBashTool({ outputDir: () => out })]);
const call = (id, command) => reg.execute({ type: 'toolCall', id, name: 'bash', arguments: { command } }, { cwd, signal: new AbortController().signal });
await call('warm', 'seq 1 100000'); // the code has run once
// The peak of this call: VmHWM reset to the current RSS. (maxRSS would not do: Linux keeps it
// across fork and exec, so it starts at the RSS of the test worker that spawned this process.)
let peak = () => process.resourceUsage().maxRSS * 1024;
try {
  writeFileSync('/proc/self/clear_refs', '5');
  peak = () => Number(/VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
} catch {}
const before = process.memoryUsage().rss;
const res = await call('big', command);
console.log(JSON.stringify({ growth: peak() - before, details: res.details, head: res.content[0].text.slice(0, 400) }));
`,
    );
    const out = tempDir();
    const stdout = execFileSync(process.execPath, [join(dir, 'big.mjs'), tempDir(), out, command], { encoding: 'utf8', timeout: 120_000 });
    const { growth, details, head } = JSON.parse(stdout) as { growth: number; details: Record<string, any>; head: string };
    expect(growth).toBeLessThan(25 * 1024 * 1024); // the target is 50 MB; Node holds only the tail
    expect(details).toMatchObject({ exitCode: 0, truncated: true, totalBytes: 100_999_999 });
    expect(details).not.toHaveProperty('totalLines'); // over the counting limit
    expect(head).toMatch(/^\[Output truncated: showing the last \d+ lines, [\d.]+ KB of 96\.3 MB \(lines not counted/);
    const file = details.outputFile as string;
    expect(statSync(file).size).toBe(100_999_999);
    expect(await sha256OfFile(file)).toBe(await sha256OfCommand(command));
  }, 120_000);
});

describe('bash: timeouts, aborts and the process group', () => {
  it('times out: the group is stopped and the result says so', async () => {
    const r = await bash({ command: `echo started; sleep 10.${RUN}1`, timeout: 1 }, { killGraceMs: 200 });
    expect(r.res.isError).toBe(true);
    expect(r.details).toMatchObject({ timedOut: true, aborted: false, exitCode: null, timeoutSeconds: 1 });
    expect(r.text).toBe('started\n\n[Timed out after 1 s: the command and the processes it started were stopped (SIGTERM, then SIGKILL).]');
    expect(r.ms).toBeLessThan(8_000);
    expect(running(`sleep 10.${RUN}1`)).toEqual([]);
  });

  it('a command that ignores SIGTERM is killed after the grace period', async () => {
    const r = await bash({ command: `trap '' TERM; sleep 20.${RUN}2; echo never`, timeout: 0.5 }, { killGraceMs: 300 });
    expect(r.details).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(r.text).not.toContain('never');
    expect(running(`sleep 20.${RUN}2`)).toEqual([]);
  });

  it('kills a grandchild with the group: no orphans', async () => {
    const command = `sh -c 'sleep 30.${RUN}3 & echo grandchild $!; wait' & echo child $!; wait`;
    const r = await bash({ command, timeout: 1 }, { killGraceMs: 300 });
    expect(r.details.timedOut).toBe(true);
    const grandchild = Number(/grandchild (\d+)/.exec(r.text)?.[1]);
    const child = Number(/^child (\d+)/m.exec(r.text)?.[1]);
    expect(grandchild).toBeGreaterThan(0);
    expect(alive(grandchild)).toBe(false);
    expect(alive(child)).toBe(false);
    expect(running(`sleep 30.${RUN}3`)).toEqual([]);
  });

  it('aborting mid-run stops the group and says so', async () => {
    const cwd = tempDir();
    const ac = new AbortController();
    // Abort once the command is surely running: it creates a file first.
    const poll = setInterval(() => existsSync(join(cwd, 'running')) && ac.abort(), 20);
    const r = await bash({ command: `echo started; touch running; sleep 20.${RUN}4` }, { cwd, signal: ac.signal, killGraceMs: 300 });
    clearInterval(poll);
    expect(r.res.isError).toBe(true);
    expect(r.details).toMatchObject({ aborted: true, timedOut: false });
    expect(r.text).toBe('started\n\n[Aborted: the command and the processes it started were stopped.]');
    expect(r.ms).toBeLessThan(8_000);
    expect(running(`sleep 20.${RUN}4`)).toEqual([]);
  });

  it('a background child holding the output open does not hang the call, and does not survive it', async () => {
    const r = await bash({ command: `sleep 30.${RUN}5 & echo done` });
    expect(r.ms).toBeLessThan(5_000);
    expect(r.res.isError).toBe(false);
    expect(r.text).toBe('done\n\n[Exit code 0]\n[Processes the command left running in the background were stopped when it exited.]');
    expect(r.details.strayProcessesStopped).toBe(true);
    expect(running(`sleep 30.${RUN}5`)).toEqual([]);
    // Also one that closed its output: it is in the group all the same.
    const quiet = await bash({ command: `sleep 30.${RUN}6 >/dev/null 2>&1 & echo ok` });
    expect(quiet.text).toMatch(/^ok\n/);
    expect(running(`sleep 30.${RUN}6`)).toEqual([]);
  });

  it('a background writer still writing when the command exits is stopped: the call returns, the file stops growing', async () => {
    const command = `(while :; do seq 1 2000; sleep 0.00${RUN}9; done) & sleep 0.3; echo done`;
    const r = await bash({ command }, { limits: { maxLines: 10, maxBytes: 1000 } });
    expect(r.ms).toBeLessThan(5_000);
    expect(r.res.isError).toBe(false);
    expect(r.details).toMatchObject({ exitCode: 0, strayProcessesStopped: true, truncated: true });
    expect(r.text).toMatch(/\n\[Exit code 0\]\n\[Processes the command left running in the background were stopped when it exited\.\]$/);
    const file = r.details.outputFile as string;
    expect(readFileSync(file, 'utf8')).toContain('done\n');
    const size = statSync(file).size;
    expect(size).toBe(r.details.totalBytes);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(statSync(file).size).toBe(size);
    expect(running(`${RUN}9`)).toEqual([]);
  });

  it('a timeout over the maximum is lowered to it, with a note', async () => {
    const r = await bash({ command: 'echo ok', timeout: 1000 }, { maxTimeoutSeconds: 5 });
    expect(r.details).toMatchObject({ timeoutSeconds: 5, timeoutClamped: true, exitCode: 0 });
    expect(r.text).toBe('ok\n\n[Exit code 0]\n[The timeout asked for, 1000 s, is over the maximum; 5 s was used.]');
    const bad = await bash({ command: 'echo ok', timeout: 0 });
    expect(bad.res.isError).toBe(true);
    expect(bad.text).toMatch(/Invalid arguments/);
  });

  it("mini-agent's exit kills the groups still running", async () => {
    const dir = tempDir();
    const cwd = tempDir();
    const bundle = await bundleTool(dir);
    // The process exits (process.exit, as mini-agent does) once the command is surely running.
    writeFileSync(
      join(dir, 'exit.mjs'),
      `import { existsSync } from 'node:fs';
import { createBashTool, ToolRegistry } from ${JSON.stringify(bundle)};
const reg = new ToolRegistry([createBashTool({ outputDir: () => process.argv[3] })]);
void reg.execute({ type: 'toolCall', id: 'x', name: 'bash', arguments: { command: 'sleep 40.${RUN}7 & touch running; sleep 41.${RUN}7' } }, { cwd: process.argv[2], signal: new AbortController().signal });
setInterval(() => existsSync(process.argv[2] + '/running') && process.exit(0), 20);
`,
    );
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [join(dir, 'exit.mjs'), cwd, tempDir()], { stdio: 'ignore' });
      child.on('error', reject);
      child.on('exit', () => resolve());
    });
    expect(existsSync(join(cwd, 'running'))).toBe(true);
    // SIGKILL is sent as the process exits, but a loaded machine may take a moment to schedule the
    // killed processes and take them off the process table: give them up to 3 s to be gone.
    expect(await runningAfter(`.${RUN}7`, 3_000)).toEqual([]);
  });
});

describe('bash: the environment', () => {
  it('removes secrets, keeps allowlisted names, sets the pagers', async () => {
    const env = {
      PATH: process.env.PATH,
      FOO_API_KEY: 'secret-foo',
      GITHUB_TOKEN: 'secret-gh',
      OPENAI_API_KEY: 'secret-openai',
      DB_PASSWORD: 'secret-db',
      CUSTOM_KEY_VAR: 'secret-custom',
      MY_API_KEY: 'kept-mine',
      PLAIN_SETTING: 'kept-plain',
      PAGER: 'less',
    };
    const r = await bash({ command: 'env' }, { env, envAllowlist: ['MY_*'], secretEnvNames: ['CUSTOM_KEY_VAR'] });
    expect(r.text).not.toMatch(/secret-/);
    expect(r.text).toMatch(/^MY_API_KEY=kept-mine$/m);
    expect(r.text).toMatch(/^PLAIN_SETTING=kept-plain$/m);
    expect(r.text).toMatch(/^PAGER=cat$/m);
    expect(r.text).toMatch(/^GIT_PAGER=cat$/m);
  });

  it('scrubEnv: the name patterns, the value rule, extra names, the allowlist and the names that always stay', () => {
    const { env, removed } = scrubEnv(
      {
        AWS_SECRET_ACCESS_KEY: '1',
        github_token: '2',
        PASSWORD: '3',
        SSH_PRIVATE_KEY: '4',
        DEEPSEEK_API_KEY: '5',
        MY_PROVIDER_VAR: '6',
        TOKENIZER_PATH: 'a',
        KEYBOARD: 'b',
        AWS_ACCESS_KEY_ID: 'c',
        ALLOWED_TOKEN: 'd',
        DB: 'postgres://u:pass@db.example/app',
        PATH: '/usr/bin',
        GIT_AUTHOR_NAME: 'Ann',
        CLASSPATH: '/lib',
        UNSET: undefined,
      },
      { allowlist: ['ALLOWED_?OKEN'], extraNames: ['my_provider_var', 'PATH'] },
    );
    // Contained, not whole words: TOKENIZER_PATH and KEYBOARD go too (the price of a simple rule).
    expect(removed).toEqual(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'DB', 'DEEPSEEK_API_KEY', 'KEYBOARD', 'MY_PROVIDER_VAR', 'PASSWORD', 'SSH_PRIVATE_KEY', 'TOKENIZER_PATH', 'github_token']);
    expect(env).toEqual({ ALLOWED_TOKEN: 'd', PATH: '/usr/bin', GIT_AUTHOR_NAME: 'Ann', CLASSPATH: '/lib' });
  });

  it('scrubEnv: every name is either kept or removed, and only secret-looking ones are removed', () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/).chain((stem) => fc.constantFrom('', '_API_KEY', '_TOKEN', '_SECRET', '_PASSWORD', '_KEY', '_ID').map((suffix) => stem + suffix));
    fc.assert(
      fc.property(fc.dictionary(name, fc.string({ maxLength: 8 })), fc.array(name, { maxLength: 3 }), (input, allowlist) => {
        const { env, removed } = scrubEnv(input, { allowlist });
        expect([...Object.keys(env), ...removed].sort()).toEqual(Object.keys(input).sort());
        for (const n of removed) expect(isSecretVariable(n, input[n]) && !allowlist.some((a) => a.toUpperCase() === n.toUpperCase())).toBe(true);
        for (const n of Object.keys(env)) {
          expect(env[n]).toBe(input[n]);
          expect(!isSecretVariable(n, input[n]) || allowlist.some((a) => a.toUpperCase() === n.toUpperCase())).toBe(true);
        }
      }),
    );
  });
});

describe('bash: the pure parts', () => {
  const bytes = fc.array(fc.oneof(fc.constantFrom(0x0a, 0x0d, 0x1b, 0x5b, 0x00, 0x09, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xff), fc.integer({ min: 0x20, max: 0x7e })), { maxLength: 600 });

  it('cleanTail: no control characters, within both limits, always well-formed text', () => {
    fc.assert(
      fc.property(bytes, fc.integer({ min: 1, max: 20 }), fc.integer({ min: 60, max: 400 }), (raw, maxLines, maxBytes) => {
        const view = cleanTail(Uint8Array.from(raw), { maxLines, maxBytes });
        expect(view.text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
        expect(Buffer.byteLength(view.text)).toBeLessThanOrEqual(maxBytes);
        expect(view.shownLines).toBeLessThanOrEqual(maxLines);
        expect(view.text.split('\n')).toHaveLength(Math.max(1, view.shownLines));
        expect(Buffer.from(view.text).toString()).toBe(view.text);
      }),
    );
  });

  it('cleanTail: plain text that fits is shown as it is; text that does not is its last whole lines', () => {
    const line = fc.stringMatching(/^[ -~]{0,30}$/);
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.integer({ min: 1, max: 50 }), (lines, maxLines) => {
        const raw = Buffer.from(lines.map((l) => l + '\n').join(''));
        const view = cleanTail(raw, { maxLines, maxBytes: 10_000 });
        const shown = lines.slice(Math.max(0, lines.length - maxLines));
        expect(view.text).toBe(shown.join('\n'));
        expect(view.shownRawLines).toBe(shown.length);
      }),
    );
  });

  /** Chunks written one by one to an output file: its tail and counts, checked against the output. */
  function checkOutputFile(dir: string, chunks: Uint8Array[], tailBytes: number, keep: boolean, maxBytes: number, n: number) {
    const file = OutputFile.create(dir, `f${n}`);
    for (const c of chunks) for (let off = 0; off < c.length; ) off += writeSync(file.fd, c, off);
    const all = Buffer.concat(chunks);
    const t = file.tail(tailBytes);
    expect(t.totalBytes).toBe(all.length);
    expect(t.totalLines).toBe(all.toString('latin1').split('\n').length - (all.length === 0 || all[all.length - 1] === 0x0a ? 1 : 0));
    expect(t.complete).toBe(all.length <= tailBytes);
    if (t.complete) expect(t.tail.equals(all)).toBe(true);
    else {
      expect(all.subarray(all.length - t.tail.length).equals(t.tail)).toBe(true);
      expect(t.tail.length).toBeLessThanOrEqual(tailBytes);
      if (!t.partialFirstLine) expect(all[all.length - t.tail.length - 1]).toBe(0x0a);
      else expect(t.tail.subarray(0, -1).includes(0x0a)).toBe(false); // no whole line was held: the end of one is shown
    }
    const done = file.finish(keep, maxBytes);
    if (!keep) expect(existsSync(file.path)).toBe(false);
    else {
      expect(done).toEqual({ path: file.path, bytes: Math.min(all.length, maxBytes), capped: all.length > maxBytes });
      expect(readFileSync(file.path).equals(all.subarray(0, maxBytes))).toBe(true);
      expect(statSync(file.path).mode & 0o777).toBe(0o600);
    }
  }

  it('OutputFile: the tail and counts match the output; the kept file holds it, cut to the cap', () => {
    const dir = tempDir();
    let n = 0;
    const small = fc.uint8Array({ maxLength: 90 }).map((a) => a.map((b) => (b % 7 === 0 ? 0x0a : b)));
    fc.assert(
      fc.property(fc.array(small, { maxLength: 30 }), fc.integer({ min: 1, max: 120 }), fc.boolean(), fc.integer({ min: 0, max: 3000 }), (chunks, tailBytes, keep, maxBytes) => {
        checkOutputFile(dir, chunks, tailBytes, keep, maxBytes, ++n);
      }),
    );
    // Chunks of up to 40 KB against a tail of up to 100 KB.
    const length = fc.oneof(fc.integer({ min: 0, max: 40_000 }), fc.constantFrom(4096, 8192, 16_384, 32_768));
    // Each chunk is described by (length, seed, newline period) and made inside the property, so a counterexample prints small.
    const described = fc.tuple(length, fc.integer({ min: 0, max: 255 }), fc.integer({ min: 2, max: 5000 }));
    const make = ([n, seed, every]: [number, number, number]) => Uint8Array.from({ length: n }, (_, i) => (i % every === every - 1 ? 0x0a : (seed + i * 31) % 256 || 1));
    fc.assert(
      fc.property(fc.array(described, { maxLength: 12 }), fc.integer({ min: 1, max: 100_000 }), fc.boolean(), (chunks, tailBytes, keep) => {
        checkOutputFile(dir, chunks.map(make), tailBytes, keep, 1e9, ++n);
      }),
      { numRuns: 100 },
    );
  });

  it('OutputFile: a file that exists is never overwritten; finish twice does nothing more', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'x.log'), 'old');
    const file = OutputFile.create(dir, 'x');
    expect(file.path).toBe(join(dir, 'x-2.log'));
    writeSync(file.fd, 'new\n');
    expect(file.finish(true, 100)).toEqual({ path: file.path, bytes: 4, capped: false });
    expect(file.finish(false, 100)).toEqual({ bytes: 0, capped: false });
    expect(readFileSync(join(dir, 'x.log'), 'utf8')).toBe('old');
    expect(readFileSync(file.path, 'utf8')).toBe('new\n');
  });
});

/** The tool and the registry bundled from src with esbuild, for child processes. */
async function bundleTool(dir: string): Promise<string> {
  const { build } = await import('esbuild');
  const outfile = join(dir, 'bash-tool.mjs');
  await build({
    stdin: {
      contents: "export { createBashTool } from './src/tools/bash.ts';\nexport { ToolRegistry } from './src/tools/registry.ts';",
      resolveDir: ROOT,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'silent',
  });
  return outfile;
}

async function sha256OfFile(file: string): Promise<string> {
  const { createReadStream } = await import('node:fs');
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function sha256OfCommand(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (c: Buffer) => hash.update(c));
    child.on('error', reject);
    child.on('close', () => resolve(hash.digest('hex')));
  });
}
