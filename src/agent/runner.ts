// The session runner: one run at a time per session, queued prompts, and the
// run_settled event that closes every run, whatever happened inside.
import { createEmitter, type AgentEvent, type EventListener } from '../core/events.js';
import { emptyUsage } from '../core/types.js';
import type { ModelAdapter } from '../model/adapter.js';
import type { SessionStore } from '../session/store.js';
import type { ToolRegistry } from '../tools/registry.js';
import { runLoop, type RunOutcome } from './loop.js';
import { randomUUID } from 'node:crypto';
import { sessionStats, snapshotOf } from '../session/stats.js';
import type { TurnPolicy } from './turn-stream.js';
import { buildSystemPrompt } from './system-prompt.js';

export interface RunnerOptions extends TurnPolicy {
  store: SessionStore;
  model: ModelAdapter;
  tools: ToolRegistry;
  cwd: string;
  maxTurns?: number;
  systemPrompt?: string;
  now?: () => number;
}

export interface RunResult extends RunOutcome {
  durationMs: number;
  leafId: string | null;
}

export class SessionRunner {
  private readonly listeners: EventListener[] = [];
  private readonly listenerErrors: unknown[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private current: AbortController | undefined;
  private pending = 0;
  private warned = false;

  constructor(private readonly opts: RunnerOptions) {}

  /** Listens to every event of every run; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** True while a run is in progress or queued. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /** Errors thrown by listeners (they never break a run). */
  get errors(): readonly unknown[] {
    return this.listenerErrors;
  }

  /**
   * Runs a prompt to the end. A prompt sent while another run is in progress waits
   * for it (runs never interleave on one session). `signal` aborts this run only.
   */
  run(prompt: string, signal?: AbortSignal): Promise<RunResult> {
    this.pending++;
    const result = this.queue.then(() => this.runNow(prompt, signal));
    this.queue = result.catch(() => undefined).finally(() => this.pending--);
    return result;
  }

  /** Aborts the run in progress, if any. Queued prompts still run. */
  abort(): void {
    this.current?.abort();
  }

  private async runNow(prompt: string, signal?: AbortSignal): Promise<RunResult> {
    const { store, model, tools, cwd } = this.opts;
    const now = this.opts.now ?? Date.now;
    const controller = new AbortController();
    this.current = controller;
    const onAbort = () => controller.abort();
    if (signal?.aborted) controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const emit = createEmitter([...this.listeners], { now, onListenerError: (err) => this.listenerErrors.push(err) });
    const started = now();
    const runId = randomUUID();
    let outcome: RunOutcome;
    try {
      outcome = await runLoop({
        store,
        model,
        tools,
        cwd,
        prompt,
        maxTurns: this.opts.maxTurns,
        systemPrompt: this.opts.systemPrompt ?? buildSystemPrompt({ cwd, tools: tools.specs() }),
        signal: controller.signal,
        emit,
        runId,
        retry: this.opts.retry,
        idleTimeoutMs: this.opts.idleTimeoutMs,
        sleep: this.opts.sleep,
        random: this.opts.random,
        // Problems found when the session was loaded are reported once, in the first run.
        warnings: this.warned ? [] : [...store.warnings],
      });
      this.warned = true;
    } catch (err) {
      // A bug or an I/O failure (disk full): still settle the run, and say what happened.
      outcome = {
        stopReason: 'error',
        error: { kind: 'unknown', message: `internal error: ${(err as Error)?.message ?? String(err)}`, retryable: false },
        refusal: null,
        usage: emptyUsage(),
        turns: 0,
        toolCalls: 0,
        toolErrors: 0,
      };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.current = undefined;
    }
    const result: RunResult = { ...outcome, durationMs: now() - started, leafId: store.leafId };
    // Stats before the run record (the snapshot), then after it (run_settled's lastRun).
    const before = sessionStats(store);
    try {
      // The run's record, with a snapshot of the session's shape for fast listings; then fsync.
      store.append({
        type: 'run',
        runId,
        startedAt: new Date(started).toISOString(),
        durationMs: result.durationMs,
        stopReason: result.stopReason,
        turns: result.turns,
        toolCalls: result.toolCalls,
        toolErrors: result.toolErrors,
        usage: result.usage,
        ...(result.error ? { error: `${result.error.kind}: ${result.error.message}` } : {}),
        ...(result.refusal ? { refusal: result.refusal } : {}),
        leafId: result.leafId,
        snapshot: snapshotOf(store, before),
      });
      store.sync();
    } catch (err) {
      emit({ type: 'warning', message: `could not write the session file: ${(err as Error).message}` });
    }
    emit({
      type: 'run_settled',
      stopReason: result.stopReason,
      error: result.error,
      refusal: result.refusal,
      usage: result.usage,
      turns: result.turns,
      toolCalls: result.toolCalls,
      toolErrors: result.toolErrors,
      durationMs: result.durationMs,
      leafId: result.leafId,
      stats: sessionStats(store),
    });
    return result;
  }
}

export type { AgentEvent };
