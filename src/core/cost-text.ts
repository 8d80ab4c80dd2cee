// A cost as every display shows it (issue 23 §6): dollars when every price was known, "cost
// unknown" when none was, and a lower bound when some were: never $0 for an unknown price.
import type { Usage } from './types.js';

export function costText(u: Pick<Usage, 'cost' | 'costUnknown'>): string {
  if (!u.costUnknown) return `$${u.cost.toFixed(4)}`;
  return u.cost > 0 ? `at least $${u.cost.toFixed(4)} (some prices unknown)` : 'cost unknown';
}

/** The line a run stopped for its budget ends with (stderr in print mode, the interactive screen). */
export function budgetLine(b: { maxCostUsd: number; spentUsd: number; nextRequestUsd: number }): string {
  return `stopped: the next request could cost up to $${b.nextRequestUsd.toFixed(4)}, more than is left of the budget ($${b.maxCostUsd.toFixed(2)}; spent $${b.spentUsd.toFixed(4)})`;
}
