// Reasoning control (`--thinking off|low|medium|high`): the levels, and what each dialect sends
// for a level, by the model table's `reasoning` field. Pure; the converters call it.
import type { ReasoningControl } from './models.js';

import { THINKING_LEVELS, type ThinkingLevel } from './thinking-levels.js';

export { isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from './thinking-levels.js';

/** The level after `level`, wrapping round (the interactive mode's key cycles through them). */
export function nextThinkingLevel(level: ThinkingLevel): ThinkingLevel {
  return THINKING_LEVELS[(THINKING_LEVELS.indexOf(level) + 1) % THINKING_LEVELS.length];
}

/** Anthropic `budget_tokens` per level (the API's minimum is 1,024). */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ThinkingLevel, 'off'>, number>> = { low: 2_048, medium: 8_192, high: 24_576 };

/** The least room left for the answer after a thinking budget, in tokens. */
export const MIN_ANSWER_TOKENS = 1_024;

export interface AnthropicThinkingFields {
  max_tokens: number;
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'adaptive'; display: 'summarized' };
  output_config?: { effort: 'low' | 'medium' | 'high' };
}

/**
 * The Anthropic fields for a level. `budget`: thinking enabled with the level's budget; the budget
 * counts toward max_tokens and must be below it, so it is capped to leave MIN_ANSWER_TOKENS for the
 * answer, and when even the API's minimum (1,024) would not fit, max_tokens is raised to 2,048.
 * `adaptive`: adaptive thinking, shown summarized (some models omit it by default), with the level
 * as the effort. Off, and every other model: no thinking field (the model's own default).
 */
export function anthropicThinking(level: ThinkingLevel, reasoning: ReasoningControl, maxTokens: number): AnthropicThinkingFields {
  if (level === 'off') return { max_tokens: maxTokens };
  if (reasoning === 'adaptive') return { max_tokens: maxTokens, thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: level } };
  if (reasoning !== 'budget') return { max_tokens: maxTokens };
  const budget = Math.max(1_024, Math.min(THINKING_BUDGETS[level], maxTokens - MIN_ANSWER_TOKENS));
  return { max_tokens: Math.max(maxTokens, budget + MIN_ANSWER_TOKENS), thinking: { type: 'enabled', budget_tokens: budget } };
}

export type OpenAIEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high';

/**
 * OpenAI `reasoning_effort` for a level, for models whose reasoning is `effort`; undefined sends
 * nothing. Off is the least the model takes: `none` for gpt-5.1 and later, `minimal` for gpt-5,
 * `low` for the o-series (which take nothing lower).
 */
export function openaiReasoningEffort(level: ThinkingLevel, reasoning: ReasoningControl, model: string): OpenAIEffort | undefined {
  if (reasoning !== 'effort') return undefined;
  if (level !== 'off') return level;
  const bare = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  if (/^gpt-5\.\d/.test(bare)) return 'none';
  if (bare.startsWith('gpt-5')) return 'minimal';
  return 'low';
}
