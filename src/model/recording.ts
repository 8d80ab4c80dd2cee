// --record: wraps any adapter and saves each response in the scripted-model format, so a
// real run can be replayed with --script (deterministically, without network).
import type { AssistantMessage, ModelError } from '../core/types.js';
import type { ModelAdapter, ModelRequest, ModelStreamEvent } from './adapter.js';
import type { Script, ScriptTurn } from './script.js';

export class RecordingModel implements ModelAdapter {
  readonly script: Script = { turns: [] };

  constructor(
    private readonly inner: ModelAdapter,
    /** Called with the whole script after every response (write it atomically). */
    private readonly save: (script: Script) => void,
  ) {}

  get provider(): string {
    return this.inner.provider;
  }

  get model(): string {
    return this.inner.model;
  }

  preconnect(): void {
    this.inner.preconnect?.();
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    for await (const event of this.inner.stream(request)) {
      if (event.type === 'done') this.record(event.message);
      else if (event.type === 'error') this.record(event.partial, event.error);
      yield event;
    }
  }

  private record(message: AssistantMessage, error?: ModelError): void {
    this.script.turns.push(toScriptTurn(message, error));
    this.save(this.script);
  }
}

/** One assistant response as a script turn: text, thinking, tool calls (with ids), stop reason, usage, error. */
export function toScriptTurn(message: AssistantMessage, error?: ModelError): ScriptTurn {
  const turn: ScriptTurn = {};
  const text = message.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('');
  const thinking = message.content.flatMap((c) => (c.type === 'thinking' ? [c.thinking] : [])).join('');
  if (thinking) turn.thinking = thinking;
  if (text) turn.text = text;
  const calls = message.content.flatMap((c) => (c.type === 'toolCall' ? [c] : []));
  if (calls.length > 0) {
    turn.toolCalls = calls.map((c) => (c.argumentsError ? { id: c.id, name: c.name, arguments: {}, rawArguments: c.rawArguments ?? '' } : { id: c.id, name: c.name, arguments: c.arguments }));
  }
  if (error) {
    turn.error = { kind: error.kind, message: error.message, retryable: error.retryable };
    if (error.status !== undefined) turn.error.status = error.status;
    if (error.retryAfterMs !== undefined) turn.error.retryAfterMs = error.retryAfterMs;
  } else {
    const natural = calls.length > 0 ? 'toolUse' : 'stop';
    if (message.stopReason !== natural) turn.stopReason = message.stopReason;
    if (message.refusal) turn.refusal = { ...message.refusal };
    turn.usage = { ...message.usage };
  }
  return turn;
}
