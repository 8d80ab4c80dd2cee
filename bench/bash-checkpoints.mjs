// Issue 26: what checkpoints add to a bash call. bash declares no files, so the workspace is
// scanned before and after it (agent/workspace-checkpoints.ts). The workspace here is a small
// project: 1,000 files of 1–3 KB in 50 folders, plus an ignored folder of 5,000 files (like
// node_modules) that the scans must skip. Figures, each through the ToolRegistry as the loop runs
// it, alternating with and without checkpoints:
// - `true`, a call that touches no file (target: at most 5 ms more than without);
// - for information: a call that changes one file; the first call of a session, which stores
//   every file of the workspace once (the states the later calls compare with); and the first
//   call of a second session, which hard-links the objects the first stored.
// Imported by run.mjs; also runs alone: node bench/bash-checkpoints.mjs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { bundleFromSrc, isMain, median, runAlone } from './lib.mjs';

async function api(root, work) {
  const contents = [
    "export { createBashTool } from './src/tools/bash.ts';",
    "export { ToolRegistry } from './src/tools/registry.ts';",
    "export { CallCheckpoints } from './src/agent/call-checkpoints.ts';",
    "export { WorkspaceCheckpoints } from './src/agent/workspace-checkpoints.ts';",
    "export { CheckpointStore } from './src/session/checkpoint-store.ts';",
  ];
  return import(pathToFileURL(await bundleFromSrc({ root, work, name: 'bash-checkpoints-api', contents })).href);
}

function project(ws) {
  for (let d = 0; d < 50; d++) {
    mkdirSync(join(ws, 'src', `mod${d}`), { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(join(ws, 'src', `mod${d}`, `file${f}.ts`), `// module ${d} file ${f}\n${'export const x = 1;\n'.repeat(50 + ((d * 20 + f) % 100))}`);
  }
  writeFileSync(join(ws, '.gitignore'), 'node_modules/\n');
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(ws, 'node_modules', `pkg${d}`), { recursive: true });
    for (let f = 0; f < 50; f++) writeFileSync(join(ws, 'node_modules', `pkg${d}`, `i${f}.js`), 'module.exports = 1;\n');
  }
}

export async function bashCheckpointBenchmarks({ root, work, report, runs = 21 }) {
  const { createBashTool, ToolRegistry, CallCheckpoints, WorkspaceCheckpoints, CheckpointStore } = await api(root, work);
  const ws = mkdtempSync(join(work, 'bash-checkpoint-ws-'));
  project(ws);
  const registry = new ToolRegistry([createBashTool()]);
  const store = new CheckpointStore(join(work, 'bash-checkpoint-session.checkpoints'));
  const workspace = new WorkspaceCheckpoints(store, ws);
  let id = 0;
  const call = async (command, withCheckpoints, expected) => {
    const cp = withCheckpoints ? new CallCheckpoints(store, workspace) : undefined;
    const keep = cp ? { checkpoint: cp.capture, checkpointWorkspace: cp.captureWorkspace } : {};
    const t = performance.now();
    const res = await registry.execute({ type: 'toolCall', id: `c${++id}`, name: 'bash', arguments: { command } }, { cwd: ws, signal: new AbortController().signal, ...keep });
    const changes = cp ? await cp.changes() : [];
    const ms = performance.now() - t;
    if (res.isError) throw new Error(`bash failed: ${res.content[0].text}`);
    if (cp && changes.length !== expected) throw new Error(`expected ${expected} checkpointed files, got ${changes.length}`);
    if (cp && cp.warnings.length > 0) throw new Error(`unexpected warning: ${cp.warnings[0]}`);
    return ms;
  };

  const first = await call('true', true, 0); // the first call of a process: every file stored once
  const n = Math.max(21, runs);
  const times = { with: [], without: [], change: [] };
  for (let i = 0; i < n + 2; i++) {
    for (const mode of i % 2 === 0 ? ['with', 'without'] : ['without', 'with']) {
      const ms = await call('true', mode === 'with', 0);
      if (i >= 2) times[mode].push(ms);
    }
    const ms = await call(`echo ${i} >> src/mod7/file3.ts`, true, 1);
    if (i >= 2) times.change.push(ms);
  }
  const floor = median(times.without);
  const value = median(times.with);
  report('checkpoint: bash `true`, 1,000-file workspace (median)', value, 'bash without', floor, '≤ +5 ms', value - floor <= 5);
  report('  … bash changing one file (median)', median(times.change), 'bash without', floor, '—', true);
  report('  … the first bash call of a session (stores the workspace)', first, 'bash without', floor, '—', true);
  // A second session of the workspace: its store sits beside the first's, whose objects it links.
  const second = new CheckpointStore(join(work, 'bash-checkpoint-session-2.checkpoints'));
  const secondScan = new WorkspaceCheckpoints(second, ws);
  const cp = new CallCheckpoints(second, secondScan);
  const t = performance.now();
  await registry.execute({ type: 'toolCall', id: 'second', name: 'bash', arguments: { command: 'true' } }, { cwd: ws, signal: new AbortController().signal, checkpoint: cp.capture, checkpointWorkspace: cp.captureWorkspace });
  await cp.changes();
  report("  … the first bash call of a second session (links the first's objects)", performance.now() - t, 'bash without', floor, '—', true);
  secondScan.close();
  workspace.close();
  rmSync(ws, { recursive: true, force: true });
}

// Alone: the same report format as run.mjs.
if (isMain(import.meta.url)) await runAlone('bash-checkpoints', bashCheckpointBenchmarks);
