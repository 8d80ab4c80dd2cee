// Prints the closing line `N passed, N failed[, N skipped]` that .ci/run and CI read, preceded by
// the Node version that ran the suite. Skipped tests are grouped by their note (`ctx.skip(note)`,
// e.g. a missing browser, see system-tools.ts), so a skip is never silent:
//   node v22.23.5 (linux x64)
//   479 passed, 0 failed, 6 skipped (6 need a browser: no Chromium found (…); install one with: …)
// A test file that fails to load counts as one failure, so a broken file is never silent.
import type { Reporter, TestModule } from 'vitest/node';
import { REQUIRE_ENV } from './system-tools.js';

const NO_NOTE = 'without a note (.skip, .todo or filtered out)';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    const notes = new Map<string, number>();
    for (const mod of modules) {
      let failedHere = 0;
      for (const test of mod.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') failedHere++;
        else {
          skipped++;
          const note = result.state === 'skipped' ? result.note || NO_NOTE : 'did not run';
          notes.set(note, (notes.get(note) ?? 0) + 1);
        }
      }
      // A file that failed without a failing test (it did not load, or a hook threw, which
      // leaves its tests skipped) still counts as a failure.
      if (failedHere === 0 && (!mod.ok() || mod.state() === 'failed')) failedHere = 1;
      failed += failedHere;
    }
    const why = [...notes].map(([note, n]) => `${n} ${note}`).join(' | ');
    const required = process.env[REQUIRE_ENV] === '1' ? `, ${REQUIRE_ENV}=1` : '';
    process.stdout.write(`\nnode ${process.version} (${process.platform} ${process.arch}${required})\n`);
    process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped (${why})` : ''}\n`);
  }
}
