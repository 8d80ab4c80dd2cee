// Session benchmarks (issue 4): resume a 100,000-entry session and answer one turn; list
// 1,000 session files of 1 MB; append throughput under the fsync policy. Imported by run.mjs.
import { spawnSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './lib.mjs';

const hook = new URL('./rss-hook.mjs', import.meta.url).pathname;

/** Runs node with the RSS hook; returns wall time and the child's peak RSS. */
function measured(args, opts) {
  const rssFile = join(opts.work, `rss-${process.pid}-${Math.random().toString(16).slice(2)}`);
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--import', hook, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env, BENCH_RSS_FILE: rssFile },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const rss = Number(readFileSync(rssFile, 'utf8'));
  rmSync(rssFile);
  return { ms, rss, stdout: r.stdout };
}

/** A session file of `count` alternating messages, in the format `version` (the current one unless said). */
function sessionLines(count, { id = 'bench', withRun = true, pad = 380, version } = {}) {
  const lines = [JSON.stringify({ type: 'session', version, id, cwd: '/bench', timestamp: '2026-11-29T00:00:00.000Z' })];
  let parent = null;
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(pad / 27) + 1).slice(0, pad);
  for (let i = 0; i < count; i++) {
    const eid = (i + 1).toString(16).padStart(8, '0');
    const message =
      i % 2 === 0 ? { role: 'user', content: [{ type: 'text', text: filler }] } : { role: 'assistant', content: [{ type: 'text', text: filler }], stopReason: 'stop', usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: 0 } };
    lines.push(JSON.stringify({ type: 'message', id: eid, parentId: parent, timestamp: '2026-11-29T00:00:00.000Z', message }));
    parent = eid;
  }
  if (withRun) {
    const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: 0 };
    const stats = { usage, turns: 1, toolCalls: 0, toolErrors: 0, compactions: 0, wallTimeMs: 10 };
    lines.push(
      JSON.stringify({
        type: 'run',
        id: 'ffffffff',
        parentId: null,
        timestamp: '2026-11-29T00:00:00.000Z',
        runId: 'r',
        startedAt: '2026-11-29T00:00:00.000Z',
        durationMs: 10,
        stopReason: 'completed',
        turns: 1,
        toolCalls: 0,
        toolErrors: 0,
        usage,
        leafId: parent,
        snapshot: { entries: count, branches: 1, name: null, firstUserMessage: filler.slice(0, 200), stats: { session: stats, activePath: stats } },
      }),
    );
  }
  return lines.join('\n') + '\n';
}

export async function sessionBenchmarks({ root, work, report }) {
  const bin = join(root, 'bin', 'mini-agent');
  const runs = Number(process.env.BENCH_SESSION_RUNS ?? 3);
  const lib = await import(join(root, 'dist', 'index.mjs'));
  const version = lib.SESSION_FORMAT_VERSION;

  // ---- resume 100,000 entries + one scripted turn, vs JSON.parse line by line ----
  {
    const cwd = join(work, 'resume');
    mkdirSync(cwd, { recursive: true });
    const file = join(cwd, 'big.jsonl');
    const text = sessionLines(100_000, { version });
    const older = sessionLines(100_000, { version: version - 1 });
    writeFileSync(join(cwd, 'one.json'), JSON.stringify({ turns: [{ text: 'ok' }] }));
    const floorScript = join(cwd, 'floor.mjs');
    writeFileSync(floorScript, `import { readFileSync } from 'node:fs';\nconst out = [];\nfor (const l of readFileSync(process.argv[2], 'utf8').split('\\n')) if (l) out.push(JSON.parse(l));\nif (out.length < 2) process.exit(1);\n`);
    const cli = [];
    const floor = [];
    for (let i = 0; i < runs; i++) {
      writeFileSync(file, text); // fresh each time, so every resume loads the same 100,000 entries
      floor.push(measured([floorScript, file], { cwd, work }));
      cli.push(measured([bin, '--session', file, '--script', 'one.json', 'one more turn'], { cwd, work, env: { MINI_AGENT_HOME: join(work, 'home') } }));
    }
    const t = median(cli.map((r) => r.ms));
    const f = median(floor.map((r) => r.ms));
    report('resume 100,000 entries + 1 turn: time', t, 'JSON.parse lines', f, '≤ 2×', t / f <= 2);
    const rss = median(cli.map((r) => r.rss));
    const frss = median(floor.map((r) => r.rss));
    console.log(
      `${'resume 100,000 entries + 1 turn: peak RSS'.padEnd(44)} ${(rss / 1024).toFixed(0).padStart(7)} MB   floor JSON.parse lines ${(frss / 1024).toFixed(0).padStart(4)} MB   ratio ${(rss / frss).toFixed(2)}×   target ≤ 2×  ${rss / frss <= 2 ? 'ok' : 'MISSED'}`,
    );
    report.record('resume 100,000 entries: peak RSS', rss / frss <= 2);
    // The same resume of a file one format older: the one-time migration (a new file, the
    // original kept as a backup) comes first. Shown, not targeted: it happens once per file.
    const migrated = [];
    for (let i = 0; i < runs; i++) {
      writeFileSync(file, older);
      migrated.push(measured([bin, '--session', file, '--script', 'one.json', 'one more turn'], { cwd, work, env: { MINI_AGENT_HOME: join(work, 'home') } }));
      rmSync(`${file}.v${version - 1}.bak`, { force: true });
    }
    const m = median(migrated.map((r) => r.ms));
    report(`  … from format ${version - 1} (migrated once)`, m, 'JSON.parse lines', f, '—', true);
  }

  // ---- `sessions` over 1,000 files of 1 MB ----
  {
    const home = join(work, 'home-list');
    const cwd = join(work, 'listing');
    mkdirSync(cwd, { recursive: true });
    const dir = lib.sessionsDir(cwd, { MINI_AGENT_HOME: home });
    mkdirSync(dir, { recursive: true });
    const oneMb = sessionLines(1720, { pad: 400, version }); // ~1 MB
    for (let i = 0; i < 1000; i++) {
      writeFileSync(join(dir, `2026-11-29T00-00-${String(i).padStart(4, '0')}_${i.toString(16).padStart(8, '0')}-bench.jsonl`), oneMb.replace('"id":"bench"', `"id":"${i.toString(16).padStart(8, '0')}-bench"`));
    }
    const sizeMb = (Buffer.byteLength(oneMb) / 1024 / 1024).toFixed(2);
    const floorT = [];
    const times = [];
    for (let i = 0; i < runs; i++) {
      floorT.push(measured(['-e', '0'], { cwd, work }).ms);
      const r = measured([bin, 'sessions', '--json'], { cwd, work, env: { MINI_AGENT_HOME: home } });
      if (JSON.parse(r.stdout).length !== 1000) throw new Error('sessions did not list 1000 files');
      times.push(r.ms);
    }
    const t = median(times);
    report(`sessions: 1,000 files of ${sizeMb} MB`, t, 'node -e 0', median(floorT), '< 1 s', t < 1000);
    rmSync(home, { recursive: true, force: true });
  }

  // ---- append throughput ----
  {
    const lib = await import(join(root, 'dist', 'index.mjs'));
    const n = 3000;
    const msg = (i) => ({ role: i % 3 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text: 'x'.repeat(300) }], ...(i % 3 === 0 ? {} : { stopReason: 'stop', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0 } }) });
    const rate = (syncEvery) => {
      const file = join(work, `append-${syncEvery}.jsonl`);
      rmSync(file, { force: true });
      const store = lib.SessionStore.create(file, { cwd: work });
      const t = performance.now();
      for (let i = 0; i < n; i++) {
        store.appendMessage(msg(i));
        if (syncEvery && (i + 1) % syncEvery === 0) store.sync();
      }
      store.close();
      return n / ((performance.now() - t) / 1000);
    };
    // Floor: the same lines with raw appends and no fsync.
    const rawFile = join(work, 'append-raw.jsonl');
    const fd = openSync(rawFile, 'a');
    const line = JSON.stringify({ type: 'message', id: '00000000', parentId: null, timestamp: new Date().toISOString(), message: msg(1) }) + '\n';
    const t = performance.now();
    for (let i = 0; i < n; i++) writeSync(fd, line);
    fsyncSync(fd);
    closeSync(fd);
    const raw = n / ((performance.now() - t) / 1000);
    const policy = rate(3); // the policy: fsync at the end of every turn (~3 entries a turn)
    const every = rate(1);
    const never = rate(0);
    const fmt = (x) => `${Math.round(x).toLocaleString('en')}/s`;
    console.log(`${'append throughput (fsync every turn ≈ 3)'.padEnd(44)} ${fmt(policy).padStart(10)}   raw write ${fmt(raw)}   fsync every entry ${fmt(every)}   no fsync ${fmt(never)}`);
  }
}
