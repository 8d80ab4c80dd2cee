// Behaviour tests for the projector: active path → the messages the model sees.
import { describe, expect, it } from 'vitest';
import { emptyUsage, type AssistantMessage, type Message, type ToolResultMessage, type UserMessage } from '../src/core/types.js';
import type { CompactionEntry, MessageEntry, SessionEntry } from '../src/session/entries.js';
import { projectMessages, SUMMARY_PREFIX, summaryMessage } from '../src/session/projector.js';
import { SessionStore } from '../src/session/store.js';

function user(text: string): UserMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function assistant(text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return { role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', usage: emptyUsage(), ...extra };
}

function toolResult(text: string): ToolResultMessage {
  return { role: 'toolResult', toolCallId: 'call-1', toolName: 'read_file', content: [{ type: 'text', text }], isError: false };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

function memStore(): SessionStore {
  return SessionStore.inMemory({ cwd: '/p', now: () => new Date(Date.UTC(2024, 0, 1)) });
}

/** m1..m8 alternating user/assistant, c1 (keeps from m6), m9. */
function compacted() {
  const s = memStore();
  const m: MessageEntry[] = [];
  for (let i = 1; i <= 8; i++) m.push(s.appendMessage(i % 2 ? user(`m${i} question`) : assistant(`m${i} answer`)));
  const c1 = s.append({
    type: 'compaction',
    summary: 'The user asked about m1..m5; the files were listed.',
    firstKeptEntryId: m[5].id,
    tokensBefore: 4242,
  }) as CompactionEntry;
  const m9 = s.appendMessage(user('m9 question'));
  return { s, m, c1, m9 };
}

describe('projectMessages', () => {
  it('projects nothing from an empty path', () => {
    expect(projectMessages([])).toEqual([]);
  });

  it('without a compaction: the messages of the path, in order, as the very same objects', () => {
    const s = memStore();
    const msgs: Message[] = [user('q'), assistant('thinking it over', { content: [{ type: 'toolCall', id: 'call-1', name: 'read_file', arguments: { path: 'a' } }], stopReason: 'toolUse' }), toolResult('file body'), assistant('done')];
    for (const m of msgs) s.appendMessage(m);
    const out = projectMessages(s.activePath());
    expect(out).toEqual(msgs);
    out.forEach((m, i) => expect(m).toBe((s.activePath()[i] as MessageEntry).message));
  });

  it('with a compaction: summary first, then m6..m8, then m9', () => {
    const { s, m, c1, m9 } = compacted();
    expect(s.activePath().map((e) => e.id)).toEqual([...m.map((e) => e.id), c1.id, m9.id]);

    const out = projectMessages(s.activePath());
    expect(out.length).toBe(5);
    const first = out[0];
    expect(first.role).toBe('user');
    expect(first.content.length).toBe(1);
    expect(first.content[0].type).toBe('text');
    const text = (first.content[0] as { text: string }).text;
    expect(text).toContain('The user asked about m1..m5; the files were listed.');
    expect(text.startsWith(SUMMARY_PREFIX)).toBe(true);
    expect(first).toEqual(summaryMessage(c1.summary));

    expect(out[1]).toBe(m[5].message);
    expect(out[2]).toBe(m[6].message);
    expect(out[3]).toBe(m[7].message);
    expect(out[4]).toBe(m9.message);
    // nothing from before m6 leaks through
    expect(JSON.stringify(out)).not.toMatch(/m[1-5] (question|answer)/);
  });

  it('with a compaction as the last entry: summary then the kept messages', () => {
    const s = memStore();
    const m1 = s.appendMessage(user('one'));
    const m2 = s.appendMessage(assistant('two'));
    s.append({ type: 'compaction', summary: 'S', firstKeptEntryId: m2.id });
    const out = projectMessages(s.activePath());
    expect(out).toEqual([summaryMessage('S'), m2.message]);
    expect(out).not.toContain(m1.message);
  });

  it('a compaction that keeps nothing (firstKeptEntryId not on the path) yields the summary and what follows', () => {
    const s = memStore();
    const m1 = s.appendMessage(user('one'));
    const m2 = s.appendMessage(assistant('two'));
    s.checkout(m1.id);
    s.appendMessage(user('other branch'));
    // compaction on the current branch, pointing at m2 which is on the other branch
    s.append({ type: 'compaction', summary: 'S', firstKeptEntryId: m2.id });
    const after = s.appendMessage(user('after'));
    expect(projectMessages(s.activePath())).toEqual([summaryMessage('S'), after.message]);
  });

  it('firstKeptEntryId pointing at the compaction itself keeps nothing before it', () => {
    const path: SessionEntry[] = [
      { id: 'a', parentId: null, type: 'message', timestamp: 't', message: user('a') },
      { id: 'c', parentId: 'a', type: 'compaction', timestamp: 't', summary: 'S', firstKeptEntryId: 'c' },
      { id: 'b', parentId: 'c', type: 'message', timestamp: 't', message: user('b') },
    ];
    expect(projectMessages(path)).toEqual([summaryMessage('S'), user('b')]);
  });

  it('with two compactions, the last one on the path decides', () => {
    const { s, m9 } = compacted();
    const m10 = s.appendMessage(assistant('m10 answer'));
    s.append({ type: 'compaction', summary: 'second summary', firstKeptEntryId: m10.id });
    const m11 = s.appendMessage(user('m11'));
    const out = projectMessages(s.activePath());
    expect(out).toEqual([summaryMessage('second summary'), m10.message, m11.message]);
    expect(JSON.stringify(out)).not.toContain('m1..m5');
    expect(out).not.toContain(m9.message);
  });

  it('skips label and leaf entries if they are passed in', () => {
    const s = memStore();
    const m1 = s.appendMessage(user('one'));
    s.append({ type: 'label', targetId: m1.id, label: 'L' });
    const m2 = s.appendMessage(assistant('two'));
    s.checkout(m1.id);
    s.checkout(m2.id);
    const all = s.entries();
    expect(all.map((e) => e.type)).toEqual(['message', 'label', 'message', 'leaf', 'leaf']);
    expect(projectMessages(all)).toEqual([m1.message, m2.message]);

    // also around a compaction
    const c = s.append({ type: 'compaction', summary: 'S', firstKeptEntryId: m2.id });
    s.append({ type: 'label', targetId: c.id, label: 'compacted' });
    const m3 = s.appendMessage(user('three'));
    expect(projectMessages(s.entries())).toEqual([summaryMessage('S'), m2.message, m3.message]);
  });

  it('skips assistant messages with empty content, but keeps other messages', () => {
    const s = memStore();
    const m1 = s.appendMessage(user('one'));
    s.appendMessage({ role: 'assistant', content: [], stopReason: 'error', usage: emptyUsage(), errorMessage: 'boom' });
    const m3 = s.appendMessage(user('retry'));
    const m4 = s.appendMessage(assistant('', { content: [{ type: 'thinking', thinking: 'hmm' }] }));
    const m5 = s.appendMessage(assistant(''));
    const m6 = s.appendMessage({ role: 'toolResult', toolCallId: 'x', toolName: 't', content: [], isError: true });
    expect(projectMessages(s.activePath())).toEqual([m1.message, m3.message, m4.message, m5.message, m6.message]);
  });

  it('skips an empty assistant message among the kept entries of a compaction', () => {
    const s = memStore();
    s.appendMessage(user('one'));
    const m2 = s.appendMessage(user('two'));
    s.appendMessage({ role: 'assistant', content: [], stopReason: 'aborted', usage: emptyUsage() });
    s.append({ type: 'compaction', summary: 'S', firstKeptEntryId: m2.id });
    expect(projectMessages(s.activePath())).toEqual([summaryMessage('S'), m2.message]);
  });

  it('never mutates entries (deep-frozen input, unchanged snapshot)', () => {
    const { s } = compacted();
    s.appendMessage({ role: 'assistant', content: [], stopReason: 'error', usage: emptyUsage() });
    s.append({ type: 'label', targetId: s.entries()[0].id, label: 'first' });
    s.appendMessage(assistant('tail'));
    const entries = s.entries();
    const snapshot = structuredClone(entries);
    const json = JSON.stringify(entries);
    deepFreeze(entries);
    expect(Object.isFrozen(entries)).toBe(true);
    expect(Object.isFrozen((entries[0] as MessageEntry).message.content[0])).toBe(true);

    const path = s.pathTo(s.leafId);
    deepFreeze(path);
    const out1 = projectMessages(path);
    const out2 = projectMessages(entries);
    const out3 = projectMessages(path);

    expect(entries).toEqual(snapshot);
    expect(JSON.stringify(entries)).toBe(json);
    expect(out3).toEqual(out1);
    expect(out2).toEqual(out1);
    // the result is a fresh array: changing it does not touch the path
    out1.pop();
    expect(projectMessages(path)).toEqual(out3);
  });

  it('summaryMessage wraps the summary in the prefix and tags', () => {
    expect(summaryMessage('x\ny')).toEqual({
      role: 'user',
      content: [{ type: 'text', text: `${SUMMARY_PREFIX}<summary>\nx\ny\n</summary>` }],
    });
  });
});
