// npm run bench: benchmarks, not tests. Every figure is printed next to a floor
// measured in the same run on the same machine, and as a ratio against it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { median, reportLine } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'mini-agent');
const lib = await import(join(root, 'dist', 'index.mjs'));
const work = mkdtempSync(join(tmpdir(), 'mini-agent-bench-'));
const results = [];

function report(name, value, floorName, floor, target, pass) {
  results.push({ name, value, floor, ratio: value / floor, pass });
  console.log(reportLine(name, value, floorName, floor, target, pass));
}
function timeSpawn(cmd, args, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = spawnSync(cmd, args, { stdio: 'ignore' });
    times.push(performance.now() - t);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
  }
  return median(times);
}

// ---- 1. CLI cold start ----
{
  const n = Number(process.env.BENCH_SPAWNS ?? 21);
  timeSpawn(process.execPath, ['-e', '0'], 3); // warm the page cache
  timeSpawn(process.execPath, [bin, '--version'], 3);
  const floor = timeSpawn(process.execPath, ['-e', '0'], n);
  const cli = timeSpawn(process.execPath, [bin, '--version'], n);
  report('cold start: mini-agent --version (median)', cli, 'node -e 0', floor, '≤ 1.5×', cli / floor <= 1.5);
}

// ---- 2. Session load ----
function makeSessionFile(file, count) {
  // ~500-byte entries: user/assistant/toolResult in a chain, as a real session has.
  const lines = [JSON.stringify({ type: 'session', version: 1, id: 'bench', cwd: '/bench', timestamp: new Date().toISOString() })];
  let parent = null;
  const filler = 'lorem ipsum dolor sit amet '.repeat(14);
  for (let i = 0; i < count; i++) {
    const id = i.toString(16).padStart(8, '0');
    const role = i % 3 === 0 ? 'user' : i % 3 === 1 ? 'assistant' : 'toolResult';
    const message =
      role === 'assistant'
        ? { role, content: [{ type: 'text', text: filler.slice(0, 300) }], stopReason: 'stop', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0 } }
        : role === 'user'
          ? { role, content: [{ type: 'text', text: filler.slice(0, 380) }] }
          : { role, toolCallId: 'c' + i, toolName: 'read_file', content: [{ type: 'text', text: filler.slice(0, 330) }], isError: false };
    lines.push(JSON.stringify({ type: 'message', id, parentId: parent, timestamp: '2026-11-29T00:00:00.000Z', message }));
    parent = id;
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return Buffer.byteLength(lines.join('\n')) / count;
}
function rawParse(file) {
  const text = readFileSync(file, 'utf8');
  const out = [];
  for (const line of text.split('\n')) if (line) out.push(JSON.parse(line));
  return out.length;
}
for (const count of [10_000, 100_000]) {
  const file = join(work, `s${count}.jsonl`);
  const avg = makeSessionFile(file, count);
  const runs = count > 10_000 ? 5 : 11;
  const floorTimes = [];
  const loadTimes = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    rawParse(file);
    floorTimes.push(performance.now() - t);
    t = performance.now();
    const store = lib.SessionStore.open(file);
    loadTimes.push(performance.now() - t);
    if (store.activePath().length !== count) throw new Error('bad load');
  }
  const load = median(loadTimes);
  const target = count === 100_000 ? '< 1 s' : '—';
  report(`session load: ${count.toLocaleString('en')} entries (~${Math.round(avg)} B)`, load, 'JSON.parse lines', median(floorTimes), target, count === 100_000 ? load < 1000 : true);
}

// ---- 3. Projection per turn at 10,000 entries ----
{
  const file = join(work, 's10000.jsonl');
  const store = lib.SessionStore.open(file);
  const iterations = 300;
  for (let i = 0; i < 20; i++) lib.projectMessages(store.activePath());
  let t = performance.now();
  let n = 0;
  for (let i = 0; i < iterations; i++) n += lib.projectMessages(store.activePath()).length;
  const perTurn = (performance.now() - t) / iterations;
  // Floor: walking the same entries and collecting their messages, with no tree logic.
  const entries = store.entries();
  t = performance.now();
  for (let i = 0; i < iterations; i++) n += entries.map((e) => e.message).length;
  const floor = (performance.now() - t) / iterations;
  if (n === 0) throw new Error('no messages');
  report('projection per turn: 10,000-entry path', perTurn, 'array map', floor, '< 2 ms', perTurn < 2);
}

// ---- 4. Model adapters (issue 3) ----
{
  const { adapterBenchmarks } = await import('./adapters.mjs');
  const fmtBytes = (n) => (n < 1 << 20 ? `${(n / 1024).toFixed(0)} KB` : `${(n / (1 << 20)).toFixed(1)} MB`);
  const { linear } = await adapterBenchmarks(lib, report, fmtBytes);
  results.push({ name: 'tool-call arguments grow linearly', pass: linear });
}

// ---- 5. Sessions (issue 4) ----
{
  const { sessionBenchmarks } = await import('./sessions.mjs');
  report.record = (name, pass) => results.push({ name, pass });
  await sessionBenchmarks({ root, work, report });
}

// ---- 6. The application layer and RPC mode (issue 8) ----
{
  const { appBenchmarks } = await import('./app.mjs');
  await appBenchmarks({ root, work, lib, report });
}

// ---- 7. Compaction ----
{
  const { compactionBenchmarks } = await import('./compaction.mjs');
  await compactionBenchmarks({ root, work, lib, report });
}

// ---- 8. The coding tools (issue 10) ----
{
  const { readFileBenchmarks } = await import('./read-file.mjs');
  await readFileBenchmarks({ root, work, report });
  const { editBenchmarks } = await import('./edit.mjs');
  await editBenchmarks({ root, work, report });
  const { bashBenchmarks } = await import('./bash.mjs');
  await bashBenchmarks({ root, work, report });
  const { bashCheckpointBenchmarks } = await import('./bash-checkpoints.mjs');
  await bashCheckpointBenchmarks({ root, work, report });
  const { sandboxBenchmarks } = await import('./sandbox.mjs');
  await sandboxBenchmarks({ root, work, report });
  const { searchBenchmarks } = await import('./search.mjs');
  await searchBenchmarks({ root, work, report });
  const { permissionBenchmarks } = await import('./permissions.mjs');
  await permissionBenchmarks({ root, work, report });
}

// ---- 9. The interactive mode (issue 11) ----
{
  const { markdownBenchmarks } = await import('./markdown.mjs');
  await markdownBenchmarks({ root, work, report });
  const { editorBenchmarks } = await import('./editor.mjs');
  await editorBenchmarks({ root, work, report });
  const { conversationBenchmarks } = await import('./conversation.mjs');
  await conversationBenchmarks({ root, work, report });
}

// ---- 10. Extensions: MCP, context files, skills (issue 12) ----
{
  const { extensionBenchmarks } = await import('./extensions.mjs');
  await extensionBenchmarks({ root, work, report });
}

// ---- 11. ACP mode (issue 13) ----
{
  const { acpBenchmarks } = await import('./acp.mjs');
  await acpBenchmarks({ root, work, report });
}

// ---- 12. The first turn: start-up and time to the first request (issue 14) ----
{
  const { firstTurnBenchmarks } = await import('./first-turn.mjs');
  await firstTurnBenchmarks({ root, work, report });
}

// ---- 13. The first turn against a provider BENCH_RTT_MS away, over TLS (issue 14: the overlap) ----
{
  const { remoteTurnBenchmarks } = await import('./remote-turn.mjs');
  await remoteTurnBenchmarks({ root, work, report });
}

// ---- 14. Prompt caching: a 20-turn session's requests billed with and without caching (issue 23) ----
{
  const { cachingBenchmarks } = await import('./caching.mjs');
  await cachingBenchmarks({ root, work, lib, report });
}

// ---- 15. A lean request: the first request of the read1 case, in bytes (issue 23 §5) ----
{
  const { requestSizeBenchmarks } = await import('./request-size.mjs');
  await requestSizeBenchmarks({ root, work, report });
}

rmSync(work, { recursive: true, force: true });
const missed = results.filter((r) => !r.pass);
console.log(`\n${results.length} benchmarks, ${missed.length} missed their target${missed.length ? ': ' + missed.map((r) => r.name).join('; ') : ''}`);
mkdirSync(join(root, 'bench', '.data'), { recursive: true });
writeFileSync(join(root, 'bench', '.data', 'last.json'), JSON.stringify({ at: new Date().toISOString(), node: process.version, results }, null, 2));
