// Issue 22, part 5: nothing left behind. Through the CLI with the scripted model:
// - `kill -9` while edit_file writes big files (killed as soon as a temp file appears): the next
//   start removes the temp files (journaled in the state home; the workspace is not walked);
// - bash outputs of a `--no-session` run go to a private folder in the temp folder, removed at
//   exit; a run killed with `kill -9` leaves its folder, which the next start removes;
// - SIGTERM to the agent during `sleep 30` in bash leaves no sleep running (this held before
//   issue 22: the abort and the exit hook stop the group; the test keeps it so), and its
//   --no-session output folder is removed at that exit too.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { parseJsonl, runCli, tempDir, writeScript } from './support/helpers.js';
import { builtinTools } from '../src/app/tools.js';

const BIG = 19 * 1024 * 1024;

/** Calls `then(child)` as soon as `found()` holds, looking on every turn of the event loop. */
function whenFound(found: () => boolean, then: () => void, ms = 30_000): (child: ChildProcess) => void {
  return () => {
    const until = Date.now() + ms;
    const look = () => {
      if (found()) then();
      else if (Date.now() < until) setImmediate(look);
    };
    look();
  };
}

function tmpFiles(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.tmp'));
}

function bashDirs(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.startsWith('mini-agent-bash-'));
}

/** The running (not zombie) processes whose command line is `sleep ARG`. */
function sleepers(arg: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1') !== `sleep\0${arg}\0`) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (state !== 'Z' && state !== 'X') found.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

describe('nothing left behind (issue 22, part 5)', () => {
  it('kill -9 during edits of big files, then a new start: no temp file remains', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const scripts = tempDir('mini-agent-scripts-');
    const body = Buffer.alloc(BIG, `${'abcdefghij'.repeat(100)}\n`);
    const calls = [];
    for (let i = 0; i < 3; i++) {
      writeFileSync(join(cwd, `big${i}.txt`), Buffer.concat([body, Buffer.from(`NEEDLE-${i}\n`)]));
      calls.push({ id: `e${i}`, name: 'edit_file', arguments: { path: `big${i}.txt`, edits: [{ oldText: `NEEDLE-${i}`, newText: `DONE-${i}` }] } });
    }
    const script = writeScript(scripts, [{ toolCalls: calls }, { text: 'done' }]);
    let killedWith: string[] = [];
    const r = await runCli(['--json', '--no-session', '--script', script, 'edit them'], {
      cwd,
      home,
      onSpawn: (child) =>
        whenFound(
          () => tmpFiles(cwd).length > 0,
          () => {
            killedWith = tmpFiles(cwd);
            child.kill('SIGKILL');
          },
        )(child),
    });
    expect(r.signal, r.stderr).toBe('SIGKILL');
    expect(killedWith.length).toBeGreaterThan(0);
    expect(tmpFiles(cwd).length, 'the kill left temp files behind (else the test proves nothing)').toBeGreaterThan(0);
    expect(tmpFiles(cwd)[0]).toMatch(/^\.big\d\.txt\.\d+\.[0-9a-f]{8}\.tmp$/); // the writer's pid in the name

    const again = writeScript(scripts, [{ text: 'hello' }], 'again.json');
    const next = await runCli(['--no-session', '--script', again, 'hi'], { cwd, home });
    expect(next.code, next.stderr).toBe(0);
    expect(tmpFiles(cwd)).toEqual([]);
    expect(existsSync(join(home, 'tmp-journal')) ? readdirSync(join(home, 'tmp-journal')) : []).toEqual([]);
    for (let i = 0; i < 3; i++) expect(readFileSync(join(cwd, `big${i}.txt`), 'latin1').slice(-12)).toMatch(/(NEEDLE|DONE)-\d\n$/);
  }, 60_000);

  it('--no-session bash outputs go to a private temp folder that is removed at exit', async () => {
    const cwd = tempDir();
    const tmp = tempDir('mini-agent-tmp-');
    const scripts = tempDir('mini-agent-scripts-');
    const script = writeScript(scripts, [{ toolCalls: [{ id: 'b', name: 'bash', arguments: { command: 'seq 1 300000' } }] }, { text: 'done' }]);
    const r = await runCli(['--json', '--yes', '--no-session', '--script', script, 'count'], { cwd, env: { TMPDIR: tmp } });
    expect(r.code, r.stderr).toBe(0);
    const end = parseJsonl(r.stdout).find((e) => e.type === 'tool_end' && e.toolCallId === 'b');
    const file = (end as { result: { details?: { outputFile?: string } } }).result.details?.outputFile;
    expect(file, 'the output was cut, so a full-output file was named').toBeDefined();
    expect(file!.startsWith(join(tmp, 'mini-agent-bash-'))).toBe(true);
    expect(existsSync(file!)).toBe(false);
    expect(bashDirs(tmp)).toEqual([]);
  }, 30_000);

  it('the output folder of a --no-session run killed with kill -9 is removed at the next start', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const tmp = tempDir('mini-agent-tmp-');
    const scripts = tempDir('mini-agent-scripts-');
    const script = writeScript(scripts, [{ toolCalls: [{ id: 'b', name: 'bash', arguments: { command: 'seq 1 300000; echo > started; sleep 2' } }] }, { text: 'done' }]);
    const r = await runCli(['--json', '--yes', '--no-session', '--script', script, 'count'], {
      cwd,
      home,
      env: { TMPDIR: tmp },
      onSpawn: (child) =>
        whenFound(
          () => existsSync(join(cwd, 'started')),
          () => child.kill('SIGKILL'),
        )(child),
    });
    expect(r.signal, r.stderr).toBe('SIGKILL');
    expect(bashDirs(tmp).length, 'the killed run left its folder').toBe(1);
    const again = writeScript(scripts, [{ text: 'hello' }], 'again.json');
    const next = await runCli(['--no-session', '--script', again, 'hi'], { cwd, home, env: { TMPDIR: tmp } });
    expect(next.code, next.stderr).toBe(0);
    expect(bashDirs(tmp)).toEqual([]);
  }, 30_000);

  it('after SIGTERM of the agent during `sleep 30` in bash, no sleep is left running, nor the --no-session output folder', async () => {
    const cwd = tempDir();
    const tmp = tempDir('mini-agent-tmp-');
    const scripts = tempDir('mini-agent-scripts-');
    const arg = `30.${process.pid}${Date.now() % 100000}`; // a sleep of ~30 s this test can find in /proc (also inside a sandbox's own PID namespace)
    const script = writeScript(scripts, [{ toolCalls: [{ id: 'b', name: 'bash', arguments: { command: `sleep ${arg} & wait` } }] }, { text: 'done' }]);
    const started = Date.now();
    let seen: number[] = [];
    let madeDirs: string[] = [];
    const r = await runCli(['--json', '--yes', '--no-session', '--script', script, 'wait'], {
      cwd,
      env: { TMPDIR: tmp },
      onSpawn: (child) => {
        const look = () => {
          seen = sleepers(arg);
          if (seen.length > 0) {
            madeDirs = bashDirs(tmp);
            child.kill('SIGTERM');
          } else if (Date.now() - started < 15_000) setTimeout(look, 20);
        };
        look();
      },
    });
    expect(seen.length, 'the sleep was seen running before SIGTERM').toBeGreaterThan(0);
    expect(r.code, r.stderr).toBe(143);
    for (let i = 0; i < 50 && sleepers(arg).length > 0; i++) await sleep(100);
    expect(sleepers(arg), 'a sleep still runs').toEqual([]);
    expect(madeDirs.length, 'the output folder existed while the command ran').toBe(1);
    expect(bashDirs(tmp), 'removed at exit').toEqual([]);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);
});

describe('the sweep removes only what dead runs journaled (leftovers.ts)', () => {
  it('removes a dead run’s temp file and its dead neighbours, never a path of another shape, a live run’s or this process’s own', async () => {
    const { LeftoverJournal, sweepLeftovers } = await import('../src/tools/leftovers.js');
    const ws = tempDir();
    const journalDir = join(tempDir('mini-agent-home-'), 'tmp-journal');
    const dead = 999_999_0; // no such pid (alive() below says so)
    const live = 4242;
    const alive = (pid: number) => pid === live;
    const files = {
      deadTemp: `.a.txt.${dead}.0123abcd.tmp`,
      deadNeighbour: `.b.txt.${dead + 1}.89abcdef.tmp`,
      liveTemp: `.c.txt.${live}.01234567.tmp`,
      ownTemp: `.d.txt.${process.pid}.01234567.tmp`,
      userFile: 'notes.txt',
    };
    for (const name of Object.values(files)) writeFileSync(join(ws, name), 'x');
    mkdirSync(journalDir, { recursive: true });
    writeFileSync(join(journalDir, `${dead}-1-0000aaaa`), join(ws, files.deadTemp));
    writeFileSync(join(journalDir, `${dead}-1-0000bbbb`), join(ws, files.userFile)); // not a temp file: never removed
    writeFileSync(join(journalDir, `${live}-1-0000cccc`), join(ws, files.liveTemp));
    const ours = new LeftoverJournal(journalDir).record(join(ws, files.ownTemp)); // this process, in progress
    const { removed } = sweepLeftovers(journalDir, alive);
    expect(removed.sort()).toEqual([join(ws, files.deadNeighbour), join(ws, files.deadTemp)].sort());
    expect(readdirSync(ws).sort()).toEqual([files.liveTemp, files.ownTemp, files.userFile].sort());
    expect(readdirSync(journalDir).length).toBe(2); // the live run's entry and ours
    ours();
    expect(readdirSync(journalDir).length).toBe(1);
  });
});

describe('the journal of temp files', () => {
  it("is kept in the home the tools are given (an agent's own), not in one worked out from the environment", async () => {
    const home = tempDir('mini-agent-home-');
    const elsewhere = tempDir('mini-agent-home-');
    const cwd = tempDir();
    const tools = builtinTools({ home, env: { MINI_AGENT_HOME: elsewhere } });
    const write = tools.find((t) => t.name === 'write_file')!;
    await write.execute({ path: 'a.txt', content: 'x' }, { cwd, signal: new AbortController().signal, toolCallId: 'c1' });
    expect(existsSync(join(home, 'tmp-journal'))).toBe(true);
    expect(existsSync(join(elsewhere, 'tmp-journal'))).toBe(false);
  });
});
