// Temp folders for tests, removed after their test file (test/support/temp-dirs-cleanup.ts, a
// setup file, registers that for every file). After the file, not after each test: the tests of
// a concurrent describe run side by side. Not from a hook registered here: with isolate: false
// this module is loaded once per worker, and a hook it registered would belong to its first file.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A fresh temp folder (realpath'd), removed after the test file. */
export function tempDir(prefix = 'mini-agent-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Removes the temp folders made so far. */
export function removeTempDirs(): void {
  while (made.length) rmSync(made.pop()!, { recursive: true, force: true });
}
