// A model that cannot be used yet (no API key, a bad base URL), for front ends that must start
// before the first prompt (an editor over ACP starts mini-agent before anyone typed): every
// request fails at once with the reason, as an `auth` error that is not retried, so the first
// prompt reports it and a later setModel (or a fixed environment and a new session) recovers.
import { emptyUsage, type AssistantMessage } from '../core/types.js';
import type { ModelAdapter, ModelRequest, ModelStreamEvent } from './adapter.js';

export class UnavailableModel implements ModelAdapter {
  constructor(
    readonly provider: string,
    readonly model: string,
    /** Why it cannot be used, e.g. `openai: no API key; set OPENAI_API_KEY (or pass --api-key)`. */
    readonly reason: string,
  ) {}

  async *stream(_request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    const partial: AssistantMessage = { role: 'assistant', content: [], stopReason: 'error', usage: emptyUsage(), provider: this.provider, model: this.model };
    yield { type: 'error', error: { kind: 'auth', message: this.reason, retryable: false }, partial };
  }
}
