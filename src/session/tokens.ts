// Token accounting without a tokenizer: a conservative estimate, calibrated by the provider's
// reported usage whenever there is one. Pure and fast (one pass over the text).
import { estimateImageTokens } from '../core/image.js';
import type { Message, ToolSpec } from '../core/types.js';
import type { ContentEntry, SessionEntry } from './entries.js';
import { branchSummaryKind, compactionKind, messageKind } from './entry-kinds/index.js';

/** Tokens a message costs beyond its text (role, separators), rounded up. */
export const MESSAGE_OVERHEAD_TOKENS = 6;

// ASCII character classes for the estimate.
const SPACE = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const PUNCT = 4;
const ASCII_CLASS = new Uint8Array(128).map((_, c) => (c <= 0x20 || c === 0x7f ? SPACE : c >= 0x61 && c <= 0x7a ? LOWER : c >= 0x41 && c <= 0x5a ? UPPER : c >= 0x30 && c <= 0x39 ? DIGIT : PUNCT));
/** Quarter tokens of a non-digit ASCII character of class k after one of class p: COST[p * 8 + k]. */
const COST = new Uint8Array(64);
for (let p = SPACE; p <= PUNCT; p++) {
  for (let k = SPACE; k <= PUNCT; k++) {
    const letter = k === LOWER || k === UPPER;
    COST[p * 8 + k] = letter ? (p === DIGIT || (p === LOWER && k === UPPER) ? 3 : 1) : k === PUNCT ? (p === DIGIT ? 4 : 2) : p === DIGIT ? 4 : 1;
  }
}

/**
 * Estimated tokens of a text, rounded up, meant to err on the high side (checked against the
 * o200k and cl100k tokenizers in test/compaction-props.test.ts). Counted in quarter tokens:
 * - letters: a quarter each (about four characters a token), plus a half at each change of case
 *   or between letters and digits (camelCase, hex, base64 split there);
 * - digits: a token per group of three (tokenizers split numbers into groups of at most three),
 *   and the space or punctuation next to a digit is a token of its own;
 * - punctuation: half a token (code and JSON pair some of it); whitespace a quarter (a space joins
 *   the next word, but indentation and newlines are tokens too);
 * - CJK characters and other scripts (Greek, Hebrew, Arabic, Thai, Devanagari, symbols): one token;
 *   accented Latin and Cyrillic: half a token; an emoji (a surrogate pair): two.
 * Table-driven over the UTF-16 code units, the rare non-ASCII case in a function of its own:
 * about 3 to 5 ms a megabyte.
 */
export function estimateTextTokens(text: string): number {
  const n = text.length;
  const codes = utf16(text);
  let q = 0; // quarter tokens
  let prev = SPACE;
  let digits = 0; // length of the current digit run
  for (let i = 0; i < n; i++) {
    const c = codes[i];
    if (c < 128) {
      const k = ASCII_CLASS[c];
      if (k === DIGIT) {
        if (digits % 3 === 0) q += 4;
        if (prev === LOWER || prev === UPPER || prev === PUNCT) q += 2;
        else if (prev === SPACE && i > 0) q += 4;
        digits++;
      } else {
        q += COST[prev * 8 + k];
        digits = 0;
      }
      prev = k;
    } else {
      digits = 0;
      prev = PUNCT;
      if (c >= 0xd800 && c <= 0xdbff) {
        q += 8; // a surrogate pair (emoji, rare CJK): often two tokens or more
        i++;
      } else q += nonAsciiCost(c);
    }
  }
  return Math.ceil(q / 4);
}

/**
 * The UTF-16 code units of `text` in a reused scratch array. Reading a typed array keeps the loop
 * above fast whatever kind of string V8 made (a concatenation, a slice, one- or two-byte): with
 * charCodeAt, the loop got three times slower once it had seen them all. The scratch memory is a
 * private cache: it never changes a result.
 */
let scratch = Buffer.allocUnsafe(1 << 16);
let scratchCodes = new Uint16Array(scratch.buffer, scratch.byteOffset, scratch.length >> 1);
function utf16(text: string): Uint16Array {
  if (text.length * 2 > scratch.length) {
    scratch = Buffer.allocUnsafe(text.length * 2);
    scratchCodes = new Uint16Array(scratch.buffer, scratch.byteOffset, text.length);
  }
  scratch.write(text, 0, 'utf16le');
  return scratchCodes;
}

/** Quarter tokens of one non-ASCII character (not a surrogate). */
function nonAsciiCost(c: number): number {
  return c <= 0x24f || (c >= 0x400 && c <= 0x4ff) ? 2 : 4; // accented Latin and Cyrillic; everything else
}

/** Estimated tokens of one message, with its overhead. */
export function estimateMessageTokens(m: Message): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const c of m.content) {
    if (c.type === 'text') tokens += estimateTextTokens(c.text);
    else if (c.type === 'thinking') tokens += estimateTextTokens(c.thinking);
    else if (c.type === 'image')
      tokens += estimateImageTokens(c); // a fixed cost by its size in pixels, not its base64 text
    else if (c.type === 'toolCall') tokens += estimateTextTokens(c.name) + estimateTextTokens(c.rawArguments ?? JSON.stringify(c.arguments)) + MESSAGE_OVERHEAD_TOKENS;
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
  /** The messages the model would see, or a function giving them (called only when no usage calibrates the estimate). */
  projected: readonly Message[] | (() => readonly Message[]),
  extra: { systemPrompt?: string; tools?: readonly ToolSpec[] } = {},
): ContextEstimate {
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    if (compactionKind.is(e)) break; // usage from before the latest compaction no longer describes the context
    if (!messageKind.is(e) || e.message.role !== 'assistant') continue;
    const u = e.message.usage;
    const counted = u.input + u.cacheRead + u.cacheWrite;
    if (counted <= 0) continue; // a failed or aborted response reports nothing: look further back
    let after = u.output > 0 ? u.output : estimateMessageTokens(e.message);
    for (let j = i + 1; j < path.length; j++) {
      const next = path[j];
      if (messageKind.is(next)) after += estimateMessageTokens(next.message);
      else if (branchSummaryKind.is(next)) after += estimateTextTokens(next.summary) + MESSAGE_OVERHEAD_TOKENS;
    }
    return { tokens: counted + after, calibrated: true };
  }
  return { tokens: estimateRequestTokens(typeof projected === 'function' ? projected() : projected, extra), calibrated: false };
}
