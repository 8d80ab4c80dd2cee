// Renderers: they only watch events. The text renderer streams the answer to
// stdout and progress to stderr; the JSONL renderer writes one event per line.
import { textWithImages } from '../core/image.js';
import type { AgentEvent } from '../core/events.js';
import { preview, type Refusal, type Usage } from '../core/types.js';
import { describeCacheShare } from '../core/cache-share.js';
import { costText } from '../core/cost-text.js';

export { preview };

export interface Output {
  write(text: string): void;
}

export function jsonlRenderer(out: Output): (event: AgentEvent) => void {
  return (event) => out.write(JSON.stringify(event) + '\n');
}

export interface TextRendererOptions {
  stdout: Output;
  stderr: Output;
  verbose: boolean;
  /**
   * Stream answer text as it arrives (a terminal). Otherwise (a pipe) each response's text is
   * written when it is complete, so a retried attempt's partial text never reaches stdout.
   */
  live?: boolean;
}

export function textRenderer({ stdout, stderr, verbose, live = true }: TextRendererOptions): (event: AgentEvent) => void {
  let atLineStart = true; // of stdout
  let pending = ''; // this attempt's text, when not live
  let thinking = false;
  const endLine = () => {
    if (!atLineStart) {
      stdout.write('\n');
      atLineStart = true;
    }
  };
  return (event) => {
    switch (event.type) {
      case 'run_start':
        if (verbose) {
          const where = event.session ? `session ${event.session.id}${event.session.file ? ` (${event.session.file})` : ''}` : 'no session';
          stderr.write(`mini-agent · ${event.provider}/${event.model} · ${where}\n`);
        }
        break;
      case 'warning':
        stderr.write(`warning: ${event.message}\n`);
        break;
      case 'turn_start':
        if (verbose) stderr.write(`— turn ${event.turn}: ${event.messageCount} messages\n`);
        break;
      case 'thinking_delta':
        if (verbose) {
          if (!thinking) stderr.write('[thinking] ');
          thinking = true;
          stderr.write(event.delta);
        }
        break;
      case 'text_delta':
        if (thinking) {
          stderr.write('\n');
          thinking = false;
        }
        if (event.delta.length > 0) {
          if (!live) pending += event.delta;
          else {
            stdout.write(event.delta);
            atLineStart = event.delta.endsWith('\n');
          }
        }
        break;
      case 'message_end':
        if (pending) {
          stdout.write(pending);
          atLineStart = pending.endsWith('\n');
          pending = '';
        }
        endLine();
        break;
      case 'tool_start':
        stderr.write(`→ ${event.name} ${preview(event.rawArguments ?? JSON.stringify(event.arguments), 120)}\n`);
        break;
      case 'tool_end': {
        const text = textWithImages(event.result.content);
        const mark = event.result.isError ? '✗' : '✓';
        const first = preview(text.split('\n')[0] ?? '', 100);
        stderr.write(`${mark} ${event.name} (${event.durationMs} ms) ${first}\n`);
        break;
      }
      case 'compaction_end':
        // One line either way: what was summarized, or why nothing was.
        stderr.write(`${describeCompaction(event)}\n`);
        break;
      case 'retry':
        pending = '';
        if (live && !atLineStart) {
          endLine();
          stderr.write('[the partial answer above is discarded]\n');
        }
        stderr.write(`retrying after ${event.kind} (attempt ${event.attempt}, waiting ${Math.round(event.delayMs)} ms): ${event.message}\n`);
        break;
      case 'run_settled': {
        endLine();
        const u = event.usage;
        const summary = `${event.stopReason} · ${event.turns} turn${event.turns === 1 ? '' : 's'} · ${event.toolCalls} tool call${event.toolCalls === 1 ? '' : 's'}${event.toolErrors ? ` (${event.toolErrors} failed)` : ''} · ${u.input} in / ${u.output} out tokens${cacheNote(u)}${u.cost || u.costUnknown ? ` · ${costText(u)}` : ''}`;
        // A failed run's one-line explanation comes from the CLI, which knows the configuration.
        if (event.stopReason === 'max_turns') stderr.write(`mini-agent: stopped after ${event.turns} turns: the run reached --max-turns\n`);
        if (event.stopReason === 'aborted') stderr.write('mini-agent: aborted\n');
        if (event.stopReason === 'loop_detected') stderr.write('mini-agent: stopped: the model repeated the same tool call (loop detected)\n');
        if (event.stopReason === 'refused') stderr.write(`${describeRefusal(event.refusal)}\n`);
        if (verbose) stderr.write(`[${summary}]\n`);
        break;
      }
    }
  };
}

/** The one-line notice of a compaction. */
export function describeCompaction(e: Extract<AgentEvent, { type: 'compaction_end' }>): string {
  if (!e.ok) return `mini-agent: compaction (${e.reason}) failed: ${e.error}; nothing was summarized`;
  const files = e.readFiles.length + e.modifiedFiles.length;
  return `mini-agent: compacted the conversation (${e.reason}): ${e.summarizedEntries} entries summarized, ${e.tokensBefore} → ${e.tokensAfter} tokens${files ? `, ${files} files tracked` : ''}; the originals stay in the session`;
}

/** The one stderr line for a refused run: "mini-agent: the model refused: <explanation>". */
export function describeRefusal(refusal: Refusal | null): string {
  const why = refusal?.explanation?.replace(/\s+/g, ' ').trim();
  const what = why ? why : refusal?.reason === 'refusal' ? 'no explanation given' : "the provider's content filter stopped the response (no explanation given)";
  return `mini-agent: the model refused: ${what}${refusal?.category ? ` (category: ${refusal.category})` : ''}`;
}

/** " (12000 cache read, 83% cache hits)" after the token counts, when the provider cached anything. */
function cacheNote(u: Usage): string {
  const share = describeCacheShare(u);
  return share ? ` (${u.cacheRead} cache read, ${u.cacheWrite} cache write, ${share})` : '';
}
