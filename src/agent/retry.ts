// The one retry layer. The SDKs' own retries are off; this policy decides: only retryable
// kinds, exponential backoff with full jitter, `retry-after` honoured, attempts and delay capped,
// and the wait is abortable.
import { CONFIG_TABLE } from '../core/config-table.js';
import type { ModelError, ModelErrorKind } from '../core/types.js';

export interface RetryPolicy {
  /** Retries after the first attempt (4 of them: at most 5 requests). */
  maxRetries: number;
  /** The first backoff ceiling; doubles each retry. */
  baseDelayMs: number;
  /** No wait is longer than this; a `retry-after` beyond it ends the retries. */
  maxDelayMs: number;
}

/** The configuration's defaults (core/config-table.ts), for callers that give none. */
export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: CONFIG_TABLE['retry.maxRetries'].default,
  baseDelayMs: CONFIG_TABLE['retry.baseDelayMs'].default,
  maxDelayMs: CONFIG_TABLE['retry.maxDelayMs'].default,
};

/**
 * Kinds retried fewer times than the policy allows. A proxy can corrupt one frame, so an invalid
 * stream frame is worth a retry or two; a server that always sends broken frames is not fixed by more.
 */
export const RETRY_CAPS: Readonly<Partial<Record<ModelErrorKind, number>>> = { invalid_response: 2 };

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: string };

/**
 * Decides whether retry number `attempt` (1-based) may happen and how long to wait first.
 * Full jitter: a uniform wait in [0, min(max, base·2^(attempt-1))]. With `retry-after`, the wait
 * is at least that long.
 */
export function decideRetry(error: ModelError, attempt: number, policy: RetryPolicy, random: () => number = Math.random): RetryDecision {
  if (!error.retryable) return { retry: false, reason: `${error.kind} errors are not retried` };
  const maxRetries = Math.min(policy.maxRetries, RETRY_CAPS[error.kind] ?? Infinity);
  if (attempt > maxRetries) return { retry: false, reason: `gave up after ${maxRetries} ${maxRetries === 1 ? 'retry' : 'retries'}` };
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jitter = Math.floor(random() * ceiling);
  if (error.retryAfterMs !== undefined) {
    if (error.retryAfterMs > policy.maxDelayMs) {
      return { retry: false, reason: `the provider asked to wait ${Math.ceil(error.retryAfterMs / 1000)} s, over the ${Math.round(policy.maxDelayMs / 1000)} s cap` };
    }
    return { retry: true, delayMs: Math.max(error.retryAfterMs, jitter) };
  }
  return { retry: true, delayMs: jitter };
}

/** Waits `ms`, or less if the signal aborts; resolves false when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      resolve(false);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
