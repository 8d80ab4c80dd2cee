// Providers and models: presets, per-model limits and prices, cost.
import type { Usage } from '../core/types.js';
import type { CacheRetention } from './cache.js';

export type ProviderApi = 'openai' | 'anthropic';

export interface ProviderPreset {
  api: ProviderApi;
  /** Base URL handed to the SDK (OpenAI-style URLs include /v1; Anthropic's do not). */
  baseUrl: string;
  /** The environment variable holding the API key; undefined when no key is needed. */
  apiKeyEnv?: string;
  /** Local servers need no key. */
  keyOptional?: boolean;
  defaultModel: string;
  /** The price of every model of this provider the model table does not know (ollama: a local server, $0). Without it such a model's price is unknown. */
  pricing?: Pricing;
}

export const PROVIDERS: Readonly<Record<string, ProviderPreset>> = {
  openai: { api: 'openai', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', defaultModel: 'gpt-4.1-mini' },
  anthropic: { api: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKeyEnv: 'ANTHROPIC_API_KEY', defaultModel: 'claude-sonnet-5-5' },
  deepseek: { api: 'openai', baseUrl: 'https://api.deepseek.com/v1', apiKeyEnv: 'DEEPSEEK_API_KEY', defaultModel: 'deepseek-chat' },
  openrouter: { api: 'openai', baseUrl: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY', defaultModel: 'openai/gpt-4.1-mini' },
  ollama: { api: 'openai', baseUrl: 'http://localhost:11434/v1', keyOptional: true, defaultModel: 'qwen3:8b', pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
  'openai-compatible': { api: 'openai', baseUrl: 'http://localhost:8000/v1', apiKeyEnv: 'OPENAI_API_KEY', defaultModel: 'default' },
};

/** Prices in US dollars per million tokens. */
export interface Pricing {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * How a model's reasoning is controlled (see `--thinking`):
 * - `none`: no reasoning, or none we can control (a level other than off is noted and ignored);
 * - `budget`: Anthropic `thinking: {type: "enabled", budget_tokens}` (Claude 4.5 and earlier);
 * - `adaptive`: Anthropic `thinking: {type: "adaptive"}` with `output_config.effort` (Claude 4.6 and later);
 * - `effort`: OpenAI `reasoning_effort` (o-series, gpt-5);
 * - `always`: the model always reasons and takes no control (deepseek-reasoner).
 */
export type ReasoningControl = 'none' | 'budget' | 'adaptive' | 'effort' | 'always';

export interface ModelInfo {
  contextWindow: number;
  maxOutputTokens: number;
  /** Undefined: not known (a model missing from the table); costs are then shown as "cost unknown", never $0. */
  pricing?: Pricing;
  /** The model takes images in its input (both in prompts and in tool results). */
  images: boolean;
  reasoning: ReasoningControl;
}

/** Defaults for models this table does not know: conservative limits, an unknown price, no images, no reasoning control. */
export const DEFAULT_MODEL_INFO: ModelInfo = { contextWindow: 128_000, maxOutputTokens: 8_192, images: false, reasoning: 'none' };

type Row = [prefix: string, info: ModelInfo];
const row = (prefix: string, contextWindow: number, maxOutputTokens: number, pricing: Pricing, images: boolean, reasoning: ReasoningControl): Row => [prefix, { contextWindow, maxOutputTokens, pricing, images, reasoning }];
const price = (input: number, output: number, cacheRead: number, cacheWrite = 0): Pricing => ({ input, output, cacheRead, cacheWrite });

/**
 * Known models (prefix match on the id, first match wins: longer prefixes first). Prices as
 * published by the providers, in US$ per million tokens; override them in config.
 */
const KNOWN: ReadonlyArray<Row> = [
  row('gpt-4.1-mini', 1_047_576, 32_768, price(0.4, 1.6, 0.1), true, 'none'),
  row('gpt-4.1', 1_047_576, 32_768, price(2, 8, 0.5), true, 'none'),
  row('gpt-4o-mini', 128_000, 16_384, price(0.15, 0.6, 0.075), true, 'none'),
  row('gpt-4o', 128_000, 16_384, price(2.5, 10, 1.25), true, 'none'),
  row('gpt-5-mini', 400_000, 128_000, price(0.25, 2, 0.025), true, 'effort'),
  row('gpt-5-nano', 400_000, 128_000, price(0.05, 0.4, 0.005), true, 'effort'),
  row('gpt-5', 400_000, 128_000, price(1.25, 10, 0.125), true, 'effort'),
  row('o4-mini', 200_000, 100_000, price(1.1, 4.4, 0.275), true, 'effort'),
  row('o3-mini', 200_000, 100_000, price(1.1, 4.4, 0.55), false, 'effort'),
  row('o3', 200_000, 100_000, price(2, 8, 0.5), true, 'effort'),
  // The 5.x families: limits and prices assumed equal to 4.x until configured otherwise; they take adaptive thinking only.
  row('claude-sonnet-5', 200_000, 64_000, price(3, 15, 0.3, 3.75), true, 'adaptive'),
  row('claude-opus-5', 200_000, 32_000, price(15, 75, 1.5, 18.75), true, 'adaptive'),
  row('claude-haiku-5', 200_000, 64_000, price(1, 5, 0.1, 1.25), true, 'adaptive'),
  // Claude 4.6 and later: adaptive thinking with an effort; earlier 4.x: a thinking budget.
  row('claude-opus-4-7', 200_000, 128_000, price(5, 25, 0.5, 6.25), true, 'adaptive'),
  row('claude-opus-4-6', 200_000, 128_000, price(5, 25, 0.5, 6.25), true, 'adaptive'),
  row('claude-sonnet-4-6', 200_000, 64_000, price(3, 15, 0.3, 3.75), true, 'adaptive'),
  row('claude-opus-4-5', 200_000, 64_000, price(5, 25, 0.5, 6.25), true, 'budget'),
  row('claude-sonnet-4', 200_000, 64_000, price(3, 15, 0.3, 3.75), true, 'budget'),
  row('claude-opus-4', 200_000, 32_000, price(15, 75, 1.5, 18.75), true, 'budget'),
  row('claude-haiku-4', 200_000, 64_000, price(1, 5, 0.1, 1.25), true, 'budget'),
  row('deepseek-chat', 128_000, 8_192, price(0.27, 1.1, 0.07), false, 'none'),
  row('deepseek-reasoner', 128_000, 32_768, price(0.55, 2.19, 0.14), false, 'always'),
];

/** The ids of the model table (prefixes of real ids), in its order: the /model picker and its Tab completion. */
export function knownModelIds(): string[] {
  return KNOWN.map(([prefix]) => prefix);
}

export function modelInfo(model: string): ModelInfo {
  const bare = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  for (const [prefix, info] of KNOWN) if (bare.startsWith(prefix)) return info;
  return DEFAULT_MODEL_INFO;
}

export function computeCost(usage: Omit<Usage, 'cost'>, pricing: Pricing): number {
  return (usage.input * pricing.input + usage.output * pricing.output + usage.cacheRead * pricing.cacheRead + usage.cacheWrite * pricing.cacheWrite) / 1_000_000;
}

/** What every real adapter is built from (the CLI's config resolves it). */
export interface AdapterConfig {
  provider: string;
  model: string;
  baseUrl: string;
  /** Undefined for servers that need no key. */
  apiKey?: string;
  maxOutputTokens: number;
  /** Undefined: the price is unknown; usage then carries `costUnknown`. */
  pricing?: Pricing;
  /** Per-request timeout in ms (the SDK's own); the retry layer decides what happens next. */
  timeoutMs?: number;
  /** Prompt caching (cache.retention): Anthropic cache breakpoints and their time to live; absent: none. */
  cacheRetention?: CacheRetention;
  /** false: the model takes no images, and the converters send each one as a text note instead. */
  images?: boolean;
}
