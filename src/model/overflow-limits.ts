// What a provider's context-overflow error says about the limits: the model's window and, when it
// is given, how many tokens the rejected request had. Read from the error body's own fields first
// (llama.cpp's `n_ctx`, `n_prompt_tokens`), then out of the known wordings of the message. The
// kind of the error is decided elsewhere (errors.ts); this only reads numbers.
import type { ModelError } from '../core/types.js';

export interface OverflowLimits {
  /** The model's context window, as the provider states it. */
  contextWindow?: number;
  /** The rejected request's input tokens, as the provider counted them. */
  requestTokens?: number;
}

/** A pattern of a known message: which group holds the window, which the request's tokens. */
interface Wording {
  /** Who sends it (for the reader; the tests cite a real message of each). */
  provider: string;
  pattern: RegExp;
  window: number;
  request?: number;
}

const N = '(\\d[\\d,]*)';

/** Known wordings, most specific first: the first that yields a window wins. */
const WORDINGS: readonly Wording[] = [
  // Anthropic: "prompt is too long: 208310 tokens > 200000 maximum".
  { provider: 'Anthropic', pattern: new RegExp(`prompt is too long: ${N} tokens > ${N} maximum`, 'i'), window: 2, request: 1 },
  // llama.cpp: "request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it".
  { provider: 'llama.cpp', pattern: new RegExp(`request \\(${N} tokens\\) exceeds the available context size \\(${N} tokens\\)`, 'i'), window: 2, request: 1 },
  // vLLM, older: "… maximum context length is 8192 tokens. However, you requested 8203 tokens (7691 in the messages, 512 in the completion)".
  { provider: 'vLLM', pattern: new RegExp(`maximum context length is ${N} tokens[.,;]?\\s*however,? you requested (?:about )?${N} tokens \\(${N} in (?:the messages|your prompt)`, 'i'), window: 1, request: 3 },
  // OpenRouter: "This endpoint's maximum context length is 131072 tokens. However, you requested about 138956 tokens (7884 of text input, …)".
  { provider: 'OpenRouter', pattern: new RegExp(`maximum context length is ${N} tokens[.,;]?\\s*however,? you requested (?:about )?${N} tokens \\(${N} of text input`, 'i'), window: 1, request: 3 },
  // OpenAI: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9650 tokens."
  { provider: 'OpenAI', pattern: new RegExp(`maximum context length is ${N} tokens[.,;]?\\s*however,? your messages resulted in ${N} tokens`, 'i'), window: 1, request: 2 },
  // vLLM, newer: "… maximum context length is 2048 tokens. However, your request has 8 input tokens plus 2045 'max_tokens'".
  { provider: 'vLLM', pattern: new RegExp(`maximum context length is ${N} tokens[.,;]?\\s*however,? your request has ${N} input tokens`, 'i'), window: 1, request: 2 },
  // Any other "maximum context length is N tokens" (a request total that counts the completion too is not the input).
  { provider: 'OpenAI-compatible', pattern: new RegExp(`maximum context length is ${N} tokens`, 'i'), window: 1 },
  // llama.cpp and others: "context size (4096 tokens)", "n_ctx: 4096", "n_ctx = 4096".
  { provider: 'llama.cpp', pattern: new RegExp(`\\bn_ctx(?:_slot)?\\s*[:=]\\s*${N}`, 'i'), window: 1 },
];

const toInt = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const n = Number(s.replace(/,/g, ''));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

const positive = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined);

/**
 * The limits an overflow error states. `fields` is the provider's error object, when there is one
 * (llama.cpp puts `n_ctx` and `n_prompt_tokens` next to the message). Empty when nothing is stated.
 */
export function overflowLimits(message: string, fields?: Record<string, unknown>): OverflowLimits {
  const fromFields: OverflowLimits = {};
  const nCtx = positive(fields?.n_ctx);
  const nPrompt = positive(fields?.n_prompt_tokens);
  if (nCtx !== undefined) fromFields.contextWindow = nCtx;
  if (nPrompt !== undefined) fromFields.requestTokens = nPrompt;
  if (fromFields.contextWindow !== undefined) return fromFields;
  for (const w of WORDINGS) {
    const m = w.pattern.exec(message);
    const window = toInt(m?.[w.window]);
    if (!m || window === undefined) continue;
    const request = w.request !== undefined ? toInt(m[w.request]) : undefined;
    return { contextWindow: window, ...(request !== undefined ? { requestTokens: request } : fromFields.requestTokens !== undefined ? { requestTokens: fromFields.requestTokens } : {}) };
  }
  return fromFields;
}

/** `error` with the limits its message states, when it is an overflow and they are not set yet. */
export function withOverflowLimits(error: ModelError, fields?: Record<string, unknown>): ModelError {
  if (error.kind !== 'context_overflow' || error.contextWindow !== undefined) return error;
  const limits = overflowLimits(error.message, fields);
  return { ...error, ...limits };
}
