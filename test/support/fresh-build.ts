// Keeps a build output fresh for the tests that run it: 30-odd test files spawn bin/mini-agent,
// which runs dist/, not src/. The inputs (files, or folders read recursively) are hashed by
// content; the hash of the inputs dist/ was last built from is kept in dist/ itself, so a build
// that replaces dist/ (npm run build) drops it, and any change to an input (an edit, a checkout,
// a new dependency in the lock file) is seen whatever the files' times say.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

/** The file in the build output that names the inputs it was built from. */
export const INPUTS_STAMP = '.inputs-sha256';

export interface FreshBuildOptions {
  /** Files and folders the build reads (folders recursively). */
  inputs: readonly string[];
  /** The build output; `build` must leave it in place. */
  distDir: string;
  /** Builds distDir from the inputs. */
  build: () => void | Promise<void>;
}

/** A hash of the inputs' paths and contents (a folder's files in sorted order). */
export function inputsHash(inputs: readonly string[]): string {
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

function filesOf(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .map((d) => d.name)
    .sort()
    .flatMap((name) => filesOf(join(path, name)));
}

/**
 * Runs `build` when distDir was not built from the inputs as they are now (no stamp, or a stamp
 * of other contents), then records them. Resolves to what it did.
 */
export async function ensureFreshBuild(o: FreshBuildOptions): Promise<'fresh' | 'built'> {
  const hash = inputsHash(o.inputs); // before the build: an edit made during it is seen next time
  const stamp = join(o.distDir, INPUTS_STAMP);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return 'fresh';
  await o.build();
  writeFileSync(stamp, hash);
  return 'built';
}
