// Pure conversions for the OpenAI-compatible adapter: our messages → a Chat Completions
// request body, and the small mappings used while reading the stream. Types only from the SDK.
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming, ChatCompletionMessageFunctionToolCall, ChatCompletionMessageParam, ChatCompletionContentPart, ChatCompletionTool } from 'openai/resources/chat/completions';
import { imagesAsNotes } from '../core/image.js';
import { emptyUsage, type ImageContent, type Message, type StopReason, type Usage } from '../core/types.js';
import type { ModelRequest } from './adapter.js';
import { takesPromptCacheKey } from './cache.js';
import { modelInfo, type AdapterConfig } from './models.js';
import { pricedUsage } from './priced-usage.js';
import { openaiReasoningEffort } from './thinking.js';
import { INTERRUPTED_RESULT } from './tool-call.js';

/** The body for `client.chat.completions.create`. Pure: no SDK, no I/O. */
export function toOpenAIRequest(
  request: Pick<ModelRequest, 'messages' | 'tools' | 'systemPrompt' | 'cacheKey' | 'thinking' | 'maxOutputTokens'>,
  cfg: Pick<AdapterConfig, 'provider' | 'model' | 'maxOutputTokens' | 'cacheRetention' | 'images'>,
): ChatCompletionCreateParamsStreaming {
  // The thinking level (ModelRequest.thinking) by the model table's reasoning control (model/thinking.ts).
  const effort = openaiReasoningEffort(request.thinking ?? 'off', modelInfo(cfg.model).reasoning, cfg.model);
  // The request's own cap (what a small window leaves after the input) when it is the lower one.
  const maxOutput = Math.min(cfg.maxOutputTokens, request.maxOutputTokens ?? Infinity);
  const messages: ChatCompletionMessageParam[] = [];
  if (request.systemPrompt !== '') messages.push({ role: 'system', content: request.systemPrompt });
  messages.push(...toOpenAIMessages(request.messages, { images: cfg.images !== false }));
  const tools: ChatCompletionTool[] = request.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  return {
    model: cfg.model,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    stream: true,
    stream_options: { include_usage: true },
    // OpenAI itself wants max_completion_tokens (max_tokens is rejected by its reasoning models);
    // most compatible servers only know max_tokens.
    ...(cfg.provider === 'openai' ? { max_completion_tokens: maxOutput } : { max_tokens: maxOutput }),
    // Requests with the same key are routed to the same cache (the session id); only where the server takes the field.
    ...(request.cacheKey && cfg.cacheRetention && cfg.cacheRetention !== 'none' && takesPromptCacheKey(cfg.provider) ? { prompt_cache_key: request.cacheKey } : {}),
    ...(effort !== undefined ? { reasoning_effort: effort } : {}),
  };
}

/**
 * Our history → Chat Completions messages. Every assistant tool call is answered before the next
 * user or assistant message (a synthetic result when the history has none), and results whose
 * call is not in the preceding assistant message are dropped: the API rejects both.
 *
 * Images: a user message with images has content parts (text, then `image_url` data URLs). A tool
 * message takes text only, so a result's images go in one user message right after the batch's
 * tool messages (the API wants those straight after the assistant message), each headed by a line
 * naming its call, and the tool message says where they are. `images: false` (a model without
 * vision): every image is sent as a text note saying what it was.
 */
export function toOpenAIMessages(history: readonly Message[], opts: { images?: boolean } = {}): ChatCompletionMessageParam[] {
  const images = opts.images !== false;
  const out: ChatCompletionMessageParam[] = [];
  let pending: string[] = []; // call ids of the last assistant message, in order
  let answered = new Set<string>();
  let resultImages: ChatCompletionContentPart[] = []; // the images of the batch's results, for the user message after it
  const flush = () => {
    for (const id of pending) if (!answered.has(id)) out.push({ role: 'tool', tool_call_id: id, content: INTERRUPTED_RESULT });
    if (resultImages.length > 0) out.push({ role: 'user', content: resultImages });
    pending = [];
    answered = new Set();
    resultImages = [];
  };
  for (const m of history) {
    if (m.role === 'toolResult') {
      const content = images ? m.content : imagesAsNotes(m.content);
      if (pending.includes(m.toolCallId) && !answered.has(m.toolCallId)) {
        answered.add(m.toolCallId);
        const pictures = content.filter((c): c is ImageContent => c.type === 'image');
        let text = joinText(content);
        if (pictures.length > 0) {
          const what = pictures.length === 1 ? 'its image is' : `its ${pictures.length} images are`;
          text += `${text === '' ? '' : '\n'}[${what} in the next user message]`;
          resultImages.push({ type: 'text', text: `Image${pictures.length === 1 ? '' : 's'} from the result of ${m.toolName} (call ${m.toolCallId}):` }, ...pictures.map(imagePart));
        }
        out.push({ role: 'tool', tool_call_id: m.toolCallId, content: text });
      }
      continue;
    }
    flush();
    if (m.role === 'user') {
      const parts = images ? m.content : imagesAsNotes(m.content);
      if (!parts.some((c) => c.type === 'image')) out.push({ role: 'user', content: joinText(parts) });
      else out.push({ role: 'user', content: parts.filter((c) => c.type === 'image' || c.text !== '').map((c) => (c.type === 'image' ? imagePart(c) : { type: 'text' as const, text: c.text })) });
      continue;
    }
    let text = '';
    const calls: ChatCompletionMessageFunctionToolCall[] = [];
    for (const block of m.content) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'toolCall' && !pending.includes(block.id)) {
        calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.arguments) } });
        pending.push(block.id);
      }
      // Thinking blocks are not sent back: Chat Completions has no field for them.
    }
    // An assistant message with neither text nor calls (e.g. aborted before any output) is invalid here.
    if (text === '' && calls.length === 0) continue;
    out.push({ role: 'assistant', content: text === '' ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
  }
  flush();
  return out;
}

function imagePart(image: ImageContent): ChatCompletionContentPart {
  return { type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

function joinText(content: ReadonlyArray<{ type: string; text?: string }>): string {
  let s = '';
  for (const c of content) if (c.type === 'text' && c.text !== undefined) s += c.text;
  return s;
}

/** finish_reason → our stop reason; unknown values fall back on whether tools were called. */
export function mapFinishReason(reason: string, hasToolCalls: boolean): StopReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'toolUse';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'contentFilter';
    case 'stop':
      // Some servers (older Ollama, some vLLM parsers) say `stop` even when they called tools.
      return hasToolCalls ? 'toolUse' : 'stop';
    default:
      return hasToolCalls ? 'toolUse' : 'stop';
  }
}

type ChunkUsage = NonNullable<ChatCompletionChunk['usage']> & { prompt_cache_hit_tokens?: number };

/** Usage from the final chunk; cached prompt tokens are billed as cache reads, not input. */
export function toUsage(u: ChunkUsage | null | undefined, pricing: AdapterConfig['pricing']): Usage {
  if (!u) return emptyUsage();
  const prompt = num(u.prompt_tokens);
  // OpenAI: prompt_tokens_details.cached_tokens; DeepSeek: prompt_cache_hit_tokens.
  const cached = Math.min(prompt, num(u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens));
  const usage = { input: prompt - cached, output: num(u.completion_tokens), cacheRead: cached, cacheWrite: 0 };
  return pricedUsage(usage, pricing);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}
