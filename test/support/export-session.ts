// A session built deterministically through the SessionStore API, for the export tests:
// text, thinking, tool calls with a long and a failed result, a compaction, labels and two
// branches. Entry ids are random; `normalizeIds` replaces them with E1, E2, … in file order.
import type { AssistantContent, AssistantMessage, Message, StopReason } from '../../src/core/types.js';
import type { ContentEntry } from '../../src/session/entries.js';
import { snapshotOf } from '../../src/session/stats.js';
import { SessionStore } from '../../src/session/store.js';

export const SESSION_ID = '00000000-0000-4000-8000-000000000001';
export const CWD = '/work/demo';
export const XSS = '</script><script>window.pwned=1</script>';

/** A clock that starts at 2026-01-02T03:04:05Z and moves one second per read. */
export function fakeClock(start = Date.UTC(2026, 0, 2, 3, 4, 5)): () => Date {
  let t = start;
  return () => new Date((t += 1000) - 1000);
}

export function assistant(content: AssistantContent[], stopReason: StopReason = 'stop', usage = { input: 100, output: 20 }): AssistantMessage {
  return {
    role: 'assistant',
    content,
    stopReason,
    usage: { input: usage.input, output: usage.output, cacheRead: 0, cacheWrite: 0, cost: (usage.input * 3 + usage.output * 15) / 1_000_000 },
    model: 'claude-test-1',
    provider: 'anthropic',
  };
}

export function user(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

export function result(toolCallId: string, toolName: string, text: string, isError = false): Message {
  return { role: 'toolResult', toolCallId, toolName, content: [{ type: 'text', text }], isError };
}

export interface BuiltSession {
  store: SessionStore;
  /** Named entries, for assertions. */
  ids: Record<'firstUser' | 'firstCall' | 'longResult' | 'failedResult' | 'answer' | 'compaction' | 'branchAUser' | 'branchAReply' | 'branchBUser' | 'branchBCall' | 'branchBResult' | 'branchBReply', string>;
}

/** Long tool output: 30 lines, one of them holding a backtick fence. */
export const LONG_OUTPUT = Array.from({ length: 30 }, (_, i) => (i === 3 ? 'code: ```js and ````' : `line ${i + 1}: - [ ] task ${i + 1}`)).join('\n') + '\n';

/**
 * Builds the export fixture into `store` (or a fresh in-memory store). The active path ends on
 * branch B; branch A ("write it to out/summary.md") is only in the tree.
 */
export function buildSession(store?: SessionStore): BuiltSession {
  const s = store ?? SessionStore.inMemory({ cwd: CWD, id: SESSION_ID, now: fakeClock() });
  const add = (m: Message) => s.appendMessage(m).id;
  s.append({ type: 'session_info', name: 'Summarize the *todo* list' });
  const firstUser = add(user('Summarize notes/todo.md, please.\n\nKeep it <short>: one `<p>` at most.'));
  const firstCall = add(
    assistant(
      [
        { type: 'thinking', thinking: 'The user wants a summary. I should read the file first.' },
        { type: 'text', text: 'Let me read the file.' },
        { type: 'toolCall', id: 'call_1', name: 'read_file', arguments: { path: 'notes/todo.md' } },
      ],
      'toolUse',
    ),
  );
  const longResult = add(result('call_1', 'read_file', LONG_OUTPUT));
  add(assistant([{ type: 'toolCall', id: 'call_2', name: 'read_file', arguments: { path: 'notes/missing.md' } }], 'toolUse'));
  const failedResult = add(result('call_2', 'read_file', 'ENOENT: notes/missing.md does not exist', true));
  const answer = add(assistant([{ type: 'text', text: 'The list has **30 tasks**:\n\n```\nall open\n```\nNone is done.' }]));
  s.append({ type: 'label', targetId: firstUser, label: 'start' });
  const compaction = s.append({ type: 'compaction', summary: 'The user asked for a summary of notes/todo.md (30 open tasks).\nnotes/missing.md does not exist.', firstKeptEntryId: answer, tokensBefore: 5230 }).id;
  s.append({ type: 'label', targetId: compaction, label: 'after compaction' });
  const branchAUser = add(user('Now write it to out/summary.md'));
  const branchAReply = add(assistant([{ type: 'text', text: 'BRANCH-A: written to out/summary.md.' }]));
  s.checkout(compaction);
  const branchBUser = add(user(`Translate the summary to French. ${XSS}`));
  const branchBCall = add(assistant([{ type: 'toolCall', id: 'call_3', name: 'write_note', arguments: { path: 'out/fr.md', content: 'Trente tâches ouvertes. '.repeat(8).trim() } }], 'toolUse'));
  const branchBResult = add(result('call_3', 'write_note', 'wrote out/fr.md (192 bytes)'));
  const branchBReply = add(assistant([{ type: 'text', text: 'BRANCH-B: Voilà, the summary is in out/fr.md.' }]));
  s.append({ type: 'label', targetId: branchBReply, label: 'french </b>' });
  s.append({
    type: 'run',
    runId: 'run-1',
    startedAt: '2026-01-02T03:04:05.000Z',
    durationMs: 4200,
    stopReason: 'stop',
    turns: 2,
    toolCalls: 1,
    toolErrors: 0,
    usage: { input: 200, output: 40, cacheRead: 0, cacheWrite: 0, cost: 0 },
    leafId: branchBReply,
    snapshot: snapshotOf(s),
  });
  return {
    store: s,
    ids: { firstUser, firstCall, longResult, failedResult, answer, compaction, branchAUser, branchAReply, branchBUser, branchBCall, branchBResult, branchBReply },
  };
}

/** Replaces every entry id of `store` in `text` with E1, E2, … (file order), so goldens do not depend on random ids. */
export function normalizeIds(text: string, store: SessionStore): string {
  let out = text;
  store.entries().forEach((e, i) => {
    out = out.split(e.id).join(`E${i + 1}`);
  });
  return out;
}

export function contentEntries(store: SessionStore): ContentEntry[] {
  return store.entries().filter((e): e is ContentEntry => e.type === 'message' || e.type === 'compaction');
}
