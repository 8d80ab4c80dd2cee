// bash tool benchmarks: a command that prints 100 MB (cat of a 100 MB file of 100-byte lines),
// run through the tool in a child Node process. Peak RSS growth over the call (target < 50 MB),
// and wall time next to the floor `cat FILE > /dev/null` spawned the same way (the same shell and
// spawn options, `SHELL -c COMMAND` in a group of its own, its output not read by Node; target
// ≤ 2×). Shown for information: `cat FILE > FILE2` (what saving the full output costs on this
// disk: the tool's real floor, since its output goes straight to a file) and `cat FILE` through a
// pipe that Node drains and discards (what reading the output in Node would cost). Imported by
// run.mjs; also runs alone: node bench/bash.mjs.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleFromSrc, isMain, median, runAlone } from './lib.mjs';

const MB = 1024 * 1024;

/** The tool, the registry and the spawn details, bundled from src with esbuild (they are not all exported by dist/index.mjs). */
function bundleTool(root, work) {
  return bundleFromSrc({
    root,
    work,
    name: 'bash-api',
    contents: ["export { createBashTool } from './src/tools/bash.ts';", "export { ToolRegistry } from './src/tools/registry.ts';", "export { findShell } from './src/tools/process-group.ts';"],
  });
}

/**
 * The child: `rss` runs one tool call after a warm-up and prints the RSS before it (the hook
 * writes the peak at exit); `times` runs the tool and the floors one after another, `runs` times.
 */
const CHILD = `
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
const [mode, bundle, file, out, runs] = process.argv.slice(2);
const { createBashTool, ToolRegistry, findShell } = await import(bundle);
const reg = new ToolRegistry([createBashTool({ outputDir: () => out })]);
let id = 0;
async function tool(command, bytes = ${100 * MB}) {
  const res = await reg.execute({ type: 'toolCall', id: 'b' + ++id, name: 'bash', arguments: { command } }, { cwd: out, signal: new AbortController().signal });
  if (res.isError || res.details.totalBytes !== bytes) throw new Error('bad tool result: ' + res.content[0].text.slice(0, 300));
  return res;
}
/** Removes the kept full-output file (outside the timing, as the floor's copy is). */
const tidy = (res) => res.details.outputFile && rmSync(res.details.outputFile);
const shell = findShell();
/** The same spawn as the tool's, its output to /dev/null or drained through a pipe. */
function spawned(command, piped) {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, ['-c', command], { cwd: out, detached: true, stdio: ['ignore', piped ? 'pipe' : 'ignore', 'ignore'] });
    child.on('error', reject);
    let bytes = 0;
    if (piped) child.stdout.on('data', (c) => (bytes += c.length));
    child.on('close', (code) => (code === 0 ? resolve(bytes) : reject(new Error(command + ' exited ' + code))));
  });
}
const cat = 'cat ' + JSON.stringify(file);
// Warm: the file is in the page cache, and the tool's code has run once (on 1 MB, so that it is not the peak).
tidy(await tool(cat + ' > /dev/null; head -c 1000000 ' + JSON.stringify(file), 1000000));
if (mode === 'rss') {
  // The peak from here on: the kernel's high-water mark, reset to the current RSS (Linux). Elsewhere
  // maxRSS, an upper bound: it counts the whole life of the process.
  let hwm = () => process.resourceUsage().maxRSS * 1024;
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    hwm = () => Number(/VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
  } catch {}
  const before = process.memoryUsage().rss;
  const res = await tool(cat);
  const peak = hwm();
  tidy(res);
  console.log(JSON.stringify({ before, peak }));
} else {
  const t = { tool: [], devnull: [], pipe: [], file: [] };
  const time = async (key, fn) => { const s = performance.now(); const r = await fn(); t[key].push(performance.now() - s); return r; };
  for (let i = 0; i < Number(runs); i++) {
    await time('devnull', () => spawned(cat + ' > /dev/null', false));
    tidy(await time('tool', () => tool(cat)));
    await time('pipe', async () => { if ((await spawned(cat, true)) !== ${100 * MB}) throw new Error('short pipe'); });
    await time('file', () => spawned(cat + ' > copy.out', false));
    rmSync(out + '/copy.out', { force: true });
  }
  console.log(JSON.stringify(t));
}
`;

function runChild(work, args) {
  const r = spawnSync(process.execPath, [join(work, 'bash-child.mjs'), ...args], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`bash benchmark child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

export async function bashBenchmarks({ root, work, report }) {
  const runs = Number(process.env.BENCH_BASH_RUNS ?? 5);
  const dir = join(work, 'bash');
  const out = join(dir, 'out');
  mkdirSync(out, { recursive: true });
  const bundle = await bundleTool(root, dir);
  writeFileSync(join(work, 'bash-child.mjs'), CHILD);
  // 100 MB of 100-byte lines (99 letters and a newline): 1,048,576 lines, written 1 MB at a time.
  const file = join(dir, 'big.txt');
  const block = Buffer.concat(Array.from({ length: MB / 100 }, () => Buffer.from('a'.repeat(99) + '\n')));
  const fd = openSync(file, 'w');
  for (let written = 0; written < 100 * MB; written += block.length) writeSync(fd, block, 0, Math.min(block.length, 100 * MB - written));
  closeSync(fd);

  // ---- peak RSS growth: a fresh process per measure ----
  // Not maxRSS (rss-hook.mjs): Linux keeps it across fork and exec, so a child of a big parent
  // starts with the parent's RSS as its maximum. The child reads VmHWM instead, reset before the call.
  const growth = [];
  for (let i = 0; i < Math.max(3, Math.ceil(runs / 2)); i++) {
    const o = runChild(work, ['rss', pathToFileURL(bundle).href, file, out]);
    growth.push(o.peak - o.before);
  }
  const g = median(growth) / MB;
  console.log(`${'bash: 100 MB output: peak RSS growth'.padEnd(44)} ${g.toFixed(1).padStart(7)} MB   (median of ${growth.length} processes, max ${(Math.max(...growth) / MB).toFixed(1)} MB)   target < 50 MB  ${g < 50 ? 'ok' : 'MISSED'}`);
  report.record?.('bash: 100 MB output: peak RSS growth', g < 50);

  // ---- wall time against the floors ----
  const t = runChild(work, ['times', pathToFileURL(bundle).href, file, out, String(runs)]);
  const tool = median(t.tool);
  const devnull = median(t.devnull);
  const toFile = median(t.file);
  report('bash: cat of 100 MB through the tool', tool, 'cat > /dev/null', devnull, '≤ 2×', tool <= 2 * devnull);
  report('  floor: cat > file (saving the output)', toFile, 'cat > /dev/null', devnull, 'info', true);
  report('  the tool against cat > file', tool, 'cat > file', toFile, 'info', true);
  report('  floor: cat | Node, chunks discarded', median(t.pipe), 'cat > /dev/null', devnull, 'info', true);
  console.log(
    `${''.padEnd(44)} the command's stdout and stderr are the full-output file itself: the kernel writes the 100 MB to it and Node reads only the end, ` +
      `so the tool costs what cat > file costs (${(toFile / devnull).toFixed(2)}× cat > /dev/null here) plus its fixed work (the file, the group, the tail)`,
  );
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(work, 'bash-child.mjs'), { force: true });
}

// Alone: the same report format as run.mjs.
if (isMain(import.meta.url)) await runAlone('bash', bashBenchmarks);
