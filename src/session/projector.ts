// The Projector: a pure function from the active path to the messages the model sees.
// It never mutates an entry; it returns the entries' own message objects (treat them as read-only).
import type { Message, ToolCall, UserMessage } from '../core/types.js';
import type { CompactionEntry, ContentEntry, SessionEntry } from './entries.js';
import { kindOf } from './entry-kinds/index.js';
import { compactionKind, messageKind } from './entry-kinds/index.js';

export const SUMMARY_PREFIX = 'The earlier part of this conversation was compacted. Summary of what happened before the messages that follow:\n\n';

export { BRANCH_SUMMARY_PREFIX, branchSummaryMessage } from './entry-kinds/branch-summary.js';

/** The message that stands in for everything a compaction summarized. */
export function summaryMessage(summary: string): UserMessage {
  return { role: 'user', content: [{ type: 'text', text: `${SUMMARY_PREFIX}<summary>\n${summary}\n</summary>` }] };
}

/**
 * Active path → model messages. With a compaction on the path: its summary first, then the
 * entries from `firstKeptEntryId` up to the compaction, then everything after it.
 * Non-content entries and empty assistant messages (a failed request) are skipped.
 */
export function projectMessages(path: readonly (ContentEntry | SessionEntry)[]): Message[] {
  let compactionIndex = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (compactionKind.is(path[i])) {
      compactionIndex = i;
      break;
    }
  }
  const out: Message[] = [];
  let start = 0;
  if (compactionIndex >= 0) {
    const compaction = path[compactionIndex] as CompactionEntry;
    out.push(summaryMessage(compaction.summary));
    let kept = compactionIndex; // firstKept not on the path: keep nothing before the compaction
    for (let i = 0; i < compactionIndex; i++) {
      if (path[i].id === compaction.firstKeptEntryId) {
        kept = i;
        break;
      }
    }
    for (let i = kept; i < compactionIndex; i++) pushMessage(out, path[i]);
    start = compactionIndex + 1;
  }
  for (let i = start; i < path.length; i++) pushMessage(out, path[i]);
  return out;
}

/** An entry's message for the model, as its kind projects it (control entries and compactions: none). */
function pushMessage(out: Message[], entry: ContentEntry | SessionEntry): void {
  const m = kindOf(entry).project?.(entry);
  if (m) out.push(m);
}

/**
 * The tool calls of the last assistant message on the path that have no result after it:
 * what a crash or kill in the middle of a turn leaves behind. Providers reject a request
 * with such calls, so the loop answers them before it sends anything.
 */
export function unansweredToolCalls(path: readonly (ContentEntry | SessionEntry)[]): ToolCall[] {
  const answered = new Set<string>();
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    // A compaction appended after the calls (compacting a run killed mid-turn) hides nothing: the
    // calls are still in the projection, among the kept entries.
    if (compactionKind.is(e)) continue;
    if (!messageKind.is(e)) return [];
    const m = e.message;
    if (m.role === 'toolResult') answered.add(m.toolCallId);
    else if (m.role === 'assistant') {
      return m.content.filter((c): c is ToolCall => c.type === 'toolCall' && !answered.has(c.id));
    } else return [];
  }
  return [];
}
