import { defineConfig } from 'vitest/config';

// Files that need a module graph of their own: they mock node modules (vi.mock), which must not
// leak into, or be defeated by, modules that another file in the same worker already loaded.
const ISOLATED = ['test/read-file-tail.test.ts', 'test/session-store.test.ts'];
const common = { testTimeout: 30_000, hookTimeout: 30_000, setupFiles: ['./test/support/temp-dirs-cleanup.ts'] };

export default defineConfig({
  test: {
    // Rebuilds dist/ (esbuild) before any test when src/ changed: CLI tests spawn bin/mini-agent → dist/.
    globalSetup: ['./test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Three workers on the 2-core machines: much of the suite waits (terminal screens, process
    // starts, timers), so a third file runs while two wait (224 s against 279 s with two, unloaded).
    maxWorkers: 3,
    // Transformed modules are kept on disk (node_modules/.experimental-vitest-cache, keyed by content)
    // for the next run and for the vitest runs that system-tools.test.ts starts: about 7 s of transform
    // per full run, and 1 s of each of those child runs' 3 s.
    experimental: { fsModuleCache: true },
    projects: [{ test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false, ...common } }, { test: { name: 'isolated', include: ISOLATED, ...common } }],
  },
});
