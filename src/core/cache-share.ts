// The cache-hit share of a usage total: the part of the prompt tokens that was read from the
// provider's prompt cache. Shown by /status, the text summary and run_settled.
import type { Usage } from './types.js';

/** cacheRead / (input + cacheRead + cacheWrite), or null when no prompt token was counted. */
export function cacheHitShare(usage: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'>): number | null {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  return prompt > 0 ? usage.cacheRead / prompt : null;
}

/** "83% cache hits", or undefined when there is nothing to say (no prompt tokens, or no cache read or write at all). */
export function describeCacheShare(usage: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'>): string | undefined {
  const share = cacheHitShare(usage);
  if (share === null || usage.cacheRead + usage.cacheWrite === 0) return undefined;
  return `${Math.round(share * 100)}% cache hits`;
}
