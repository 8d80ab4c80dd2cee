// One model turn: stream a response, forward its deltas as events, retry retryable failures,
// and drop a stream that goes quiet. Never throws; the loop gets a message and maybe an error.
import { CONFIG_TABLE } from '../core/config-table.js';
import type { EventBody } from '../core/events.js';
import { emptyUsage, type AssistantMessage, type ModelError } from '../core/types.js';
import type { ModelAdapter, ModelStreamEvent } from '../model/adapter.js';
import { decideRetry, DEFAULT_RETRY, sleep, type RetryPolicy } from './retry.js';

/** The configuration's default (core/config-table.ts), for callers that give none. */
export const DEFAULT_IDLE_TIMEOUT_MS = CONFIG_TABLE.idleTimeoutMs.default;
export const ABORTED: ModelError = { kind: 'aborted', message: 'the run was aborted', retryable: false };

/** How a turn is retried and timed out; shared by the loop and the runner options. */
export interface TurnPolicy {
  retry?: RetryPolicy;
  /** A stream that sends nothing for this long is dropped and retried as a network error. */
  idleTimeoutMs?: number;
  /** Injected for tests (a fake clock); defaults to real timers and Math.random. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<boolean>;
  random?: () => number;
}

export interface TurnStreamOptions extends TurnPolicy {
  model: ModelAdapter;
  emit: (event: EventBody) => void;
}

export interface TurnResponse {
  message: AssistantMessage;
  error: ModelError | null;
}

/**
 * Streams a response, retrying retryable failures by the policy. Deltas of a failed attempt
 * were already emitted; the `retry` event tells listeners they are void. Only the final
 * attempt's message is returned, so the session holds one clean answer.
 */
export async function streamWithRetry(opts: TurnStreamOptions, request: Parameters<ModelAdapter['stream']>[0], turn: number): Promise<TurnResponse> {
  const policy = opts.retry ?? DEFAULT_RETRY;
  for (let attempt = 1; ; attempt++) {
    const response = await streamTurn(opts.model, request, turn, opts.emit, opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
    const error = response.error;
    if (!error || error.kind === 'aborted' || request.signal?.aborted) return response;
    const decision = decideRetry(error, attempt, policy, opts.random);
    if (!decision.retry) {
      if (error.retryable) return { ...response, error: { ...error, message: `${error.message} (${decision.reason})` } };
      return response;
    }
    opts.emit({ type: 'retry', turn, attempt, delayMs: decision.delayMs, kind: error.kind, message: error.message });
    const waited = await (opts.sleep ?? sleep)(decision.delayMs, request.signal);
    if (!waited || request.signal?.aborted) {
      const aborted = { ...ABORTED };
      return { message: { ...failedMessage(opts.model, aborted) }, error: aborted };
    }
  }
}

/** Streams one response, forwarding deltas as events. Never throws. */
async function streamTurn(model: ModelAdapter, request: Parameters<ModelAdapter['stream']>[0], turn: number, emit: (event: EventBody) => void, idleTimeoutMs: number): Promise<TurnResponse> {
  // The adapter gets its own signal: the user's abort, or ours when the stream goes quiet
  // for too long (SDK timeouts cover only the wait for headers, not a stalled body).
  const userSignal = request.signal;
  const controller = new AbortController();
  const onUserAbort = () => controller.abort();
  if (userSignal?.aborted) controller.abort();
  userSignal?.addEventListener('abort', onUserAbort, { once: true });
  let idle = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      controller.abort();
    }, idleTimeoutMs);
  };
  const idleError = (): ModelError => ({
    kind: 'network',
    message: `${model.provider}: no data from the model for ${idleTimeoutMs >= 1000 ? `${Math.round(idleTimeoutMs / 1000)} s` : `${idleTimeoutMs} ms`}; the stream was dropped`,
    retryable: true,
  });
  let last: ModelStreamEvent | undefined;
  try {
    arm();
    for await (const ev of model.stream({ ...request, signal: controller.signal })) {
      arm();
      last = ev;
      if (ev.type === 'text_delta') emit({ type: 'text_delta', turn, delta: ev.delta });
      else if (ev.type === 'thinking_delta') emit({ type: 'thinking_delta', turn, delta: ev.delta });
      else if (ev.type === 'toolcall_start') emit({ type: 'toolcall_start', turn, index: ev.index, toolCallId: ev.id, name: ev.name });
      else if (ev.type === 'done' || ev.type === 'error') break;
    }
  } catch (err) {
    // Adapters should not throw; if one does, the run still ends cleanly.
    const error: ModelError = idle ? idleError() : { kind: userSignal?.aborted ? 'aborted' : 'unknown', message: (err as Error)?.message ?? String(err), retryable: false };
    return { message: failedMessage(model, error), error };
  } finally {
    clearTimeout(timer);
    userSignal?.removeEventListener('abort', onUserAbort);
  }
  if (last?.type === 'done') return { message: last.message, error: null };
  if (last?.type === 'error') {
    const error = idle && !userSignal?.aborted ? idleError() : last.error;
    return { message: keepCompleteCalls(last.partial, error), error };
  }
  const error: ModelError = userSignal?.aborted ? ABORTED : idle ? idleError() : { kind: 'network', message: 'the model stream ended without a final message', retryable: true };
  return { message: failedMessage(model, error), error };
}

function failedMessage(model: ModelAdapter, error: ModelError): AssistantMessage {
  return {
    role: 'assistant',
    content: [],
    stopReason: error.kind === 'aborted' ? 'aborted' : 'error',
    usage: emptyUsage(),
    provider: model.provider,
    model: model.model,
    errorMessage: error.message,
  };
}

function keepCompleteCalls(partial: AssistantMessage, error: ModelError): AssistantMessage {
  return {
    ...partial,
    stopReason: error.kind === 'aborted' ? 'aborted' : 'error',
    errorMessage: partial.errorMessage ?? error.message,
  };
}
