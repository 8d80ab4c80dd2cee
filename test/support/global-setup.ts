// vitest's global setup (vitest.config.ts): runs once, in the main process, before any test file
// and before any worker starts. Tests that spawn bin/mini-agent run dist/; this rebuilds it with
// esbuild (seconds) when src/ changed since it was built, so no test runs a stale build. A
// checkout with no declarations yet (dist/types, which examples.test.ts type-checks against)
// gets the full build, tsc included.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFreshBuild } from './fresh-build.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const at = (path: string) => join(ROOT, path);

/** What dist/ is built from: the sources, the version (package.json), the dependencies, the build. */
export const BUILD_INPUTS = [at('src'), at('package.json'), at('package-lock.json'), at('scripts/build.mjs')];
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
