// read_file benchmarks (issue 10): the end of a 1 GB text log, read by lines from the end (a
// negative offset) and by bytes (a byteOffset near the end), each in a fresh child Node process
// (its first call, so with a cold JIT) that reports the call's time and its RSS growth, next to a
// floor measured in the same process: open + one positioned readSync of the same bytes + close.
// Shown as information: a positive line offset near the end, which must stream every line before
// it (skipped, with the estimate, when that would take more than a few seconds).
// Imported by run.mjs; also runs alone: node bench/read-file.mjs (no build needed).
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { bundleFromSrc, isMain, median, runAlone } from './lib.mjs';

const GB = 1024 ** 3;
const LAST_LINES = 5000; // numbered lines that end the file, to check what the reads return

/** read_file and the registry, bundled from src with esbuild (the bench measures the source as it is, built or not). */
function bundleApi(root, work) {
  const contents = ["export { createReadFileTool } from './src/tools/read-file.ts';", "export { ToolRegistry } from './src/tools/registry.ts';"];
  return bundleFromSrc({ root, work, name: 'read-file-api', contents });
}

/** One log line of a realistic length (about 100 bytes), varied by `i`. */
function logLine(i) {
  const level = ['INFO ', 'INFO ', 'INFO ', 'DEBUG', 'WARN ', 'ERROR'][i % 6];
  const path = ['/api/items', '/api/users', '/health', '/api/orders/search', '/static/app.js'][i % 5];
  const t = `2026-11-29T${String((i >> 12) % 24).padStart(2, '0')}:${String((i >> 6) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}Z`;
  return `${t} ${level} [worker-${i % 8}] ${i % 7 ? 'GET' : 'POST'} ${path}/${(i * 7919) % 100000} ${i % 13 ? 200 : 404} ${(i * 31) % 977}ms req=${((i * 2654435761) >>> 0).toString(16)}\n`;
}

/**
 * Writes a text file of at least `size` bytes: 4 MB blocks of log lines (the same block over and
 * over, which costs the reader the same as fresh text), then LAST_LINES numbered lines.
 * Returns the file's size and its line count.
 */
function writeLog(file, size) {
  let block = '';
  let blockLines = 0;
  while (block.length < 4 * 1024 * 1024) block += logLine(blockLines++);
  const blockBuf = Buffer.from(block);
  const lastBuf = Buffer.from(Array.from({ length: LAST_LINES }, (_, i) => `last ${i + 1}: ${logLine(i)}`).join(''));
  const blocks = Math.ceil((size - lastBuf.length) / blockBuf.length);
  const fd = openSync(file, 'w');
  try {
    for (let i = 0; i < blocks; i++) writeSync(fd, blockBuf);
    writeSync(fd, lastBuf);
  } finally {
    closeSync(fd);
  }
  return { size: blocks * blockBuf.length + lastBuf.length, lines: blocks * blockLines + LAST_LINES };
}

// The child: one read_file call through the registry (timed, RSS sampled around it), the same call
// again (warm), then the floor: the same bytes with one positioned read or, with floor "prefix",
// every byte up to the window's end read in 1 MB chunks (what any forward scan must read).
const CHILD = `
import { closeSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
const [api, file, argsJson, floorKind] = process.argv.slice(2);
const { createReadFileTool, ToolRegistry } = await import(api);
const registry = new ToolRegistry([createReadFileTool()]);
const call = { type: 'toolCall', id: 'bench', name: 'read_file', arguments: { path: basename(file), ...JSON.parse(argsJson) } };
// The peak during the call: the kernel's high-water mark, reset to the current RSS (Linux); elsewhere
// maxRSS, an upper bound (and on Linux inherited from the bench runner across exec, so not used there).
let hwm = () => process.resourceUsage().maxRSS * 1024;
try {
  writeFileSync('/proc/self/clear_refs', '5');
  hwm = () => Number(/VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
} catch {}
const rssBefore = process.memoryUsage().rss;
let t = performance.now();
const result = await registry.execute(call, { cwd: dirname(file), signal: new AbortController().signal });
const ms = performance.now() - t;
const peak = hwm();
const text = result.content.map((c) => c.text).join('');
if (result.isError) throw new Error(text);
t = performance.now();
await registry.execute({ ...call, id: 'again' }, { cwd: dirname(file), signal: new AbortController().signal });
const warmMs = performance.now() - t;
const { endByte } = result.details;
const startByte = floorKind === 'prefix' ? 0 : result.details.startByte;
t = performance.now();
const fd = openSync(file, 'r');
const buf = Buffer.alloc(Math.min(endByte - startByte, 1024 * 1024));
for (let at = startByte; at < endByte; ) at += readSync(fd, buf, 0, Math.min(buf.length, endByte - at), at);
closeSync(fd);
const floorMs = performance.now() - t;
process.stdout.write(JSON.stringify({ ms, warmMs, floorMs, rssGrowth: peak - rssBefore, details: result.details, first: text.slice(0, text.indexOf('\\n')) }));
`;

function runChild(work, api, file, args, floor = 'same bytes') {
  const script = join(work, 'read-file-child.mjs');
  writeFileSync(script, CHILD);
  const r = spawnSync(process.execPath, [script, pathToFileURL(api).href, file, JSON.stringify(args), floor === 'same bytes' ? 'range' : 'prefix'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`read_file ${JSON.stringify(args)} in a child exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function readFileBenchmarks({ root, work, report }) {
  const runs = Number(process.env.BENCH_READ_FILE_RUNS ?? 5);
  const scanBudgetMs = Number(process.env.BENCH_READ_FILE_SCAN_MAX_MS ?? 5000);
  const record = report.record ?? (() => {});
  const api = await bundleApi(root, work);
  const file = join(work, 'huge.log');
  try {
    const started = performance.now();
    const { size, lines } = writeLog(file, GB);
    console.log(`${'read_file: 1 GB log written'.padEnd(44)} ${mb(size)}, ${lines.toLocaleString('en')} lines of ~${Math.round(size / lines)} B, in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // ---- the two reads near the end: < 100 ms and < 20 MB of RSS growth each ----
    const cases = [
      { name: 'read_file: last 100 lines of 1 GB (offset -100)', args: { offset: -100 }, first: `last ${LAST_LINES - 99}: ` },
      { name: 'read_file: 50 KB at 1 GB - 100 KB (byteOffset)', args: { byteOffset: size - 100 * 1024 }, first: undefined },
    ];
    for (const c of cases) {
      const results = Array.from({ length: runs }, () => runChild(work, api, file, c.args));
      if (c.first !== undefined && !results[0].first.startsWith(c.first)) throw new Error(`${c.name}: read "${results[0].first}", expected "${c.first}…"`);
      const ms = median(results.map((r) => r.ms));
      const floor = median(results.map((r) => r.floorMs));
      const rss = Math.max(...results.map((r) => r.rssGrowth));
      report(c.name, ms, 'positioned readSync', floor, '< 100 ms', ms < 100);
      report('  … warm (the same call again)', median(results.map((r) => r.warmMs)), 'positioned readSync', floor, '— (info)', true);
      const bytes = results[0].details.endByte - results[0].details.startByte;
      console.log(`${'  … RSS growth during the call (max of runs)'.padEnd(44)} ${mb(rss).padStart(10)}   target < 20 MB  ${rss < 20 * 1024 * 1024 ? 'ok' : 'MISSED'}   (${bytes} bytes shown; first call in a fresh process)`);
      record(`${c.name}: RSS growth`, rss < 20 * 1024 * 1024);
    }

    // ---- information: a positive line offset near the end must stream every line before it ----
    // Estimated first from a window 1/16 into the file; run only if the estimate fits the budget.
    const probeLine = Math.floor(lines / 16);
    const probe = runChild(work, api, file, { offset: probeLine, limit: 100 }, 'prefix');
    const estimate = (probe.ms * lines) / probeLine;
    report(`read_file: offset=${probeLine.toLocaleString('en')} (1/16 of 1 GB)`, probe.ms, 'readSync to there', probe.floorMs, '— (info)', true);
    if (estimate > scanBudgetMs) {
      console.log(
        `${'read_file: positive offset near the end'.padEnd(44)} skipped: estimated ${(estimate / 1000).toFixed(1)} s (over the ${(scanBudgetMs / 1000).toFixed(0)} s budget, BENCH_READ_FILE_SCAN_MAX_MS); a negative offset reads the same lines in the time above`,
      );
    } else {
      const near = runChild(work, api, file, { offset: lines - 99 }, 'prefix');
      if (!near.first.startsWith(`last ${LAST_LINES - 99}: `)) throw new Error(`positive offset near the end read "${near.first}"`);
      report(`read_file: offset=${(lines - 99).toLocaleString('en')} (last 100)`, near.ms, 'readSync to there', near.floorMs, '— (info)', true);
      console.log(`${'  … RSS growth during the call'.padEnd(44)} ${mb(near.rssGrowth).padStart(10)}   (streams all ${mb(size)} before the window)`);
    }
  } finally {
    rmSync(file, { force: true });
  }
}

// Alone: the same report format as run.mjs, and a closing line that counts the figures missed.
if (isMain(import.meta.url)) await runAlone('read-file', readFileBenchmarks, { summary: true });
