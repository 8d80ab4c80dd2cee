// Search tool benchmarks (issue 10): grep for a literal, and find by glob, over a generated tree
// of 50,000 source-like files (about 200 MB, no .gitignore, so every file is searched), each next
// to the system's own tool spawned on the same tree (`grep -rn`, `find -name`), after a warm-up
// so both read from the page cache. grep must also find exactly the lines `grep -rn` finds.
// Imported by run.mjs; also runs alone: node bench/search.mjs (no build needed).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { bundleFromSrc, isMain, median, runAlone } from './lib.mjs';

const FILES = 50_000;
const LITERAL = 'zqxNeedle42';

/** The tools and the registry, bundled from src with esbuild (they are not exported by dist/index.mjs), and the seeded random source. */
async function searchApi(root, work) {
  const contents = [
    "export { createGrepTool } from './src/tools/grep.ts';",
    "export { createFindTool } from './src/tools/find.ts';",
    "export { ToolRegistry } from './src/tools/registry.ts';",
    "export { seededRandom } from './test/support/seeded-random.ts';",
  ];
  return import(pathToFileURL(await bundleFromSrc({ root, work, name: 'search-api', contents })).href);
}

const WORDS =
  'session compaction summary request response token window config impl repository dependency performance error message directory file update test property value number string agent model provider user tool result branch entry path estimate'.split(
    ' ',
  );

/**
 * Writes the tree: nested folders (8 at the top, up to 5 deep), 50,000 files of 20–160 lines of
 * code-like text drawn from a pool, the literal planted on about 600 lines. Returns its size.
 */
function generateTree(dir, r) {
  const pool = Array.from({ length: 5000 }, () =>
    r.pick([
      () => `  const ${r.pick(WORDS)}Count = ${r.pick(WORDS)}.map((e) => e.${r.pick(WORDS)} ?? ${r.int(0, 999)});`,
      () => `  if (${r.pick(WORDS)}.length > ${r.int(0, 99)} && !${r.pick(WORDS)}) return { ok: false, reason: '${r.pick(WORDS)}' };`,
      () => `export function ${r.pick(WORDS)}Of(path: string[], limit = ${r.int(1, 64)}): number {`,
      () => `    throw new Error(\`${r.pick(WORDS)} ${r.pick(WORDS)} failed: \${${r.pick(WORDS)}}\`);`,
      () => '}',
      () => '',
      () => `// ${Array.from({ length: r.int(3, 12) }, () => r.pick(WORDS)).join(' ')}.`,
    ])(),
  );
  const folders = [];
  const grow = (d, depth) => {
    folders.push(d);
    if (depth >= 5) return;
    const k = depth === 0 ? 8 : r.int(depth < 2 ? 4 : 0, depth < 3 ? 7 : 3);
    for (let i = 0; i < k; i++) grow(join(d, `${r.pick(WORDS)}${i}`), depth + 1);
  };
  grow(dir, 0);
  for (const d of folders) mkdirSync(d, { recursive: true });
  let bytes = 0;
  for (let f = 0; f < FILES; f++) {
    const lines = [];
    for (let i = r.int(20, 160); i > 0; i--) lines.push(r.next() < 0.00013 ? `  const marker = "${LITERAL}"; // ${r.pick(WORDS)}` : r.pick(pool));
    const text = lines.join('\n') + '\n';
    bytes += text.length;
    writeFileSync(join(r.pick(folders), `${r.pick(WORDS)}-${f}.${r.pick(['ts', 'ts', 'js', 'md', 'json'])}`), text);
  }
  return { bytes, folders: folders.length };
}

/** Median wall time of a spawned command (output drained), after one warm-up; and its last stdout. */
function timeSpawn(cmd, args, runs, env) {
  const once = () => {
    const t = performance.now();
    const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, env });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms, stdout: r.stdout };
  };
  once();
  const times = [];
  let last;
  for (let i = 0; i < runs; i++) {
    last = once();
    times.push(last.ms);
  }
  return { ms: median(times), stdout: last.stdout };
}

/** Median wall time of a tool call through the registry, after one warm-up; and its last result. */
async function timeCall(registry, cwd, name, args, runs) {
  const once = async () => {
    const t = performance.now();
    const res = await registry.execute({ type: 'toolCall', id: 'bench', name, arguments: args }, { cwd, signal: new AbortController().signal });
    const ms = performance.now() - t;
    if (res.isError) throw new Error(`${name} failed: ${res.content[0].text}`);
    return { ms, res };
  };
  await once();
  const times = [];
  let last;
  for (let i = 0; i < runs; i++) {
    last = await once();
    times.push(last.ms);
  }
  return { ms: median(times), res: last.res };
}

export async function searchBenchmarks({ root, work, report }) {
  const api = await searchApi(root, work);
  const runs = Number(process.env.BENCH_SEARCH_RUNS ?? 5);
  const record = report.record ?? ((name, pass) => console.log(`${name.padEnd(44)} ${pass ? 'ok' : 'MISSED'}`));
  const dir = join(work, 'search-tree');
  const t0 = performance.now();
  const { bytes, folders } = generateTree(dir, api.seededRandom(10));
  console.log(`${''.padEnd(44)} search tree: ${FILES.toLocaleString('en')} files in ${folders.toLocaleString('en')} folders, ${(bytes / 2 ** 20).toFixed(1)} MB (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  // No output cap here (neither the tool's nor the registry's): every match is shown, so the
  // whole set can be compared, and the figure includes formatting all of it.
  const huge = { maxLines: 1e9, maxBytes: 1e12 };
  const registry = new api.ToolRegistry([api.createGrepTool({ limits: huge }), api.createFindTool()], { limits: huge });

  // ---- grep for a literal ----
  {
    const floor = timeSpawn('grep', ['-rn', '--', LITERAL, dir], runs);
    const tool = await timeCall(registry, dir, 'grep', { pattern: LITERAL, literal: true, limit: 1000 }, runs);
    const theirs = new Set(
      floor.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) =>
          l
            .slice(dir.length + 1)
            .split(':')
            .slice(0, 2)
            .join(':'),
        ),
    );
    const text = tool.res.content[0].text;
    const ours = new Set(
      text
        .split('\n')
        .filter((l) => l.includes(LITERAL))
        .map((l) => l.split(':').slice(0, 2).join(':')),
    );
    const same = theirs.size === ours.size && [...theirs].every((k) => ours.has(k)) && tool.res.details.matches === theirs.size;
    const ratio = tool.ms / floor.ms;
    report(`grep literal: ${FILES.toLocaleString('en')} files, ${(bytes / 2 ** 20).toFixed(0)} MB`, tool.ms, 'grep -rn', floor.ms, '≤ 2×', ratio <= 2 && same);
    record(`grep: the same ${theirs.size} path:line matches as grep -rn`, same);
    if (!same) console.log(`${''.padEnd(44)} MISMATCH: grep -rn found ${theirs.size}, the tool ${ours.size} (details.matches ${tool.res.details.matches})`);
    // Beside it, no target: the same search as a regular expression (the whole-text scan, no byte prefilter).
    const regex = await timeCall(registry, dir, 'grep', { pattern: 'zqxNeedle4\\d', limit: 1000 }, runs);
    report('  … as a regular expression (zqxNeedle4\\d)', regex.ms, 'grep -rn', floor.ms, '—', regex.res.details.matches === theirs.size);
    // The regex engine (issue 22): in a worker thread, under a time budget, against the same
    // search on the main thread (the engine before, which no abort could stop mid-file).
    const before = new api.ToolRegistry([api.createGrepTool({ limits: huge, engine: { inThread: true } })], { limits: huge });
    for (const pattern of ['zqxNeedle4\\d', 'const \\w+Count = \\w+\\.map']) {
      const inThread = await timeCall(before, dir, 'grep', { pattern, limit: 1000 }, runs);
      const inWorker = await timeCall(registry, dir, 'grep', { pattern, limit: 1000 }, runs);
      const same = inWorker.res.details.matches === inThread.res.details.matches;
      report(`grep regex in a worker (${pattern})`, inWorker.ms, 'on the main thread', inThread.ms, '≤ 1.5×', inWorker.ms / inThread.ms <= 1.5 && same);
    }
  }

  // ---- find by glob ----
  {
    const floor = timeSpawn('find', [dir, '-name', '*.ts'], runs);
    const tool = await timeCall(registry, dir, 'find', { glob: '*.ts', limit: 2000 }, runs);
    const theirs = floor.stdout.split('\n').filter(Boolean).length;
    const same = tool.res.details.matches === theirs;
    const ratio = tool.ms / floor.ms;
    report(`find *.ts: ${FILES.toLocaleString('en')} files`, tool.ms, "find -name '*.ts'", floor.ms, '≤ 2×', ratio <= 2 && same);
    record(`find: the same count as find -name (${theirs})`, same);
  }
  rmSync(dir, { recursive: true, force: true });
}

// Alone: the same report format as run.mjs.
if (isMain(import.meta.url)) await runAlone('search', searchBenchmarks);
