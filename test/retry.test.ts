// The retry layer: policy (pure), the abortable wait (fake timers), and the loop's use of it
// through real runs on the scripted model with a fake clock.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decideRetry, DEFAULT_RETRY, sleep, type RetryPolicy } from '../src/agent/retry.js';
import type { AgentEvent } from '../src/core/events.js';
import { textOf, type ModelError } from '../src/core/types.js';
import { scriptedRun } from './support/helpers.js';

const err = (kind: ModelError['kind'], extra: Partial<ModelError> = {}): ModelError => ({
  kind,
  message: `${kind} happened`,
  retryable: ['rate_limit', 'overloaded', 'server', 'network'].includes(kind),
  ...extra,
});
const policy: RetryPolicy = { maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 60_000 };

describe('decideRetry', () => {
  it('full jitter: the wait is uniform in [0, min(max, base·2^(n-1))]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (attempt, r) => {
        const d = decideRetry(err('overloaded'), attempt, policy, () => r);
        expect(d.retry).toBe(true);
        if (!d.retry) return;
        const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
        expect(d.delayMs).toBeGreaterThanOrEqual(0);
        expect(d.delayMs).toBeLessThan(ceiling);
      }),
    );
    expect(decideRetry(err('server'), 1, policy, () => 0)).toEqual({ retry: true, delayMs: 0 });
    expect(decideRetry(err('server'), 3, policy, () => 0.5)).toEqual({ retry: true, delayMs: 2000 });
  });

  it('caps the delay at maxDelayMs however many retries', () => {
    const big: RetryPolicy = { maxRetries: 20, baseDelayMs: 1000, maxDelayMs: 5000 };
    const d = decideRetry(err('network'), 15, big, () => 0.999);
    expect(d).toMatchObject({ retry: true });
    if (d.retry) expect(d.delayMs).toBeLessThan(5000);
  });

  it('honours retry-after as a minimum, and gives up when it exceeds the cap', () => {
    const d = decideRetry(err('rate_limit', { retryAfterMs: 7000 }), 1, policy, () => 0.1);
    expect(d).toEqual({ retry: true, delayMs: 7000 });
    const longer = decideRetry(err('rate_limit', { retryAfterMs: 700 }), 4, policy, () => 0.5);
    expect(longer).toEqual({ retry: true, delayMs: 4000 });
    const tooLong = decideRetry(err('rate_limit', { retryAfterMs: 120_000 }), 1, policy);
    expect(tooLong.retry).toBe(false);
    if (!tooLong.retry) expect(tooLong.reason).toMatch(/120 s.*60 s cap/);
  });

  it('never retries non-retryable kinds, and stops after maxRetries', () => {
    for (const kind of ['auth', 'bad_request', 'context_overflow', 'aborted', 'unknown'] as const) {
      expect(decideRetry(err(kind), 1, policy).retry).toBe(false);
    }
    expect(decideRetry(err('rate_limit', { retryable: false }), 1, policy).retry).toBe(false); // e.g. insufficient_quota
    expect(decideRetry(err('overloaded'), 4, policy).retry).toBe(true);
    expect(decideRetry(err('overloaded'), 5, policy)).toMatchObject({ retry: false, reason: 'gave up after 4 retries' });
    expect(DEFAULT_RETRY).toEqual({ maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 60_000 });
  });
});

describe('sleep (fake clock)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits the full time, or resolves false as soon as the signal aborts', async () => {
    vi.useFakeTimers();
    let done: boolean | undefined;
    void sleep(5000).then((v) => (done = v));
    await vi.advanceTimersByTimeAsync(4999);
    expect(done).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);

    const ac = new AbortController();
    let aborted: boolean | undefined;
    void sleep(60_000, ac.signal).then((v) => (aborted = v));
    await vi.advanceTimersByTimeAsync(100);
    ac.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0); // the timer was cleared
  });
});

describe('the loop retries', () => {
  const fakeClock = () => {
    const waits: number[] = [];
    return { waits, sleep: async (ms: number) => (waits.push(ms), true) };
  };

  it('a retryable failure mid-stream is retried; the session holds one clean answer', async () => {
    const clock = fakeClock();
    const { events, store, model, result } = await scriptedRun({
      sleep: clock.sleep,
      random: () => 0.5,
      turns: [{ text: 'half an ans', error: { kind: 'overloaded', message: 'busy', status: 529 } }, { text: 'the whole answer' }],
    });
    expect(result.stopReason).toBe('completed');
    const retries = events.filter((e): e is Extract<AgentEvent, { type: 'retry' }> => e.type === 'retry');
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, delayMs: 500, kind: 'overloaded', turn: 1 })]);
    expect(clock.waits).toEqual([500]);
    // Both attempts saw the same request.
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1].messages).toEqual(model.requests[0].messages);
    // One assistant message, with the final attempt's text only.
    const assistants = store.activePath().filter((e) => e.type === 'message' && e.message.role === 'assistant');
    expect(assistants).toHaveLength(1);
    const msg = (assistants[0] as { message: { content: { type: string; text?: string }[] } }).message;
    expect(textOf(msg.content)).toBe('the whole answer');
    // Listeners saw the failed attempt's deltas, then the retry event that voids them.
    const order = events.map((e) => e.type).filter((t) => t === 'text_delta' || t === 'retry' || t === 'message_end');
    expect(order.indexOf('retry')).toBeGreaterThan(order.indexOf('text_delta'));
    expect(order.filter((t) => t === 'message_end')).toHaveLength(1);
  });

  it('at most 5 requests by default, then the error names the cap', async () => {
    const clock = fakeClock();
    const turns = Array.from({ length: 6 }, () => ({ error: { kind: 'server' as const, message: 'upstream 500', status: 500 } }));
    const { events, model, result } = await scriptedRun({ sleep: clock.sleep, random: () => 0.999, turns });
    expect(model.requests).toHaveLength(5);
    expect(events.filter((e) => e.type === 'retry').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2, 3, 4]);
    expect(clock.waits.every((w, i) => w < 1000 * 2 ** i)).toBe(true);
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatchObject({ kind: 'server', retryable: true });
    expect(result.error?.message).toMatch(/gave up after 4 retries/);
  });

  it('non-retryable errors are not retried', async () => {
    const { model, result, events } = await scriptedRun({
      sleep: async () => true,
      turns: [{ error: { kind: 'auth', message: 'bad key', status: 401 } }, { text: 'never' }],
    });
    expect(model.requests).toHaveLength(1);
    expect(events.some((e) => e.type === 'retry')).toBe(false);
    expect(result.error).toMatchObject({ kind: 'auth', retryable: false });
  });

  it('an abort during the wait ends the run as aborted, without another request', async () => {
    const ac = new AbortController();
    const started = Date.now();
    const { model, result } = await scriptedRun({
      signal: ac.signal,
      retry: { maxRetries: 4, baseDelayMs: 30_000, maxDelayMs: 60_000 },
      random: () => 0.99,
      turns: [{ error: { kind: 'rate_limit', message: 'slow down', retryAfterMs: 30_000 } }, { text: 'never' }],
      onEvent: (e) => {
        if (e.type === 'retry') setTimeout(() => ac.abort(), 20);
      },
    });
    expect(result.stopReason).toBe('aborted');
    expect(model.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a stream that goes quiet is dropped after idleTimeoutMs and retried as a network error', async () => {
    const started = Date.now();
    const { events, result, model } = await scriptedRun({
      idleTimeoutMs: 100,
      sleep: async () => true,
      turns: [{ text: 'never arrives', delayMs: 30_000 }, { text: 'second try' }],
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.stopReason).toBe('completed');
    expect(model.requests).toHaveLength(2);
    const retry = events.find((e) => e.type === 'retry') as Extract<AgentEvent, { type: 'retry' }>;
    expect(retry).toMatchObject({ kind: 'network', attempt: 1 });
    expect(retry.message).toMatch(/no data from the model for 0 s|no data from the model/);
  });
});
