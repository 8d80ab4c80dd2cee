// Cache breakpoints for an Anthropic request (see DESIGN.md, "Prompt caching"). The API caches
// the prefix of the request up to each block marked with cache_control, in its order: tools,
// system, messages. Four markers at most:
// 1. the last tool: the tools alone stay cached when the system prompt changes (a context file edited);
// 2. the system prompt: tools and system, the same in every request of a session;
// 3. the last block of the last message: this request's whole prefix, written for the next one;
// 4. the last block of the user message before the last assistant message: where the previous
//    request ended, so this request reads what the previous one wrote even when a turn added
//    more blocks than the API looks back over (about 20) from marker 3.
// The markers move with the conversation, so only the content, not the markers, forms a stable
// prefix from one request to the next (the property test compares requests without them).
import type { AnthropicRequestBody, WireMessage } from './anthropic-convert.js';
import { cacheControl, MAX_BREAKPOINTS, type CacheControl, type CacheRetention } from './cache.js';

/** The body with its cache breakpoints; `none` (or no retention) leaves it as it is. */
export function applyBreakpoints(body: AnthropicRequestBody, retention: CacheRetention | undefined): AnthropicRequestBody {
  const marker = cacheControl(retention);
  if (!marker) return body;
  let left = MAX_BREAKPOINTS;
  const out: AnthropicRequestBody = { ...body };
  if (body.tools && body.tools.length > 0) {
    const tools = [...body.tools];
    tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: marker };
    out.tools = tools;
    left--;
  }
  if (typeof body.system === 'string' && body.system !== '') {
    out.system = [{ type: 'text', text: body.system, cache_control: marker }];
    left--;
  }
  const messages = [...body.messages];
  for (const index of messageBreakpoints(messages).slice(0, left)) messages[index] = marked(messages[index], marker);
  out.messages = messages;
  return out;
}

/** Indexes of the messages whose last block gets a marker: the last message, then where the previous request ended. */
function messageBreakpoints(messages: readonly WireMessage[]): number[] {
  const at: number[] = [];
  const last = messages.length - 1;
  if (last < 0) return at;
  at.push(last);
  let assistant = last;
  while (assistant >= 0 && messages[assistant].role !== 'assistant') assistant--;
  const previousEnd = assistant - 1;
  if (previousEnd >= 0 && previousEnd !== last && messages[previousEnd].role === 'user') at.push(previousEnd);
  return at.filter((i) => markable(messages[i]) >= 0);
}

/** The last block that may carry a marker (thinking blocks cannot), or -1. */
function markable(message: WireMessage): number {
  for (let i = message.content.length - 1; i >= 0; i--) if (message.content[i].type !== 'thinking') return i;
  return -1;
}

function marked(message: WireMessage, marker: CacheControl): WireMessage {
  const i = markable(message);
  if (message.role === 'user') {
    const content = [...message.content];
    content[i] = { ...content[i], cache_control: marker };
    return { role: 'user', content };
  }
  const content = [...message.content];
  const block = content[i];
  if (block.type !== 'thinking') content[i] = { ...block, cache_control: marker };
  return { role: 'assistant', content };
}
