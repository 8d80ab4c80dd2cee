// The scripted model: a first-class adapter that replays a script, turn by turn.
// Used by the tests, the demo and `--script FILE`. It records every request.
import { randomBytes } from 'node:crypto';
import { emptyUsage, type AssistantMessage, type Message, type ModelError, type Usage } from '../core/types.js';
import type { ModelAdapter, ModelRequest, ModelStreamEvent, ToolSpec } from './adapter.js';
import { isRetryableKind } from './errors.js';
import { withOverflowLimits } from './overflow-limits.js';
import { parseToolCall } from './tool-call.js';
import type { Script, ScriptTurn } from './script.js';

export interface RecordedRequest {
  messages: Message[];
  tools: ToolSpec[];
  systemPrompt: string;
}

export class ScriptedModel implements ModelAdapter {
  readonly provider = 'scripted';
  readonly requests: RecordedRequest[] = [];
  private next = 0;

  constructor(
    private readonly script: Script,
    readonly model = 'script',
  ) {}

  /** How many turns of the script are still unplayed. */
  get remaining(): number {
    return this.script.turns.length - this.next;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    // Entries are never mutated, so a shallow copy records exactly what was sent.
    this.requests.push({ messages: [...request.messages], tools: [...request.tools], systemPrompt: request.systemPrompt });
    const message: AssistantMessage = {
      role: 'assistant',
      content: [],
      stopReason: 'stop',
      usage: emptyUsage(),
      provider: this.provider,
      model: this.model,
    };
    const fail = (error: ModelError): ModelStreamEvent => {
      message.stopReason = error.kind === 'aborted' ? 'aborted' : 'error';
      message.errorMessage = error.message;
      return { type: 'error', error, partial: message };
    };
    const turn = this.script.turns[this.next];
    if (!turn) {
      yield fail({
        kind: 'unknown',
        retryable: false,
        message: `scripted model: the script has no more turns (it has ${this.script.turns.length}; request ${this.requests.length} asked for another)`,
      });
      return;
    }
    this.next++;
    const signal = request.signal;
    const wait = async (): Promise<boolean> => {
      if (turn.delayMs) await sleep(turn.delayMs, signal);
      return !signal?.aborted;
    };
    const aborted = () => fail({ kind: 'aborted', retryable: false, message: 'the request was aborted' });

    if (!(await wait())) return yield aborted();
    if (turn.thinking) {
      const block = { type: 'thinking' as const, thinking: '' };
      message.content.push(block);
      for (const piece of chunkText(turn.thinking)) {
        if (!(await wait())) return yield aborted();
        block.thinking += piece;
        yield { type: 'thinking_delta', delta: piece };
      }
    }
    if (turn.text) {
      const block = { type: 'text' as const, text: '' };
      message.content.push(block);
      for (const piece of chunkText(turn.text)) {
        if (!(await wait())) return yield aborted();
        block.text += piece;
        yield { type: 'text_delta', delta: piece };
      }
    }
    const calls = turn.toolCalls ?? [];
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index];
      const id = call.id ?? `call_${randomBytes(6).toString('hex')}`;
      if (!(await wait())) return yield aborted();
      yield { type: 'toolcall_start', index, id, name: call.name };
      const raw = call.rawArguments ?? JSON.stringify(call.arguments ?? {});
      for (const piece of chunkFixed(raw, 16)) {
        if (!(await wait())) return yield aborted();
        yield { type: 'toolcall_delta', index, delta: piece };
      }
      const toolCall = parseToolCall(id, call.name, raw, { cutOff: turn.stopReason === 'length' });
      message.content.push(toolCall);
      yield { type: 'toolcall_end', index, toolCall };
    }
    if (turn.error) {
      // Retryable by its kind unless the script says otherwise, as a real provider error would be.
      yield fail(withOverflowLimits({ retryable: isRetryableKind(turn.error.kind), ...turn.error }));
      return;
    }
    message.stopReason = turn.stopReason ?? (turn.refusal ? 'contentFilter' : calls.length > 0 ? 'toolUse' : 'stop');
    if (turn.refusal) message.refusal = { ...turn.refusal };
    message.usage = usageFor(turn, request);
    yield { type: 'done', message };
  }
}

/** Usage from the script, or an estimate (about 4 characters a token) when the script gives none. */
function usageFor(turn: ScriptTurn, request: ModelRequest): Usage {
  if (turn.usage) return { ...emptyUsage(), ...turn.usage };
  let inChars = request.systemPrompt.length;
  for (const m of request.messages) {
    for (const c of m.content) inChars += c.type === 'text' ? c.text.length : c.type === 'thinking' ? c.thinking.length : c.type === 'image' ? 6_400 : c.type === 'toolCall' ? JSON.stringify(c.arguments).length : 0; // an image: about 1,600 tokens
  }
  const outChars = (turn.text?.length ?? 0) + JSON.stringify(turn.toolCalls ?? []).length;
  return { ...emptyUsage(), input: Math.ceil(inChars / 4), output: Math.ceil(outChars / 4) };
}

/** Splits text into word-sized pieces (a word plus its following space). */
export function chunkText(text: string): string[] {
  const pieces = text.match(/\S+\s*|\s+/g) ?? [text];
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i += 2) out.push(pieces.slice(i, i + 2).join(''));
  return out;
}

function chunkFixed(text: string, size: number): string[] {
  if (text === '') return [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
