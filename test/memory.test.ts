// The memory-loss harness: facts planted in a long session, compacted round after round. With a
// summarizer that quotes every fact, nothing may be lost (serialization, the incremental update
// and the projection drop nothing); with one that forgets, the report must say what was lost,
// while file paths survive through the structured lists. Then `mini-agent eval memory` through
// the real CLI against a local OpenAI-compatible server that plays the summarizer.
import { describe, expect, it } from 'vitest';
import type { Summarizer } from '../src/agent/compactor.js';
import { factPattern, PLANTED_FACTS, runMemoryProbe, type FactId, type MemoryReport } from '../src/app/memory-probe.js';
import { compactionSettings } from '../src/session/compaction-plan.js';
import { SUMMARY_SECTIONS, TURN_SECTIONS } from '../src/session/summary-prompts.js';
import { quotingSummarizer, wholeSummary, type RecordedSummaryRequest } from './support/compaction.js';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir, writeScript } from './support/helpers.js';
import { sse, servePerTest, type RecordedRequest } from './support/http-server.js';

const PATHS: FactId[] = ['read-file', 'modified-file'];
const needles = (ids: readonly FactId[]) => PLANTED_FACTS.filter((f) => ids.includes(f.id)).map((f) => f.needle);

/** A summarizer that quotes only the facts `ids` (whatever else it read). */
const quoting = (ids: readonly FactId[], requests: RecordedSummaryRequest[] = []) => quotingSummarizer(requests, factPattern(PLANTED_FACTS.filter((f) => ids.includes(f.id))));

/** Well-formed summaries that hold no fact at all. */
const factless: Summarizer = async ({ prompt }) => wholeSummary('(nothing specific)', prompt.includes('<current-task>') ? TURN_SECTIONS : SUMMARY_SECTIONS);

function expectEveryRoundCompacted(report: MemoryReport, rounds: number): void {
  expect(report.error).toBeUndefined();
  expect(report.rounds.map((r) => r.round)).toEqual(Array.from({ length: rounds }, (_, i) => i + 1));
  for (const r of report.rounds) {
    // The probe tests something only if the facts left the context as they were.
    expect(r.factsCompacted, `round ${r.round}`).toBe(true);
    expect(r.summarizedEntries).toBeGreaterThan(0);
    expect(r.tokensAfter).toBeLessThan(r.tokensBefore);
  }
}

describe('the memory probe', () => {
  it.each([4096, 8192, 32_768])('a summarizer that quotes every fact keeps all of them in every round, and the next request carries them (window %i)', async (window) => {
    const requests: RecordedSummaryRequest[] = [];
    const report = await runMemoryProbe({
      summarize: quoting(
        PLANTED_FACTS.map((f) => f.id),
        requests,
      ),
      settings: compactionSettings(window),
      rounds: 4,
    });
    expectEveryRoundCompacted(report, 4);
    for (const r of report.rounds) {
      for (const f of r.facts) expect(f, `round ${r.round}, ${f.id}`).toEqual({ id: f.id, inSummary: true, inFileLists: PATHS.includes(f.id), inNextRequest: true, kept: true });
      expect(r).toMatchObject({ kept: 5, planted: 5, score: 1, lost: [] });
    }
    expect(report).toMatchObject({ kept: 5, planted: 5, score: 1, lost: [] });
    // After the first round the facts reach the summarizer only through the previous summary
    // (an update, or the earlier summary of a merge): the incremental path is what kept them.
    const carried = requests.filter((r) => /<previous-summary>|<earlier-summary>/.test(r.prompt));
    expect(carried.length).toBeGreaterThanOrEqual(3);
    for (const r of carried) for (const n of needles(PLANTED_FACTS.map((f) => f.id))) expect(r.prompt).toContain(n);
  });

  it('the facts also survive map-reduce: a kept part this large makes each round more than one request can hold', async () => {
    const requests: RecordedSummaryRequest[] = [];
    const report = await runMemoryProbe({
      summarize: quoting(
        PLANTED_FACTS.map((f) => f.id),
        requests,
      ),
      settings: compactionSettings(4096, { keepRecentTokens: 3000 }),
      rounds: 3,
    });
    expectEveryRoundCompacted(report, 3);
    expect(report.rounds.map((r) => r.score)).toEqual([1, 1, 1]);
    expect(requests.some((r) => r.prompt.includes('<part n="2">'))).toBe(true);
  });

  it('a forgetful summarizer: the report names the lost facts and the score drops, but file paths survive through the lists', async () => {
    const report = await runMemoryProbe({ summarize: quoting(['decision', 'read-file']), settings: compactionSettings(8192), rounds: 3 });
    expectEveryRoundCompacted(report, 3);
    for (const r of report.rounds) {
      expect(r).toMatchObject({ kept: 3, planted: 5, score: 0.6, lost: ['error', 'constraint'] });
      const by = Object.fromEntries(r.facts.map((f) => [f.id, f]));
      expect(by['read-file']).toMatchObject({ inSummary: true, inFileLists: true, kept: true });
      // Not in what the summarizer wrote, but in the lists (and so in the next request).
      expect(by['modified-file']).toEqual({ id: 'modified-file', inSummary: false, inFileLists: true, inNextRequest: true, kept: true });
      expect(by.error).toEqual({ id: 'error', inSummary: false, inFileLists: false, inNextRequest: false, kept: false });
    }
    expect(report).toMatchObject({ kept: 3, score: 0.6, lost: ['error', 'constraint'] });
  });

  it('file paths survive a summarizer that returns the required sections with no facts at all', async () => {
    const report = await runMemoryProbe({ summarize: factless, settings: compactionSettings(8192), rounds: 3 });
    expectEveryRoundCompacted(report, 3);
    for (const r of report.rounds) {
      expect(r.lost).toEqual(['decision', 'error', 'constraint']);
      for (const f of r.facts.filter((x) => PATHS.includes(x.id))) expect(f).toMatchObject({ inSummary: false, inFileLists: true, inNextRequest: true, kept: true });
    }
    expect(report).toMatchObject({ kept: 2, planted: 5, score: 0.4 });
  });

  // One round: the quoting summarizer would not find a wrapped message again in the next one.
  it('a summary that wraps a long error message over lines still keeps it; a paraphrase does not', async () => {
    const wrap =
      (paraphrase: boolean): Summarizer =>
      async (req) => {
        const text = await quoting(PLANTED_FACTS.map((f) => f.id))(req);
        return text.replace('but found', paraphrase ? 'yet found' : 'but\n  found');
      };
    expect((await runMemoryProbe({ summarize: wrap(false), settings: compactionSettings(8192), rounds: 1 })).score).toBe(1);
    expect((await runMemoryProbe({ summarize: wrap(true), settings: compactionSettings(8192), rounds: 1 })).lost).toEqual(['error']);
  });

  it('a failed compaction stops the probe: the rounds so far, and the error with its round', async () => {
    let calls = 0;
    const quote = quoting(PLANTED_FACTS.map((f) => f.id));
    const flaky: Summarizer = async (req) => {
      if (++calls > 1) throw new Error('503 from the provider');
      return quote(req);
    };
    const report = await runMemoryProbe({ summarize: flaky, settings: compactionSettings(16_384), rounds: 3 });
    expect(report.rounds).toHaveLength(1);
    expect(report).toMatchObject({ score: 1, error: { round: 2, message: '503 from the provider' } });
    const none = await runMemoryProbe({ summarize: async () => 'no sections', settings: compactionSettings(8192) });
    expect(none).toMatchObject({ rounds: [], score: null, error: { round: 1, message: expect.stringContaining('lacks the sections') } });
  });
});

// ---- the CLI against a local OpenAI-compatible summarizer ----

const serve = servePerTest();
const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const usage = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } };

/** A server whose every answer is `summarize`'s summary of the request's prompt. */
function summarizerServer(summarize: Summarizer) {
  return serve(async (req: RecordedRequest) => {
    const user = req.body.messages.find((m: { role: string }) => m.role === 'user');
    const prompt = typeof user.content === 'string' ? user.content : user.content.map((c: { text: string }) => c.text).join('');
    const text = await summarize({ systemPrompt: '', prompt, signal: new AbortController().signal });
    return { body: sse([chunk({ role: 'assistant', content: text }), chunk({}, 'stop'), usage], { done: true }) };
  });
}

const modelFlags = (url: string) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`, '--model', 'test-model', '--context-window', '8192'];

describe('mini-agent eval memory', () => {
  it('a model that keeps every fact scores 100%; --json gives the whole report', async () => {
    const server = await summarizerServer(quoting(PLANTED_FACTS.map((f) => f.id)));
    const cwd = tempDir();
    const r = await cliInProcess(['eval', 'memory', ...modelFlags(server.url)], { cwd });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('memory eval: 5 facts planted, 3 rounds of compaction; summarizer openai-compatible/test-model, window 8192 tokens');
    expect(r.stdout).toMatch(/^round 1: 5\/5 kept \(100%\), \d+ entries summarized, \d+ → \d+ tokens$/m);
    expect(r.stdout).toMatch(/^round 3: 5\/5 kept \(100%\)/m);
    expect(r.stdout).toMatch(/^retention: 5\/5 facts kept \(100%\) after 3 rounds$/m);
    expect(r.stdout).not.toContain('lost');
    const requests = server.requests.length;
    expect(requests).toBeGreaterThanOrEqual(3);
    expect(server.requests[0].body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('You summarize') });

    const j = await cliInProcess(['eval', 'memory', ...modelFlags(server.url), '--rounds', '2', '--json'], { cwd });
    expect(j.code).toBe(0);
    const lines = j.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]);
    expect(report).toMatchObject({ eval: 'memory', model: 'openai-compatible/test-model', contextWindow: 8192, kept: 5, planted: 5, score: 1, lost: [] });
    expect(report.facts).toEqual(PLANTED_FACTS);
    expect(report.rounds).toHaveLength(2);
    expect(report.rounds[1]).toMatchObject({ round: 2, factsCompacted: true, kept: 5, score: 1, lost: [] });
    expect(report.rounds[1].facts[0]).toEqual({ id: 'read-file', inSummary: true, inFileLists: true, inNextRequest: true, kept: true });
    expect(report.error).toBeUndefined();
  });

  it('a model that keeps no fact scores below 100%, names the lost facts, and still exits 0; the paths are kept by the lists', async () => {
    const server = await summarizerServer(factless);
    const r = await cliInProcess(['eval', 'memory', ...modelFlags(server.url)], { cwd: tempDir() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^round 1: 2\/5 kept \(40%\), .*; lost: decision, error, constraint$/m);
    expect(r.stdout).toMatch(/^retention: 2\/5 facts kept \(40%\) after 3 rounds$/m);
    expect(r.stdout).toContain('lost in round 1: error (an exact error message): LedgerMismatchError: expected balance 1042.17 but found 1039.90 for account ACC-7731');
    expect(r.stdout).toContain('lost in round 1: constraint (a user constraint): vendor/payments-sdk');
    expect(r.stdout).not.toMatch(/lost in round \d+: (read-file|modified-file)/);
  });

  it('a scripted summarizer (--script) works the same way', async () => {
    const cwd = tempDir();
    const text = wholeSummary('nothing specific', [...SUMMARY_SECTIONS, ...TURN_SECTIONS]);
    const script = writeScript(
      cwd,
      Array.from({ length: 30 }, () => ({ text })),
    );
    const r = await cliInProcess(['eval', 'memory', '--script', script, '--context-window', '16384', '--rounds', '1', '--json'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ model: 'scripted/script', kept: 2, score: 0.4, lost: ['decision', 'error', 'constraint'] });
  });

  it('a model that fails: exit 1 with the round and the reason; the --json report says so too', async () => {
    const server = await serve([{ status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { message: 'bad model', type: 'invalid_request_error' } }) }]);
    const r = await cliInProcess(['eval', 'memory', ...modelFlags(server.url), '--json'], { cwd: tempDir() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^mini-agent: the memory eval stopped in round 1: the compaction failed: the summary request failed \(bad_request\)/);
    expect(JSON.parse(r.stdout)).toMatchObject({ rounds: [], score: null, error: { round: 1 } });
  });

  it.each([
    [['eval', 'memory', '--rounds', '0'], /--rounds must be a whole number from 1 to 20, got "0"/],
    [['eval', 'memory', '--bogus'], /Unknown option '--bogus'/],
    [['eval', 'recall'], /usage: mini-agent eval memory/],
    [['eval'], /usage: mini-agent eval memory/],
    [['eval', 'memory', '--no-session'], /takes no session flags/],
    [['--rounds', '2', 'hello'], /--rounds goes with the eval command/],
  ])('usage errors exit 2: %j', async (args, message) => {
    const r = await cliInProcess(args, { cwd: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
