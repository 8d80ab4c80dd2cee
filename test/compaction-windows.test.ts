// Compaction that never dead-ends (issue 23 §4): an overflow compacts again keeping half as much,
// down to the current turn, and names the message when even that does not fit; a window the
// provider states is used from then on; a summary never leaves more tokens than it found; a
// summary without its headings gets one retry, and is accepted only when the only other outcome
// is to stop. Scripted model and injected summarizers, through the runner and compactSession.
import { describe, expect, it } from 'vitest';
import { compactSession, type Summarizer } from '../src/agent/compactor.js';
import type { AgentEvent } from '../src/core/events.js';
import { emptyUsage, textOf, userMessage, type AssistantMessage } from '../src/core/types.js';
import type { CompactionEntry, CompactionFailedEntry } from '../src/session/entries.js';
import { SessionStore } from '../src/session/store.js';
import { compactionFor, quotingSummarizer, wholeSummary, type RecordedSummaryRequest } from './support/compaction.js';
import { scriptedRun } from './support/helpers.js';

const answer = (text: string): AssistantMessage => ({ role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', usage: emptyUsage() });

/** `turns` question/answer exchanges of about `size` characters each side. */
function chat(turns: number, size: number, store = SessionStore.inMemory({ cwd: '/w' })): SessionStore {
  for (let t = 0; t < turns; t++) {
    store.appendMessage(userMessage(`question ${t} FACT: q${t} ${'q'.repeat(size)}`));
    store.appendMessage(answer(`answer ${t} ${'a'.repeat(size)}`));
  }
  return store;
}

const compactions = (store: SessionStore) => store.entries().filter((e): e is CompactionEntry => e.type === 'compaction');
const failures = (store: SessionStore) => store.entries().filter((e): e is CompactionFailedEntry => e.type === 'compaction_failed');
const overflow = (message: string) => ({ error: { kind: 'context_overflow' as const, message, status: 400 } });

async function compact(store: SessionStore, summarize: Summarizer, window: number, set: { keepRecentTokens?: number } = {}) {
  const events: AgentEvent[] = [];
  const out = await compactSession({
    store,
    config: compactionFor(summarize, window, set),
    reason: 'manual',
    cwd: '/w',
    signal: new AbortController().signal,
    emit: (e) => void events.push(e as AgentEvent),
  });
  return { out, events };
}

describe('after an overflow, keep less', () => {
  it('an overflow right after a compaction compacts again keeping half as much, with the window the provider stated, and the run succeeds', async () => {
    const store = chat(8, 2000);
    const requests: RecordedSummaryRequest[] = [];
    const { result, events } = await scriptedRun({
      store,
      turns: [overflow('prompt is too long: 30000 tokens > 20000 maximum'), overflow('prompt is too long: 21000 tokens > 20000 maximum'), { text: 'fits now' }],
      // Assumed 128k; everything fits in the part kept as configured (keepRecentTokens 20,000).
      compaction: compactionFor(quotingSummarizer(requests), 128_000),
    });
    expect(result.stopReason, JSON.stringify(result.error)).toBe('completed');
    const done = compactions(store);
    expect(done.map((c) => c.reason)).toEqual(['overflow', 'overflow']);
    // The second kept less than the first: fewer tokens after, more entries summarized overall.
    expect(done[1].tokensAfter!).toBeLessThan(done[0].tokensAfter!);
    expect(failures(store)).toEqual([]);
    const warnings = events.filter((e): e is Extract<AgentEvent, { type: 'warning' }> => e.type === 'warning').map((e) => e.message);
    expect(warnings).toContainEqual(expect.stringContaining("the provider says the model's context window is 20000 tokens (mini-agent assumed 128000)"));
    // The summarizer worked within the stated window: each request fits in 20,000 tokens.
    expect(requests.length).toBeGreaterThan(0);
  });

  it('"everything fits in the part kept" is not the end when the provider said it overflowed', async () => {
    const store = chat(3, 400);
    const { result } = await scriptedRun({ store, turns: [overflow('prompt is too long'), { text: 'ok' }], compaction: compactionFor(quotingSummarizer(), 128_000) });
    expect(result.stopReason, JSON.stringify(result.error)).toBe('completed');
    const [c] = compactions(store);
    expect(c).toMatchObject({ reason: 'overflow' });
    expect(c.warnings).toEqual([expect.stringMatching(/^kept only the newest \d+ tokens as they are/)]);
  });

  it('when even the current turn does not fit, the run stops and says which message is too big', async () => {
    const store = chat(2, 300);
    const huge = `please read this: ${'z'.repeat(60_000)}`;
    const { result } = await scriptedRun({ store, prompt: huge, turns: Array.from({ length: 8 }, () => overflow('prompt is too long: 16000 tokens > 8192 maximum')), compaction: compactionFor(quotingSummarizer(), 128_000) });
    expect(result.stopReason).toBe('error');
    const prompt = store.entries().find((e) => e.type === 'message' && e.message.role === 'user' && textOf(e.message.content) === huge)!;
    expect(result.error?.message).toMatch(
      new RegExp(`the current turn does not fit the model's window \\(8192 tokens\\) even with everything before it summarized .*its largest message is entry ${prompt.id} \\(user, about 1[45]\\d{3} tokens\\)`),
    );
  });

  it('when the provider counted the messages within its window, the error says the reserved output is what does not fit', async () => {
    const store = chat(1, 100);
    // vLLM counts the completion the request reserves (max_tokens) against the window.
    const vllm = overflow("This model's maximum context length is 8192 tokens. However, you requested 8244 tokens (52 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.");
    const { result } = await scriptedRun({ store, turns: Array.from({ length: 8 }, () => vllm), compaction: compactionFor(quotingSummarizer(), 128_000) });
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatchObject({ contextWindow: 8192, requestTokens: 52 });
    expect(result.error?.message).toMatch(/the provider counted 52 tokens of messages, within its window of 8192: the output the request reserves \(max_tokens\) is what does not fit, so lower the model's maxOutputTokens/);
  });
});

describe('never backwards', () => {
  const huge = wholeSummary('x '.repeat(4000));

  it('a summary larger than its input is asked again, shorter; the record says so', async () => {
    const store = chat(6, 800);
    const prompts: string[] = [];
    const summarize: Summarizer = async ({ prompt }) => {
      prompts.push(prompt);
      return /Keep the whole summary under \d+ words/.test(prompt) ? wholeSummary('short') : huge;
    };
    const { out, events } = await compact(store, summarize, 128_000, { keepRecentTokens: 500 });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.tokensAfter).toBeLessThan(out.tokensBefore);
    expect(out.entry.warnings).toEqual([expect.stringMatching(/^the first summary would have left \d+ tokens, not fewer than the \d+ before; it was asked again, shorter$/)]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'warning', message: expect.stringContaining('asked again, shorter') }));
    expect(prompts).toHaveLength(2);
  });

  it('the record compares like with like: with a provider count below the estimate, fewer tokens after than before', async () => {
    const store = chat(6, 800);
    // The provider counted fewer tokens than mini-agent estimates (an estimate may be up to 1.5× a tokenizer's count).
    store.appendMessage(userMessage('one more'));
    store.appendMessage({ ...answer('ok'), usage: { ...emptyUsage(), input: 600, output: 10 } });
    const { out } = await compact(store, quotingSummarizer(), 128_000, { keepRecentTokens: 500 });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.tokensBefore).toBe(610);
    expect(out.entry.tokensAfter).toBe(out.tokensAfter);
    expect(out.tokensAfter).toBeLessThan(out.tokensBefore);
  });

  it('one that stays larger is refused: nothing compacted, the reason recorded', async () => {
    const store = chat(6, 800);
    const { out } = await compact(store, async () => huge, 128_000, { keepRecentTokens: 500 });
    expect(out.ok).toBe(false);
    expect(compactions(store)).toEqual([]);
    expect(failures(store)).toEqual([expect.objectContaining({ reason: 'manual', error: expect.stringMatching(/^refused: the summary would leave \d+ tokens, not fewer than the \d+ before \(also when asked for one under \d+ words\)$/) })]);
  });
});

describe('headings', () => {
  it('a summary without its headings is asked for once more, with a format reminder', async () => {
    const store = chat(6, 800);
    const prompts: string[] = [];
    const summarize: Summarizer = async ({ prompt }) => {
      prompts.push(prompt);
      return prompts.length === 1 ? 'Goal: all of it. Progress: some.' : wholeSummary('fixed');
    };
    const { out } = await compact(store, summarize, 128_000, { keepRecentTokens: 500 });
    expect(out.ok).toBe(true);
    expect(prompts[1]).toContain('Your previous answer could not be used: the summary lacks the sections');
    expect(prompts[1]).toContain('"## Constraints and preferences"');
  });

  it('still without them: a manual compaction fails; when the context no longer fits, the summary is accepted with a warning', async () => {
    const bare: Summarizer = async () => 'Everything so far: the user wants the tests fixed; FACT: q0.';
    const manual = chat(6, 800);
    const { out } = await compact(manual, bare, 128_000, { keepRecentTokens: 500 });
    expect(out).toMatchObject({ ok: false, error: expect.stringMatching(/the summary lacks the sections .* \(also after a retry with a format reminder\)$/) });

    const full = chat(6, 800);
    const { result } = await scriptedRun({ store: full, turns: [overflow('prompt is too long'), { text: 'ok' }], compaction: compactionFor(bare, 128_000, { keepRecentTokens: 500 }) });
    expect(result.stopReason, JSON.stringify(result.error)).toBe('completed');
    const [c] = compactions(full);
    expect(c.summary).toContain('FACT: q0');
    expect(c.warnings).toContainEqual(expect.stringMatching(/^accepted a summary that lacks headings \(the summary lacks the sections .*\): the context no longer fits the window/));
  });
});
