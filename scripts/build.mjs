// Bundles src/cli/main.ts into dist/ with code splitting, so that dynamic
// imports (the agent, TypeBox, later the provider SDKs) load only when used
// and `--version` touches one small file. Type checking is `tsc --noEmit`.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli/main.ts', index: 'src/index.ts' },
  outdir: 'dist',
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
