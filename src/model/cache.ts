// Prompt caching: how long the provider keeps a prefix (`cache.retention`), where the
// Anthropic request carries its cache breakpoints, which OpenAI-compatible servers take a
// `prompt_cache_key`, and what cache writes cost. Pure; no I/O.
import type { Usage } from '../core/types.js';
import type { Pricing } from './models.js';
import type { CacheRetention } from '../core/config-choices.js';

export { CACHE_RETENTIONS, type CacheRetention } from '../core/config-choices.js';

/** The Anthropic API takes at most this many cache_control markers in one request. */
export const MAX_BREAKPOINTS = 4;

export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

/** The marker for a retention, or undefined for `none` (5m is the API's default: no ttl field is sent). */
export function cacheControl(retention: CacheRetention | undefined): CacheControl | undefined {
  if (retention === undefined || retention === 'none') return undefined;
  return retention === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/**
 * OpenAI-compatible providers that take `prompt_cache_key`. OpenAI documents it; OpenRouter
 * passes it on to OpenAI models. DeepSeek caches without a key, and local servers (Ollama,
 * vLLM, llama.cpp behind `openai-compatible`) may reject a field they do not know: they get none.
 */
const CACHE_KEY_PROVIDERS: ReadonlySet<string> = new Set(['openai', 'openrouter']);

export function takesPromptCacheKey(provider: string): boolean {
  return CACHE_KEY_PROVIDERS.has(provider);
}

/**
 * The price of a cache write per million tokens for a retention. The table's `cacheWrite` is the
 * 5-minute rate (1.25× input on Anthropic); a 1-hour write costs 2× input by Anthropic's
 * published pricing, so it is derived from the input price rather than guessed from the table.
 */
export function cacheWritePrice(pricing: Pricing, retention: CacheRetention | undefined): number {
  return retention === '1h' ? pricing.input * 2 : pricing.cacheWrite;
}

/**
 * The cost of a response's usage in US dollars: input, output and cache reads at their rates;
 * cache writes at the 5-minute rate, except `oneHourWrites` tokens of them (Anthropic reports
 * the split in `usage.cache_creation`) at the 1-hour rate. Without a split, all writes are
 * priced at the rate of the retention the request asked for.
 */
export function cachedCost(usage: Omit<Usage, 'cost'>, pricing: Pricing, retention: CacheRetention | undefined, oneHourWrites?: number): number {
  const longWrites = Math.min(usage.cacheWrite, oneHourWrites ?? (retention === '1h' ? usage.cacheWrite : 0));
  const shortWrites = usage.cacheWrite - longWrites;
  return (usage.input * pricing.input + usage.output * pricing.output + usage.cacheRead * pricing.cacheRead + shortWrites * pricing.cacheWrite + longWrites * cacheWritePrice(pricing, '1h')) / 1_000_000;
}
