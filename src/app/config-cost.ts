// Prices and the budget, resolved from the model table, the provider preset and the config files
// (issue 23 §6). An unknown price stays unknown (undefined), never $0: a model the table does not
// know has a price only when the configuration gives its input and output prices (zeros say
// "free"), or when its provider prices every model (ollama: a local server, $0). A budget needs a
// known price. Pure: config.ts calls it with what it merged.
import { flagSource } from '../core/config-table.js';
import { isPlainObject, UsageError } from '../core/types.js';
import { DEFAULT_MODEL_INFO, type ModelInfo, type Pricing, type ProviderPreset } from '../model/models.js';

export const PRICE_KEYS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

/**
 * The effective price of `model` and where each part came from (keys `pricing.input`, …).
 * `override`: the merged `models.<model>.pricing`; `sourceOf`: the source of one of its keys.
 */
export function resolvePricing(opts: { model: string; provider: string; known: ModelInfo; preset: ProviderPreset; override: Partial<Pricing> | undefined; tableSource: string; sourceOf: (key: string) => string | undefined }): {
  pricing: Pricing | undefined;
  sources: Record<string, string>;
} {
  const { known, preset, override = {} } = opts;
  const base = known.pricing ?? preset.pricing;
  const baseSource = known.pricing ? opts.tableSource : `preset ${opts.provider} (every model of this provider)`;
  let pricing: Pricing | undefined;
  if (base) pricing = { ...base, ...override };
  else if (override.input !== undefined && override.output !== undefined) {
    // Cached tokens of a model priced by hand bill at the input price unless configured: no discount is assumed.
    pricing = { cacheRead: override.input, cacheWrite: override.input, ...override } as Pricing;
  }
  const sources: Record<string, string> = {};
  for (const k of PRICE_KEYS) {
    const configured = opts.sourceOf(`pricing.${k}`);
    sources[`pricing.${k}`] = !pricing
      ? `unknown: ${opts.model} is not in the model table; set models.${opts.model}.pricing.input and .output (US$ per million tokens; 0 for free)`
      : (configured ?? (base ? baseSource : 'default (the input price)'));
  }
  return { pricing, sources };
}

/** The budget of a run: `--max-cost` over `budget.maxCostUsd`; refused when the price is unknown (it could not be enforced). */
export function resolveBudget(opts: { flag: number | undefined; configured: unknown; configuredSource: string | undefined; pricing: Pricing | undefined; model: string }): { maxCostUsd: number | undefined; source: string } {
  const maxCostUsd = opts.flag ?? (typeof opts.configured === 'number' ? opts.configured : undefined);
  const source = opts.flag !== undefined ? flagSource('budget.maxCostUsd') : (opts.configuredSource ?? 'default (no budget)');
  if (maxCostUsd !== undefined && !opts.pricing) {
    throw new UsageError(
      `a budget (${source}: $${maxCostUsd}) cannot be kept: the prices of ${opts.model} are unknown; ` + `set models.${opts.model}.pricing.input and .output in a config file (US$ per million tokens; 0 for a free model), or drop the budget`,
    );
  }
  return { maxCostUsd, source };
}

/**
 * The price and the budget for config.ts: `sources` (the merged layers' sources) gets the keys
 * `pricing.*` and `budget.maxCostUsd`. `budget`: the merged `budget` value of the config files.
 */
export function costSettings(opts: { model: string; provider: string; known: ModelInfo; preset: ProviderPreset; override: Partial<Pricing> | undefined; maxCostFlag: number | undefined; budget: unknown; sources: Record<string, string> }): {
  pricing: Pricing | undefined;
  budget: { maxCostUsd: number | undefined };
} {
  const { model, sources } = opts;
  const tableSource = opts.known === DEFAULT_MODEL_INFO ? 'default (unknown model)' : 'model table';
  const priced = resolvePricing({ ...opts, tableSource, sourceOf: (key) => sources[`models.${model}.${key}`] });
  Object.assign(sources, priced.sources);
  const configured = isPlainObject(opts.budget) ? opts.budget.maxCostUsd : undefined;
  const b = resolveBudget({ flag: opts.maxCostFlag, configured, configuredSource: sources['budget.maxCostUsd'], pricing: priced.pricing, model });
  sources['budget.maxCostUsd'] = b.source;
  return { pricing: priced.pricing, budget: { maxCostUsd: b.maxCostUsd } };
}
