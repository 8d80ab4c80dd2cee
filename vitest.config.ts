import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Rebuilds dist/ (esbuild) before any test when src/ changed: CLI tests spawn bin/mini-agent → dist/.
    globalSetup: ['./test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // CLI tests spawn real processes; two workers match the 2-core machines.
    maxWorkers: 2,
  },
});
