// A --trace file as a step-by-step, human-readable account (pure: events in, text out). Used by
// `mini-agent trace FILE` and the interactive mode's /trace.
import { textWithImages } from '../core/image.js';
import type { AgentEvent } from '../core/events.js';
import { redactSecrets } from '../core/redact.js';
import { preview, textOf } from '../core/types.js';
import { costText } from '../core/cost-text.js';

export function parseTrace(text: string, label: string): { events: AgentEvent[]; problems: string[] } {
  const events: AgentEvent[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const e = JSON.parse(line) as AgentEvent;
      if (typeof e?.type !== 'string') throw new Error('no type');
      events.push(e);
    } catch {
      problems.push(`${label}: line ${i + 1} is not an event; skipped`);
    }
  });
  return { events, problems };
}

/** Pure: events in, report out, with secrets hidden (core/redact.ts). */
export function formatTrace(events: readonly AgentEvent[], opts: { width: number }): string {
  const out: string[] = [];
  const w = opts.width;
  let turnStarted = 0;
  let text = '';
  let thinking = '';
  for (const e of events) {
    switch (e.type) {
      case 'run_start': {
        const session = e.session ? `session ${e.session.id}${e.session.file ? ` (${e.session.file})` : ''}` : 'no session';
        out.push(`Run ${e.runId} · ${e.provider}/${e.model} · ${session}`);
        out.push(`  cwd: ${e.cwd} · max turns: ${e.maxTurns} · started ${new Date(e.time).toISOString()}`);
        out.push(`  prompt: ${JSON.stringify(preview(e.prompt, w))}`);
        break;
      }
      case 'warning':
        out.push(`  ! ${e.message}`);
        break;
      case 'turn_start': {
        turnStarted = e.time;
        text = '';
        thinking = '';
        const roles = Object.entries(e.roles)
          .filter(([, n]) => n > 0)
          .map(([r, n]) => `${r} ${n}`)
          .join(', ');
        out.push('');
        out.push(`Turn ${e.turn}: the model saw ${e.messageCount} message${e.messageCount === 1 ? '' : 's'} (${roles || 'none'})${e.compacted ? ', after a compaction summary' : ''}`);
        break;
      }
      case 'text_delta':
        text += e.delta;
        break;
      case 'thinking_delta':
        thinking += e.delta;
        break;
      case 'retry':
        out.push(`  retry ${e.attempt} after ${e.kind} in ${Math.round(e.delayMs)} ms: ${preview(e.message, w)}`);
        break;
      case 'message_end': {
        const m = e.message;
        // The reasoning in full, indented (the stored blocks; the streamed text when none was kept).
        const reasoning = m.content.flatMap((c) => (c.type === 'thinking' ? [c.thinking] : [])).join('\n') || thinking;
        if (reasoning) out.push(`  thinking (${reasoning.length} chars):`, ...reasoning.split('\n').map((l) => `    ${l}`));
        const answer = textOf(m.content) || text;
        if (answer) out.push(`  assistant: ${JSON.stringify(preview(answer, w))}`);
        for (const c of m.content) {
          if (c.type !== 'toolCall') continue;
          if (c.argumentsError) {
            out.push(`  tool call ${c.name}  [${c.id}] (bad arguments: ${c.argumentsError})`);
            if (c.rawArguments !== undefined) out.push(`    as sent: ${JSON.stringify(preview(c.rawArguments, w))} (${c.rawArguments.length} chars)`);
          } else out.push(`  tool call ${c.name} ${preview(JSON.stringify(c.arguments), w)}  [${c.id}]`);
        }
        const u = m.usage;
        out.push(`  stop: ${m.stopReason} · usage ${u.input} in / ${u.output} out${u.cacheRead ? ` / ${u.cacheRead} cached` : ''} · ${e.time - turnStarted} ms · entry ${e.entryId}`);
        if (m.errorMessage) out.push(`  error: ${m.errorMessage}`);
        if (m.refusal) out.push(`  refused (${m.refusal.reason}${m.refusal.category ? `, ${m.refusal.category}` : ''})${m.refusal.explanation ? `: ${preview(m.refusal.explanation, w)}` : ''}`);
        break;
      }
      case 'tool_end': {
        const result = textWithImages(e.result.content);
        out.push(`  ${e.result.isError ? '✗' : '✓'} ${e.name} → ${JSON.stringify(preview(result, w))} (${e.durationMs} ms, ${result.length} chars)`);
        break;
      }
      case 'permission_request':
        out.push(`  ? ${e.tool} asks for approval: ${e.reason}  [${e.toolCallId}]`);
        break;
      case 'permission_decision':
        // Allowed by a default without asking is the common case: not worth a line.
        if (e.decision === 'deny' || e.asked || e.rule !== null) out.push(`  permission ${e.decision} ${e.tool}: ${e.rule ?? e.source}${e.asked ? ' (asked)' : ''}  [${e.toolCallId}]`);
        break;
      case 'compaction_start':
        out.push(`  compaction (${e.reason}) of a ${e.tokensBefore}-token context…`);
        break;
      case 'compaction_end':
        out.push(
          e.ok
            ? `  compacted: ${e.summarizedEntries} entries summarized, ${e.tokensBefore} → ${e.tokensAfter} tokens, entry ${e.entryId}${e.readFiles.length + e.modifiedFiles.length ? ` · read ${e.readFiles.join(', ') || '-'} · modified ${e.modifiedFiles.join(', ') || '-'}` : ''}`
            : `  ! compaction failed: ${e.error}`,
        );
        break;
      case 'run_end':
        break;
      case 'run_settled': {
        const u = e.usage;
        out.push('');
        out.push(`Settled: ${e.stopReason} after ${e.turns} turn${e.turns === 1 ? '' : 's'} · ${e.toolCalls} tool call${e.toolCalls === 1 ? '' : 's'} (${e.toolErrors} failed) · ${e.durationMs} ms`);
        out.push(`  tokens: ${u.input} in / ${u.output} out / ${u.cacheRead} cache read / ${u.cacheWrite} cache write · ${u.costUnknown ? costText(u) : `cost ${costText(u)}`}`);
        if (e.error) out.push(`  error (${e.error.kind}${e.error.retryable ? ', retryable' : ''}): ${e.error.message}`);
        if (e.refusal) out.push(`  refused (${e.refusal.reason}${e.refusal.category ? `, ${e.refusal.category}` : ''}): ${e.refusal.explanation ?? 'no explanation given'}`);
        out.push('');
        break;
      }
    }
  }
  // A trace holds what the tools saw and the provider said: anything shaped like a key is hidden.
  return redactSecrets(out.join('\n')) + '\n';
}
