// What dist/ is built from, and a hash of it by content. The build records the hash in
// dist/.inputs-sha256; the test suite's global setup (test/support/global-setup.ts) rebuilds
// dist/ when the hash of the inputs as they are now differs, so no test runs a stale build.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file in the build output that holds the hash of the inputs it was built from. */
export const INPUTS_STAMP = '.inputs-sha256';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The sources, the version (package.json), the dependencies (the lock file), the build itself. */
export const BUILD_INPUTS = ['src', 'package.json', 'package-lock.json', 'scripts/build.mjs', 'scripts/inputs-hash.mjs', 'scripts/page-script.mjs'].map((p) => join(ROOT, p));

/** A hash of the inputs' paths and contents (a folder's files in sorted order; a missing input counts as empty). */
export function inputsHash(inputs) {
  const hash = createHash('sha256');
  for (const input of inputs) {
    for (const file of filesOf(input)) {
      hash.update(`${join(basename(input), relative(input, file))}\0`);
      hash.update(readFileSync(file));
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}

function filesOf(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .map((d) => d.name)
    .sort()
    .flatMap((name) => filesOf(join(path, name)));
}
