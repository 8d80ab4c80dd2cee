// Compaction on the scripted model: planning (cut points, split turns), the summary (incremental,
// chunked, bounded), the loop (threshold mid-run, overflow recovery, off means off), failure
// safety (no entry, a side record, nothing lost), file lists, uncompact and branch summaries.
import { describe, expect, it } from 'vitest';
import { compactSession, summarizeBranch, type CompactionConfig, type Summarizer } from '../src/agent/compactor.js';
import type { AgentEvent } from '../src/core/events.js';
import { emptyUsage, textOf, userMessage, type AssistantMessage, type Message, type ToolCall } from '../src/core/types.js';
import { planCompaction, uncompact } from '../src/session/compaction-plan.js';
import type { CompactionEntry, CompactionFailedEntry } from '../src/session/entries.js';
import { FILES_HEADING } from '../src/session/file-lists.js';
import { projectMessages } from '../src/session/projector.js';
import { SessionStore } from '../src/session/store.js';
import { estimateRequestTokens, estimateTextTokens } from '../src/session/tokens.js';
import { compactionFor, quotingSummarizer, type RecordedSummaryRequest } from './support/compaction.js';
import { scriptedRun, tempDir } from './support/helpers.js';

type Ev<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) => events.filter((e): e is Ev<T> => e.type === type);

const assistant = (text: string, calls: ToolCall[] = []): AssistantMessage => ({
  role: 'assistant',
  content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls],
  stopReason: calls.length ? 'toolUse' : 'stop',
  usage: emptyUsage(),
});
const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({ type: 'toolCall', id, name, arguments: args });
const result = (id: string, name: string, text: string, details?: Record<string, unknown>): Message => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: name,
  content: [{ type: 'text', text }],
  isError: false,
  ...(details ? { details } : {}),
});

/** A session of `turns` user → assistant(read_file) → result → assistant turns, each about `size` characters. */
function longSession(turns: number, size = 2000, store = SessionStore.inMemory({ cwd: '/w' }), from = 0): SessionStore {
  for (let t = from; t < from + turns; t++) {
    store.appendMessage(userMessage(`turn ${t}: please look at file${t}.md. FACT: turn ${t} constraint`));
    store.appendMessage(assistant(`Reading it. ${'a'.repeat(size)}`, [call(`c${t}`, 'read_file', { path: `./docs/../file${t}.md` })]));
    store.appendMessage(result(`c${t}`, 'read_file', `content of file ${t} ${'r'.repeat(size)}`, { path: `file${t}.md` }));
    store.appendMessage(assistant(`Done with turn ${t}. ${'b'.repeat(size / 2)}`));
  }
  return store;
}

function config(summarize: Summarizer, window = 8192, set: { reserveTokens?: number; keepRecentTokens?: number; enabled?: boolean } = {}): CompactionConfig {
  return compactionFor(summarize, window, set);
}

async function compact(store: SessionStore, cfg: CompactionConfig, focus?: string) {
  const events: AgentEvent[] = [];
  let seq = 0;
  const out = await compactSession({
    store,
    config: cfg,
    reason: 'manual',
    focus,
    cwd: '/w',
    signal: new AbortController().signal,
    emit: (e) => void events.push({ ...e, schemaVersion: 2, seq: seq++, time: 0 } as AgentEvent),
  });
  return { out, events };
}

/** Every tool call of the projection is answered by a result that follows it, and no result lacks its call. */
function expectValidRequest(messages: Message[]): void {
  const open = new Set<string>();
  const seen = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.content) if (c.type === 'toolCall') open.add(c.id), seen.add(c.id);
    if (m.role === 'toolResult') {
      expect(seen.has(m.toolCallId), `result ${m.toolCallId} without its call`).toBe(true);
      open.delete(m.toolCallId);
    }
  }
  expect([...open], 'calls without results').toEqual([]);
}

describe('the course acceptance', () => {
  it('fewer tokens after compaction; the summary enters the context; the originals stay; a branch from before the compaction works', async () => {
    const store = longSession(8);
    const before = store.activePath();
    const { out, events } = await compact(store, config(quotingSummarizer(), 8192, { keepRecentTokens: 2000 }));
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.tokensAfter).toBeLessThan(out.tokensBefore);
    const projected = projectMessages(store.activePath());
    expect(textOf(projected[0].content)).toContain('<summary>');
    expect(textOf(projected[0].content)).toContain(out.entry.summary);
    expectValidRequest(projected);
    // Nothing was deleted: every original entry is still in the store, readable.
    for (const e of before) expect(store.get(e.id)).toBe(e);
    expect(ofType(events, 'compaction_end')[0]).toMatchObject({ ok: true, reason: 'manual', summarizedEntries: out.entry.summarizedIds!.length, entryId: out.entry.id });
    // A branch from an entry before the compaction sees the originals, not the summary.
    store.checkout(before[5].id);
    store.appendMessage(userMessage('a different direction'));
    const branch = projectMessages(store.activePath());
    expect(branch.map((m) => textOf(m.content)).join('\n')).not.toContain('<summary>');
    expect(branch).toHaveLength(7);
  });

  it('m1..m8 → c1 (firstKept m6) → m9; a branch from m2 sees neither c1 nor m9', () => {
    const store = SessionStore.inMemory({ cwd: '/w' });
    const m = Array.from({ length: 8 }, (_, i) => store.appendMessage(i % 2 === 0 ? userMessage(`m${i + 1}`) : assistant(`m${i + 1}`)));
    store.append({ type: 'compaction', summary: 'c1', firstKeptEntryId: m[5].id });
    store.appendMessage(userMessage('m9'));
    expect(projectMessages(store.activePath()).map((x) => textOf(x.content))).toEqual([expect.stringContaining('c1'), 'm6', 'm7', 'm8', 'm9']);
    store.checkout(m[1].id);
    expect(projectMessages(store.activePath()).map((x) => textOf(x.content))).toEqual(['m1', 'm2']);
  });
});

describe('the cut point', () => {
  it('a cut inside a long turn makes two summaries: the background and the current task so far', async () => {
    const store = longSession(3, 1500);
    // One long turn: a user request followed by many tool calls.
    store.appendMessage(userMessage('FACT: the long task is to migrate every config file'));
    for (let i = 0; i < 12; i++) {
      store.appendMessage(assistant(`step ${i} ${'s'.repeat(600)}`, [call(`L${i}`, 'read_file', { path: `cfg/${i}.json` })]));
      store.appendMessage(result(`L${i}`, 'read_file', `cfg ${i} ${'c'.repeat(600)}`));
    }
    const plan = planCompaction(store.activePath(), 2000);
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.plan.turnPrefix.length).toBeGreaterThan(0);
    expect(plan.plan.turnPrefix[0].type === 'message' && textOf(plan.plan.turnPrefix[0].message.content)).toContain('migrate every config file');
    const requests: RecordedSummaryRequest[] = [];
    const { out } = await compact(store, config(quotingSummarizer(requests), 16_384, { keepRecentTokens: 2000 }));
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(requests).toHaveLength(2);
    expect(requests[1].prompt).toContain('<current-task>');
    expect(out.entry.summary).toMatch(/^# Background\n[\s\S]*# The current task so far\n[\s\S]*## Task/);
    expect(out.entry.summary).toContain('FACT: the long task is to migrate every config file');
    const first = store.get(out.entry.firstKeptEntryId)!;
    expect(first.type === 'message' && first.message.role).toBe('assistant');
    expectValidRequest(projectMessages(store.activePath()));
  });

  it('never cuts at a tool result', () => {
    const store = longSession(6, 1000);
    for (const keep of [100, 500, 900, 1300, 2000, 3000]) {
      const plan = planCompaction(store.activePath(), keep);
      if (!plan.ok) continue;
      const first = store.get(plan.plan.firstKeptEntryId)!;
      expect(first.type === 'message' && first.message.role, `keep ${keep}`).not.toBe('toolResult');
    }
  });
});

describe('the summary', () => {
  it('is incremental: the second compaction sends the first summary and only the entries since', async () => {
    const store = longSession(6, 1500);
    const requests: RecordedSummaryRequest[] = [];
    const cfg = config(quotingSummarizer(requests), 16_384, { keepRecentTokens: 1500 });
    const first = await compact(store, cfg);
    expect(first.out.ok).toBe(true);
    const summarizedFirst = first.out.ok ? first.out.entry.summarizedIds! : [];
    longSession(4, 1500, store, 100);
    requests.length = 0;
    const second = await compact(store, cfg);
    expect(second.out.ok).toBe(true);
    if (!first.out.ok || !second.out.ok) return;
    const prompt = requests.map((r) => r.prompt).join('\n');
    expect(prompt).toContain('<previous-summary>');
    expect(prompt).toContain(first.out.entry.summary.split('\n## Files')[0].slice(0, 200));
    // Only the new entries: nothing summarized the first time is sent again.
    for (const id of summarizedFirst) expect(second.out.entry.summarizedIds).not.toContain(id);
    expect(prompt).not.toContain('turn 0: please look');
    expect(second.out.entry.summary).toContain('FACT: turn 0 constraint'); // carried by the previous summary
  });

  it('text over the summarizer window is chunked (map, then reduce), and no request exceeds the window', async () => {
    const store = longSession(40, 3000);
    const requests: RecordedSummaryRequest[] = [];
    const window = 8192;
    const { out } = await compact(store, config(quotingSummarizer(requests), window, { keepRecentTokens: 1500 }));
    expect(out.ok).toBe(true);
    expect(requests.length).toBeGreaterThan(2);
    expect(requests.some((r) => r.prompt.includes('<part n="1">'))).toBe(true); // the reduce step
    for (const r of requests) expect(estimateRequestTokens([userMessage(r.prompt)], { systemPrompt: r.systemPrompt })).toBeLessThan(window);
  });

  it('a session ten times the window: every summarizer request stays inside the summarizer window', async () => {
    const window = 4096;
    const store = longSession(30, 2500);
    const total = estimateRequestTokens(projectMessages(store.activePath()));
    expect(total).toBeGreaterThan(window * 10);
    const requests: RecordedSummaryRequest[] = [];
    const { out } = await compact(store, config(quotingSummarizer(requests), window, { keepRecentTokens: 1000 }));
    expect(out.ok).toBe(true);
    for (const r of requests) expect(estimateRequestTokens([userMessage(r.prompt)], { systemPrompt: r.systemPrompt }) + 819).toBeLessThanOrEqual(window);
  });

  it('cuts each tool result and thinking block in the summarizer input', async () => {
    const store = SessionStore.inMemory({ cwd: '/w' });
    store.appendMessage(userMessage('go'));
    store.appendMessage({ ...assistant('ok', [call('t1', 'read_file', { path: 'big.log' })]), content: [{ type: 'thinking', thinking: 'T'.repeat(20_000) }, call('t1', 'read_file', { path: 'big.log' })] });
    store.appendMessage(result('t1', 'read_file', `${'R'.repeat(50_000)}\nFACT: Error: the build failed at the very end of the log`));
    store.appendMessage(assistant('done'));
    store.appendMessage(userMessage('next'));
    store.appendMessage(assistant('fine'));
    const requests: RecordedSummaryRequest[] = [];
    await compact(store, config(quotingSummarizer(requests), 128_000, { keepRecentTokens: 20 }));
    expect(requests).toHaveLength(1);
    expect(requests[0].prompt).not.toContain('R'.repeat(2_100));
    expect(requests[0].prompt).not.toContain('T'.repeat(2_100));
    expect(requests[0].prompt).toContain('more characters cut for the summary');
    // The end of a long tool result is kept: errors are at the bottom of logs.
    expect(requests[0].prompt).toContain('characters cut for the summary …]');
    expect(requests[0].prompt).toContain('FACT: Error: the build failed at the very end of the log');
  });
});

describe('failure safety', () => {
  it.each([
    [
      'a failed summary call',
      (async () => {
        throw new Error('529 overloaded');
      }) as Summarizer,
      /529 overloaded/,
    ],
    ['an empty summary', (async () => '   ') as Summarizer, /empty/],
    ['a summary without its sections', (async () => '## Goal\nsomething') as Summarizer, /lacks the sections "Constraints and preferences"/],
  ])('%s: no compaction entry, nothing lost, a side record and compaction_end ok: false', async (_name, summarize, why) => {
    const store = longSession(6, 1500);
    const entriesBefore = store.entries().length;
    const projectedBefore = projectMessages(store.activePath());
    const { out, events } = await compact(store, config(summarize, 16_384, { keepRecentTokens: 1500 }));
    expect(out.ok).toBe(false);
    expect(store.entries().some((e) => e.type === 'compaction')).toBe(false);
    expect(projectMessages(store.activePath())).toEqual(projectedBefore);
    const side = store.entries().slice(entriesBefore);
    expect(side).toHaveLength(1);
    expect(side[0]).toMatchObject({ type: 'compaction_failed', reason: 'manual', targetId: store.leafId });
    expect((side[0] as CompactionFailedEntry).error).toMatch(why);
    expect(ofType(events, 'compaction_end')[0]).toMatchObject({ ok: false, entryId: null, tokensAfter: null, error: expect.stringMatching(why) });
  });

  it('appends made while the summary is being written are not lost', async () => {
    const store = longSession(6, 1500);
    let added = '';
    const slow: Summarizer = async (req) => {
      added = store.appendMessage(userMessage('FACT: sent while compacting')).id;
      return quotingSummarizer()(req);
    };
    const { out } = await compact(store, config(slow, 16_384, { keepRecentTokens: 1500 }));
    expect(out.ok).toBe(true);
    const path = store.activePath();
    expect(path.map((e) => e.id)).toContain(added);
    expect(projectMessages(path).map((m) => textOf(m.content))).toContain('FACT: sent while compacting');
  });
});

describe('in the loop', () => {
  const work = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `step ${i} ${'w'.repeat(8000)}`, toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] }));

  it('the threshold check runs before every request inside a run, not only at its end', async () => {
    const cwd = tempDir();
    (await import('node:fs')).writeFileSync(`${cwd}/notes.md`, 'notes\n');
    const { result, events, model } = await scriptedRun({
      cwd,
      turns: [...work(5), { text: 'finished' }],
      compaction: compactionFor(quotingSummarizer(), 8192, { reserveTokens: 2000, keepRecentTokens: 1500 }),
    });
    expect(result.stopReason).toBe('completed');
    const ends = ofType(events, 'compaction_end');
    expect(ends.length).toBeGreaterThan(0);
    expect(ends.every((e) => e.ok && e.reason === 'threshold')).toBe(true);
    // It happened between two turns of the same run, and the next request started with the summary.
    const at = events.findIndex((e) => e.type === 'compaction_end');
    expect(events.slice(at).some((e) => e.type === 'turn_start')).toBe(true);
    const after = model.requests.find((r) => textOf(r.messages[0].content).includes('<summary>'));
    expect(after).toBeDefined();
    expectValidRequest(after!.messages);
    for (const r of model.requests) expect(estimateRequestTokens(r.messages, { systemPrompt: r.systemPrompt, tools: r.tools })).toBeLessThan(8192);
  });

  it('overflow → compact → the turn starts over once → success; the rejected request never enters the history', async () => {
    const store = longSession(6, 1500);
    const { result, events, model } = await scriptedRun({
      store,
      turns: [{ error: { kind: 'context_overflow', message: 'prompt is too long: 300000 tokens > 200000 maximum' } }, { text: 'answered after compacting' }],
      compaction: compactionFor(quotingSummarizer(), 128_000, { keepRecentTokens: 1500 }),
    });
    expect(result.stopReason).toBe('completed');
    expect(ofType(events, 'compaction_end')).toEqual([expect.objectContaining({ reason: 'overflow', ok: true })]);
    expect(ofType(events, 'retry')).toEqual([expect.objectContaining({ kind: 'context_overflow', turn: 1 })]);
    expect(ofType(events, 'turn_start').map((e) => e.turn)).toEqual([1, 1]);
    expect(textOf(model.requests[1].messages[0].content)).toContain('<summary>');
    const assistants = store.activePath().filter((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.stopReason === 'error');
    expect(assistants).toEqual([]); // the overflow response was not appended
  });

  it('overflow after overflow keeps less each time, then ends with an error that names the message too big', async () => {
    const store = longSession(6, 1500);
    const overflow = { error: { kind: 'context_overflow' as const, message: 'prompt is too long' } };
    const { result } = await scriptedRun({ store, turns: Array.from({ length: 10 }, () => overflow), compaction: compactionFor(quotingSummarizer(), 128_000, { keepRecentTokens: 1500 }) });
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatchObject({ kind: 'context_overflow', message: expect.stringMatching(/the current turn does not fit the model's window \(128000 tokens\).*its largest message is entry [0-9a-f]{8} \(\w+, about \d+ tokens\)/) });
    const compactions = store.entries().filter((e): e is CompactionEntry => e.type === 'compaction');
    expect(compactions.length).toBeGreaterThan(1);
  });

  it('compaction off: the overflow path does not compact, and the error says compaction is off', async () => {
    const store = longSession(6, 1500);
    const summarize: Summarizer = async () => {
      throw new Error('must not be called');
    };
    const { result, events } = await scriptedRun({
      store,
      turns: [{ error: { kind: 'context_overflow', message: 'prompt is too long' } }],
      compaction: compactionFor(summarize, 4096, { enabled: false }),
    });
    expect(result.stopReason).toBe('error');
    expect(result.error?.message).toMatch(/compaction is off: --no-compact or compaction\.enabled: false/);
    expect(ofType(events, 'compaction_start')).toEqual([]);
    expect(store.entries().some((e) => e.type === 'compaction' || e.type === 'compaction_failed')).toBe(false);
  });

  it('a failed threshold compaction is recorded once; the run goes on while it still fits', async () => {
    const cwd = tempDir();
    (await import('node:fs')).writeFileSync(`${cwd}/notes.md`, 'notes\n');
    let calls = 0;
    const failing: Summarizer = async () => {
      calls++;
      return '';
    };
    const { result, store } = await scriptedRun({ cwd, turns: [...work(4), { text: 'finished' }], compaction: compactionFor(failing, 16_384, { reserveTokens: 12_000, keepRecentTokens: 1500 }) });
    expect(result.stopReason).toBe('completed');
    expect(calls).toBe(2); // the first answer and the one retry with a format reminder
    expect(store.entries().filter((e) => e.type === 'compaction_failed')).toHaveLength(1);
  });

  it('a failed compaction when the context no longer fits: the run stops before the request, with an error that names both', async () => {
    const store = longSession(6, 1500);
    const before = store.entries().length;
    const { result, model } = await scriptedRun({ store, turns: [{ text: 'never asked' }], compaction: compactionFor(async () => '', 4096, { keepRecentTokens: 1000 }) });
    expect(result.stopReason).toBe('error');
    expect(result.error?.message).toMatch(/is larger than the model's window \(4096\), and compacting it failed: the summary came back empty/);
    expect(model.requests).toEqual([]);
    expect(
      store
        .entries()
        .slice(before)
        .map((e) => e.type),
    ).toEqual(expect.arrayContaining(['compaction_failed']));
    expect(store.entries().some((e) => e.type === 'compaction')).toBe(false);
  });

  it('overflow, then the compaction fails: the error says it tried and why it failed', async () => {
    const store = longSession(6, 1500);
    const { result, events } = await scriptedRun({
      store,
      turns: [{ error: { kind: 'context_overflow', message: 'prompt is too long' } }],
      compaction: compactionFor(
        async () => {
          throw new Error('summarizer unreachable');
        },
        128_000,
        { keepRecentTokens: 1500 },
      ),
    });
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatchObject({ kind: 'context_overflow', message: expect.stringMatching(/tried to compact the conversation and retry, but the compaction failed: .*summarizer unreachable/) });
    expect(ofType(events, 'compaction_end')).toEqual([expect.objectContaining({ reason: 'overflow', ok: false })]);
    expect(store.entries().filter((e) => e.type === 'compaction_failed')).toEqual([expect.objectContaining({ reason: 'overflow', error: expect.stringContaining('summarizer unreachable') })]);
  });
});

describe('file lists, undo and branch summaries', () => {
  it('files read and modified are tracked from tool calls, normalized, and carried across two compactions', async () => {
    const store = SessionStore.inMemory({ cwd: '/w' });
    store.appendMessage(userMessage('write it down'));
    store.appendMessage(assistant('writing', [call('w1', 'write_note', { path: './out/../out/notes.md', text: 'x' })]));
    store.appendMessage(result('w1', 'write_note', 'Wrote 1 bytes', { path: 'out/notes.md' }));
    store.appendMessage(assistant('written'));
    longSession(4, 1500, store);
    const cfg = config(quotingSummarizer(), 16_384, { keepRecentTokens: 500 });
    const first = await compact(store, cfg);
    if (!first.out.ok) throw new Error(first.out.error);
    // The last turn (file3.md) is kept as it is: only the summarized part's files are listed.
    expect(first.out.entry.details).toEqual({ readFiles: ['file0.md', 'file1.md', 'file2.md'], modifiedFiles: ['out/notes.md'] });
    expect(first.out.entry.summary).toContain(`${FILES_HEADING}\n\nRead:\n- file0.md`);
    longSession(3, 1500, store, 100);
    const second = await compact(store, cfg);
    if (!second.out.ok) throw new Error(second.out.error);
    expect(second.out.entry.details!.readFiles).toEqual(expect.arrayContaining(['file0.md', 'file3.md']));
    expect(second.out.entry.details!.modifiedFiles).toEqual(['out/notes.md']);
    expect(second.out.entry.summary.split(FILES_HEADING)).toHaveLength(2); // one file section, not one per compaction
    expect(ofType(second.events, 'compaction_end')[0].modifiedFiles).toEqual(['out/notes.md']);
  });

  it('uncompact moves the leaf back before the compaction; the next request sees the originals', async () => {
    const store = longSession(6, 1500);
    const { out } = await compact(store, config(quotingSummarizer(), 16_384, { keepRecentTokens: 1500 }));
    if (!out.ok) throw new Error(out.error);
    const undone = uncompact(store);
    expect(undone).toEqual({ compactionId: out.entry.id, leafId: out.entry.parentId });
    expect(projectMessages(store.activePath()).some((m) => textOf(m.content).includes('<summary>'))).toBe(false);
    expect(store.get(out.entry.id)).toBeDefined();
    expect(uncompact(store)).toBeUndefined();
  });

  it('a branch summary: the left branch summarized on the new one; a failed one moves nothing and leaves a side record', async () => {
    const store = longSession(3, 300);
    const fork = store.activePath()[3].id; // turn 0's final answer
    const oldLeaf = store.leafId!;
    const failed = await summarizeBranch({ store, config: config(async () => ''), targetId: fork, cwd: '/w', signal: new AbortController().signal });
    expect(failed).toEqual({ ok: false, error: 'the summary came back empty (also after a retry with a format reminder)' });
    expect(store.leafId).toBe(oldLeaf);
    expect(store.entries().at(-1)).toMatchObject({ type: 'compaction_failed', reason: 'branch', targetId: oldLeaf });

    const requests: RecordedSummaryRequest[] = [];
    const ok = await summarizeBranch({ store, config: config(quotingSummarizer(requests)), targetId: fork, cwd: '/w', signal: new AbortController().signal });
    expect(ok).toMatchObject({ ok: true, summarizedEntries: 8 });
    expect(requests[0].prompt).toContain('FACT: turn 2 constraint');
    expect(requests[0].prompt).not.toContain('FACT: turn 0 constraint'); // the common part is not the left branch
    const path = store.activePath();
    expect(path.at(-1)).toMatchObject({ type: 'branch_summary', parentId: fork, fromId: oldLeaf, details: { readFiles: ['file1.md', 'file2.md'], modifiedFiles: [] } });
    const projected = projectMessages(path);
    expect(textOf(projected.at(-1)!.content)).toContain('FACT: turn 1 constraint');
    expectValidRequest(projected);
  });

  it('tokensBefore/After, summarized ids, reason and model are recorded in the entry', async () => {
    const store = longSession(6, 1500);
    const { out } = await compact(store, config(quotingSummarizer(), 16_384, { keepRecentTokens: 1500 }));
    if (!out.ok) throw new Error(out.error);
    const e = store.get(out.entry.id) as CompactionEntry;
    expect(e).toMatchObject({ reason: 'manual', model: 'test/summarizer', tokensBefore: out.tokensBefore, tokensAfter: out.tokensAfter });
    expect(e.summarizedIds!.length).toBeGreaterThan(0);
    expect(estimateTextTokens(e.summary)).toBeLessThan(out.tokensBefore);
  });
});
