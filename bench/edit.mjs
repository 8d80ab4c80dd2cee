// edit_file benchmarks (issue 10): one edit in the middle of a 10 MB file, through the
// ToolRegistry as the loop runs it (the read in the path's queue slot, locating the edit, splicing
// the bytes, the diff, the atomic write with its fsync), next to a floor measured in the same run:
// reading the file and writing it back the same way (readFile, a temp file written and fsynced,
// rename). Every run's result is compared, whole, with the expected bytes. Shown beside it for
// information: an oldText that matches nowhere (the error with the closest region) and one that
// matches only tolerantly, on the same file.
// Imported by run.mjs; also runs alone: node bench/edit.mjs (no build needed).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { bundleFromSrc, isMain, median, runAlone } from './lib.mjs';

/** The edit tool and the registry, bundled from src with esbuild (they are not exported from src/index.ts). */
async function editApi(root, work) {
  const contents = [
    "export { createEditFileTool } from './src/tools/edit-file.ts';",
    "export { ToolRegistry } from './src/tools/registry.ts';",
    "export { CallCheckpoints } from './src/agent/call-checkpoints.ts';",
    "export { CheckpointStore } from './src/session/checkpoint-store.ts';",
  ];
  return import(pathToFileURL(await bundleFromSrc({ root, work, name: 'edit-api', contents })).href);
}

/** About `bytes` of source-like text (deterministic), with one marked line in the middle. */
function bigSource(bytes, marker) {
  const lines = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `  const value${i % 977} = compute(${i}, "item-${i % 31}") + offset; // step ${i}\n`;
    lines.push(line);
    size += line.length;
    if (lines.length === 60_000) {
      lines.push(marker);
      size += marker.length;
    }
  }
  const text = lines.join('');
  const at = text.indexOf(marker);
  return { text, before: text.slice(0, at), after: text.slice(at + marker.length) };
}

/** What atomicWrite does, without the tool: the floor. */
async function readAndWriteBack(file) {
  const data = await readFile(file);
  const tmp = `${file}.floor.tmp`;
  const handle = await open(tmp, 'wx', 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
}

export async function editBenchmarks({ root, work, report }) {
  const api = await editApi(root, work);
  const { createEditFileTool, ToolRegistry } = api;
  const runs = Number(process.env.BENCH_EDIT_RUNS ?? 11);
  const ws = mkdtempSync(join(work, 'edit-ws-'));
  const file = join(ws, 'big.ts');
  const marker = 'export const MIDDLE_MARKER = 42; // the line to edit\n';
  const { text, before, after } = bigSource(10 * 2 ** 20, marker);
  const original = Buffer.from(text);
  const newText = 'export const MIDDLE_MARKER = 43; // edited\nexport const ADDED = true;\n';
  const expected = Buffer.concat([Buffer.from(before), Buffer.from(newText), Buffer.from(after)]);
  const registry = new ToolRegistry([createEditFileTool()]);
  let id = 0;
  const run = (args) => registry.execute({ type: 'toolCall', id: `b${++id}`, name: 'edit_file', arguments: { path: 'big.ts', ...args } }, { cwd: ws, signal: new AbortController().signal });

  /** Median time of `fn` after restoring the original file before each run (untimed); `check` runs after each. */
  const timed = async (fn, check, n = runs, warm = 2) => {
    const times = [];
    for (let i = 0; i < warm + n; i++) {
      writeFileSync(file, original);
      const t = performance.now();
      const out = await fn();
      const ms = performance.now() - t;
      if (i >= warm) times.push(ms);
      check(out);
    }
    return median(times);
  };

  let identical = true;
  const value = await timed(
    () => run({ edits: [{ oldText: marker, newText }] }),
    (res) => {
      if (res.isError) throw new Error(`edit_file failed: ${res.content[0].text}`);
      if (!readFileSync(file).equals(expected)) identical = false;
    },
  );
  const floor = await timed(
    () => readAndWriteBack(file),
    () => {},
  );
  const mb = (original.length / 2 ** 20).toFixed(1);
  report(`edit_file: one edit in a ${mb} MB file (median)`, value, 'read+write+fsync', floor, '< 200 ms', value < 200);
  const name = `edit_file ${mb} MB: every byte outside the edit kept`;
  if (report.record) report.record(name, identical);
  console.log(`${name.padEnd(44)} ${identical ? 'yes' : 'NO'} (each run's whole file compared with the expected ${expected.length} bytes)`);

  // For information: the failure path (the closest region is searched for) and a tolerant match.
  const fewer = Math.max(3, Math.floor(runs / 3));
  const notFound = await timed(
    () => run({ edits: [{ oldText: 'export const MIDDLE_MARKER = 41; // the line to edit', newText: 'x' }] }),
    (res) => {
      if (!res.isError || !res.content[0].text.includes('The closest text in the file is at')) throw new Error('expected a not-found error with the closest region');
    },
    fewer,
    1,
  );
  report('  … oldText not found (closest region shown)', notFound, 'read+write+fsync', floor, '—', true);
  const tolerant = await timed(
    () => run({ edits: [{ oldText: '  export   const MIDDLE_MARKER = 42;   // the line to edit', newText: 'export const MIDDLE_MARKER = 43;' }] }),
    (res) => {
      if (res.isError || res.details.tolerant?.[0]?.kind !== 'whitespace') throw new Error(`expected a whitespace-tolerant match: ${res.content[0].text}`);
    },
    fewer,
    1,
  );
  report('  … a whitespace-tolerant match', tolerant, 'read+write+fsync', floor, '—', true);
  rmSync(ws, { recursive: true, force: true });
  await checkpointBenchmarks({ createEditFileTool, ToolRegistry, CallCheckpoints: api.CallCheckpoints, CheckpointStore: api.CheckpointStore, work, report, runs });
}

/**
 * Issue 26: what a checkpoint adds to an edit. The same edit of a 20 KB source file, alternated
 * with and without checkpoints (the state before: read, hashed, stored once; after: read and
 * hashed again, the new object stored), as the loop runs it; the file is put back (untimed) before
 * each run. The floor is the edit without checkpoints.
 */
async function checkpointBenchmarks({ createEditFileTool, ToolRegistry, CallCheckpoints, CheckpointStore, work, report, runs }) {
  const ws = mkdtempSync(join(work, 'checkpoint-ws-'));
  const file = join(ws, 'a.ts');
  const marker = 'export const MIDDLE_MARKER = 42; // the line to edit\n';
  const { text } = bigSource(20 * 1024, marker);
  const source = text.includes(marker) ? text : text + marker;
  const registry = new ToolRegistry([createEditFileTool()]);
  const store = new CheckpointStore(join(ws, 'session.checkpoints'));
  let id = 0;
  const edit = async (withCheckpoints) => {
    const cp = withCheckpoints ? new CallCheckpoints(store) : undefined;
    const call = { type: 'toolCall', id: `c${++id}`, name: 'edit_file', arguments: { path: 'a.ts', edits: [{ oldText: marker, newText: `export const MIDDLE_MARKER = ${id}; // edited\n` }] } };
    const res = await registry.execute(call, { cwd: ws, signal: new AbortController().signal, ...(cp ? { checkpoint: cp.capture } : {}) });
    if (res.isError) throw new Error(`edit_file failed: ${res.content[0].text}`);
    if (cp && (await cp.changes()).length !== 1) throw new Error('expected one checkpointed file');
  };
  const n = Math.max(21, runs * 2);
  const times = { with: [], without: [] };
  for (let i = 0; i < n + 2; i++) {
    for (const mode of i % 2 === 0 ? ['with', 'without'] : ['without', 'with']) {
      writeFileSync(file, source);
      const t = performance.now();
      await edit(mode === 'with');
      if (i >= 2) times[mode].push(performance.now() - t);
    }
  }
  const value = median(times.with);
  const floor = median(times.without);
  report(`checkpoint: an edit of a ${Math.round(source.length / 1024)} KB file (median)`, value, 'the edit without', floor, '≤ +5 ms', value - floor <= 5);
  rmSync(ws, { recursive: true, force: true });
}

// Alone: the same report format as run.mjs.
if (isMain(import.meta.url)) await runAlone('edit', editBenchmarks);
