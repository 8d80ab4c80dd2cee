// Issue 24 §4 and §6 in a real terminal (tmux, scripted model), at 80 and 40 columns: Esc stops a
// streaming answer and a running tool as Ctrl+C does; an error is one line, wrapped, not cut; the
// status line wraps; a prompt template added after start-up is found.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { interactiveSessions, READY, sessionEntries } from './support/interactive.js';
import type { TmuxSession } from './support/tmux.js';
import { tempDir } from './support/helpers.js';
import type { ScriptTurn } from '../src/model/script.js';
import { summaryTurn } from './support/compaction.js';

const start = interactiveSessions();

const LONG = Array.from({ length: 60 }, (_, i) => `Word${i}`).join(' ');

/** Every row of the screen fits the terminal's width. */
function fits(screen: string, columns: number): void {
  for (const line of screen.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
}

describe.concurrent.each([80, 40])('keys at %i columns', (columns) => {
  it('Esc stops a streaming answer; the status line is wrapped, not cut', async (ctx) => {
    const { t } = start(ctx, [{ text: LONG, delayMs: 150 }, { text: 'the second answer' }], [], { columns, rows: 30 });
    await t.waitFor(READY);
    t.type('write a lot');
    t.keys('Enter');
    await t.waitFor(/Word2\b/);
    const began = Date.now();
    t.keys('Escape');
    const stopped = await t.waitFor(/stopped/, { timeoutMs: 5000 });
    expect(Date.now() - began).toBeLessThan(4000);
    expect(stopped).not.toContain('Word59');
    // The status line after the run: whole (the session id at its end), over more rows at 40 columns.
    const status = await t.waitFor(/scripted\/script[\s\S]*context[\s\S]*\n\s*\S*\s*\n?[\s\S]*❯/);
    expect(status).not.toMatch(/scripted\/script[^\n]*…/);
    fits(status, columns);
    // Not running any more: the next message is a new run, not a steer.
    t.type('again');
    t.keys('Enter');
    await t.waitFor(/the second answer/);
  });

  it('Esc stops a running tool; what was queued comes back to the editor', async (ctx) => {
    const { t } = start(ctx, [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 20' } }] }, { text: 'never' }], ['--yes'], { columns, rows: 30 });
    await t.waitFor(READY);
    t.type('start');
    t.keys('Enter');
    await t.waitFor(/bash sleep 20/);
    t.type('a queued steer');
    t.keys('Enter');
    await t.waitFor(/steer 1: a queued/);
    const began = Date.now();
    t.keys('Escape');
    const screen = await t.waitFor(/stopped[\s\S]*❯ a queued steer\s*$/, { timeoutMs: 8000 });
    expect(Date.now() - began).toBeLessThan(6000);
    expect(screen).not.toContain('never');
    fits(screen, columns);
  });

  it('an error is one line, wrapped to the width: its whole message, printed once', async (ctx) => {
    const message = `the server said something long about what went wrong ${LONG.slice(0, 120)} END`;
    const { t } = start(ctx, [{ error: { kind: 'unknown', message, retryable: false } }], [], { columns, rows: 30 });
    await t.waitFor(READY);
    t.type('fail please');
    t.keys('Enter');
    const screen = await t.waitFor(/END[\s\S]*❯/);
    expect(screen.match(/error/g)).toHaveLength(1);
    expect(screen).not.toContain('(unknown)');
    expect(screen).not.toMatch(/error:[^\n]*…/);
    // The message, joined back from its rows, is all there.
    const rows = screen.slice(screen.indexOf('error: ')).split('\n');
    const joined = rows
      .slice(0, rows.findIndex((r) => r.includes('END')) + 1)
      .map((r) => r.trim())
      .join(' ');
    expect(joined).toBe(`error: ${message}`);
    fits(screen, columns);
  });

  it('/help wraps instead of cutting: every line fits, the longest help texts are whole', async (ctx) => {
    const { t } = start(ctx, [{ text: 'unused' }], [], { columns, rows: 60 });
    await t.waitFor(READY);
    t.type('/help');
    t.keys('Enter');
    await t.waitFor(/Ctrl\+D\s+leave/);
    const help = t.history();
    fits(help, columns);
    const flat = help.replace(/\s+/g, ' ');
    expect(flat).toContain("expand or collapse the model's reasoning or a tool's output, whichever came last (printed again below)");
    expect(flat).toContain('stop the run, as Ctrl+C does (its queued messages come back to the editor)');
    expect(flat).toContain('run a shell command through the bash tool; its output joins the conversation');
  });

  it('resume replays the tool calls as they were shown', async (ctx) => {
    const { t, cwd } = start(ctx, [{ text: 'Let me look.', toolCalls: [{ name: 'bash', arguments: { command: 'echo replayed-output' } }] }, { text: 'All done.' }], ['--yes'], { columns, rows: 30 });
    await t.waitFor(READY);
    t.type('look');
    t.keys('Enter');
    const live = await t.waitFor(/All done\.[\s\S]*scripted\/script/);
    expect(live).toMatch(/✓ bash echo replayed-output/);
    t.keys('C-d');
    await t.exited();
    const { t: again } = start(ctx, [{ text: 'unused' }], ['--continue'], { cwd, home: t.home, columns, rows: 30 });
    const resumed = await again.waitFor(/All done\.[\s\S]*❯/);
    expect(resumed).toMatch(/❯ look\n[\s\S]*Let me look\.\n✓ bash echo replayed-output\n\s*│ replayed-output\n[\s\S]*All done\./);
    fits(resumed, columns);
  });

  it('/compact shows a "compacting" spinner; Esc cancels it and nothing is written', async (ctx) => {
    const home = tempDir('mini-agent-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ compaction: { keepRecentTokens: 50 } }));
    const answer = (n: number) => `Answer ${n}: ${LONG} ${LONG}`;
    // The summary is slow (two pieces, 2 s each): Esc lands while it is asked for even on a busy
    // machine (at 400 ms a piece it came back first there), and costs nothing, as Esc ends the wait.
    const { t } = start(ctx, [{ text: answer(1) }, { text: answer(2) }, { text: answer(3) }, { text: 'the summary', delayMs: 2000 }], [], { columns, rows: 30, home });
    await t.waitFor(READY);
    for (const n of [1, 2, 3]) {
      t.type(`question ${n}`);
      t.keys('Enter');
      await t.waitFor(new RegExp(`Answer ${n}:[\\s\\S]*scripted/script[\\s\\S]*❯\\s*$`));
    }
    t.type('/compact');
    t.keys('Enter');
    const spinning = await t.waitFor(/compacting \d/);
    expect(spinning).not.toMatch(/thinking \d/);
    t.keys('Escape');
    const cancelled = await t.waitFor(/compaction cancelled:\s+nothing\s+was\s+changed/, { timeoutMs: 8000 });
    expect(cancelled).not.toMatch(/compacting \d/);
    fits(cancelled, columns);
    t.keys('C-d');
    await t.exited();
    expect(sessionEntries(home).filter((e) => e.type === 'compaction' || e.type === 'compaction_failed')).toEqual([]);
  });

  // Compaction that comes on its own, in a run. threshold: a 4,096-token window and a first answer
  // that reports 3,500 input tokens, so the check before the second prompt's request compacts.
  // overflow: the provider answers the second prompt with context_overflow. The summary is slow.
  const OVERFLOW: ScriptTurn = { error: { kind: 'context_overflow', message: 'prompt is too long: 250000 tokens > 200000 maximum', status: 400 } };
  const autoCompaction = (reason: 'threshold' | 'overflow', columns: number, summary: ScriptTurn, rest: ScriptTurn[]) => {
    const home = tempDir('mini-agent-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ compaction: { keepRecentTokens: 50 } }));
    const first: ScriptTurn = { text: `Answer 1: ${LONG} ${LONG}`, ...(reason === 'threshold' ? { usage: { input: 3500, output: 100 } } : {}) };
    const turns = reason === 'threshold' ? [first, summary, ...rest] : [first, OVERFLOW, summary, ...rest];
    return { home, turns, args: reason === 'threshold' ? ['--context-window', '4096', '--tools', 'read_file'] : [], opts: { columns, rows: 30, home } };
  };
  const firstExchange = async (t: TmuxSession) => {
    await t.waitFor(READY);
    t.type('question 1');
    t.keys('Enter');
    await t.waitFor(/Answer 1:[\s\S]*scripted\/script[\s\S]*❯\s*$/);
    t.type('question 2');
    t.keys('Enter');
  };

  it.for(['threshold', 'overflow'] as const)('auto-compaction (%s) shows a "compacting" spinner, then the compacted line and the answer', async (reason, ctx) => {
    // The summary streams in about 25 pieces: 60 ms each keeps the spinner up for about 1.5 s.
    const a = autoCompaction(reason, columns, { ...summaryTurn('the summary'), delayMs: 60 }, [{ text: 'answered after compacting' }]);
    const { t } = start(ctx, a.turns, a.args, a.opts);
    await firstExchange(t);
    const spinning = await t.waitFor(/compacting \d/);
    expect(spinning).not.toMatch(/thinking \d/);
    fits(spinning, columns);
    const done = await t.waitFor(/compacted:[\s\S]*answered after compacting[\s\S]*scripted\/script[\s\S]*❯\s*$/);
    expect(done).not.toMatch(/compacting \d|error/);
    fits(done, columns);
    // overflow: the warning about the window the provider stated is wrapped, whole, not cut.
    if (reason === 'overflow') expect(done.replace(/\s+/g, ' ')).toContain("warning: the provider says the model's context window is 200000 tokens (mini-agent assumed");
    if (reason === 'overflow') expect(done.replace(/\s+/g, ' ')).toContain('compaction uses 200000 from now on');
    expect(
      sessionEntries(a.home)
        .filter((e) => e.type === 'compaction')
        .map((e) => e.reason),
    ).toEqual([reason]);
  });

  it.for(['threshold', 'overflow'] as const)('Esc cancels an auto-compaction (%s): nothing is appended, the run is stopped, the next prompt works', async (reason, ctx) => {
    // threshold: the next prompt compacts again (the context is still over it), quickly this time.
    const rest: ScriptTurn[] = reason === 'threshold' ? [summaryTurn('the second summary'), { text: 'answered after the cancel' }] : [{ text: 'answered after the cancel' }];
    const a = autoCompaction(reason, columns, { ...summaryTurn('the slow summary'), delayMs: 1500 }, rest);
    const { t } = start(ctx, a.turns, a.args, a.opts);
    await firstExchange(t);
    await t.waitFor(/compacting \d/);
    t.keys('Escape');
    const cancelled = await t.waitFor(/compaction cancelled:\s+nothing\s+was\s+changed\s+stopped\n[\s\S]*❯\s*$/, { timeoutMs: 8000 });
    expect(cancelled).not.toMatch(/compacting \d|thinking \d|error|failed/);
    fits(cancelled, columns);
    // The session file: every line JSON (sessionEntries parses each), no compaction entry, and no
    // failure record either (a cancel is not a failure: /tree and the exports would show one).
    expect(sessionEntries(a.home).filter((e) => e.type === 'compaction' || e.type === 'compaction_failed')).toEqual([]);
    t.type('question 3');
    t.keys('Enter');
    const after = await t.waitFor(/answered after the cancel[\s\S]*scripted\/script[\s\S]*❯\s*$/);
    expect(after).not.toMatch(/error/);
    fits(after, columns);
    const entries = sessionEntries(a.home);
    const users = entries.filter((e) => e.type === 'message' && e.message.role === 'user').map((e) => e.message.content[0].text);
    expect(users).toEqual(['question 1', 'question 2', 'question 3']);
    const summaries = entries.filter((e) => e.type === 'compaction').map((e) => e.summary);
    expect(summaries).toEqual(reason === 'threshold' ? [expect.stringContaining('the second summary')] : []);
    expect(entries.filter((e) => e.type === 'compaction_failed')).toEqual([]);
  });

  it('Ctrl+G edits the input in $EDITOR (a 0600 file) and reads it back; Ctrl+L redraws', async (ctx) => {
    const dir = tempDir();
    const editor = join(dir, 'fake-editor.sh');
    writeFileSync(editor, `#!/bin/sh\nstat -c 'mode %a' "$1" >> "$1"\nprintf 'from the editor' >> "$1"\n`, { mode: 0o755 });
    const { t } = start(ctx, [{ text: 'edited text received' }], [], { columns, rows: 30, env: { EDITOR: editor, VISUAL: '' } });
    await t.waitFor(READY);
    t.type('draft ');
    t.keys('C-g');
    const edited = await t.waitFor(/❯ draft mode 600\n\s+from the editor/);
    fits(edited, columns);
    t.keys('C-l');
    await t.waitFor(/^❯ draft mode 600\n\s+from the editor/); // at the top of the cleared screen
    t.keys('Enter');
    await t.waitFor(/edited text received/);
    const users = sessionEntries(t.home).filter((e) => e.type === 'message' && e.message.role === 'user');
    expect(users.map((e) => e.message.content[0].text)).toEqual(['draft mode 600\nfrom the editor']);
  });

  it('Ctrl+L clears the screen as a shell does: the input at the top, what was printed stays in the scrollback', async (ctx) => {
    const { t } = start(ctx, [{ text: `Answer 1: ${LONG}` }, { text: `Answer 2: ${LONG}` }, { text: 'the answer after the clear' }], [], { columns, rows: 20 });
    await t.waitFor(READY);
    for (const n of [1, 2]) {
      t.type(`question ${n}`);
      t.keys('Enter');
      await t.waitFor(new RegExp(`Answer ${n}:[\\s\\S]*scripted/script[\\s\\S]*❯\\s*$`));
    }
    t.type('typed');
    t.keys('C-l');
    // The visible screen holds the live region only, at its top, with what was typed.
    const cleared = await t.waitFor((s) => s.split('\n')[0].startsWith('❯ typed'));
    expect(cleared).not.toMatch(/Answer|question|scripted\/script/);
    // The earlier output is in the scrollback, once, in order, and no blank screen was pushed there.
    const history = t.history();
    expect(history.match(/❯ question 1/g)).toHaveLength(1);
    expect(history).toMatch(/❯ question 1[\s\S]*Answer 1:[\s\S]*❯ question 2[\s\S]*Answer 2:[\s\S]*scripted\/script[^\n]*\n[\s\S]*❯ typed/);
    expect(history).not.toMatch(/\n(\s*\n){4}❯ typed/);
    // Sending a prompt afterwards: it and its answer follow at the top of the screen.
    t.type(' more');
    t.keys('Enter');
    const after = await t.waitFor(/the answer after the clear[\s\S]*scripted\/script[\s\S]*❯\s*$/);
    expect(after.split('\n').slice(0, 2)).toEqual(['', '❯ typed more']); // the blank line every prompt has above it
    expect(after).not.toMatch(/Answer 2/);
    fits(after, columns);
    expect(t.history()).toMatch(/Answer 2:[\s\S]*❯ typed more\n[\s\S]*the answer after the clear/);
  });

  it('Ctrl+R searches the history in the live region; Enter takes the match, Esc gives the input back', async (ctx) => {
    const { t } = start(ctx, [{ text: 'one' }, { text: 'two' }, { text: 'three' }], [], { columns, rows: 30 });
    await t.waitFor(READY);
    for (const [prompt, answer] of [
      ['first alpha', 'one'],
      ['second beta', 'two'],
      ['third alpha', 'three'],
    ]) {
      t.type(prompt);
      t.keys('Enter');
      await t.waitFor(new RegExp(`\\n${answer}\\n[\\s\\S]*scripted/script[\\s\\S]*❯\\s*$`));
    }
    t.type('typed');
    t.keys('C-r');
    t.type('alp');
    await t.waitFor(/\(history search\) alp: third alpha\s*$/);
    t.keys('C-r');
    await t.waitFor(/\(history search\) alp: first alpha\s*$/);
    t.keys('Enter');
    const taken = await t.waitFor(/❯ first alpha\s*$/);
    expect(taken).not.toContain('history search');
    t.keys('C-u');
    t.type('kept');
    t.keys('C-r');
    t.type('zzz');
    const none = await t.waitFor(/\(history search\) zzz: no match/);
    fits(none, columns);
    t.keys('Escape');
    await t.waitFor(/❯ kept\s*$/);
  });

  it('a prompt template added after start-up is found', async (ctx) => {
    const { t, cwd } = start(ctx, [{ text: 'template ran' }], [], { columns, rows: 30 });
    await t.waitFor(READY);
    mkdirSync(join(cwd, '.mini-agent', 'prompts'), { recursive: true });
    writeFileSync(join(cwd, '.mini-agent', 'prompts', 'late.md'), 'Review $1 carefully.\n');
    t.type('/late src');
    t.keys('Enter');
    const screen = await t.waitFor(/template ran/);
    expect(screen).toContain('(prompt template late)');
    expect(screen).not.toContain('unknown command');
  });
});

describe.concurrent.each([80, 40])('!cmd at %i columns', (columns) => {
  it('!ls runs through the bash tool, shows its output, and adds it to the conversation for the next turn', async (ctx) => {
    const { t, cwd } = start(ctx, [{ text: 'I see the listing.' }], [], { columns, rows: 30 });
    writeFileSync(join(cwd, 'hello-world.txt'), 'hi\n');
    await t.waitFor(READY);
    t.type('!ls');
    t.keys('Enter');
    // Through the permission gate: bash asks first (no --yes); "y" allows it once.
    await t.waitFor(/bash/);
    await t.waitFor(/allow|Allow|\[y\]/);
    t.keys('y');
    const shown = await t.waitFor(/added to the conversation/);
    expect(shown).toMatch(/! ls\n[\s\S]*│ hello-world\.txt/);
    fits(shown, columns);
    t.type('what is there?');
    t.keys('Enter');
    await t.waitFor(/I see the listing\./);
    const users = sessionEntries(t.home)
      .filter((e) => e.type === 'message' && e.message.role === 'user')
      .map((e) => e.message.content[0].text as string);
    expect(users).toHaveLength(2);
    expect(users[0]).toContain('`!ls`');
    expect(users[0]).toContain('hello-world.txt');
    expect(users[1]).toBe('what is there?');
  });

  it('Esc stops a running !command; nothing is added to the conversation', async (ctx) => {
    const { t } = start(ctx, [{ text: 'unused' }], ['--yes'], { columns, rows: 30 });
    await t.waitFor(READY);
    t.type('!sleep 20');
    t.keys('Enter');
    await t.waitFor(/running !sleep 20/);
    const began = Date.now();
    t.keys('Escape');
    const screen = await t.waitFor(/not added to the conversation/, { timeoutMs: 8000 });
    expect(Date.now() - began).toBeLessThan(6000);
    fits(screen, columns);
    t.keys('C-d');
    await t.exited();
    expect(sessionEntriesOrNone(t.home).filter((e) => e.type === 'message')).toEqual([]);
  });
});

function sessionEntriesOrNone(home: string): Array<Record<string, any>> {
  try {
    return sessionEntries(home);
  } catch {
    return [];
  }
}
