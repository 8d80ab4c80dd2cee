// The one interface between the loop and any model. Adapters stream unified
// events; they never run tools and never touch the session.
import type { AssistantMessage, Message, ModelError, ToolCall, ToolSpec } from '../core/types.js';

import type { ThinkingLevel } from './thinking.js';

export type { ToolSpec };

export interface ModelRequest {
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  systemPrompt: string;
  /** How much the model should reason (`--thinking`; default off). Each adapter maps it by the model table's `reasoning`. */
  thinking?: ThinkingLevel;
  signal?: AbortSignal;
  /** Groups the requests of one conversation for the provider's prompt cache: the session id (OpenAI's prompt_cache_key). */
  cacheKey?: string;
  /** A cap on this response's output, below the adapter's own when the window leaves less room (agent/output-cap.ts). */
  maxOutputTokens?: number;
}

export type ModelStreamEvent =
  | { type: 'text_delta'; delta: string }
  | { type: 'thinking_delta'; delta: string }
  | { type: 'toolcall_start'; index: number; id: string; name: string }
  | { type: 'toolcall_delta'; index: number; delta: string }
  | { type: 'toolcall_end'; index: number; toolCall: ToolCall }
  | { type: 'done'; message: AssistantMessage }
  /** The stream failed. `partial` holds what arrived before the failure. */
  | { type: 'error'; error: ModelError; partial: AssistantMessage };

export interface ModelAdapter {
  /** Provider and model, for display and for the assistant messages. */
  readonly provider: string;
  readonly model: string;
  /** Streams one assistant response. The last event is always `done` or `error`; it never throws. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
  /**
   * A request is coming: open the connection to the provider now, so that its handshakes overlap
   * with the work before the request. Optional, never throws, sends nothing but the handshakes.
   */
  preconnect?(): void;
}
