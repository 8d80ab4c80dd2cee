// Helpers shared by the benchmarks: the median and a timing loop, bundling parts of src with
// esbuild (for what dist/index.mjs does not export), the report line run.mjs prints, and running
// one benchmark module alone (`node bench/NAME.mjs`) with that same report.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository's root: the folder above bench/. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The median of the numbers `xs` (the upper middle one of an even count); `xs` is left as it is. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median wall time (ms) of the synchronous `fn` over `runs` runs, after `warm` untimed ones. */
export function timed(fn, runs, warm = 5) {
  for (let i = 0; i < warm; i++) fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

/** Median wall time (ms) of the async `fn` over `runs` awaited runs, after `warm` untimed ones. */
export async function timedAsync(fn, runs, warm = 0) {
  for (let i = 0; i < warm; i++) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

/**
 * Bundles the modules that the export lines `contents` name (paths relative to `root`, as
 * "export { x } from './src/….ts';") with esbuild into `work/NAME.mjs`, an ESM file for Node 20
 * with every dependency inlined, and returns that file's path. esbuild is loaded only when called.
 */
export async function bundleFromSrc({ root, work, name, contents }) {
  const { build } = await import('esbuild');
  const outfile = join(work, `${name}.mjs`);
  await build({
    stdin: { contents: [contents].flat().join('\n'), resolveDir: root, sourcefile: `${name}.ts`, loader: 'ts' },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    // CommonJS dependencies (yaml) require Node's built-ins: give the bundle a real require.
    banner: { js: "import { createRequire as __bench_cr } from 'node:module'; const require = __bench_cr(import.meta.url);" },
  });
  return outfile;
}

/** A duration in ms as the reports show it: µs below 1 ms, ms below 1 s, else s. */
export function fmtMs(ms) {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 1000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** One line of the report: the figure, its floor, their ratio, the target and whether it was met. */
export function reportLine(name, value, floorName, floor, target, pass) {
  return `${name.padEnd(44)} ${fmtMs(value).padStart(10)}   floor ${floorName} ${fmtMs(floor).padStart(9)}   ratio ${(value / floor).toFixed(2)}×   target ${target}  ${pass ? 'ok' : 'MISSED'}`;
}

/** Whether the module of `metaUrl` (its import.meta.url) is the one node was started with. */
export function isMain(metaUrl) {
  return Boolean(process.argv[1]) && metaUrl === pathToFileURL(process.argv[1]).href;
}

/**
 * Runs one benchmark module alone, as run.mjs would: `bench({ root, work, lib, report })` with a
 * fresh work dir under the system's temp dir (`mini-agent-bench-NAME-…`, removed after) and a
 * `report(name, value, floorName, floor, target, pass)` that prints the report line.
 * Options: `lib`, also import dist/index.mjs (left undefined when it is not built); `summary`, give
 * `report` a `record(name, pass)` and end with a line that counts the figures and those missed.
 * Without `summary`, `report.record` is undefined, and each benchmark does what it does then.
 */
export async function runAlone(name, bench, { lib: withLib = false, summary = false } = {}) {
  const root = ROOT;
  const work = mkdtempSync(join(tmpdir(), `mini-agent-bench-${name}-`));
  const results = [];
  const report = (figure, value, floorName, floor, target, pass) => {
    if (summary) results.push({ name: figure, pass });
    console.log(reportLine(figure, value, floorName, floor, target, pass));
  };
  if (summary) report.record = (figure, pass) => results.push({ name: figure, pass });
  let lib;
  if (withLib) {
    try {
      lib = await import(pathToFileURL(join(root, 'dist', 'index.mjs')).href);
    } catch {
      lib = undefined; // not built: the benchmark bundles what it needs from src
    }
  }
  try {
    await bench({ root, work, lib, report });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (summary) {
    const missed = results.filter((r) => !r.pass);
    console.log(`\n${results.length} figures, ${missed.length} missed their target${missed.length ? ': ' + missed.map((r) => r.name).join('; ') : ''}`);
  }
}
