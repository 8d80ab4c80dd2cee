// Where compaction meets the loop: before every model request (after each tool batch, not only at
// the end of a run) when the context nears the window, and once when the provider says it
// overflowed. With compaction off, neither path compacts, and an overflow says so.
import type { EventBody } from '../core/events.js';
import type { ModelError } from '../core/types.js';
import { compactionSettings, shouldCompact } from '../session/compaction-plan.js';
import { projectMessages } from '../session/projector.js';
import type { SessionStore } from '../session/store.js';
import { contextTokens } from '../session/tokens.js';
import type { ToolSpec } from '../core/types.js';
import { compactSession, type CompactionConfig } from './compactor.js';
import { ABORTED } from './turn-stream.js';

export interface CompactionStepContext {
  store: SessionStore;
  compaction: CompactionConfig | undefined;
  cwd: string;
  signal: AbortSignal;
  emit: (event: EventBody) => void;
  systemPrompt: string;
  tools: readonly ToolSpec[];
  /**
   * Per run: a failed threshold compaction is not tried again on every turn; an overflow compacts
   * again keeping half as much each time (`overflowKeep`: the part kept by the last one), at most
   * MAX_OVERFLOW_COMPACTIONS times.
   */
  state: { thresholdFailed: boolean; overflowRetried: boolean; overflowKeep?: number; overflowCompactions?: number; outputRetried?: boolean };
}

/** An overflow compacts and retries the turn at most this many times per run. */
export const MAX_OVERFLOW_COMPACTIONS = 6;

/** Before a request: compact if the context leaves less than the reserve free. Returns an error when the run cannot go on. */
export async function compactBeforeRequest(ctx: CompactionStepContext): Promise<ModelError | null> {
  const c = ctx.compaction;
  if (!c?.enabled) return null;
  const path = ctx.store.activePath();
  // Projected only when no usage calibrates the estimate: the loop projects again for the request.
  const tokens = contextTokens(path, () => projectMessages(path), { systemPrompt: ctx.systemPrompt, tools: ctx.tools }).tokens;
  // The app may ask the server for an unknown model's window now (once per session); settings follow it.
  await c.prepare?.(ctx.signal, tokens);
  if (!shouldCompact(tokens, c.settings)) return null;
  const window = c.settings.contextWindow;
  if (!ctx.state.thresholdFailed) {
    // Over the window already: keep less rather than give up (the request would overflow).
    const out = await compactSession({ ...ctx, config: c, reason: 'threshold', mustFit: tokens > window });
    if (out.ok || ctx.signal.aborted) return null; // cancelled: the loop stops the run as aborted, not as an error
    ctx.state.thresholdFailed = true;
    if (tokens > window) return overflow(`the context (${tokens} tokens) is larger than the model's window (${window}), and compacting it failed: ${out.error}`);
    return null; // it still fits: go on without compacting
  }
  return tokens > window ? overflow(`the context (${tokens} tokens) is larger than the model's window (${window}), and compaction failed earlier in this run`) : null;
}

/** After a `context_overflow`: compact and retry the turn once ('retry'), or the error that ends the run. */
export async function compactAfterOverflow(ctx: CompactionStepContext, error: ModelError): Promise<'retry' | ModelError> {
  const c = ctx.compaction;
  if (!c?.enabled) {
    return { ...error, message: `${error.message} (compaction is off: --no-compact or compaction.enabled: false, so mini-agent did not compact and retry)` };
  }
  const before = c.settings.contextWindow;
  const config = learnWindow(ctx, c, error);
  // The messages fit the window the provider stated just now; the output the request reserved did
  // not. The next request's output cap follows the learned window (agent/output-cap.ts): retry once
  // as it is, before compacting anything.
  if (config.settings.contextWindow < before && outputHint(error) !== '' && !ctx.state.outputRetried) {
    ctx.state.outputRetried = true;
    return 'retry';
  }
  const count = (ctx.state.overflowCompactions ?? 0) + 1;
  if (count > MAX_OVERFLOW_COMPACTIONS) {
    return { ...error, message: `${error.message} (mini-agent compacted the conversation ${MAX_OVERFLOW_COMPACTIONS} times in this run, keeping less each time; it still does not fit${outputHint(error)})` };
  }
  ctx.state.overflowCompactions = count;
  ctx.state.overflowRetried = true;
  // Keep half as much as the last compaction kept (the estimate can be below the provider's count).
  const keep = Math.floor(Math.min(ctx.state.overflowKeep ?? config.settings.keepRecentTokens, config.settings.keepRecentTokens) / 2);
  const out = await compactSession({ ...ctx, config, reason: 'overflow', keepRecentTokens: keep, mustFit: true });
  if (out.ok) {
    ctx.state.overflowKeep = out.keepRecentTokens;
    return 'retry';
  }
  if (ctx.signal.aborted) return { ...ABORTED }; // cancelled: the run stops as aborted, not with the overflow's error
  return { ...error, message: `${error.message} (mini-agent tried to compact the conversation and retry, but the compaction failed: ${out.error}${outputHint(error)})` };
}

/**
 * When the provider counted the messages within its window, what does not fit is the output the
 * request reserves (max_tokens): compaction cannot fix that, a smaller output cap can.
 */
function outputHint(error: ModelError): string {
  const { requestTokens, contextWindow } = error;
  if (requestTokens === undefined || contextWindow === undefined || requestTokens >= contextWindow) return '';
  return `; the provider counted ${requestTokens} tokens of messages, within its window of ${contextWindow}: the output the request reserves (max_tokens) is what does not fit, so lower the model's maxOutputTokens (models.<id>.maxOutputTokens in the config)`;
}

/**
 * The window an overflow error states, when it is smaller than the one in use: the app records it
 * (learnWindow) and compaction uses it from then on, for the rest of this run too.
 */
function learnWindow(ctx: CompactionStepContext, c: CompactionConfig, error: ModelError): CompactionConfig {
  const stated = error.contextWindow;
  if (stated === undefined || stated >= c.settings.contextWindow || stated < 1024) return c;
  const settings = c.learnWindow ? c.learnWindow(stated) : compactionSettings(stated);
  ctx.emit({ type: 'warning', message: `the provider says the model's context window is ${stated} tokens (mini-agent assumed ${c.settings.contextWindow}); compaction uses ${stated} from now on` });
  const learned = c.learnWindow ? c : { ...c, settings };
  ctx.compaction = learned;
  return learned;
}

function overflow(message: string): ModelError {
  return { kind: 'context_overflow', message, retryable: false };
}
