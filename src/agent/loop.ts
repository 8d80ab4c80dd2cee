// The agent loop: project → stream → append → run tools → append results → repeat.
// Every turn re-projects from the store; there is no message array of its own.
import { CallCheckpoints } from './call-checkpoints.js';
import type { CheckpointStore } from '../session/checkpoint-store.js';
import type { WorkspaceCheckpoints } from './workspace-checkpoints.js';
import type { FileChange } from '../session/entries.js';
import { randomUUID } from 'node:crypto';
import type { BudgetStop, EventBody, RunStopReason } from '../core/events.js';
import { addUsage, emptyUsage, toolCallsOf, userMessage, type ImageContent, type Message, type TextContent, type ModelError, type QueueItem, type Refusal, type ToolCall, type Usage } from '../core/types.js';
import { mark, markNext } from '../core/timings.js';
import type { ModelAdapter } from '../model/adapter.js';
import type { SessionStore } from '../session/store.js';
import { projectMessages } from '../session/projector.js';
import { answerInterruptedCalls } from '../session/repair.js';
import { errorResult, type ToolRegistry } from '../tools/registry.js';
import type { ToolResult } from '../tools/tool.js';
import { budgetStop, type BudgetPolicy } from './budget.js';
import { outputCap } from './output-cap.js';
import type { CompactionConfig } from './compactor.js';
import { compactAfterOverflow, compactBeforeRequest, type CompactionStepContext } from './compaction-step.js';
import type { Inbox, QueuedMessage } from './inbox.js';
import type { ThinkingLevel } from '../model/thinking.js';
import { CONFIG_TABLE } from '../core/config-table.js';
import { DEFAULT_LOOP_GUARD, RepeatCounter, repeatWarning, type LoopGuardSettings } from './loop-guard.js';
import { runScheduled } from './tool-schedule.js';
import { ABORTED, streamWithRetry, type TurnPolicy } from './turn-stream.js';
import { compactionKind } from '../session/entry-kinds/index.js';

/** The configuration's default (core/config-table.ts), for callers that give none. */
export const DEFAULT_MAX_TURNS = CONFIG_TABLE.maxTurns.default;
export { DEFAULT_IDLE_TIMEOUT_MS } from './turn-stream.js';

export interface LoopOptions extends TurnPolicy {
  store: SessionStore;
  /** Where the files a tool call changes are checkpointed (the session's store); absent: no checkpoints. */
  checkpoints?: CheckpointStore;
  /** Scans the workspace around the calls that declare no files (bash), into `checkpoints`; absent: those calls are not checkpointed. */
  workspaceCheckpoints?: WorkspaceCheckpoints;
  model: ModelAdapter;
  tools: ToolRegistry;
  systemPrompt: string;
  /**
   * Called once, right after run_start: the run's system prompt (replacing `systemPrompt`) and
   * warnings to report. This is where extensions re-read their context and start what the run needs.
   */
  prepare?: (signal: AbortSignal) => Promise<{ systemPrompt: string; warnings: readonly string[] }>;
  /** The workspace root handed to tools. */
  cwd: string;
  prompt: string;
  /** Images attached to the prompt (and notes on those that could not be): stored in the prompt's message after its text. */
  attachments?: readonly (TextContent | ImageContent)[];
  maxTurns?: number;
  signal?: AbortSignal;
  emit: (event: EventBody) => void;
  /** Identifies the run in events and in the session's run record. */
  runId?: string;
  /** Reported as warning events right after run_start. */
  warnings?: readonly string[];
  /** Steers and follow-ups sent while the run is in progress. */
  inbox?: Inbox;
  /** The prompt came from the queue (a steer or follow-up sent while idle): reported as delivered. */
  promptItem?: QueueItem;
  /** Compaction before requests and on overflow (absent or disabled: never). */
  compaction?: CompactionConfig;
  /** The thinking level, read as each assistant turn starts (a change during a tool-use loop applies after it). */
  thinking?: () => ThinkingLevel;
  /** The same call repeated: a warning from `warnAfter`, the run stops at `stopAfter` (default 3 and 6). */
  loopGuard?: LoopGuardSettings;
  /** The most the run may spend: it stops before a request that could pass it (budget.ts). */
  budget?: BudgetPolicy;
}

export interface RunOutcome {
  stopReason: RunStopReason;
  error: ModelError | null;
  /** Set when the run ended because a response was refused (stopReason `refused`). */
  refusal: Refusal | null;
  usage: Usage;
  turns: number;
  toolCalls: number;
  toolErrors: number;
  /** Set when stopReason is `budget`. */
  budget?: BudgetStop;
}

export async function runLoop(opts: LoopOptions): Promise<RunOutcome> {
  const { store, model, tools, emit } = opts;
  const signal = opts.signal ?? new AbortController().signal;
  const maxTurns = opts.maxTurns ?? DEFAULT_MAX_TURNS;
  const outcome: RunOutcome = { stopReason: 'completed', error: null, refusal: null, usage: emptyUsage(), turns: 0, toolCalls: 0, toolErrors: 0 };
  // A request follows: the adapter opens its connection now, so that its handshakes overlap with
  // preparing the run (issue 14). Connecting needs the event loop to turn (the connect call, then
  // each handshake step, are I/O callbacks), and the work up to the request would not let it: one
  // turn here starts it.
  if (model.preconnect && !signal.aborted) {
    model.preconnect();
    await new Promise((resolve) => setImmediate(resolve));
  }

  // A run that was killed mid-turn left tool calls without results: answer them first,
  // so the next request is valid for every provider.
  const interrupted = answerInterruptedCalls(store);
  const promptEntry = store.appendMessage(withAttachments(opts.prompt, opts.attachments));
  emit({
    type: 'run_start',
    runId: opts.runId ?? randomUUID(),
    session: store.file === null ? null : { id: store.id, file: store.file },
    cwd: opts.cwd,
    provider: model.provider,
    model: model.model,
    prompt: opts.prompt,
    promptEntryId: promptEntry.id,
    maxTurns,
  });
  if (opts.promptItem) emit(delivered(opts.promptItem, promptEntry.id));
  for (const message of opts.warnings ?? []) emit({ type: 'warning', message });
  if (interrupted.length > 0) {
    emit({ type: 'warning', message: `repaired an interrupted run: ${interrupted.length} tool call(s) had no result and were answered as interrupted` });
  }
  let systemPrompt = opts.systemPrompt;
  if (opts.prepare) {
    const prepared = await opts.prepare(signal);
    systemPrompt = prepared.systemPrompt;
    for (const message of prepared.warnings) emit({ type: 'warning', message });
  }
  mark('prepared');

  const finish = (stopReason: RunStopReason, error: ModelError | null = null): RunOutcome => {
    outcome.stopReason = stopReason;
    outcome.error = error;
    emit({ type: 'run_end', turns: outcome.turns, stopReason });
    return outcome;
  };

  const inbox = opts.inbox;
  const step: CompactionStepContext = {
    store,
    compaction: opts.compaction,
    cwd: opts.cwd,
    signal,
    emit,
    systemPrompt,
    tools: tools.specs(),
    state: { thresholdFailed: false, overflowRetried: false },
  };
  const repeats = new RepeatCounter();
  // The thinking level is read as each assistant turn starts, and kept through its tool-use loop:
  // Anthropic wants one thinking configuration per assistant turn.
  let thinking: ThinkingLevel | undefined;
  let inToolLoop = false;
  const guard = opts.loopGuard ?? DEFAULT_LOOP_GUARD;
  // A steer or follow-up is stored as a prompt is: its text, then its attachments (read when it was queued).
  const deliver = async (queued: readonly QueuedMessage[]) => {
    for (const { item, attachments } of queued) emit(delivered(item, store.appendMessage(withAttachments(item.text, await attachments)).id));
  };
  for (;;) {
    if (signal.aborted) return finish('aborted', ABORTED);
    if (outcome.turns >= maxTurns) return finish('max_turns');
    // Steers sent meanwhile come after the tool batch's results, before the next request.
    if (inbox) await deliver(inbox.takeSteers());
    const turn = ++outcome.turns;
    const tooBig = await compactBeforeRequest(step);
    if (tooBig) return finish('error', tooBig);
    if (signal.aborted) return finish('aborted', ABORTED);
    const path = store.activePath();
    const messages = projectMessages(path);
    const over = opts.budget ? budgetStop(opts.budget, outcome.usage.cost, path, messages, { systemPrompt, tools: tools.specs() }) : null;
    if (over) {
      outcome.turns--; // the request was not sent
      outcome.budget = over;
      return finish('budget');
    }
    emit({ type: 'turn_start', turn, messageCount: messages.length, roles: countRoles(messages), compacted: path.some((e) => compactionKind.is(e)) });

    if (!inToolLoop) thinking = opts.thinking?.();
    const response = await streamWithRetry(
      opts,
      { messages, tools: tools.specs(), systemPrompt, thinking, signal, cacheKey: store.id, maxOutputTokens: outputCap(step.compaction?.settings.contextWindow, messages, { systemPrompt, tools: tools.specs() }) },
      turn,
    );
    if (response.error?.kind === 'context_overflow' && !signal.aborted) {
      // The rejected request never enters the history: compact, then this turn starts over once.
      const next = await compactAfterOverflow(step, response.error);
      if (next === 'retry') {
        emit({ type: 'retry', turn, attempt: 1, delayMs: 0, kind: 'context_overflow', message: 'the conversation was compacted; the turn starts over' });
        outcome.turns--;
        continue;
      }
      response.error = next;
    }
    const message = response.message;
    outcome.usage = addUsage(outcome.usage, message.usage);
    const entry = store.appendMessage(message);
    emit({ type: 'message_end', turn, entryId: entry.id, message });

    const calls = toolCallsOf(message);
    inToolLoop = calls.length > 0;
    const failure = response.error ?? (signal.aborted ? ABORTED : null);
    if (failure) {
      // Calls that were cut short still get results, so the tree stays valid for the next request.
      const why = failure.kind === 'aborted' ? 'the run was aborted' : `the response failed (${failure.kind})`;
      answerAll(calls, (call) => errorResult(`Tool "${call.name}" was not run: ${why}.`, { reason: failure.kind }), turn, opts, outcome);
      store.sync(); // durable before anyone hears the turn ended
      emit({ type: 'turn_end', turn, toolCalls: calls.length });
      return finish(failure.kind === 'aborted' ? 'aborted' : 'error', failure);
    }
    if (message.stopReason === 'contentFilter') {
      // A refusal or a content filter ended the response: its own outcome, never an empty success.
      // Calls in such a response are not run: the provider stopped the model mid-way.
      answerAll(calls, (call) => errorResult(`Tool "${call.name}" was not run: the response was refused.`, { reason: 'refused' }), turn, opts, outcome);
      store.sync(); // durable before anyone hears the turn ended
      emit({ type: 'turn_end', turn, toolCalls: calls.length });
      outcome.refusal = message.refusal ?? { reason: 'content_filter' };
      return finish('refused');
    }
    if (calls.length === 0) {
      store.sync(); // durable before anyone hears the turn ended
      emit({ type: 'turn_end', turn, toolCalls: 0 });
      // The run would end here: a steer that came in meanwhile, or a follow-up, keeps it going.
      if (inbox && outcome.turns < maxTurns && !signal.aborted) {
        if (inbox.hasSteers()) continue;
        const next = inbox.takeFollowUp();
        if (next) {
          await deliver([next]);
          continue;
        }
      }
      return finish('completed');
    }
    if (message.stopReason === 'length') {
      answerAll(
        calls,
        (call) =>
          errorResult(`Tool "${call.name}" was not run: the response was cut off by the output token limit, so its arguments may be incomplete. Send the call again, with smaller arguments if needed.`, { reason: 'truncated_response' }),
        turn,
        opts,
        outcome,
      );
    } else {
      // The loop guard: count repeats in call order; the call that reaches the limit is not run.
      const times = calls.map((call) => repeats.see(call));
      const stopAt = times.findIndex((n) => n >= guard.stopAfter);
      const run = stopAt < 0 ? calls : calls.slice(0, stopAt);
      await executeCalls(run, turn, opts, signal, outcome, (i, result) => (times[i] >= guard.warnAfter ? withWarning(result, repeatWarning(calls[i].name, times[i], guard)) : result));
      markNext('tool#_done');
      if (stopAt >= 0) {
        const looping = calls[stopAt];
        const why = `the same call (${looping.name} with the same arguments) was made ${times[stopAt]} times in a row`;
        answerAll(calls.slice(stopAt), (call) => errorResult(`Tool "${call.name}" was not run: ${why}; the run stopped (loop detected).`, { reason: 'loop_detected' }), turn, opts, outcome);
        store.sync();
        emit({ type: 'turn_end', turn, toolCalls: calls.length });
        emit({ type: 'warning', message: `loop detected: ${why}; the run stopped` });
        return finish('loop_detected');
      }
    }
    store.sync(); // durable before anyone hears the turn ended
    markNext('turn#_end');
    emit({ type: 'turn_end', turn, toolCalls: calls.length });
  }
}

function withWarning(result: ToolResult, warning: string): ToolResult {
  return { ...result, content: [...result.content, { type: 'text', text: `\n\n${warning}` }], details: { ...result.details, repeatWarning: true } };
}

/**
 * Runs the calls, overlapping those that touch different things (see tool-schedule.ts), and
 * stores the results in call order, each as soon as every earlier one is stored.
 */
async function executeCalls(calls: ToolCall[], turn: number, opts: LoopOptions, signal: AbortSignal, outcome: RunOutcome, adjust: (index: number, result: ToolResult) => ToolResult): Promise<void> {
  const done: ({ result: ToolResult; durationMs: number; files: FileChange[] } | undefined)[] = new Array(calls.length);
  let stored = 0;
  const accesses = calls.map((call) => opts.tools.access(call, opts.cwd));
  await runScheduled(accesses, async (i) => {
    const call = calls[i];
    opts.emit(toolStart(call, turn));
    const started = performance.now();
    const waiting = approvalWait(opts.emit);
    const checkpoints = opts.checkpoints && new CallCheckpoints(opts.checkpoints, opts.workspaceCheckpoints);
    const keep = checkpoints ? { checkpoint: checkpoints.capture, checkpointWorkspace: checkpoints.captureWorkspace } : {};
    const result = await opts.tools.execute(call, { cwd: opts.cwd, signal, emit: waiting.emit, ...keep });
    const durationMs = Math.max(0, performance.now() - started - waiting.ms());
    const files = checkpoints ? await checkpoints.changes() : [];
    for (const message of checkpoints?.warnings ?? []) opts.emit({ type: 'warning', message });
    done[i] = { result: adjust(i, result), durationMs, files };
    while (stored < calls.length && done[stored]) {
      record(calls[stored], done[stored]!.result, done[stored]!.durationMs, turn, opts, outcome, done[stored]!.files);
      stored++;
    }
  });
}

/** An emit that times the waits for an approval (permission_request to permission_decision): a tool's duration leaves them out. */
function approvalWait(emit: LoopOptions['emit']): { emit: LoopOptions['emit']; ms: () => number } {
  let total = 0;
  let asked: number | undefined;
  return {
    emit: (e) => {
      if (e.type === 'permission_request') asked = performance.now();
      else if (e.type === 'permission_decision' && asked !== undefined) {
        total += performance.now() - asked;
        asked = undefined;
      }
      emit(e);
    },
    ms: () => total + (asked === undefined ? 0 : performance.now() - asked),
  };
}

/** Gives every call the same kind of error result without running it. */
function answerAll(calls: ToolCall[], make: (call: ToolCall) => ToolResult, turn: number, opts: LoopOptions, outcome: RunOutcome): void {
  for (const call of calls) {
    opts.emit(toolStart(call, turn));
    record(call, make(call), 0, turn, opts, outcome);
  }
}

function record(call: ToolCall, result: ToolResult, durationMs: number, turn: number, opts: LoopOptions, outcome: RunOutcome, files: FileChange[] = []): void {
  const message: Message = {
    role: 'toolResult',
    toolCallId: call.id,
    toolName: call.name,
    content: result.content,
    isError: result.isError,
    ...(result.details ? { details: result.details } : {}),
  };
  const entry = opts.store.appendMessage(message);
  // The files the call changed, before and after: a side record after its result (never sent to the model).
  if (files.length > 0) opts.store.append({ type: 'checkpoint', entryId: entry.id, files });
  outcome.toolCalls++;
  if (result.isError) outcome.toolErrors++;
  opts.emit({ type: 'tool_end', turn, toolCallId: call.id, name: call.name, result, entryId: entry.id, durationMs: Math.round(durationMs) });
}

/** A user message: the text, then what it carries (images, `<file>` blocks, notes). */
function withAttachments(text: string, attachments: readonly (TextContent | ImageContent)[] | undefined): Message {
  return attachments?.length ? { role: 'user', content: [{ type: 'text', text }, ...attachments] } : userMessage(text);
}

function delivered(item: QueueItem, entryId: string): EventBody {
  return { type: item.kind === 'steer' ? 'steer_delivered' : 'follow_up_delivered', id: item.id, entryId, text: item.text };
}

function toolStart(call: ToolCall, turn: number): EventBody {
  return {
    type: 'tool_start',
    turn,
    toolCallId: call.id,
    name: call.name,
    arguments: call.arguments,
    ...(call.rawArguments !== undefined ? { rawArguments: call.rawArguments } : {}),
  };
}

function countRoles(messages: readonly Message[]) {
  const roles = { user: 0, assistant: 0, toolResult: 0 };
  for (const m of messages) roles[m.role]++;
  return roles;
}
