// The output a request may reserve. Providers count the input and `max_tokens` together against the
// window (vLLM and llama.cpp refuse a request whose sum does not fit), so a model with a small window
// and the default output cap (8,192 tokens for a model the table does not know) would fail every
// request once a window of 8k is learned. The cap is lowered to what the window leaves after the
// input, with the estimate raised by a quarter (it can read as low as 0.75× a provider's count).
// Pure.
import { estimateRequestTokens } from '../session/tokens.js';
import type { Message, ToolSpec } from '../core/types.js';

/** Never ask for less than this: a request with less room than that overflows and is compacted. */
export const MIN_OUTPUT_TOKENS = 1024;

/** The estimate is raised by this factor before it is taken from the window. */
const ESTIMATE_MARGIN = 1.25;

/**
 * The output cap for a request in a window of `contextWindow` tokens, or undefined when the window
 * is unknown. The adapter keeps its own cap when that is lower (the converters take the smaller).
 */
export function outputCap(contextWindow: number | undefined, messages: readonly Message[], extra: { systemPrompt: string; tools: readonly ToolSpec[] }): number | undefined {
  if (contextWindow === undefined) return undefined;
  const input = Math.ceil(estimateRequestTokens(messages, extra) * ESTIMATE_MARGIN);
  return Math.max(MIN_OUTPUT_TOKENS, contextWindow - input);
}
