// The bash sandbox's cost (issue 22): `true` through the bash tool, sandboxed (bubblewrap: a
// read-only root, the workspace and output folder writable, protected paths read-only again, no
// network, a new PID namespace) against the same call without the sandbox, alternated in one
// process. Target: at most 15 ms more per call. Shown for information: bwrap running `sh -c true`
// straight against `sh -c true`. Without a working bwrap the figure is skipped, and says why.
// Imported by run.mjs; also runs alone: node bench/sandbox.mjs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { bundleFromSrc, isMain, median, runAlone } from './lib.mjs';

export async function sandboxBenchmarks({ root, work, report }) {
  const runs = Number(process.env.BENCH_SANDBOX_RUNS ?? 41);
  const dir = join(work, 'sandbox');
  const ws = join(dir, 'ws');
  const out = join(dir, 'out');
  mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
  mkdirSync(join(ws, '.mini-agent'), { recursive: true });
  writeFileSync(join(ws, '.git', 'config'), '[core]\n');
  mkdirSync(out, { recursive: true });
  const bundle = await bundleFromSrc({
    root,
    work: dir,
    name: 'sandbox-api',
    contents: ["export { createBashTool } from './src/tools/bash.ts';", "export { ToolRegistry } from './src/tools/registry.ts';", "export { sandboxStatus, sandboxBinds, bwrapArgs } from './src/tools/sandbox.ts';"],
  });
  const { createBashTool, ToolRegistry, sandboxStatus, sandboxBinds, bwrapArgs } = await import(pathToFileURL(bundle).href);
  const status = sandboxStatus(process.env);
  if (!status.available) {
    console.log(`${'bash: sandboxed `true` through the tool'.padEnd(44)} skipped: no sandbox here (${status.why})`);
    return;
  }
  const sandbox = { mode: 'required', network: false, status: () => status, binds: (cwd, outputDir) => sandboxBinds([cwd, outputDir], []) };
  const inBox = new ToolRegistry([createBashTool({ outputDir: () => out, sandbox })]);
  const plain = new ToolRegistry([createBashTool({ outputDir: () => out })]);
  let id = 0;
  const call = async (reg) => {
    const t = performance.now();
    const res = await reg.execute({ type: 'toolCall', id: 'b' + ++id, name: 'bash', arguments: { command: 'true' } }, { cwd: ws, signal: new AbortController().signal });
    const ms = performance.now() - t;
    if (res.isError) throw new Error('bad tool result: ' + res.content[0].text.slice(0, 300));
    return ms;
  };
  for (let i = 0; i < 3; i++) await call(inBox), await call(plain);
  const boxed = [];
  const bare = [];
  for (let i = 0; i < runs; i++) {
    boxed.push(await call(inBox));
    bare.push(await call(plain));
  }
  const b = median(boxed);
  const p = median(bare);
  report('bash: sandboxed `true` through the tool', b, 'unsandboxed', p, '≤ +15 ms', b - p <= 15);
  console.log(`${''.padEnd(44)} the sandbox adds ${(b - p).toFixed(1)} ms per call (median of ${runs}, alternated)`);

  // For information: bwrap itself, straight.
  const time = (cmd, args) => {
    const t = [];
    for (let i = 0; i < 21; i++) {
      const s = performance.now();
      const r = spawnSync(cmd, args, { stdio: 'ignore' });
      t.push(performance.now() - s);
      if (r.status !== 0) throw new Error(`${cmd} exited ${r.status}`);
    }
    return median(t);
  };
  const direct = time(status.program, bwrapArgs({ cwd: ws, binds: sandboxBinds([ws], []), network: false }, ['/bin/sh', '-c', 'true']));
  const sh = time('/bin/sh', ['-c', 'true']);
  report('  bwrap … sh -c true, spawned straight', direct, 'sh -c true', sh, 'info', true);
}

// Alone: the same report format as run.mjs.
if (isMain(import.meta.url)) await runAlone('sandbox', sandboxBenchmarks);
