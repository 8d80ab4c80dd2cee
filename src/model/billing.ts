// A billing model for prompt caching (the bench's, and its unit test's): given the requests a
// session sent, how a provider would split each one's prompt into tokens read from its cache,
// written to it and billed as plain input, by the provider's published rules, and what that
// costs. Tokens are estimated as UTF-8 bytes / 4. Pure; no I/O. Assumes every request comes
// within the cache's time to live of the one before (a session's turns are seconds apart).
import { createHash, type Hash } from 'node:crypto';
import type { Pricing } from './models.js';

/** One block of a prompt in the order the provider reads it, and whether it carries a cache breakpoint. */
export interface PromptBlock {
  text: string;
  breakpoint: boolean;
}

/** How one request's prompt tokens are billed. */
export interface BilledPrompt {
  /** Billed at the input rate. */
  input: number;
  /** Billed at the cache-read rate. */
  cacheRead: number;
  /** Billed at the cache-write rate (Anthropic only). */
  cacheWrite: number;
}

export const tokensOf = (text: string): number => Math.ceil(new TextEncoder().encode(text).length / 4);

/**
 * Anthropic (prompt caching docs): a request writes the prefix up to each breakpoint to the cache
 * (when it reaches `minTokens`: 1024 on Sonnet and Opus); at each breakpoint the API reads the
 * longest cached prefix that ends at the breakpoint or at one of the `lookback` (20) blocks
 * before it. Tokens up to the longest hit are cache reads, from there to the last breakpoint
 * cache writes, and the rest plain input.
 */
export function anthropicBilling(requests: readonly (readonly PromptBlock[])[], opts: { minTokens?: number; lookback?: number } = {}): BilledPrompt[] {
  const minTokens = opts.minTokens ?? 1024;
  const lookback = opts.lookback ?? 20;
  const cache = new Set<string>();
  return requests.map((blocks) => {
    const { keys, ends } = prefixes(blocks);
    const marks = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let read = 0;
    for (const m of marks) {
      for (let i = m; i >= Math.max(0, m - lookback); i--) {
        if (cache.has(keys[i])) {
          read = Math.max(read, ends[i]);
          break;
        }
      }
    }
    const total = ends[ends.length - 1] ?? 0;
    const lastMark = marks.length > 0 ? ends[marks[marks.length - 1]] : 0;
    let written = 0;
    for (const m of marks) {
      if (ends[m] < minTokens) continue;
      cache.add(keys[m]);
      written = ends[m];
    }
    // What lies past the hit and up to the last breakpoint is written (when it was long enough to be cached).
    const cacheWrite = written > read ? lastMark - read : 0;
    return { input: total - read - cacheWrite, cacheRead: read, cacheWrite };
  });
}

/**
 * OpenAI (and DeepSeek's and OpenRouter's automatic caching, modelled the same way): no markers;
 * the longest prefix a request shares with an earlier one is read from the cache, once it is at
 * least `minTokens` (1024) long, in steps of `increment` (128) tokens beyond that.
 */
export function automaticBilling(requests: readonly string[], opts: { minTokens?: number; increment?: number } = {}): BilledPrompt[] {
  const minTokens = opts.minTokens ?? 1024;
  const increment = opts.increment ?? 128;
  return requests.map((text, n) => {
    let shared = 0;
    for (let k = 0; k < n; k++) shared = Math.max(shared, commonPrefix(text, requests[k]));
    const total = tokensOf(text);
    const prefix = tokensOf(text.slice(0, shared));
    const hit = prefix < minTokens ? 0 : minTokens + Math.floor((Math.min(prefix, total) - minTokens) / increment) * increment;
    return { input: total - hit, cacheRead: hit, cacheWrite: 0 };
  });
}

/** The cost in US dollars of billed prompts (prompt side only); `cacheWrite` is the rate of the retention used. */
export function promptCost(billed: readonly BilledPrompt[], pricing: Pick<Pricing, 'input' | 'cacheRead' | 'cacheWrite'>): number {
  let cost = 0;
  for (const b of billed) cost += b.input * pricing.input + b.cacheRead * pricing.cacheRead + b.cacheWrite * pricing.cacheWrite;
  return cost / 1_000_000;
}

/** The same prompts billed without any caching: every token at the input rate. */
export function uncachedCost(billed: readonly BilledPrompt[], pricing: Pick<Pricing, 'input'>): number {
  let tokens = 0;
  for (const b of billed) tokens += b.input + b.cacheRead + b.cacheWrite;
  return (tokens * pricing.input) / 1_000_000;
}

/** The share of prompt tokens billed at the cache-read rate, over the given requests. */
export function readShare(billed: readonly BilledPrompt[]): number {
  let read = 0;
  let all = 0;
  for (const b of billed) {
    read += b.cacheRead;
    all += b.input + b.cacheRead + b.cacheWrite;
  }
  return all === 0 ? 0 : read / all;
}

/**
 * An Anthropic request body as blocks in the order the API reads them (tools, system, messages),
 * each block's cache_control turned into a breakpoint and left out of its text.
 */
export function anthropicBlocks(body: { tools?: readonly object[]; system?: string | readonly object[]; messages: readonly { role: string; content: string | readonly object[] }[] }): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const add = (value: object, prefix = '') => {
    const { cache_control, ...rest } = value as { cache_control?: unknown };
    blocks.push({ text: prefix + JSON.stringify(rest), breakpoint: cache_control !== undefined });
  };
  for (const t of body.tools ?? []) add(t);
  if (typeof body.system === 'string') add({ type: 'text', text: body.system });
  else for (const s of body.system ?? []) add(s);
  for (const m of body.messages) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    content.forEach((c, i) => add(c, i === 0 ? `${m.role}:` : ''));
  }
  return blocks;
}

/** Each block's prefix identity (a hash of every block up to it) and the tokens up to its end. */
function prefixes(blocks: readonly PromptBlock[]): { keys: string[]; ends: number[] } {
  const keys: string[] = [];
  const ends: number[] = [];
  const hash: Hash = createHash('sha256');
  let tokens = 0;
  for (const b of blocks) {
    hash.update(b.text);
    hash.update('\u0000');
    keys.push(hash.copy().digest('hex'));
    tokens += tokensOf(b.text);
    ends.push(tokens);
  }
  return { keys, ends };
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
