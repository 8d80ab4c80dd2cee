// /status shows the session's cache-hit share (issue 23 §1), in the real interactive mode under tmux.
import { describe, expect, it } from 'vitest';
import { interactiveSessions, READY } from './support/interactive.js';

const start = interactiveSessions();

describe('/status', () => {
  it("shows the session's cache reads, writes and the share of prompt tokens read from the cache", async (ctx) => {
    const { t } = start(ctx, [
      { text: 'first', usage: { input: 300, output: 10, cacheRead: 0, cacheWrite: 700 } },
      { text: 'second', usage: { input: 100, output: 10, cacheRead: 1_700, cacheWrite: 200 } },
    ]);
    await t.waitFor(READY);
    const ask = async (line: string, expected: RegExp) => {
      t.type(line);
      t.keys('Enter');
      return t.waitFor(expected, { history: true });
    };
    await ask('/status', /no cache hits yet/);
    await ask('one', /first/);
    await ask('two', /second/);
    // 1,700 read of 300 + 100 input, 1,700 read and 900 written: 1,700 / 3,000.
    const screen = await ask('/status', /tokens 400 in, 20 out, 1700 cache read, 900 cache write \(57% cache hits\)/);
    expect(screen).toContain('57% cache hits');
  });
});
