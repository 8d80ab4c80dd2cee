// Prints the closing line `N passed, N failed[, N skipped]` that .ci/run and CI read.
// A test file that fails to load counts as one failure, so a broken file is never silent.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const mod of modules) {
      let failedHere = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      // A file that failed without a failing test (it did not load, or a hook threw, which
      // leaves its tests skipped) still counts as a failure.
      if (failedHere === 0 && (!mod.ok() || mod.state() === 'failed')) failedHere = 1;
      failed += failedHere;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
