// vitest's global setup (vitest.config.ts): runs once, in the main process, before any test file
// and before any worker starts. Tests that spawn bin/mini-agent run dist/; this rebuilds it with
// esbuild (seconds) when src/ changed since it was built, so no test runs a stale build (a full
// build records its inputs too: after `npm run build` or `npm ci` nothing is rebuilt). A
// checkout with no declarations yet (dist/types, which examples.test.ts type-checks against)
// gets the full build, tsc included.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_INPUTS } from '../../scripts/inputs-hash.mjs';
import { ensureFreshBuild } from './fresh-build.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const at = (path: string) => join(ROOT, path);

export { BUILD_INPUTS };
export const DIST = at('dist');

export function buildDist(): void {
  const bundleOnly = existsSync(at('dist/types'));
  execFileSync(process.execPath, ['scripts/build.mjs', ...(bundleOnly ? ['--bundle-only'] : [])], { cwd: ROOT, stdio: 'inherit' });
}

export default async function setup(): Promise<void> {
  const started = Date.now();
  if ((await ensureFreshBuild({ inputs: BUILD_INPUTS, distDir: DIST, build: buildDist })) === 'built') {
    process.stderr.write(`global setup: dist/ was not built from src/ as it is now; rebuilt it in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}
