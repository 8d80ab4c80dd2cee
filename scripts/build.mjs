// Bundles the entries (print mode, RPC mode, the library) into dist/ with code splitting, so
// that dynamic imports (the agent, TypeBox, the provider SDKs) load only when used and
// `--version` touches one small file; then type-checks and emits declarations (dist/types), and
// type-checks the export page's script (tsconfig.page.json: the DOM's types).
// With --bundle-only (the test suite's global setup, test/support/global-setup.ts): the bundles
// only, in seconds; the declarations of the previous build, if any, are carried over.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BUILD_INPUTS, INPUTS_STAMP, inputsHash } from './inputs-hash.mjs';
import { PAGE_SCRIPT_FILE, renderPageScript } from './page-script.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// The HTML export page's script, a browser module of its own, bundled into a string constant in
// src/ first (scripts/page-script.mjs), so dist/ always has the script of the source.
const pageScript = await renderPageScript();
if (!existsSync(PAGE_SCRIPT_FILE) || readFileSync(PAGE_SCRIPT_FILE, 'utf8') !== pageScript) writeFileSync(PAGE_SCRIPT_FILE, pageScript);

// Build into a fresh folder and swap it in at the end, so processes that are running from
// dist/ (tests spawning the CLI) see the old build or the new one, never an empty folder.
const next = new URL('../dist.next', import.meta.url);
const dist = new URL('../dist', import.meta.url);
const old = new URL('../dist.old', import.meta.url);
// What this build is made from, hashed before anything is read (an edit during the build is seen next time).
const inputs = inputsHash(BUILD_INPUTS);
rmSync(next, { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli/main.ts', rpc: 'src/rpc/main.ts', 'rpc-mode': 'src/rpc/rpc-mode.ts', interactive: 'src/interactive/main.ts', acp: 'src/acp/main.ts', index: 'src/index.ts' },
  outdir: 'dist.next',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  define: { __MINI_AGENT_VERSION__: JSON.stringify(pkg.version) },
  banner: { js: "import { createRequire as __mini_cr } from 'node:module'; const require = __mini_cr(import.meta.url);" },
});

// Type declarations for SDK users (dist/types), emitted by the compiler that also type-checks.
if (process.argv.includes('--bundle-only')) {
  const types = new URL('../dist/types', import.meta.url);
  if (existsSync(types)) cpSync(types, new URL('../dist.next/types', import.meta.url), { recursive: true });
} else emitDeclarations();
writeFileSync(new URL(`../dist.next/${INPUTS_STAMP}`, import.meta.url), inputs);

rmSync(old, { recursive: true, force: true });
if (existsSync(dist)) renameSync(dist, old);
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });

function emitDeclarations() {
  const tsPackage = createRequire(import.meta.url).resolve('typescript/package.json');
  const tsc = join(dirname(tsPackage), JSON.parse(readFileSync(tsPackage, 'utf8')).bin.tsc);
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit', 'false', '--declaration', '--emitDeclarationOnly', '--rootDir', 'src', '--outDir', 'dist.next/types'], { stdio: 'inherit' });
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.page.json', '--noEmit'], { stdio: 'inherit' });
  } catch {
    rmSync(next, { recursive: true, force: true });
    process.exit(1);
  }
}
