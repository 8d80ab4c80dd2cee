// The OpenAI-compatible adapter (Chat Completions, streaming): OpenAI, DeepSeek, OpenRouter,
// Ollama, vLLM, llama.cpp... The SDK is imported lazily on the first request, so that commands
// which never talk to a model (e.g. `--version`) do not load it.
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { mark, markNext } from '../core/timings.js';
import { emptyUsage, isPlainObject, type AssistantMessage, type ModelError, type StopReason, type ToolCall } from '../core/types.js';
import type { ModelAdapter, ModelRequest, ModelStreamEvent } from './adapter.js';
import { afterConnectionRelease } from './connection-reuse.js';
import { withNestedErrorBody } from './error-body.js';
import { captureInvalidFrame, classifyError, INCOMPLETE_STREAM, InvalidFrameError } from './errors.js';
import type { AdapterConfig } from './models.js';
import { mapFinishReason, toOpenAIRequest, toUsage } from './openai-convert.js';
import { SdkAdapter } from './sdk-adapter.js';
import { parseToolCall } from './tool-call.js';

export { toOpenAIRequest, toOpenAIMessages } from './openai-convert.js';
export { INTERRUPTED_RESULT } from './tool-call.js';

type OpenAIModule = typeof import('openai');
type OpenAIClient = InstanceType<OpenAIModule['OpenAI']>;

export interface OpenAIAdapterDeps {
  /** Loads the SDK (default: `import('openai')`). */
  loadSdk?: () => Promise<OpenAIModule>;
  /** A fetch implementation for the SDK (default: node:http and node:https, see http-transport.ts). */
  fetch?: typeof fetch;
}

export function createOpenAIAdapter(cfg: AdapterConfig, deps: OpenAIAdapterDeps = {}): ModelAdapter {
  return new OpenAIAdapter(cfg, deps);
}

class OpenAIAdapter extends SdkAdapter<OpenAIClient, OpenAIAdapterDeps> {
  protected async makeClient(): Promise<OpenAIClient> {
    const { cfg } = this;
    const sdk = await (this.deps.loadSdk ?? (() => import('openai')))();
    mark('sdk');
    return new sdk.OpenAI({
      apiKey: cfg.apiKey ?? 'not-needed',
      baseURL: cfg.baseUrl,
      maxRetries: 0, // the retry layer decides
      logLevel: 'off',
      timeout: cfg.timeoutMs,
      // OPENAI_ORG_ID / OPENAI_PROJECT_ID belong to OpenAI; other servers must not get them.
      ...(cfg.provider === 'openai' ? {} : { organization: null, project: null }),
      fetch: withNestedErrorBody(this.fetch),
    });
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const { signal } = request;
    const acc = new ChatStreamAccumulator(this.cfg);
    // The SDK adds an abort listener to the signal it is given and never removes it: give it a
    // per-request signal that follows the caller's, so a long-lived caller signal does not collect them.
    const link = followSignal(signal);
    const invalid = captureInvalidFrame();
    let failure: unknown;
    try {
      const client = (await this.getClient()).withOptions({ logger: invalid.logger, logLevel: 'error' });
      await afterConnectionRelease();
      markNext('request#');
      const stream = await client.chat.completions.create(toOpenAIRequest(request, this.cfg), { signal: link.signal });
      for await (const chunk of stream) {
        for (const event of acc.push(chunk)) yield event;
      }
      markNext('response#_done');
    } catch (err) {
      failure = err;
    } finally {
      link.dispose();
    }
    // A response is complete once finish_reason arrived: a lost usage chunk or [DONE] is tolerated.
    if (acc.finished) {
      yield { type: 'done', message: acc.message() };
      return;
    }
    // The SDK ends the iteration quietly when the body ends or the signal aborts it mid-body.
    const error: ModelError =
      failure === undefined && !signal?.aborted ? INCOMPLETE_STREAM(this.provider) : classifyError(failure ?? signal?.reason, { provider: this.provider, signal, invalidFrame: invalid.frame(), secrets: [this.cfg.apiKey] });
    yield { type: 'error', error, partial: acc.partial(error) };
  }
}

function followSignal(outer: AbortSignal | undefined): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const follow = () => controller.abort(outer?.reason);
  if (outer?.aborted) follow();
  else outer?.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, dispose: () => outer?.removeEventListener('abort', follow) };
}

interface Block {
  type: 'text' | 'thinking';
  parts: string[];
}

interface CallState {
  /** Our index: order of first sight. Used in the events. */
  slot: number;
  /** The provider's `index` (MAX_SAFE_INTEGER when it sent none). */
  providerIndex: number;
  /** The id the provider sent, if any. */
  providerId?: string;
  id: string;
  name: string;
  /** Argument fragments, joined once at the end. */
  parts: string[];
}

/** Chunk fields some compatible servers send beyond the OpenAI schema. */
interface DeltaExtras {
  reasoning_content?: unknown;
  reasoning?: unknown;
}

/** Folds Chat Completions chunks (choice 0 only) into unified events and one assistant message. */
export class ChatStreamAccumulator {
  private readonly blocks: Block[] = [];
  private readonly calls: CallState[] = [];
  private readonly byIndex = new Map<number, CallState>();
  private readonly byId = new Map<string, CallState>();
  private toolCalls: ToolCall[] = [];
  private finishReason: string | null = null;
  /** Refusal text not yet shown: answer text if an answer comes, the explanation if not. */
  private refusalParts: string[] = [];
  /** Set when the response was only a refusal. */
  private refusalText: string | undefined;
  private usage: ChatCompletionChunk['usage'] = null;

  constructor(private readonly cfg: Pick<AdapterConfig, 'provider' | 'model' | 'pricing'>) {}

  get finished(): boolean {
    return this.finishReason !== null;
  }

  push(chunk: ChatCompletionChunk): ModelStreamEvent[] {
    // The SDK hands over whatever JSON a `data:` line held; a chunk is always an object.
    if (!isPlainObject(chunk)) throw new InvalidFrameError(JSON.stringify(chunk) ?? String(chunk));
    const events: ModelStreamEvent[] = [];
    if (chunk.usage) this.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0 || this.finished) continue;
      const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & DeltaExtras;
      const reasoning = nonEmpty(delta.reasoning_content) ?? nonEmpty(delta.reasoning);
      if (reasoning) events.push(this.append('thinking', reasoning, { type: 'thinking_delta', delta: reasoning }));
      // A refusal is held back until we know whether it came alone (the response was refused)
      // or alongside an answer (then it is text, like the rest of the answer).
      const refusal = nonEmpty(delta.refusal);
      if (refusal) this.refusalParts.push(refusal);
      const text = nonEmpty(delta.content);
      if (text) {
        this.flushRefusal(events);
        events.push(this.append('text', text, { type: 'text_delta', delta: text }));
      }
      if (delta.tool_calls?.length) this.flushRefusal(events);
      for (const tc of delta.tool_calls ?? []) this.toolCallDelta(tc, events);
      const reason = nonEmpty(choice.finish_reason); // some servers send "" for "not yet"
      if (reason) this.finish(reason, events);
    }
    return events;
  }

  /** Pending refusal text becomes answer text (with its delta), in the order it arrived. */
  private flushRefusal(events: ModelStreamEvent[]): void {
    if (this.refusalParts.length === 0) return;
    const text = this.refusalParts.join('');
    this.refusalParts = [];
    events.push(this.append('text', text, { type: 'text_delta', delta: text }));
  }

  private append(type: Block['type'], piece: string, event: ModelStreamEvent): ModelStreamEvent {
    const last = this.blocks[this.blocks.length - 1];
    if (last?.type === type) last.parts.push(piece);
    else this.blocks.push({ type, parts: [piece] });
    return event;
  }

  private toolCallDelta(tc: ChatCompletionChunk.Choice.Delta.ToolCall, events: ModelStreamEvent[]): void {
    const fn = tc.function ?? {};
    const sentId = typeof tc.id === 'string' && tc.id !== '' ? tc.id : undefined;
    let call: CallState | undefined;
    if (typeof tc.index === 'number') {
      call = this.byIndex.get(tc.index);
      // A different id at a known index is a new call (some servers number every call 0).
      if (call && sentId && call.providerId && call.providerId !== sentId) call = undefined;
    } else {
      call = sentId ? this.byId.get(sentId) : this.calls[this.calls.length - 1];
    }
    if (!call) {
      call = {
        slot: this.calls.length,
        providerIndex: typeof tc.index === 'number' ? tc.index : Number.MAX_SAFE_INTEGER,
        providerId: sentId,
        id: sentId ?? generateId(),
        name: typeof fn.name === 'string' ? fn.name : '',
        parts: [],
      };
      this.calls.push(call);
      if (typeof tc.index === 'number') this.byIndex.set(tc.index, call);
      if (sentId) this.byId.set(sentId, call);
      events.push({ type: 'toolcall_start', index: call.slot, id: call.id, name: call.name });
    } else if (call.name === '' && typeof fn.name === 'string') {
      call.name = fn.name; // the name came after the first fragment
    }
    const args: unknown = fn.arguments;
    const piece = typeof args === 'string' ? args : args !== undefined && args !== null ? JSON.stringify(args) : '';
    if (piece !== '') {
      call.parts.push(piece);
      events.push({ type: 'toolcall_delta', index: call.slot, delta: piece });
    }
  }

  private finish(reason: string, events: ModelStreamEvent[]): void {
    this.finishReason = reason;
    const answered = this.calls.length > 0 || this.blocks.some((b) => b.type === 'text');
    if (answered) this.flushRefusal(events);
    else if (this.refusalParts.length > 0) {
      // The model only refused: keep its words in the message (no delta: they are not an answer).
      this.refusalText = this.refusalParts.join('');
      this.refusalParts = [];
      this.append('text', this.refusalText, { type: 'text_delta', delta: this.refusalText });
    }
    const ordered = [...this.calls].sort((a, b) => a.providerIndex - b.providerIndex || a.slot - b.slot);
    for (const call of ordered) {
      const toolCall = parseToolCall(call.id, call.name, call.parts.join(''), { cutOff: reason === 'length' });
      this.toolCalls.push(toolCall);
      events.push({ type: 'toolcall_end', index: call.slot, toolCall });
    }
  }

  private base(stopReason: StopReason): AssistantMessage {
    // A failure before finish_reason: refusal text that arrived is kept as text.
    if (this.refusalParts.length > 0) this.blocks.push({ type: 'text', parts: this.refusalParts.splice(0) });
    const content: AssistantMessage['content'] = this.blocks.map((b) => (b.type === 'text' ? { type: 'text', text: b.parts.join('') } : { type: 'thinking', thinking: b.parts.join('') }));
    // Only finished calls: their arguments are whole. Before finish_reason none is.
    content.push(...this.toolCalls);
    return {
      role: 'assistant',
      content,
      stopReason,
      usage: this.usage ? toUsage(this.usage, this.cfg.pricing) : emptyUsage(),
      provider: this.cfg.provider,
      model: this.cfg.model,
    };
  }

  /** The complete message (call after finish_reason). */
  message(): AssistantMessage {
    const stop = this.refusalText !== undefined ? 'contentFilter' : mapFinishReason(this.finishReason ?? 'stop', this.toolCalls.length > 0);
    const message = this.base(stop);
    if (stop === 'contentFilter') {
      const reason = this.finishReason === 'content_filter' ? 'content_filter' : 'refusal';
      message.refusal = { reason, ...(this.refusalText ? { explanation: this.refusalText } : {}) };
    }
    return message;
  }

  /** What arrived before a failure. */
  partial(error: ModelError): AssistantMessage {
    return { ...this.base(error.kind === 'aborted' ? 'aborted' : 'error'), errorMessage: error.message };
  }
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function generateId(): string {
  return `call_${globalThis.crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`;
}
