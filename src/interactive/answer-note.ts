// What the scrollback keeps of an approval answer, of a compaction and of a run's end (moved out of conversation.ts
// for issue 24: the rule an "always" stores is shown whole and wrapped, no longer cut at 60
// characters; a compaction's reason wraps too).
import type { PermissionReply, PermissionRequest } from '../app/permission-gate.js';
import { ruleInBrief } from '../tools/permissions.js';
import type { AgentEvent } from '../core/events.js';
import { budgetLine } from '../core/cost-text.js';
import { clean, paint, statusLine, type Paint } from './view.js';
import type { AgentState } from '../app/types.js';
import { wrapText } from './wrap.js';

/** An answer as the scrollback keeps it: the decision, the rule "always" stored, the reason given with a "no". */
export function answerNote(reply: PermissionReply, request: PermissionRequest): string {
  const r = typeof reply === 'string' ? { decision: reply } : reply;
  if (r.decision === 'always') return `always (${clean(ruleInBrief(r.rule ?? request.suggestedRule, Number.POSITIVE_INFINITY))})`;
  if (r.decision === 'deny' && r.reason) return `deny (${clean(r.reason)})`;
  return r.decision;
}

/** The end of a compaction, wrapped: what it did, that it was cancelled (nothing written), or why it failed. */
export function compactionLines(e: Extract<AgentEvent, { type: 'compaction_end' }>, width: number, p: Paint): string[] {
  if (e.ok) return wrapText(`compacted: ${e.summarizedEntries} entries summarized, ${e.tokensBefore} → ${e.tokensAfter} tokens (the originals stay in the session)`, width, { indent: '  ', style: p.dim });
  if (/aborted/.test(e.error ?? '')) return wrapText('compaction cancelled: nothing was changed', width, { style: p.yellow });
  return wrapText(`compaction failed: ${e.error ?? ''}`, width, { indent: '  ', style: p.red });
}

/** How a run ended, when it did not simply complete: stopped, one error line (wrapped), a refusal, a limit. */
export function settledLines(e: Extract<AgentEvent, { type: 'run_settled' }>, width: number, p: Paint): string[] {
  if (e.stopReason === 'aborted') return [p.yellow('stopped')];
  if (e.stopReason === 'error' && e.error) return wrapText(`error${e.error.kind === 'unknown' ? '' : ` (${e.error.kind})`}: ${e.error.message}`, width, { indent: '  ', style: p.red });
  if (e.stopReason === 'refused') return wrapText(`the model refused${e.refusal?.explanation ? `: ${e.refusal.explanation}` : ''}`, width, { indent: '  ', style: p.red });
  if (e.stopReason === 'max_turns') return [p.yellow(`stopped after ${e.turns} turns (the turn limit)`)];
  if (e.stopReason === 'loop_detected') return wrapText('stopped: the same tool call again and again (loop detected)', width, { style: p.yellow });
  if (e.stopReason === 'budget' && e.budget) return wrapText(budgetLine(e.budget), width, { indent: '  ', style: p.yellow });
  return [];
}

/** The status line after a run (model, tokens, cost, context, session), wrapped, and a blank line. */
export function settledStatusLines(e: Extract<AgentEvent, { type: 'run_settled' }>, st: AgentState, width: number, p: Paint): string[] {
  const u = e.usage;
  const facts = {
    model: `${st.model.provider}/${st.model.id}`,
    input: u.input + u.cacheRead,
    output: u.output,
    cost: u.cost,
    costUnknown: u.costUnknown,
    contextFraction: st.context.fraction,
    session: st.session.name ?? st.session.id.slice(0, 8),
  };
  return [...wrapText(statusLine(facts, paint(false)), width, { style: p.dim }), ''];
}
