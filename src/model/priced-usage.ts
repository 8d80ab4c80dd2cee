// Usage with its cost: priced when the model's prices are known, marked `costUnknown` when not, so
// that an unknown price is never shown as $0 (issue 23 §6). Pure.
import type { Usage } from '../core/types.js';
import { computeCost, type Pricing } from './models.js';

export function pricedUsage(usage: Omit<Usage, 'cost' | 'costUnknown'>, pricing: Pricing | undefined): Usage {
  return pricing ? { ...usage, cost: computeCost(usage, pricing) } : { ...usage, cost: 0, costUnknown: true };
}
