// The Anthropic Messages API adapter. The official SDK is imported lazily, on the first
// request (never at module load: `--version` must not pay for it). It makes the HTTP request
// and splits the SSE stream; this file turns the raw stream events into unified events.
import type Anthropic from '@anthropic-ai/sdk';
import { emptyUsage, isPlainObject, type AssistantMessage, type ModelError, type Refusal, type StopReason, type TextContent, type ThinkingContent } from '../core/types.js';
import type { ModelAdapter, ModelRequest, ModelStreamEvent } from './adapter.js';
import { toAnthropicRequest } from './anthropic-convert.js';
import { afterConnectionRelease } from './connection-reuse.js';
import { captureInvalidFrame, classifyError, errorFromStreamEvent, INCOMPLETE_STREAM, InvalidFrameError, modelError } from './errors.js';
import { cachedCost } from './cache.js';
import type { AdapterConfig } from './models.js';
import { pricedUsage } from './priced-usage.js';
import { SdkAdapter } from './sdk-adapter.js';
import { parseToolCall } from './tool-call.js';

export { toAnthropicRequest } from './anthropic-convert.js';

/** What the adapter uses of a client: the Messages resource, and per-request options. */
export interface AnthropicClient {
  messages: Pick<Anthropic['messages'], 'create'>;
  withOptions(options: { logger?: unknown; logLevel?: 'error' | 'off' }): AnthropicClient;
}

/** A client constructor: the SDK's `Anthropic`, or one with the same options. */
type AnthropicConstructor = new (options: NonNullable<ConstructorParameters<typeof Anthropic>[0]>) => AnthropicClient;

export interface AnthropicAdapterDeps {
  /** A fetch implementation for the SDK (default: node:http and node:https, see http-transport.ts); used by tests and benchmarks. */
  fetch?: typeof fetch;
  /** Loads the SDK (default: the Messages client below); benchmarks pass the copy they measure against. */
  loadSdk?: () => Promise<{ default: AnthropicConstructor }>;
}

/** The client by default: the SDK's base client with only the Messages resource (see anthropic-client.ts). */
async function loadMessagesClient(): Promise<{ default: AnthropicConstructor }> {
  const { MessagesClient } = await import('./anthropic-client.js');
  return { default: MessagesClient as unknown as AnthropicConstructor };
}

export function createAnthropicAdapter(cfg: AdapterConfig, deps: AnthropicAdapterDeps = {}): ModelAdapter {
  return new AnthropicAdapter(cfg, deps);
}

class AnthropicAdapter extends SdkAdapter<AnthropicClient, AnthropicAdapterDeps> {
  protected async makeClient(): Promise<AnthropicClient> {
    const { cfg } = this;
    const { default: SDK } = await (this.deps.loadSdk ?? loadMessagesClient)();
    return new SDK({
      // A key is always passed, so the SDK never falls back to env vars or credential files.
      apiKey: cfg.apiKey ?? 'not-needed',
      baseURL: cfg.baseUrl,
      timeout: cfg.timeoutMs,
      maxRetries: 0, // the loop's retry layer decides
      logLevel: 'off',
      fetch: this.fetch,
    });
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const { cfg } = this;
    const signal = request.signal;
    const acc = new Accumulator(cfg);
    const invalid = captureInvalidFrame();
    let thrown: { err: unknown } | undefined;
    try {
      const client = (await this.getClient()).withOptions({ logger: invalid.logger, logLevel: 'error' });
      await afterConnectionRelease();
      const stream = await client.messages.create(toAnthropicRequest(request, cfg), { signal });
      for await (const event of stream) {
        const out = acc.handle(event as unknown as RawEvent);
        if (out) yield out;
        if (acc.failure) break; // leaving the loop makes the SDK cancel the request
      }
    } catch (err) {
      thrown = { err };
    }
    if (acc.failure) return yield acc.fail(acc.failure);
    // Complete once the stop reason arrived: a cut before message_stop loses nothing.
    if (acc.complete) return yield* acc.finish();
    if (thrown) return yield acc.fail(toModelError(thrown.err, cfg, signal, invalid.frame()));
    // The SDK ends the iteration quietly when the signal aborts mid-body.
    if (signal?.aborted) return yield acc.fail(modelError('aborted', `${cfg.provider}: the request was aborted`));
    yield acc.fail(INCOMPLETE_STREAM(cfg.provider));
  }
}

/** The SDK throws an `error` event of the stream as an APIError with the event's body and no status. */
function toModelError(err: unknown, cfg: AdapterConfig, signal: AbortSignal | undefined, invalidFrame: string | undefined): ModelError {
  const { provider } = cfg;
  const secrets = [cfg.apiKey];
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's error body, any shape; its fields are checked before use
  const e = err as { status?: unknown; error?: any; type?: unknown } | null;
  if (!signal?.aborted && err instanceof Error && e && e.status === undefined && e.error != null) {
    const body = e.error;
    const inner = typeof body === 'object' && body.error && typeof body.error === 'object' ? body.error : body;
    const type = typeof inner?.type === 'string' ? inner.type : typeof e.type === 'string' ? e.type : undefined;
    const message = typeof inner?.message === 'string' ? inner.message : typeof body === 'string' ? body : undefined;
    return errorFromStreamEvent(provider, type, message, secrets);
  }
  return classifyError(err, { provider, signal, invalidFrame, secrets });
}

/** A refusal with the category and explanation of `stop_details`, where the API gives them. */
function refusalFrom(details: { category?: unknown; explanation?: unknown } | null | undefined): Refusal {
  const refusal: Refusal = { reason: 'refusal' };
  if (typeof details?.category === 'string' && details.category !== '') refusal.category = details.category;
  if (typeof details?.explanation === 'string' && details.explanation !== '') refusal.explanation = details.explanation;
  return refusal;
}

// Raw events as they arrive (JSON.parse'd by the SDK): typed loosely, since the API adds
// block and delta types over time and unknown ones must be ignored, not trusted.
interface RawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  /** The cache writes split by time to live. */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
}
type RawEvent =
  | { type: 'message_start'; message?: { usage?: RawUsage } }
  | { type: 'content_block_start'; index: number; content_block?: { type?: string; id?: string; name?: string; text?: string; thinking?: string; signature?: string } }
  | { type: 'content_block_delta'; index: number; delta?: { type?: string; text?: string; partial_json?: string; thinking?: string; signature?: string } }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta?: { stop_reason?: string | null; stop_details?: { type?: unknown; category?: unknown; explanation?: unknown } | null }; usage?: RawUsage }
  | { type: 'message_stop' }
  | { type: 'error'; error?: { type?: string; message?: string } }
  | { type: 'ping' };

interface OpenTool {
  kind: 'tool';
  /** Position among the message's tool calls (the unified events' `index`). */
  index: number;
  id: string;
  name: string;
  /** Argument fragments, joined once when the block stops. */
  parts: string[];
}
type OpenBlock = { kind: 'text'; block: TextContent } | { kind: 'thinking'; block: ThinkingContent } | OpenTool;

const STOP_REASONS: ReadonlyMap<string, StopReason> = new Map([
  ['end_turn', 'stop'],
  ['stop_sequence', 'stop'],
  ['pause_turn', 'stop'],
  ['tool_use', 'toolUse'],
  ['max_tokens', 'length'],
  ['model_context_window_exceeded', 'length'],
  ['refusal', 'contentFilter'],
]);

/** Builds the assistant message from raw events. Tool calls enter the message only when complete. */
class Accumulator {
  readonly message: AssistantMessage;
  failure: ModelError | undefined;
  /** A message_delta with a stop reason arrived (message_stop may be missing). */
  complete = false;
  private stopReason: string | undefined;
  private readonly open = new Map<number, OpenBlock>();
  private toolCount = 0;
  private stopped = false;
  /** Cache writes made for an hour (priced at their own rate), when the API says. */
  private oneHourWrites: number | undefined;

  constructor(private readonly cfg: AdapterConfig) {
    this.message = { role: 'assistant', content: [], stopReason: 'stop', usage: emptyUsage(), provider: cfg.provider, model: cfg.model };
  }

  handle(ev: RawEvent): ModelStreamEvent | undefined {
    // Every event of the protocol is an object with a type; anything else is a broken frame.
    if (!isPlainObject(ev) || typeof ev.type !== 'string') throw new InvalidFrameError(JSON.stringify(ev) ?? String(ev));
    if (this.stopped) return undefined;
    switch (ev.type) {
      case 'message_start':
        this.takeUsage(ev.message?.usage);
        return undefined;
      case 'content_block_start':
        return this.start(ev.index, ev.content_block ?? {});
      case 'content_block_delta':
        return this.delta(ev.index, ev.delta ?? {});
      case 'content_block_stop':
        return this.stop(ev.index);
      case 'message_delta':
        this.takeUsage(ev.usage);
        if (typeof ev.delta?.stop_reason === 'string') {
          this.stopReason = ev.delta.stop_reason;
          this.complete = true;
          if (this.stopReason === 'refusal') this.message.refusal = refusalFrom(ev.delta.stop_details);
        }
        return undefined;
      case 'message_stop':
        this.stopped = true;
        return undefined;
      case 'error':
        this.failure = errorFromStreamEvent(this.cfg.provider, ev.error?.type, ev.error?.message, [this.cfg.apiKey]);
        return undefined;
      default:
        return undefined; // ping and anything new
    }
  }

  private start(index: number, cb: NonNullable<Extract<RawEvent, { type: 'content_block_start' }>['content_block']>): ModelStreamEvent | undefined {
    if (cb.type === 'text') {
      const block: TextContent = { type: 'text', text: cb.text ?? '' };
      this.message.content.push(block);
      this.open.set(index, { kind: 'text', block });
      return block.text ? { type: 'text_delta', delta: block.text } : undefined;
    }
    if (cb.type === 'thinking') {
      const block: ThinkingContent = { type: 'thinking', thinking: cb.thinking ?? '' };
      if (cb.signature) block.signature = cb.signature;
      this.message.content.push(block);
      this.open.set(index, { kind: 'thinking', block });
      return block.thinking ? { type: 'thinking_delta', delta: block.thinking } : undefined;
    }
    if (cb.type === 'tool_use') {
      const tool: OpenTool = { kind: 'tool', index: this.toolCount++, id: cb.id ?? '', name: cb.name ?? '', parts: [] };
      this.open.set(index, tool);
      return { type: 'toolcall_start', index: tool.index, id: tool.id, name: tool.name };
    }
    return undefined; // redacted_thinking, server tool blocks, anything new: not ours to keep
  }

  private delta(index: number, d: NonNullable<Extract<RawEvent, { type: 'content_block_delta' }>['delta']>): ModelStreamEvent | undefined {
    const open = this.open.get(index);
    if (!open) return undefined;
    if (open.kind === 'text' && d.type === 'text_delta' && d.text) {
      open.block.text += d.text;
      return { type: 'text_delta', delta: d.text };
    }
    if (open.kind === 'thinking') {
      if (d.type === 'thinking_delta' && d.thinking) {
        open.block.thinking += d.thinking;
        return { type: 'thinking_delta', delta: d.thinking };
      }
      if (d.type === 'signature_delta' && d.signature) open.block.signature = (open.block.signature ?? '') + d.signature;
      return undefined;
    }
    if (open.kind === 'tool' && d.type === 'input_json_delta' && d.partial_json) {
      open.parts.push(d.partial_json);
      return { type: 'toolcall_delta', index: open.index, delta: d.partial_json };
    }
    return undefined;
  }

  private stop(index: number): ModelStreamEvent | undefined {
    const open = this.open.get(index);
    this.open.delete(index);
    if (open?.kind !== 'tool') return undefined;
    const toolCall = parseToolCall(open.id, open.name, open.parts.join(''));
    this.message.content.push(toolCall);
    return { type: 'toolcall_end', index: open.index, toolCall };
  }

  private takeUsage(u: RawUsage | undefined): void {
    if (!u) return;
    const usage = this.message.usage;
    if (typeof u.input_tokens === 'number') usage.input = u.input_tokens;
    if (typeof u.cache_read_input_tokens === 'number') usage.cacheRead = u.cache_read_input_tokens;
    if (typeof u.cache_creation_input_tokens === 'number') usage.cacheWrite = u.cache_creation_input_tokens;
    // Output usage is cumulative: the last value counts.
    if (typeof u.output_tokens === 'number') usage.output = u.output_tokens;
    const oneHour = u.cache_creation?.ephemeral_1h_input_tokens;
    if (typeof oneHour === 'number') this.oneHourWrites = oneHour;
    const pricing = this.cfg.pricing;
    // Cache writes at their own rates (5m or 1h) when the price is known; `costUnknown` when not.
    if (pricing) usage.cost = cachedCost(usage, pricing, this.cfg.cacheRetention, this.oneHourWrites);
    else Object.assign(usage, pricedUsage(usage, undefined));
  }

  /** The completed message: calls still open are closed (cut off when the stop reason is length). */
  *finish(): Generator<ModelStreamEvent> {
    const stop = this.stopReason === undefined ? undefined : STOP_REASONS.get(this.stopReason);
    for (const open of this.open.values()) {
      if (open.kind !== 'tool') continue;
      // A call still open at the end was cut off (by the output limit, when the stop reason says so).
      const toolCall = parseToolCall(open.id, open.name, open.parts.join(''), { cutOff: stop === 'length' });
      this.message.content.push(toolCall);
      yield { type: 'toolcall_end', index: open.index, toolCall };
    }
    this.open.clear();
    this.dropEmptyBlocks();
    this.message.stopReason = stop ?? (this.message.content.some((c) => c.type === 'toolCall') ? 'toolUse' : 'stop');
    yield { type: 'done', message: this.message };
  }

  /** The error event, with what arrived so far (complete tool calls only). */
  fail(error: ModelError): ModelStreamEvent {
    this.dropEmptyBlocks();
    this.message.stopReason = error.kind === 'aborted' ? 'aborted' : 'error';
    this.message.errorMessage = error.message;
    return { type: 'error', error, partial: this.message };
  }

  private dropEmptyBlocks(): void {
    this.message.content = this.message.content.filter((c) => (c.type === 'text' ? c.text !== '' : c.type === 'thinking' ? c.thinking !== '' || !!c.signature : true));
  }
}
