// Prints the closing line `N passed, N failed[, N skipped]` that .ci/run and CI read.
// A test file that fails to load counts as one failure, so a broken file is never silent.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const mod of modules) {
      let count = 0;
      for (const test of mod.children.allTests()) {
        count++;
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (count === 0 || mod.errors().length > 0) {
        if (mod.errors().length > 0 || mod.state() === 'failed') failed++;
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
