// Keeps a build output fresh for the tests that run it: 30-odd test files spawn bin/mini-agent,
// which runs dist/, not src/. The inputs (files, or folders read recursively) are hashed by
// content (scripts/inputs-hash.mjs, which the build uses too); the hash of the inputs distDir was
// last built from is kept in distDir itself, so any change to an input (an edit, a checkout, a
// new dependency in the lock file) is seen whatever the files' times say.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inputsHash, INPUTS_STAMP } from '../../scripts/inputs-hash.mjs';

export { inputsHash, INPUTS_STAMP };

export interface FreshBuildOptions {
  /** Files and folders the build reads (folders recursively). */
  inputs: readonly string[];
  /** The build output; `build` must leave it in place. */
  distDir: string;
  /** Builds distDir from the inputs. */
  build: () => void | Promise<void>;
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
