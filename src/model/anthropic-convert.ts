// Unified messages → an Anthropic Messages API request body. Pure; no SDK import.
// The wire types below are our own, deliberately small; test/anthropic-request.test.ts
// checks at compile time that they fit the SDK's `MessageCreateParamsStreaming`.
import { describeImage, formatOfMime, IMAGE_MIME, imagesAsNotes } from '../core/image.js';
import type { AssistantMessage, ImageContent, Message, TextContent } from '../core/types.js';
import type { ModelRequest, ToolSpec } from './adapter.js';
import { modelInfo, type AdapterConfig } from './models.js';
import { applyBreakpoints } from './anthropic-cache.js';
import type { CacheControl } from './cache.js';
import { anthropicThinking, type AnthropicThinkingFields } from './thinking.js';
import { INTERRUPTED_RESULT } from './tool-call.js';

export interface WireText {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}
/** An image, inline in base64 (a user message or a tool_result's content). */
export interface WireImage {
  type: 'image';
  source: { type: 'base64'; media_type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'; data: string };
  cache_control?: CacheControl;
}
export interface WireThinking {
  type: 'thinking';
  thinking: string;
  signature: string;
}
export interface WireToolUse {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: CacheControl;
}
export interface WireToolResult {
  type: 'tool_result';
  tool_use_id: string;
  content: (WireText | WireImage)[];
  is_error: boolean;
  cache_control?: CacheControl;
}
export type WireAssistantBlock = WireText | WireThinking | WireToolUse;
export type WireUserBlock = WireText | WireImage | WireToolResult;

export type WireMessage = { role: 'user'; content: WireUserBlock[] } | { role: 'assistant'; content: WireAssistantBlock[] };

export interface WireTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
  cache_control?: CacheControl;
}

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  /** A string without caching; one text block carrying the breakpoint with it. */
  system?: string | WireText[];
  messages: WireMessage[];
  tools?: WireTool[];
  stream: true;
  thinking?: AnthropicThinkingFields['thinking'];
  output_config?: AnthropicThinkingFields['output_config'];
}

/** The tool_result text for a call whose result never arrived: the same for both dialects (tool-call.ts). */
export { INTERRUPTED_RESULT };

/**
 * Builds the request body. Roles alternate: consecutive user content (tool results, then user
 * text) merges into one user message, and consecutive assistant messages merge. Every tool_use
 * gets a tool_result in the next user message (a synthetic error result when none arrived);
 * results whose tool_use is not in the preceding assistant message are dropped.
 */
export function toAnthropicRequest(
  request: Pick<ModelRequest, 'messages' | 'tools' | 'systemPrompt' | 'thinking' | 'maxOutputTokens'>,
  cfg: Pick<AdapterConfig, 'model' | 'maxOutputTokens' | 'cacheRetention' | 'images'>,
): AnthropicRequestBody {
  // The thinking level (ModelRequest.thinking) by the model table's reasoning control (model/thinking.ts).
  const { max_tokens, ...thinking } = anthropicThinking(request.thinking ?? 'off', modelInfo(cfg.model).reasoning, Math.min(cfg.maxOutputTokens, request.maxOutputTokens ?? Infinity));
  const body: AnthropicRequestBody = {
    model: cfg.model,
    max_tokens,
    messages: toAnthropicMessages(request.messages, { images: cfg.images !== false }),
    stream: true,
    ...thinking,
  };
  if (request.systemPrompt !== '') body.system = request.systemPrompt;
  if (request.tools.length > 0) body.tools = request.tools.map(toWireTool);
  return applyBreakpoints(body, cfg.cacheRetention);
}

export function toWireTool(tool: ToolSpec): WireTool {
  return { name: tool.name, description: tool.description, input_schema: { ...tool.parameters, type: 'object' } };
}

/** `images: false`: the model takes no images, so each one is sent as a text note saying what it was. */
export function toAnthropicMessages(messages: readonly Message[], opts: { images?: boolean } = {}): WireMessage[] {
  const images = opts.images !== false;
  const out: WireMessage[] = [];
  // The tool_use ids of the last assistant message, in order, and the results seen for them.
  let openIds: string[] = [];
  let openSet = new Set<string>();
  let results = new Map<string, WireToolResult>();
  // User text seen since the last assistant message.
  let userBlocks: WireUserBlock[] = [];

  const flushUser = (): void => {
    const content: WireUserBlock[] = [];
    for (const id of openIds) content.push(results.get(id) ?? toolResult(id, [{ type: 'text', text: INTERRUPTED_RESULT }], true));
    for (const b of userBlocks) content.push(b);
    openIds = [];
    openSet = new Set();
    results = new Map();
    userBlocks = [];
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === 'user') last.content.push(...content);
    else out.push({ role: 'user', content });
  };

  for (const m of messages) {
    if (m.role === 'user') {
      for (const t of images ? m.content : imagesAsNotes(m.content)) {
        if (t.type === 'image') userBlocks.push(wireImage(t));
        else if (t.text !== '') userBlocks.push({ type: 'text', text: t.text });
      }
    } else if (m.role === 'toolResult') {
      // Only a result for a call of the preceding assistant message, and only the first one.
      if (openSet.has(m.toolCallId) && !results.has(m.toolCallId)) {
        results.set(m.toolCallId, toolResult(m.toolCallId, images ? m.content : imagesAsNotes(m.content), m.isError));
      }
    } else {
      const blocks = assistantBlocks(m);
      if (blocks.length === 0) continue;
      if (openIds.length > 0 || userBlocks.length > 0) flushUser();
      const last = out[out.length - 1];
      if (last?.role === 'assistant') last.content.push(...blocks);
      else out.push({ role: 'assistant', content: blocks });
      for (const b of blocks) {
        if (b.type === 'tool_use' && !openSet.has(b.id)) {
          openIds.push(b.id);
          openSet.add(b.id);
        }
      }
    }
  }
  flushUser();
  return out;
}

function assistantBlocks(m: AssistantMessage): WireAssistantBlock[] {
  const blocks: WireAssistantBlock[] = [];
  for (const c of m.content) {
    if (c.type === 'text') {
      if (c.text !== '') blocks.push({ type: 'text', text: c.text });
    } else if (c.type === 'thinking') {
      // Unsigned thinking (another provider's, or a cut-off block) cannot be sent back.
      if (c.signature) blocks.push({ type: 'thinking', thinking: c.thinking, signature: c.signature });
    } else if (c.type === 'toolCall') {
      // (a block of another type, from an older file, is not sent)
      blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments });
    }
  }
  return blocks;
}

function toolResult(id: string, content: ReadonlyArray<TextContent | ImageContent>, isError: boolean): WireToolResult {
  const texts: (WireText | WireImage)[] = [];
  for (const t of content) {
    if (t.type === 'image') texts.push(wireImage(t));
    else if (t.text !== '') texts.push({ type: 'text', text: t.text });
  }
  // The API rejects empty text blocks (and an error result without content).
  if (texts.length === 0) texts.push({ type: 'text', text: '(no output)' });
  return { type: 'tool_result', tool_use_id: id, content: texts, is_error: isError };
}

function wireImage(image: ImageContent): WireImage {
  // The media type the bytes say, when the block's own is not one the API takes (image/jpg …).
  const format = formatOfMime(image.mimeType) ?? describeImage(image).format ?? 'PNG';
  return { type: 'image', source: { type: 'base64', media_type: IMAGE_MIME[format] as WireImage['source']['media_type'], data: image.data } };
}
