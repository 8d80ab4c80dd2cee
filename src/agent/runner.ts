// The session runner: one run at a time per session, queued prompts, steering and follow-up
// queues, and the run_settled event that closes every run, whatever happened inside.
import type { CheckpointStore } from '../session/checkpoint-store.js';
import type { WorkspaceCheckpoints } from './workspace-checkpoints.js';
import { randomUUID } from 'node:crypto';
import { createEmitter, type AgentEvent, type EventBody, type EventListener } from '../core/events.js';
import { emptyUsage, type ImageContent, type QueueItem, type TextContent } from '../core/types.js';
import { cacheHitShare } from '../core/cache-share.js';
import type { ModelAdapter } from '../model/adapter.js';
import type { ThinkingLevel } from '../model/thinking.js';
import { sessionStats } from '../session/stats.js';
import type { SessionStore } from '../session/store.js';
import type { ToolRegistry } from '../tools/registry.js';
import { compactSession, type CompactionConfig, type CompactOutcome } from './compactor.js';
import { MessageQueue, type Inbox, type QueuedMessage } from './inbox.js';
import type { BudgetPolicy } from './budget.js';
import type { LoopGuardSettings } from './loop-guard.js';
import { runLoop, type RunOutcome } from './loop.js';
import { buildSystemPrompt, sessionStartDate } from './system-prompt.js';
import type { TurnPolicy } from './turn-stream.js';

/** What a prompt, a steer or a follow-up carries after its text: images, `<file>` blocks, and notes about what could not be attached. */
export type Attachments = readonly (TextContent | ImageContent)[];

export interface RunnerOptions extends TurnPolicy {
  store: SessionStore;
  /** Where the files tool calls change are checkpointed; absent: no checkpoints. */
  checkpoints?: CheckpointStore;
  /** Scans the workspace around the calls that declare no files (bash), into `checkpoints`; kept by the caller from run to run (it learns the workspace). */
  workspaceCheckpoints?: WorkspaceCheckpoints;
  model: ModelAdapter;
  tools: ToolRegistry;
  cwd: string;
  maxTurns?: number;
  systemPrompt?: string;
  now?: () => number;
  /** Compaction (in the loop, and `compact()`); without it the runner never compacts. */
  compaction?: CompactionConfig;
  /** The loop guard's thresholds (default: the configuration's, core/config-table.ts). */
  loopGuard?: LoopGuardSettings;
  /** The most a run may spend (--max-cost): it stops before a request that could pass it. */
  budget?: BudgetPolicy;
  /** The thinking level, read for each request. */
  thinking?: () => ThinkingLevel;
  /**
   * Called as each run (and each manual compaction) begins: what the extensions add to the system
   * prompt for this run (context files, skills), re-read every time, and the moment to start what
   * the run needs (MCP servers). Its warnings become warning events of the run. It must not throw;
   * if it does, the run goes on without the extra context and says why.
   */
  prepareRun?: (ctx: { signal: AbortSignal; purpose: 'run' | 'compaction' }) => Promise<RunPreparation>;
}

export interface RunPreparation {
  /** Appended to the system prompt, after a blank line ('' for nothing). */
  systemContext: string;
  warnings: string[];
}

export interface RunResult extends RunOutcome {
  durationMs: number;
  leafId: string | null;
  /** Steers and follow-ups this run did not deliver (it was aborted or failed): handed back. */
  undelivered: QueueItem[];
}

export class SessionRunner {
  private readonly listeners: EventListener[] = [];
  private readonly listenerErrors: unknown[] = [];
  private runs: Promise<unknown> = Promise.resolve();
  private current: { controller: AbortController; emit: (body: EventBody) => void; handedBack: QueueItem[] } | undefined;
  private pending = 0;
  private warned = false;
  private readonly queue = new MessageQueue();

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

  /** Resolves when no run is in progress or queued (including runs started by steer or followUp). */
  async idle(): Promise<void> {
    while (this.pending > 0) await this.runs;
  }

  /**
   * Runs a prompt to the end. A prompt sent while another run is in progress waits
   * for it (runs never interleave on one session). `signal` aborts this run only.
   */
  run(prompt: string, signal?: AbortSignal, attached?: Attachments | Promise<Attachments>): Promise<RunResult> {
    // Attachments still being prepared (images read and scaled): the run is queued now, and fails
    // with their error, before it starts, if they cannot be made.
    if (attached instanceof Promise) attached.catch(() => undefined);
    return this.enqueueRun(prompt, signal, undefined, attached);
  }

  /**
   * A message for the run in progress, delivered after its current tool batch (every call of the
   * current response still runs to completion) and before the next model request. With no run
   * in progress it starts one.
   */
  steer(text: string, attached?: Promise<Attachments>): QueueItem {
    return this.send('steer', text, attached);
  }

  /**
   * A message delivered only when the run would otherwise end; it then goes on with a new turn.
   * With no run in progress it starts one. `attached`: what it carries after its text, stored with it.
   */
  followUp(text: string, attached?: Promise<Attachments>): QueueItem {
    return this.send('follow_up', text, attached);
  }

  /** The steers and follow-ups waiting, oldest first. */
  queued(): QueueItem[] {
    return this.queue.list();
  }

  /** Cancels a waiting item; false when it was delivered already or never existed. */
  cancel(id: string): boolean {
    const removed = this.queue.cancel(id);
    if (removed) this.queueChanged();
    return removed;
  }

  /**
   * Aborts the run in progress, if any, and hands back the steers and follow-ups it had not
   * delivered (they are also in that run's result). Prompts queued behind it still run.
   */
  abort(): QueueItem[] {
    const handedBack = this.queue.drain();
    if (this.current) {
      this.current.handedBack.push(...handedBack);
      if (handedBack.length > 0) this.queueChanged();
      this.current.controller.abort();
    }
    return handedBack;
  }

  /**
   * Compacts the session now (reason `manual`), waiting for a run in progress to end first, as a
   * run would. Works with automatic compaction off: this is an explicit request. Never throws.
   */
  compact(opts: { focus?: string; signal?: AbortSignal } = {}): Promise<CompactOutcome> {
    return this.exclusive(() => this.compactNow(opts.focus, opts.signal));
  }

  /** Runs `task` in the queue of runs: after the run in progress, before the next; `busy` meanwhile. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    this.pending++;
    const result = this.runs.then(task).finally(() => this.pending--);
    this.runs = result.catch(() => undefined);
    return result;
  }

  private async compactNow(focus: string | undefined, signal: AbortSignal | undefined): Promise<CompactOutcome> {
    const { store, tools, cwd } = this.opts;
    const config = this.opts.compaction;
    const emit = createEmitter([...this.listeners], { now: this.opts.now, onListenerError: (err) => this.listenerErrors.push(err) });
    if (!config) {
      const error = 'compaction is not available: the agent has no summarizer';
      emit({ type: 'compaction_end', reason: 'manual', ok: false, tokensBefore: 0, tokensAfter: null, summarizedEntries: 0, readFiles: [], modifiedFiles: [], error, entryId: null });
      return { ok: false, error, tokensBefore: 0 };
    }
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    if (signal?.aborted) controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.current = { controller, emit, handedBack: [] };
    try {
      return await compactSession({
        store,
        config,
        reason: 'manual',
        focus,
        cwd,
        signal: controller.signal,
        emit,
        systemPrompt: await this.preparedSystemPrompt(controller.signal, 'compaction', (message) => emit({ type: 'warning', message })),
        tools: tools.specs(),
      });
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.current = undefined;
    }
  }

  /** The run's system prompt: the base (given, or built from the tools now on) and the extensions' context, computed once per run. */
  private async preparedSystemPrompt(signal: AbortSignal, purpose: 'run' | 'compaction', warn: (message: string) => void): Promise<string> {
    let prepared: RunPreparation = { systemContext: '', warnings: [] };
    if (this.opts.prepareRun) {
      try {
        prepared = await this.opts.prepareRun({ signal, purpose });
      } catch (err) {
        prepared.warnings.push(`preparing the run failed, so it goes on without the extensions' context: ${(err as Error)?.message ?? String(err)}`);
      }
    }
    for (const message of prepared.warnings) warn(message);
    // The session's start date, not today's: a session resumed on another day keeps its cached prefix.
    const date = sessionStartDate(this.opts.store.header.timestamp);
    const base = this.opts.systemPrompt ?? buildSystemPrompt({ cwd: this.opts.cwd, tools: this.opts.tools.specs(), date });
    return prepared.systemContext ? `${base}\n\n${prepared.systemContext}` : base;
  }

  private send(kind: QueueItem['kind'], text: string, attached: Promise<Attachments> | undefined): QueueItem {
    // Attachments that cannot be made become a note: a queued message is delivered whatever happens.
    const attachments = attached?.catch((err: Error): Attachments => [{ type: 'text', text: `\n[the attachments could not be attached: ${err?.message ?? String(err)}]` }]);
    const item = this.queue.add(kind, text, attachments);
    if (this.pending === 0) {
      // Idle: the message starts a run of its own, as its prompt.
      this.queue.cancel(item.id);
      void this.enqueueRun(item.text, undefined, item, attachments).catch(() => undefined);
    } else this.queueChanged();
    return item;
  }

  private queueChanged(): void {
    this.current?.emit({ type: 'queue_update', items: this.queue.list() });
  }

  private enqueueRun(prompt: string, signal?: AbortSignal, promptItem?: QueueItem, images?: Attachments | Promise<Attachments>): Promise<RunResult> {
    this.pending++;
    // `pending` drops before the caller hears the result, so `busy` is false once a run settled.
    const result = this.runs.then(() => this.runNow(prompt, signal, promptItem, images)).finally(() => this.pending--);
    this.runs = result.catch(() => undefined);
    return result;
  }

  private async runNow(prompt: string, signal: AbortSignal | undefined, promptItem: QueueItem | undefined, attached?: Attachments | Promise<Attachments>): Promise<RunResult> {
    const images = await attached;
    const { store, model, tools, cwd } = this.opts;
    const now = this.opts.now ?? Date.now;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    if (signal?.aborted) controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const emit = createEmitter([...this.listeners], { now, onListenerError: (err) => this.listenerErrors.push(err) });
    const current = { controller, emit, handedBack: [] as QueueItem[] };
    this.current = current;
    const inbox: Inbox = {
      takeSteers: () => this.taken(this.queue.takeSteers()),
      hasSteers: () => this.queue.hasSteers(),
      takeFollowUp: () => this.taken(this.queue.takeFollowUp()),
    };
    const started = now();
    const runId = randomUUID();
    let outcome: RunOutcome;
    try {
      outcome = await runLoop({
        store,
        ...(this.opts.checkpoints ? { checkpoints: this.opts.checkpoints, workspaceCheckpoints: this.opts.workspaceCheckpoints } : {}),
        model,
        tools,
        cwd,
        prompt,
        ...(images && images.length > 0 ? { attachments: images } : {}),
        maxTurns: this.opts.maxTurns,
        systemPrompt: this.opts.systemPrompt ?? '',
        prepare: async (runSignal) => {
          const warnings: string[] = [];
          return { systemPrompt: await this.preparedSystemPrompt(runSignal, 'run', (m) => warnings.push(m)), warnings };
        },
        signal: controller.signal,
        emit,
        runId,
        retry: this.opts.retry,
        idleTimeoutMs: this.opts.idleTimeoutMs,
        sleep: this.opts.sleep,
        random: this.opts.random,
        // Problems found when the session was loaded are reported once, in the first run.
        warnings: this.warned ? [] : [...store.warnings],
        inbox,
        promptItem,
        compaction: this.opts.compaction,
        loopGuard: this.opts.loopGuard,
        budget: this.opts.budget,
        thinking: this.opts.thinking,
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
    }
    // A run that did not complete hands back what it did not deliver; after a completed run,
    // what came in at the very end starts the next run (a steer or follow-up is never lost).
    if (outcome.stopReason !== 'completed' && this.queue.size > 0) {
      current.handedBack.push(...this.queue.drain());
      emit({ type: 'queue_update', items: [] });
    }
    const result: RunResult = { ...outcome, durationMs: now() - started, leafId: store.leafId, undelivered: current.handedBack };
    try {
      store.recordRun({
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
      });
    } catch (err) {
      emit({ type: 'warning', message: `could not write the session file: ${(err as Error).message}` });
    }
    this.current = undefined;
    const next = this.queue.size > 0 ? this.queue.shift() : undefined;
    if (next) void this.enqueueRun(next.item.text, undefined, next.item, next.attachments).catch(() => undefined);
    emit({
      type: 'run_settled',
      stopReason: result.stopReason,
      error: result.error,
      refusal: result.refusal,
      undelivered: result.undelivered,
      usage: result.usage,
      cacheHitShare: cacheHitShare(result.usage),
      turns: result.turns,
      toolCalls: result.toolCalls,
      toolErrors: result.toolErrors,
      durationMs: result.durationMs,
      leafId: result.leafId,
      stats: sessionStats(store),
      ...(result.budget ? { budget: result.budget } : {}),
    });
    return result;
  }

  /** Items the loop took for delivery: the queue changed. */
  private taken<T extends QueuedMessage | QueuedMessage[] | undefined>(items: T): T {
    if (Array.isArray(items) ? items.length > 0 : items !== undefined) this.queueChanged();
    return items;
  }
}

export type { AgentEvent };
