// Where compaction meets the loop: before every model request (after each tool batch, not only at
// the end of a run) when the context nears the window, and once when the provider says it
// overflowed. With compaction off, neither path compacts, and an overflow says so.
import type { EventBody } from '../core/events.js';
import type { ModelError } from '../core/types.js';
import { shouldCompact } from '../session/compaction-plan.js';
import { projectMessages } from '../session/projector.js';
import type { SessionStore } from '../session/store.js';
import { contextTokens } from '../session/tokens.js';
import type { ToolSpec } from '../core/types.js';
import { compactSession, type CompactionConfig } from './compactor.js';

export interface CompactionStepContext {
  store: SessionStore;
  compaction: CompactionConfig | undefined;
  cwd: string;
  signal: AbortSignal;
  emit: (event: EventBody) => void;
  systemPrompt: string;
  tools: readonly ToolSpec[];
  /** Per run: a failed threshold compaction is not tried again on every turn. */
  state: { thresholdFailed: boolean; overflowRetried: boolean };
}

/** Before a request: compact if the context leaves less than the reserve free. Returns an error when the run cannot go on. */
export async function compactBeforeRequest(ctx: CompactionStepContext): Promise<ModelError | null> {
  const c = ctx.compaction;
  if (!c?.enabled) return null;
  const path = ctx.store.activePath();
  // Projected only when no usage calibrates the estimate: the loop projects again for the request.
  const tokens = contextTokens(path, () => projectMessages(path), { systemPrompt: ctx.systemPrompt, tools: ctx.tools }).tokens;
  if (!shouldCompact(tokens, c.settings)) return null;
  const window = c.settings.contextWindow;
  if (!ctx.state.thresholdFailed) {
    const out = await compactSession({ ...ctx, config: c, reason: 'threshold' });
    if (out.ok) return null;
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
  if (ctx.state.overflowRetried) {
    return { ...error, message: `${error.message} (mini-agent had already compacted the conversation and retried this turn once; it still does not fit)` };
  }
  ctx.state.overflowRetried = true;
  const out = await compactSession({ ...ctx, config: c, reason: 'overflow' });
  if (out.ok) return 'retry';
  return { ...error, message: `${error.message} (mini-agent tried to compact the conversation and retry, but the compaction failed: ${out.error})` };
}

function overflow(message: string): ModelError {
  return { kind: 'context_overflow', message, retryable: false };
}
