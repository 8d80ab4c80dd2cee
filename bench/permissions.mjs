// The shell parser behind bash allow rules (issue 22, part 2; DESIGN §5): what loading it costs
// the first bash call a rule judges, and what reading a line costs each call after.
// - load: web-tree-sitter and the tree-sitter-bash grammar in a fresh process (median of runs,
//   timed inside the child around loadShellParser() and the first decision, whose parse warms the WASM up), next to the floor of compiling the
//   grammar's .wasm bytes with WebAssembly.compile in a fresh process;
// - decide: the policy's decision for a compound line with redirections (the parse included),
//   next to the floor of the old text splitter (splitCommand) on the same line.
// Imported by run.mjs (needs dist/: npm run bench builds it); also runs alone: node bench/permissions.mjs.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMain, median, runAlone, timed } from './lib.mjs';

const LINE = 'git status --short && ls -la src | grep -v node_modules > listing.txt 2>&1; cat "notes/a b.md" # done';

function childMs(code, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench child failed: ${r.stderr}`);
    times.push(Number(r.stdout.trim()));
  }
  return median(times);
}

export async function permissionBenchmarks({ root, report }) {
  const dist = pathToFileURL(join(root, 'dist', 'index.mjs')).href;
  const lib = await import(dist);
  const wasm = createRequire(join(root, 'package.json')).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
  const runs = Number(process.env.BENCH_PARSER_RUNS ?? 9);
  const load = childMs(
    `const m = await import(${JSON.stringify(dist)}); const t = performance.now(); await m.loadShellParser(); m.decide({ allow: [m.parseRule('bash(ls *)', 'b')], ask: [], deny: [] }, { tool: 'bash', risk: 'execute', paths: [], outsideWorkspace: false, command: 'ls -la' }); console.log(performance.now() - t);`,
    runs,
  );
  const compile = childMs(`import { readFileSync } from 'node:fs'; const t = performance.now(); await WebAssembly.compile(readFileSync(${JSON.stringify(wasm)})); console.log(performance.now() - t);`, runs);
  report('bash rules: load parser + first decision', load, 'compile grammar .wasm', compile, '≤ 8×', load / compile <= 8);

  await lib.loadShellParser();
  const policy = { allow: ['bash(git status*)', 'bash(ls *)', 'bash(grep *)', 'bash(cat *)'].map((r) => lib.parseRule(r, 'bench')), ask: [], deny: [lib.parseRule('bash(rm *)', 'bench')] };
  const facts = { tool: 'bash', risk: 'execute', paths: [], outsideWorkspace: false, command: LINE };
  if (lib.decide(policy, facts).level !== 'allow') throw new Error('bench line not allowed');
  const decideMs = timed(() => lib.decide(policy, facts), 2001, 50);
  const splitMs = timed(() => lib.splitCommand(LINE), 2001, 50);
  report('bash rules: decide a 4-command line (parse)', decideMs, 'text split', splitMs, '< 1 ms', decideMs < 1);
}

// Alone: the same report format as run.mjs.
if (isMain(import.meta.url)) await runAlone('permissions', permissionBenchmarks);
