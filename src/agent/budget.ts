// The run's budget (--max-cost, budget.maxCostUsd; issue 23 §6): before each request, what it
// could cost at most — its input, estimated as compaction estimates it (session/tokens.ts: the
// last response's real count plus estimates for what came after), at the input price, plus the
// most output it may ask for (the max_tokens it carries) at the output price. When what the run
// has spent plus that would pass the budget, the request is not sent and the run stops
// (stopReason "budget"). Cached input is priced as input: the bound may be high, never low. Pure.
import type { BudgetStop } from '../core/events.js';
import type { Message, ToolSpec } from '../core/types.js';
import type { Pricing } from '../model/models.js';
import type { ContentEntry, SessionEntry } from '../session/entries.js';
import { contextTokens } from '../session/tokens.js';

export interface BudgetPolicy {
  /** US dollars a run may spend. */
  maxCostUsd: number;
  pricing: Pricing;
  /** The output cap each request carries (max_tokens). */
  maxOutputTokens: number;
}

/** The most a request with `inputTokens` of input could cost, in US dollars. */
export function requestCostBound(inputTokens: number, policy: BudgetPolicy): number {
  return (inputTokens * policy.pricing.input + policy.maxOutputTokens * policy.pricing.output) / 1_000_000;
}

/** The stop, when the next request (its context: `path`, `messages`, the system prompt and tools) could take the run past its budget; else null. */
export function budgetStop(policy: BudgetPolicy, spentUsd: number, path: readonly (ContentEntry | SessionEntry)[], messages: readonly Message[], extra: { systemPrompt: string; tools: readonly ToolSpec[] }): BudgetStop | null {
  const next = requestCostBound(contextTokens(path, messages, extra).tokens, policy);
  return spentUsd + next > policy.maxCostUsd ? { maxCostUsd: policy.maxCostUsd, spentUsd, nextRequestUsd: next } : null;
}
