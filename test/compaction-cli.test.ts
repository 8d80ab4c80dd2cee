// Compaction through the front ends, on the scripted model (which also writes the summaries, as a
// real model would): `mini-agent compact` and `uncompact`, the in-run notice, the overflow path
// with and without --no-compact, --context-window, tree marks, --summarize-left, RPC and the SDK.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import type { AgentEvent } from '../src/core/events.js';
import { textOf } from '../src/core/types.js';
import type { ScriptTurn } from '../src/model/script.js';
import type { BranchSummaryEntry, CompactionEntry } from '../src/session/entries.js';
import { projectMessages } from '../src/session/projector.js';
import { SessionStore } from '../src/session/store.js';
import { summaryTurn } from './support/compaction.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, runCli, tempDir, writeScript } from './support/helpers.js';
import { RpcClient } from './support/rpc-client.js';
import { agentRun } from './support/sessions.js';

/** A scripted summary with every section a summary can be asked for (of a conversation, or of the current task). */
const big = (label: string) => `${label} ${'lorem ipsum dolor sit amet '.repeat(120)}`;

/** A session file with `n` user/assistant exchanges, written by real runs (in process: createAgent, what the CLI's print mode runs). */
async function sessionWith(n: number, cwd: string, home: string): Promise<string> {
  const file = join(cwd, 's.jsonl');
  for (let i = 0; i < n; i++) {
    const r = await agentRun([{ text: big(`answer ${i}`) }], big(`question ${i} FACT: keep ${i}`), { cwd, home, session: { file } });
    expect(r.result.stopReason, JSON.stringify(r.result.error)).toBe('completed');
  }
  return file;
}

describe('mini-agent compact / uncompact', () => {
  it('compact summarizes the older messages (the model writes the summary), tree marks it, uncompact undoes it', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const file = await sessionWith(6, cwd, home);
    const script = writeScript(cwd, [summaryTurn('FACT: the summary of questions 0 to 4')], 'summary.json');
    const r = await cliInProcess(['compact', file, '--focus', 'the questions', '--script', script, '--context-window', '16384'], { cwd, home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^compacted session [0-9a-f-]+: \d+ entries summarized, \d+ → \d+ tokens \(entry [0-9a-f]{8}\); undo with: mini-agent uncompact [0-9a-f]{8}\n$/);
    const store = SessionStore.open(file);
    const c = store.activePath().at(-1) as CompactionEntry;
    expect(c).toMatchObject({ type: 'compaction', reason: 'manual', model: 'scripted/script' });
    expect(c.summary).toContain('FACT: the summary of questions 0 to 4');
    expect(c.tokensAfter!).toBeLessThan(c.tokensBefore!);
    const tree = await cliInProcess(['tree', file], { cwd, home });
    expect(tree.stdout).toMatch(new RegExp(`\\* ${c.id} compaction +"\\[summary of ${c.summarizedIds!.length} entries, manual\\]`));

    // The next run sees the summary; uncompact puts the originals back.
    const seen = writeScript(cwd, [{ text: 'ok' }], 'after.json');
    const next = await cliInProcess(['--session', file, '--script', seen, '--json', 'go on'], { cwd, home });
    expect(parseJsonl(next.stdout).find((e) => e.type === 'turn_start')).toMatchObject({ compacted: true });
    const undo = await cliInProcess(['uncompact', file], { cwd, home });
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain(`before compaction ${c.id}; nothing was deleted`);
    const back = await cliInProcess(['--session', file, '--script', seen, '--json', 'again'], { cwd, home });
    expect(parseJsonl(back.stdout).find((e) => e.type === 'turn_start')).toMatchObject({ compacted: false });
    expect((await runCli(['uncompact', file], { cwd, home })).code).toBe(2);
  });

  it('a summary without its sections: exit 1, nothing compacted, the failed attempt shows in tree and the export', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const file = await sessionWith(5, cwd, home);
    const script = writeScript(cwd, [{ text: 'Just a sentence, no sections.' }], 'bad.json');
    const r = await runCli(['compact', file, '--script', script, '--context-window', '8192'], { cwd, home });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^mini-agent: compaction failed: the summary lacks the sections "Goal", /);
    const store = SessionStore.open(file);
    expect(store.entries().some((e) => e.type === 'compaction')).toBe(false);
    expect(store.entries().filter((e) => e.type === 'compaction_failed')).toHaveLength(1);
    expect((await cliInProcess(['tree', file], { cwd, home })).stdout).toMatch(/! compaction failed \(manual, \d+ tokens\): the summary lacks the sections/);
    expect((await cliInProcess(['export', file, '--format', 'md'], { cwd, home })).stdout).toMatch(/⚠ \*\*Compaction failed\*\* \(manual, \d+ tokens\)/);
    const tree = JSON.parse((await cliInProcess(['tree', file, '--json'], { cwd, home })).stdout);
    expect(tree.failedCompactions).toEqual([expect.objectContaining({ reason: 'manual', targetId: store.leafId })]);
  });
});

describe('in a run', () => {
  it('a threshold compaction mid-run prints one line; --json carries the events', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(cwd, 'notes.md'), 'short notes\n');
    // Reported usage calibrates the context size: the third response says the context is near the
    // 4,096-token window, so the check before the fourth request compacts.
    const script = writeScript(
      cwd,
      [
        { text: big('one'), toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }], usage: { input: 1000, output: 100 } },
        { text: big('two'), toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }], usage: { input: 2000, output: 100 } },
        { text: big('three'), toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }], usage: { input: 3500, output: 100 } },
        summaryTurn('FACT: compacted mid-run'),
        { text: 'finished' },
      ],
      's.json',
    );
    // Only read_file: the other tools' schemas would fill much of a 4,096-token window by themselves.
    const args = ['--script', script, '--no-session', '--tools', 'read_file', '--context-window', '4096', 'work through it'];
    const text = await cliInProcess(args, { cwd, home });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(/^mini-agent: compacted the conversation \(threshold\): \d+ entries summarized, \d+ → \d+ tokens, 1 files tracked; the originals stay in the session$/m);
    const json = await cliInProcess([...args.slice(0, -1), '--json', 'work through it'], { cwd, home });
    const events = parseJsonl(json.stdout);
    const end = events.find((e) => e.type === 'compaction_end') as Extract<AgentEvent, { type: 'compaction_end' }>;
    expect(end).toMatchObject({ reason: 'threshold', ok: true, readFiles: ['notes.md'], modifiedFiles: [] });
    expect(events.at(-1)).toMatchObject({ type: 'run_settled', stopReason: 'completed' });
  });

  it('overflow: compact and retry once; with --no-compact, an error that says compaction is off', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const file = await sessionWith(6, cwd, home);
    const overflow: ScriptTurn = { error: { kind: 'context_overflow', message: 'prompt is too long: 250000 tokens > 200000 maximum', status: 400 } };
    const off = writeScript(cwd, [overflow], 'off.json');
    const r = await cliInProcess(['--session', file, '--script', off, '--no-compact', 'more'], { cwd, home });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/context_overflow error: .*compaction is off: --no-compact or compaction\.enabled: false/);
    expect(
      SessionStore.open(file)
        .entries()
        .some((e) => e.type === 'compaction' || e.type === 'compaction_failed'),
    ).toBe(false);

    const on = writeScript(cwd, [overflow, summaryTurn('FACT: recovered'), { text: 'fits now' }], 'on.json');
    const ok = await cliInProcess(['--session', file, '--script', on, '--context-window', '16384', 'more'], { cwd, home });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('fits now');
    expect(ok.stderr).toMatch(/compacted the conversation \(overflow\)/);
  });

  it('config: compaction.enabled false is honoured; --context-window is validated and shown with its source', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ compaction: { enabled: false, keepRecentTokens: 3000 } }));
    const show = await cliInProcess(['--show-config', '--json', '--context-window', '16384'], { cwd, home });
    const cfg = JSON.parse(show.stdout);
    expect(cfg.contextWindow).toEqual({ value: 16384, source: 'flag --context-window' });
    expect(cfg['compaction.enabled']).toEqual({ value: false, source: `user config ${join(home, 'config.json')}` });
    expect(cfg['compaction.keepRecentTokens'].value).toBe(3000);
    expect(cfg['compaction.reserveTokens']).toEqual({ value: 4096, source: 'default (25% of the window, at most 16,384)' });
    const overflow = writeScript(cwd, [{ error: { kind: 'context_overflow', message: 'too long' } }], 'o.json');
    const r = await cliInProcess(['--script', overflow, '--no-session', 'x'], { cwd, home });
    expect(r.stderr).toMatch(/compaction is off/);
    expect((await cliInProcess(['--context-window', '12', '--script', overflow, 'x'], { cwd, home })).stderr).toMatch(/--context-window must be a whole number of tokens >= 1024, got "12"/);
    writeFileSync(join(home, 'config.json'), JSON.stringify({ compaction: { enabled: 'no' } }));
    expect((await cliInProcess(['--show-config'], { cwd, home })).stderr).toMatch(/"compaction\.enabled" must be true or false/);
  });
});

describe('branch summaries', () => {
  it('--branch ENTRY --summarize-left appends a summary of the branch being left on the new branch', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const file = await sessionWith(3, cwd, home);
    const store = SessionStore.open(file);
    const firstAnswer = store.activePath()[1].id;
    const oldLeaf = store.leafId!;
    const script = writeScript(cwd, [summaryTurn('FACT: questions 1 and 2 were answered on the left branch'), { text: 'on the new branch' }], 'left.json');
    const r = await cliInProcess(['--session', file, '--branch', firstAnswer, '--summarize-left', '--script', script, 'try again'], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/left the branch with a summary of 4 entries/);
    const after = SessionStore.open(file);
    const path = after.activePath();
    const summary = path.find((e) => e.type === 'branch_summary') as BranchSummaryEntry;
    expect(summary).toMatchObject({ parentId: firstAnswer, fromId: oldLeaf });
    expect(summary.summarizedIds).toHaveLength(4);
    expect(
      projectMessages(path)
        .map((m) => textOf(m.content))
        .join('\n'),
    ).toContain('FACT: questions 1 and 2 were answered on the left branch');
    // The left branch is still there, whole.
    expect(after.get(oldLeaf)).toBeDefined();
    expect((await cliInProcess(['--summarize-left', 'x'], { cwd, home })).stderr).toMatch(/--summarize-left goes with --branch ENTRY/);
  });
});

describe('RPC and SDK', () => {
  it('RPC compact: a response with the result; a failed one is an error of kind compaction_failed', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [...[...'abcdef'].map((x): ScriptTurn => ({ text: big(x) })), summaryTurn('FACT: via rpc'), { text: 'no sections here' }]);
    const client = new RpcClient(['--script', script, '--no-session', '--context-window', '16384'], { cwd });
    for (const m of ['one', 'two', 'three', 'four', 'five', 'six']) {
      await client.send({ type: 'prompt', message: big(m) });
      await client.next((l) => l.type === 'run_settled');
    }
    const ok = await client.send({ type: 'compact', focus: 'the three questions' });
    expect(ok).toMatchObject({ ok: true, command: 'compact', result: { entryId: expect.any(String), summarizedEntries: expect.any(Number) } });
    expect(client.events().find((e) => e.type === 'compaction_end')).toMatchObject({ ok: true, reason: 'manual', entryId: ok.result.entryId });
    const failed = await client.send({ type: 'compact' });
    // Right after a compaction, what is left all fits in the kept part: nothing to summarize.
    expect(failed).toMatchObject({ ok: false, error: { kind: 'compaction_failed', message: expect.stringContaining('nothing to summarize') } });
    expect(await client.end()).toMatchObject({ code: 0 });
  });

  it('SDK: agent.compact() and session.uncompact()', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const script = writeScript(cwd, [...[...'abcdef'].map((x): ScriptTurn => ({ text: big(x) })), summaryTurn('FACT: via the SDK')]);
    const agent = await createAgent({ cwd, home, env: {}, script, contextWindow: 16384 });
    for (const m of ['one', 'two', 'three', 'four', 'five', 'six']) await agent.prompt(big(m));
    const r = await agent.compact();
    expect(r).toMatchObject({ ok: true, summarizedEntries: expect.any(Number) });
    expect(textOf(agent.messages()[0].content)).toContain('FACT: via the SDK');
    agent.session.uncompact();
    expect(textOf(agent.messages()[0].content)).not.toContain('<summary>');
    const file = agent.session.file!;
    await agent.close();
    expect(readFileSync(file, 'utf8')).toContain('"type":"compaction"');
  });
});
