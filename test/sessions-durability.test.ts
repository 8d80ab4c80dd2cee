// Session durability as a user meets it: real CLI processes killed with SIGKILL at random
// points, two processes on one session, corrupt and old files. dist/ is rebuilt first when src/
// changed (vitest's global setup, test/support/global-setup.ts).
import { copyFileSync, cpSync, existsSync, linkSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../src/model/script.js';
import type { SessionEntry } from '../src/session/entries.js';
import { checkpointDirOf, CheckpointStore } from '../src/session/checkpoint-store.js';
import { checkpointKind } from '../src/session/entry-kinds/index.js';
import { cliInProcess } from './support/cli-in-process.js';
import { runCli, tempDir, type CliResult } from './support/helpers.js';
import { completeLines, expectValidActivePath, fileLines, jsonRun, jsonRunInProcess, pool, prng, userText, withStore } from './support/sessions.js';
import { SESSION_FORMAT_VERSION as CURRENT } from '../src/session/entries.js';

// ---------------------------------------------------------------- crash safety

/** Several turns with reads and writes, streamed slowly enough to be killed anywhere in them. */
function crashScript(delayMs: number): ScriptTurn[] {
  return [
    {
      delayMs,
      text: 'Let me read both files first.',
      toolCalls: [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'read_file', arguments: { path: 'b.txt' } },
      ],
    },
    {
      delayMs,
      text: 'Now I write a note and check it.',
      toolCalls: [
        { name: 'write_note', arguments: { path: 'notes/out.md', text: 'first line\n' } },
        { name: 'read_file', arguments: { path: 'notes/out.md' } },
      ],
    },
    {
      delayMs,
      text: 'One more line.',
      toolCalls: [{ name: 'write_note', arguments: { path: 'notes/out.md', text: 'second line\n', mode: 'append' } }],
    },
    // A long last answer: the process is still streaming it when the latest kills land.
    { delayMs: delayMs * 3, text: 'All done: I read a.txt and b.txt and wrote notes/out.md with two lines of text in it.' },
  ];
}

function workspace(): string {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'a.txt'), 'alpha\n'.repeat(20));
  writeFileSync(join(cwd, 'b.txt'), 'beta\n'.repeat(20));
  return cwd;
}

const TORN = /line \d+ is incomplete \(torn write/;

interface Announced {
  /** Ids the events said were appended (prompt, every message_end and tool_end seen). */
  all: string[];
  /** The prompt and the entries of turns whose turn_end was seen: durable by contract. */
  durable: string[];
}

function announcedIds(stdout: string): Announced {
  const all: string[] = [];
  const durable: string[] = [];
  const pending = new Map<number, string[]>();
  for (const e of completeLines(stdout)) {
    if (e.type === 'run_start') {
      all.push(e.promptEntryId);
      durable.push(e.promptEntryId);
    } else if (e.type === 'message_end' || e.type === 'tool_end') {
      all.push(e.entryId);
      pending.set(e.turn, [...(pending.get(e.turn) ?? []), e.entryId]);
    } else if (e.type === 'turn_end') {
      durable.push(...(pending.get(e.turn) ?? []));
    }
  }
  return { all, durable };
}

describe('durability: SIGKILL at random points', () => {
  it('every kill leaves a loadable file that lost nothing announced; a resumed run repairs and completes', async () => {
    const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const rand = prng(seed);
    const ctx = (i: number, what: string) => `seed ${seed} (CRASH_SEED=${seed} to replay), attempt ${i}: ${what}`;

    // A complete run of the same script: the template for "kill a continued session", and the
    // number of stdout lines a whole run prints (kills by line land strictly before the last one).
    const base = workspace();
    const home = tempDir('mini-agent-home-');
    const template = join(base, 'template.jsonl');
    const t0 = performance.now();
    const full = await jsonRun(['--session', template], crashScript(5), 'read a and b, write a note', { cwd: base, home });
    const fullMs = performance.now() - t0;
    expect(full.code, full.stderr).toBe(0);
    const fullLines = full.events.length;
    expect(fullLines).toBeGreaterThan(20);

    const resumeScript = [{ text: 'Resumed and finished.' }];
    let checkedObjects = 0;
    const ATTEMPTS = 60;
    type Outcome = { killed: boolean; lockLeft: boolean; torn: boolean; repaired: boolean; started: boolean };

    const attempt = async (i: number): Promise<Outcome> => {
      const cwd = workspace();
      const file = join(cwd, 'session.jsonl');
      const continued = rand() < 0.5;
      if (continued) {
        copyFileSync(template, file);
        cpSync(checkpointDirOf(template), checkpointDirOf(file), { recursive: true }); // the session's file checkpoints come with it
      }
      const before = continued ? readFileSync(file) : Buffer.alloc(0);
      const delay = 5 + Math.floor(rand() * 20);
      const byLine = rand() < 0.6;
      const killAtLine = 1 + Math.floor(rand() * (fullLines - 1));
      // Within the time a whole run takes alone (runs side by side are slower, so these land mid-run).
      const killAfterMs = Math.floor(rand() * fullMs);
      let pid = -1;
      let killed = false;
      const kill = (child: import('node:child_process').ChildProcess) => {
        if (!killed) {
          killed = true;
          child.kill('SIGKILL');
        }
      };
      const r: CliResult = await jsonRun(['--session', file], crashScript(delay), 'read a and b, write a note', {
        cwd,
        home,
        onSpawn: (child) => {
          pid = child.pid ?? -1;
          if (!byLine) setTimeout(() => kill(child), killAfterMs);
        },
        onStdout: (soFar, child) => {
          if (byLine && soFar.split('\n').length - 1 >= killAtLine) kill(child);
        },
      });
      const what = `${continued ? 'continued' : 'new'} session, kill ${byLine ? `at stdout line ${killAtLine}` : `after ${killAfterMs} ms`}, delay ${delay}`;
      const wasKilled = r.signal === 'SIGKILL';
      if (!wasKilled) expect(r.code, ctx(i, `${what}: a run that was not killed completes`)).toBe(0);

      const ids = announcedIds(r.stdout);
      const started = ids.all.length > 0;
      const lockLeft = existsSync(`${file}.lock`);
      if (lockLeft) expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid, ctx(i, 'the lock names the killed process')).toBe(pid);

      // 1. The file loads; the only acceptable problem is a torn last line. Nothing old was rewritten.
      let torn = false;
      const blobs: string[] = [];
      const size = existsSync(file) ? statSync(file).size : 0;
      if (size === 0) {
        expect(started, ctx(i, `${what}: no run_start before the header is written`)).toBe(false);
      } else {
        const now = readFileSync(file);
        expect(now.subarray(0, before.length).equals(before), ctx(i, `${what}: the old bytes are a prefix`)).toBe(true);
        withStore(file, (store) => {
          for (const w of store.warnings) expect(w, ctx(i, `${what}: only a torn last line may warn`)).toMatch(TORN);
          expect(store.warnings.length).toBeLessThanOrEqual(1);
          torn = store.warnings.length === 1;
          const have = new Set(store.entries().map((e) => e.id));
          expect(
            ids.durable.filter((id) => !have.has(id)),
            ctx(i, `${what}: entries of completed turns lost`),
          ).toEqual([]);
          // A SIGKILL does not lose what write(2) already handed to the OS: nothing announced is lost.
          expect(
            ids.all.filter((id) => !have.has(id)),
            ctx(i, `${what}: announced entries lost`),
          ).toEqual([]);
          for (const e of store.entries()) if (checkpointKind.is(e)) for (const f of e.files) blobs.push(...[f.before, f.after].flatMap((st) => (st.kind === 'file' ? [st.blob] : [])));
        });
        // Every file checkpoint the file records is whole in the store (an object is stored before the entry naming it).
        const objects = new CheckpointStore(checkpointDirOf(file));
        for (const blob of blobs) await expect(objects.get(blob), ctx(i, `${what}: checkpoint object ${blob.slice(0, 12)}`)).resolves.toBeInstanceOf(Buffer);
        checkedObjects += blobs.length;
      }

      // 2. A new run takes over the dead process's lock, repairs the tree and completes. It runs
      // the CLI in process: what is under test here is the killed process's file and lock, and a
      // process start per resume doubled this test's time.
      const resumed = await jsonRunInProcess(['--session', file], resumeScript, 'resume', { cwd, home });
      expect(resumed.code, ctx(i, `${what}: resume exit code; stderr: ${resumed.stderr}`)).toBe(0);
      expect(resumed.settled?.stopReason).toBe('completed');
      expect(existsSync(`${file}.lock`), ctx(i, 'the resumed run released the lock')).toBe(false);
      if (torn) expect(resumed.stderr, ctx(i, 'the torn tail is reported')).toMatch(TORN);
      const repaired = resumed.events.some((e) => e.type === 'warning' && /repaired an interrupted run/.test(e.message));
      withStore(file, (store) => {
        for (const w of store.warnings) expect(w, ctx(i, `${what}: after resume`)).toMatch(/is not valid JSON; skipped/);
        expect(store.warnings.length).toBe(torn ? 1 : 0);
        expectValidActivePath(store, ctx(i, what));
        const path = store.activePath();
        expect(userText(path.at(-2)), ctx(i, 'the resumed prompt is on the active path')).toBe('resume');
        expect(store.leafId).toBe(resumed.settled?.leafId);
        const last = store.entries().at(-1) as SessionEntry;
        expect(last.type).toBe('run');
        // The killed run's entries are still there, in the same order, before the resumed run's.
        const order = store.entries().map((e) => e.id);
        const positions = ids.all.map((id) => order.indexOf(id));
        expect(
          positions.every((p, k) => p >= 0 && (k === 0 || p > positions[k - 1])),
          ctx(i, 'announced entries in order'),
        ).toBe(true);
        expect(order.indexOf(resumed.start!.promptEntryId)).toBeGreaterThan(Math.max(-1, ...positions));
      });
      return { killed: wasKilled, lockLeft, torn, repaired, started };
    };

    const outcomes = await pool(
      5,
      Array.from({ length: ATTEMPTS }, (_, i) => () => attempt(i)),
    );
    const killed = outcomes.filter((o) => o.killed);
    expect(killed.length, `seed ${seed}: kills`).toBeGreaterThanOrEqual(50);
    // The random schedule reaches the interesting places: killed mid-run, holding the lock, and
    // killed between a tool call and its result (the resume had to repair the tree).
    expect(killed.filter((o) => o.started).length, `seed ${seed}`).toBeGreaterThan(10);
    expect(killed.filter((o) => o.lockLeft).length, `seed ${seed}: stale locks taken over`).toBeGreaterThan(10);
    expect(outcomes.filter((o) => o.repaired).length, `seed ${seed}: repaired runs`).toBeGreaterThan(0);
    expect(checkedObjects, `seed ${seed}: file checkpoints checked in the killed runs' stores`).toBeGreaterThan(10);
  }, 120_000);
});

// ---------------------------------------------------------------- one writer per session

/**
 * A script whose run holds the session until the test says go: its bash call waits for the file
 * `go` in the workspace (`release` writes it), so the run lasts exactly as long as the test needs.
 */
function gatedScript(cwd: string): { turns: ScriptTurn[]; release: () => void } {
  // The gate is in the workspace (a sandboxed bash sees only that): its appearing during the call is the call's change, in a checkpoint entry.
  const wait = { name: 'bash', arguments: { command: 'while [ ! -e go ]; do sleep 0.02; done; echo released' } };
  return {
    turns: [{ text: 'Waiting for the word.', toolCalls: [wait] }, { text: 'Done, word by word, until the very end.' }],
    release: () => writeFileSync(join(cwd, 'go'), ''),
  };
}

/** The entries of a session file but its checkpoints, after checking that each names only files the tests wrote into the workspace during a call (the gate, the other processes' scripts). */
function withoutCheckpoints<T extends { type?: unknown }>(lines: T[]): T[] {
  for (const c of lines.filter((e) => e.type === 'checkpoint') as unknown as { files: { path: string }[] }[]) {
    for (const f of c.files) expect(f.path).toMatch(/\/(go|script-\d+-\d+\.json)$/);
  }
  return lines.filter((e) => e.type !== 'checkpoint');
}

/** Starts a run that holds the lock until `release()`; `running` resolves once it printed run_start. */
function startSlowRun(args: string[], cwd: string, home: string) {
  let pid = -1;
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const gate = gatedScript(cwd);
  let finished = false;
  const done = jsonRun(['--yes', ...args], gate.turns, 'the first run', {
    cwd,
    home,
    onSpawn: (child) => (pid = child.pid ?? -1),
    onStdout: (soFar) => {
      if (soFar.includes('"type":"run_start"')) started();
    },
  }).finally(() => (finished = true));
  return { done, running, release: gate.release, pid: () => pid, finished: () => finished };
}

describe('durability: one writer per session', () => {
  it('a second process on a session in use exits 2 naming the holder; readers still work; the file holds only the first run', async () => {
    const cwd = workspace();
    const home = tempDir('mini-agent-home-');
    const first = await jsonRun([], [{ text: 'Created.' }], 'create the session', { cwd, home });
    expect(first.code, first.stderr).toBe(0);
    const id = first.start!.session!.id;
    const file = first.start!.session!.file!;
    const before = readFileSync(file);

    const slow = startSlowRun(['--resume', id], cwd, home);
    await slow.running;
    const pid = slow.pid();
    expect(existsSync(`${file}.lock`)).toBe(true);

    // Writers are refused; readers take no lock and work. All while the first run goes on.
    const second = (args: string[], prompt: string) => jsonRun(args, [{ text: 'second' }], prompt, { cwd, home });
    const [byFile, byId, byPrefix, byContinue, label, name, list, tree, treeText] = await Promise.all([
      second(['--session', file], 'SECOND-BY-FILE'),
      second(['--resume', id], 'SECOND-BY-ID'),
      second(['--resume', id.slice(0, 6)], 'SECOND-BY-PREFIX'),
      second(['-c'], 'SECOND-BY-CONTINUE'),
      runCli(['label', file, first.start!.promptEntryId, 'nope'], { cwd, home }),
      runCli(['name', id, 'nope'], { cwd, home }),
      runCli(['sessions', '--json'], { cwd, home }),
      runCli(['tree', id, '--json'], { cwd, home }),
      runCli(['tree', file], { cwd, home }),
    ]);
    expect(slow.finished(), 'the first run was still going').toBe(false);
    for (const r of [byFile, byId, byPrefix, byContinue]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`session ${id} is in use by pid ${pid}`);
      expect(r.stdout).toBe('');
    }
    // label and name append, so they wait their turn too.
    for (const r of [label, name]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`session ${id} is in use by pid ${pid}`);
    }
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { id: string }[]).map((s) => s.id)).toEqual([id]);
    expect(tree.code, tree.stderr).toBe(0);
    expect(JSON.parse(tree.stdout).session.id).toBe(id);
    expect(treeText.code).toBe(0);
    expect(treeText.stdout).toContain('the first run');

    slow.release();
    const r = await slow.done;
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(`${file}.lock`)).toBe(false);

    // Every line parses; after the old bytes come exactly the slow run's entries and its run record.
    const after = readFileSync(file);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    const text = after.toString('utf8');
    expect(text).not.toContain('SECOND');
    expect(text).not.toContain('nope');
    const lines = fileLines(file);
    const added = withoutCheckpoints(lines.slice(before.toString('utf8').split('\n').length - 1));
    const ids = announcedIds(r.stdout).all;
    expect(added.map((e) => e.id)).toEqual([...ids, expect.any(String)]);
    expect(added.at(-1)).toMatchObject({ type: 'run', runId: r.start!.runId, stopReason: 'completed' });
    withStore(file, (store) => {
      expect(store.warnings).toEqual([]);
      expectValidActivePath(store, 'after the slow run');
    });
  }, 30_000);

  it('processes that start on one session at the same moment: exactly one runs, even over a stale lock', async () => {
    for (const staleLock of [false, true]) {
      const cwd = workspace();
      const home = tempDir('mini-agent-home-');
      const file = join(cwd, 'race.jsonl');
      const first = await jsonRun(['--session', file], [{ text: 'Created.' }], 'create', { cwd, home });
      expect(first.code).toBe(0);
      const before = readFileSync(file);
      // A lock left by a process that no longer exists (pid far above pid_max).
      if (staleLock) writeFileSync(`${file}.lock`, JSON.stringify({ pid: 2 ** 30, host: (await import('node:os')).hostname(), since: new Date().toISOString() }));
      // A winner holds the session until the others have settled (or 15 s passed, so that two
      // winners at once, which wait for each other's release, still end and fail the checks).
      const gate = gatedScript(cwd);
      let settled = 0;
      const fallback = setTimeout(gate.release, 15_000);
      const racers = await Promise.all(
        Array.from({ length: 5 }, (_, k) =>
          jsonRun(['--yes', '--session', file], gate.turns, `RACER-${k}`, { cwd, home }).finally(() => {
            if (++settled === 4) gate.release();
          }),
        ),
      );
      clearTimeout(fallback);
      const winners = racers.filter((r) => r.code === 0);
      const codes = `stale lock: ${staleLock}; exit codes ${racers.map((r) => r.code).join(',')}`;
      expect(winners.length, codes).toBeGreaterThanOrEqual(1);
      expect(racers.length - winners.length, codes).toBeGreaterThanOrEqual(3);
      for (const r of racers.filter((x) => x.code !== 0)) {
        expect(r.code, codes).toBe(2);
        expect(r.stderr).toMatch(/is in use by pid \d+/);
        expect(r.stdout).toBe('');
      }
      // Never two writers at once: the winners' runs do not overlap in time...
      const spans = winners.map((w) => [w.start!.time, w.settled!.time]).sort((a, b) => a[0] - b[0]);
      for (let k = 1; k < spans.length; k++) expect(spans[k][0], codes).toBeGreaterThan(spans[k - 1][1]);
      // ...and the file holds their runs one after the other, each whole.
      const text = readFileSync(file, 'utf8');
      expect(Buffer.from(text).subarray(0, before.length).equals(before)).toBe(true);
      const added = withoutCheckpoints(fileLines(file).slice(before.toString('utf8').split('\n').length - 1));
      const expected = winners.sort((a, b) => a.start!.time - b.start!.time).flatMap((w) => [...announcedIds(w.stdout).all, `run:${w.start!.runId}`]);
      expect(added.map((e) => (e.type === 'run' ? `run:${String(e.runId)}` : e.id))).toEqual(expected);
      expect(existsSync(`${file}.lock`)).toBe(false);
    }
  }, 30_000);
});

describe('durability: the session lock under churn', () => {
  it('processes that keep dying while holding the lock never let two writers in at once', async () => {
    // The lock module on its own, bundled for child processes that take it again and again.
    const dir = tempDir();
    const { build } = await import('esbuild');
    await build({
      entryPoints: [fileURLToPath(new URL('../src/session/lock.ts', import.meta.url))],
      outfile: join(dir, 'lock.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
    });
    // Each child: take the lock, hold it (a marker created with O_EXCL catches a second holder),
    // then "die": the lock file is left behind naming a pid that does not exist.
    writeFileSync(
      join(dir, 'churn.mjs'),
      `import { closeSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { acquireSessionLock } from './lock.mjs';
process.setMaxListeners(0);
const [dir, rounds] = [process.argv[2], Number(process.argv[3])];
const file = dir + '/s.jsonl';
let got = 0, overlaps = 0, refused = 0;
for (let i = 0; i < rounds; i++) {
  try { acquireSessionLock(file, 'x'); } catch { refused++; continue; }
  got++;
  let fd;
  try { fd = openSync(dir + '/marker', 'wx'); } catch { overlaps++; }
  const t = performance.now(); while (performance.now() - t < 0.3) {}
  if (fd !== undefined) { closeSync(fd); unlinkSync(dir + '/marker'); }
  const tmp = file + '.lock.dead-' + process.pid;
  writeFileSync(tmp, JSON.stringify({ pid: 2 ** 30, host: hostname(), since: 'then' }));
  renameSync(tmp, file + '.lock');
}
console.log(JSON.stringify({ got, overlaps, refused }));
`,
    );
    const { spawn } = await import('node:child_process');
    const outs = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<{ got: number; overlaps: number; refused: number }>((resolve, reject) => {
            let out = '';
            const child = spawn(process.execPath, [join(dir, 'churn.mjs'), dir, '300'], { stdio: ['ignore', 'pipe', 'inherit'] });
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.on('error', reject);
            child.on('close', () => resolve(JSON.parse(out)));
          }),
      ),
    );
    expect(
      outs.reduce((n, o) => n + o.overlaps, 0),
      JSON.stringify(outs),
    ).toBe(0);
    expect(outs.reduce((n, o) => n + o.got, 0)).toBeGreaterThan(50);
  }, 60_000);
});

// ---------------------------------------------------------------- corrupt and old files

describe('durability: corrupt and old files through the CLI', () => {
  const one: ScriptTurn[] = [{ text: 'Answer.' }];

  async function sessionWithTwoRuns(): Promise<{ cwd: string; home: string; file: string }> {
    const cwd = workspace();
    const home = tempDir('mini-agent-home-');
    const file = join(cwd, 's.jsonl');
    const a = await jsonRunInProcess(['--session', file], [{ text: 'Reading.', toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'Read.' }], 'first', { cwd, home });
    expect(a.code).toBe(0);
    const b = await jsonRunInProcess(['--session', file], one, 'second', { cwd, home });
    expect(b.code).toBe(0);
    return { cwd, home, file };
  }

  it('a corrupt line in the middle: the run continues, the warning names the line, the file is only appended to', async () => {
    const { cwd, home, file } = await sessionWithTwoRuns();
    const lines = readFileSync(file, 'utf8').split('\n');
    // Line 4 (1-based) is the tool result of the first run: garble it in place.
    lines[3] = lines[3].slice(0, 40) + '#### garbage ####';
    writeFileSync(file, lines.join('\n'));
    const old = readFileSync(file);
    const r = await jsonRunInProcess(['--session', file], one, 'third', { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/line 4 is not valid JSON; skipped/);
    expect(r.events.some((e) => e.type === 'warning' && /line 4 is not valid JSON/.test(e.message))).toBe(true);
    const now = readFileSync(file);
    expect(now.length).toBeGreaterThan(old.length);
    expect(now.subarray(0, old.length).equals(old)).toBe(true);
    withStore(file, (store) => {
      // The garbled entry is skipped; the entry that followed it starts its own branch.
      expect(store.warnings).toHaveLength(2);
      expect(store.warnings[0]).toMatch(/line 4 is not valid JSON; skipped/);
      expect(store.warnings[1]).toMatch(/follows [0-9a-f]{8}, which is missing/);
      expect(userText(store.activePath().at(-2))).toBe('third');
    });

    // Text mode says it too, on stderr.
    writeFileSync(join(cwd, 'one.json'), JSON.stringify({ turns: one }));
    const t2 = await runCli(['--session', file, '--script', join(cwd, 'one.json'), 'fourth'], { cwd, home });
    expect(t2.code, t2.stderr).toBe(0);
    expect(t2.stderr).toMatch(/warning: .*line 4 is not valid JSON; skipped/);
  });

  it('a torn tail: set aside, the next entry starts on a new line, nothing is lost', async () => {
    const { cwd, home, file } = await sessionWithTwoRuns();
    const entriesBefore = withStore(file, (s) => s.entries().map((e) => e.id));
    writeFileSync(file, readFileSync(file, 'utf8') + '{"type":"message","id":"deadbeef","parentId":nu');
    const old = readFileSync(file);
    const r = await jsonRunInProcess(['--session', file], one, 'after the tear', { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(TORN);
    const now = readFileSync(file);
    expect(now.subarray(0, old.length).equals(old)).toBe(true);
    expect(now[old.length]).toBe(0x0a); // the fragment was closed off, not glued to
    withStore(file, (store) => {
      expect(store.warnings).toHaveLength(1);
      expect(store.warnings[0]).toMatch(/is not valid JSON; skipped/);
      expect(
        store
          .entries()
          .slice(0, entriesBefore.length)
          .map((e) => e.id),
      ).toEqual(entriesBefore);
      expect(store.get('deadbeef')).toBeUndefined();
      expect(userText(store.activePath().at(-2))).toBe('after the tear');
      expectValidActivePath(store, 'after a torn tail');
    });
  });

  it('a bad header or a newer version: exit 2 with a clear message; the file is byte for byte unchanged, no lock left', async () => {
    const cwd = workspace();
    const home = tempDir('mini-agent-home-');
    const body = '{"type":"message","id":"00000001","parentId":null,"timestamp":"2024-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}\n';
    const cases: { name: string; text: string; message: RegExp }[] = [
      { name: 'not-json', text: 'this is not json\n' + body, message: /line 1 is not a readable session header/ },
      { name: 'entry-first', text: body + body, message: /line 1 is not a session header/ },
      { name: 'no-version', text: '{"type":"session","id":"x","cwd":"/","timestamp":"t"}\n' + body, message: /no valid "version"/ },
      { name: 'blank-first', text: '\n' + body, message: /header \(line 1\) is missing/ },
      {
        name: 'newer',
        text: `{"type":"session","version":${CURRENT + 1},"id":"future","cwd":"/","timestamp":"t"}\n` + body,
        message: new RegExp(`version ${CURRENT + 1}, newer than this mini-agent understands \\(${CURRENT}\\); upgrade mini-agent`),
      },
    ];
    for (const c of cases) {
      const file = join(cwd, `${c.name}.jsonl`);
      writeFileSync(file, c.text);
      const r = await jsonRunInProcess(['--session', file], one, 'hi', { cwd, home });
      expect(r.code, c.name).toBe(2);
      expect(r.stderr, c.name).toMatch(c.message);
      expect(r.stderr, c.name).toContain('the file was not modified');
      expect(r.stdout, c.name).toBe('');
      expect(readFileSync(file, 'utf8'), c.name).toBe(c.text);
      expect(existsSync(`${file}.lock`), c.name).toBe(false);
      expect(Array.from({ length: CURRENT }, (_, v) => existsSync(`${file}.v${v + 1}.bak`)).some(Boolean), c.name).toBe(false);
      // Readers refuse it the same way.
      const tree = await cliInProcess(['tree', file], { cwd, home });
      expect(tree.code, c.name).toBe(2);
      expect(tree.stderr, c.name).toMatch(c.message);
    }
  });

  it('a version-1 file is migrated: backup with the original bytes, a current-version file with every old entry plus the run', async () => {
    const cwd = workspace();
    const home = tempDir('mini-agent-home-');
    const file = join(cwd, 'old.jsonl');
    const ts = '2024-05-06T07:08:09.000Z';
    const v1 = [
      { type: 'session', version: 1, id: '11111111-2222-3333-4444-555555555555', cwd, timestamp: ts },
      { type: 'message', id: 'aaaa0001', parentId: null, timestamp: ts, message: { role: 'user', content: [{ type: 'text', text: 'old question' }] } },
      {
        type: 'message',
        id: 'aaaa0002',
        parentId: 'aaaa0001',
        timestamp: ts,
        message: { role: 'assistant', content: [{ type: 'text', text: 'old answer' }], stopReason: 'stop', usage: { input: 10, output: 2, cacheRead: 0, cacheWrite: 0, cost: 0 } },
      },
      { type: 'label', id: 'aaaa0003', parentId: null, timestamp: ts, targetId: 'aaaa0001', label: 'start' },
      { type: 'message', id: 'aaaa0004', parentId: 'aaaa0002', timestamp: ts, message: { role: 'user', content: [{ type: 'text', text: 'follow-up' }] } },
      {
        type: 'message',
        id: 'aaaa0005',
        parentId: 'aaaa0004',
        timestamp: ts,
        message: { role: 'assistant', content: [{ type: 'text', text: 'second answer' }], stopReason: 'stop', usage: { input: 20, output: 3, cacheRead: 0, cacheWrite: 0, cost: 0 } },
      },
    ];
    const original = v1.map((e) => JSON.stringify(e)).join('\n') + '\n';
    writeFileSync(file, original);
    const inode = statSync(file).ino;

    const r = await jsonRunInProcess(['--session', file], one, 'new question', { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`migrated .*old\\.jsonl from session format 1 to ${CURRENT}; the original is kept as .*old\\.jsonl\\.v1\\.bak`));
    const backup = `${file}.v1.bak`;
    expect(readFileSync(backup, 'utf8')).toBe(original);
    // Not rewritten in place: the original inode is the backup; the session is a new file.
    expect(statSync(backup).ino).toBe(inode);
    expect(statSync(file).ino).not.toBe(inode);

    const lines = fileLines(file);
    expect(lines[0]).toMatchObject({ type: 'session', version: CURRENT, id: v1[0].id, cwd, timestamp: ts });
    expect(lines.slice(1, v1.length)).toEqual(v1.slice(1));
    withStore(file, (store) => {
      expect(store.warnings).toEqual([]);
      expect(store.labelOf('aaaa0001')).toBe('start');
      const path = store.activePath().map((e) => e.id);
      expect(path.slice(0, 4)).toEqual(['aaaa0001', 'aaaa0002', 'aaaa0004', 'aaaa0005']);
      expect(userText(store.get(path[4]))).toBe('new question');
      expect(store.entries().at(-1)).toMatchObject({ type: 'run', stopReason: 'completed' });
    });

    // The next run finds nothing to migrate and keeps the first backup as it is.
    const r2 = await jsonRunInProcess(['--session', file], one, 'again', { cwd, home });
    expect(r2.code).toBe(0);
    expect(r2.stderr).not.toMatch(/migrated/);
    expect(readFileSync(backup, 'utf8')).toBe(original);
  });

  it('migration drops corrupt lines from the new file only; the backup keeps them', async () => {
    const cwd = workspace();
    const home = tempDir('mini-agent-home-');
    const file = join(cwd, 'old.jsonl');
    const ts = '2024-05-06T07:08:09.000Z';
    const original =
      JSON.stringify({ type: 'session', version: 1, id: 'v1-corrupt', cwd, timestamp: ts }) +
      '\n' +
      JSON.stringify({ type: 'message', id: 'bbbb0001', parentId: null, timestamp: ts, message: { role: 'user', content: [{ type: 'text', text: 'q' }] } }) +
      '\n{not json at all\n';
    writeFileSync(file, original);
    // A second name for the original inode, to prove its bytes are never touched.
    linkSync(file, join(cwd, 'witness'));
    const r = await jsonRunInProcess(['--session', file], one, 'go on', { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(`${file}.v1.bak`, 'utf8')).toBe(original);
    expect(readFileSync(join(cwd, 'witness'), 'utf8')).toBe(original);
    withStore(file, (store) => {
      expect(store.header.version).toBe(CURRENT);
      expect(store.warnings).toEqual([]);
      expect(store.activePath()[0].id).toBe('bbbb0001');
    });
  });
});
