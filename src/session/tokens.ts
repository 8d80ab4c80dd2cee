// Token accounting without a tokenizer: a conservative estimate, calibrated by the provider's
// reported usage whenever there is one. Pure and fast (one pass over the text).
import type { Message, ToolSpec } from '../core/types.js';
import type { ContentEntry, SessionEntry } from './entries.js';

/** Tokens a message costs beyond its text (role, separators), rounded up. */
export const MESSAGE_OVERHEAD_TOKENS = 6;

/**
 * Estimated tokens of a text, rounded up: a CJK character (Han, kana, Hangul) is about one token,
 * an emoji two; other non-ASCII characters (accented letters, Cyrillic, Greek, symbols) about half a token;
 * ASCII text about four characters per token, less when it is dense with punctuation and digits
 * (code, JSON), which tokenizers split finely. Meant to err on the high side.
 */
export function estimateTextTokens(text: string): number {
  let cjk = 0;
  let other = 0;
  let ascii = 0;
  let dense = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      ascii++;
      // Punctuation and digits: mostly a token of their own or a short one.
      if ((c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e) || (c >= 0x30 && c <= 0x39)) dense++;
    } else if ((c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef)) {
      cjk++;
    } else if (c >= 0xd800 && c <= 0xdbff) {
      cjk += 2; // a surrogate pair (emoji, rare CJK): often two tokens or more
      i++;
    } else other++;
  }
  return Math.ceil(cjk + other / 2 + (ascii - dense) / 4 + dense / 2);
}

/** Estimated tokens of one message, with its overhead. */
export function estimateMessageTokens(m: Message): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const c of m.content) {
    if (c.type === 'text') tokens += estimateTextTokens(c.text);
    else if (c.type === 'thinking') tokens += estimateTextTokens(c.thinking);
    else tokens += estimateTextTokens(c.name) + estimateTextTokens(c.rawArguments ?? JSON.stringify(c.arguments)) + MESSAGE_OVERHEAD_TOKENS;
  }
  if (m.role === 'toolResult') tokens += estimateTextTokens(m.toolName);
  return tokens;
}

/** Estimated tokens of a request: the system prompt, the tool specs and the messages. */
export function estimateRequestTokens(messages: readonly Message[], extra: { systemPrompt?: string; tools?: readonly ToolSpec[] } = {}): number {
  let tokens = extra.systemPrompt ? estimateTextTokens(extra.systemPrompt) + MESSAGE_OVERHEAD_TOKENS : 0;
  for (const t of extra.tools ?? []) tokens += estimateTextTokens(t.name + t.description + JSON.stringify(t.parameters)) + MESSAGE_OVERHEAD_TOKENS;
  for (const m of messages) tokens += estimateMessageTokens(m);
  return tokens;
}

export interface ContextEstimate {
  tokens: number;
  /** True when the figure starts from the provider's reported usage of the last response. */
  calibrated: boolean;
}

/**
 * How big the context is now, in tokens: the last response's real usage (what the provider
 * counted for its request, plus its output) and estimates only for what came after it. Without a
 * usable response since the latest compaction, everything is estimated.
 */
export function contextTokens(
  path: readonly (ContentEntry | SessionEntry)[],
  projected: readonly Message[],
  extra: { systemPrompt?: string; tools?: readonly ToolSpec[] } = {},
): ContextEstimate {
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    if (e.type === 'compaction') break; // usage from before the latest compaction no longer describes the context
    if (e.type !== 'message' || e.message.role !== 'assistant') continue;
    const u = e.message.usage;
    const counted = u.input + u.cacheRead + u.cacheWrite;
    if (counted <= 0) continue; // a failed or aborted response reports nothing: look further back
    let after = u.output > 0 ? u.output : estimateMessageTokens(e.message);
    for (let j = i + 1; j < path.length; j++) {
      const next = path[j];
      if (next.type === 'message') after += estimateMessageTokens(next.message);
      else if (next.type === 'branch_summary') after += estimateTextTokens(next.summary) + MESSAGE_OVERHEAD_TOKENS;
    }
    return { tokens: counted + after, calibrated: true };
  }
  return { tokens: estimateRequestTokens(projected, extra), calibrated: false };
}
