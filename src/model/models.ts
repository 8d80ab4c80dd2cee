// Providers and models: presets, per-model limits and prices, cost.
import type { Usage } from '../core/types.js';

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
}

export const PROVIDERS: Readonly<Record<string, ProviderPreset>> = {
  openai: { api: 'openai', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', defaultModel: 'gpt-4.1-mini' },
  anthropic: { api: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKeyEnv: 'ANTHROPIC_API_KEY', defaultModel: 'claude-sonnet-5-5' },
  deepseek: { api: 'openai', baseUrl: 'https://api.deepseek.com/v1', apiKeyEnv: 'DEEPSEEK_API_KEY', defaultModel: 'deepseek-chat' },
  openrouter: { api: 'openai', baseUrl: 'https://openrouter.ai/api/v1', apiKeyEnv: 'OPENROUTER_API_KEY', defaultModel: 'openai/gpt-4.1-mini' },
  ollama: { api: 'openai', baseUrl: 'http://localhost:11434/v1', keyOptional: true, defaultModel: 'qwen3:8b' },
  'openai-compatible': { api: 'openai', baseUrl: 'http://localhost:8000/v1', apiKeyEnv: 'OPENAI_API_KEY', defaultModel: 'default' },
};

/** Prices in US dollars per million tokens. */
export interface Pricing {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ModelInfo {
  contextWindow: number;
  maxOutputTokens: number;
  pricing: Pricing;
}

const FREE: Pricing = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/** Defaults for models this table does not know: conservative limits, no price. */
export const DEFAULT_MODEL_INFO: ModelInfo = { contextWindow: 128_000, maxOutputTokens: 8_192, pricing: FREE };

/** Known models (prefix match on the id). Prices as published by the providers; override them in config. */
const KNOWN: ReadonlyArray<[string, ModelInfo]> = [
  ['gpt-4.1-mini', { contextWindow: 1_047_576, maxOutputTokens: 32_768, pricing: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 } }],
  ['gpt-4.1', { contextWindow: 1_047_576, maxOutputTokens: 32_768, pricing: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 } }],
  ['gpt-4o-mini', { contextWindow: 128_000, maxOutputTokens: 16_384, pricing: { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0 } }],
  ['gpt-4o', { contextWindow: 128_000, maxOutputTokens: 16_384, pricing: { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 0 } }],
  // The 5.x families: limits and prices assumed equal to 4.x until configured otherwise.
  ['claude-sonnet-5', { contextWindow: 200_000, maxOutputTokens: 64_000, pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }],
  ['claude-opus-5', { contextWindow: 200_000, maxOutputTokens: 32_000, pricing: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 } }],
  ['claude-haiku-5', { contextWindow: 200_000, maxOutputTokens: 64_000, pricing: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 } }],
  ['claude-sonnet-4', { contextWindow: 200_000, maxOutputTokens: 64_000, pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }],
  ['claude-opus-4', { contextWindow: 200_000, maxOutputTokens: 32_000, pricing: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 } }],
  ['claude-haiku-4', { contextWindow: 200_000, maxOutputTokens: 64_000, pricing: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 } }],
  ['deepseek-chat', { contextWindow: 128_000, maxOutputTokens: 8_192, pricing: { input: 0.27, output: 1.1, cacheRead: 0.07, cacheWrite: 0 } }],
  ['deepseek-reasoner', { contextWindow: 128_000, maxOutputTokens: 32_768, pricing: { input: 0.55, output: 2.19, cacheRead: 0.14, cacheWrite: 0 } }],
];

export function modelInfo(model: string): ModelInfo {
  const bare = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  for (const [prefix, info] of KNOWN) if (bare.startsWith(prefix)) return info;
  return DEFAULT_MODEL_INFO;
}

export function computeCost(usage: Omit<Usage, 'cost'>, pricing: Pricing): number {
  return (
    (usage.input * pricing.input + usage.output * pricing.output + usage.cacheRead * pricing.cacheRead + usage.cacheWrite * pricing.cacheWrite) /
    1_000_000
  );
}

/** What every real adapter is built from (the CLI's config resolves it). */
export interface AdapterConfig {
  provider: string;
  model: string;
  baseUrl: string;
  /** Undefined for servers that need no key. */
  apiKey?: string;
  maxOutputTokens: number;
  pricing: Pricing;
  /** Per-request timeout in ms (the SDK's own); the retry layer decides what happens next. */
  timeoutMs?: number;
}
