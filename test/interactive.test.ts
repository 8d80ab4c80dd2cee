// The interactive mode in a real terminal (tmux), on the scripted model: a prompt and its streamed
// answer, tool lines, commands, Ctrl+C mid-stream and mid-tool, steering and follow-ups, asking
// for approval, /compact, leaving and resuming with -c. (interactive-terminal.test.ts: the
// terminal itself — scrollback, pastes, escapes, sizes, signals, snapshots.)
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../src/model/script.js';
import { summaryTurn } from './support/compaction.js';
import { tempDir } from './support/helpers.js';
import { interactiveSessions, READY, sessionEntries } from './support/interactive.js';

const start = interactiveSessions();

describe.concurrent('the interactive mode in a terminal', () => {
  it('a prompt: the answer streams in as rendered Markdown, then the status line', async (ctx) => {
    const { t } = start(ctx, [{ text: '# Plan\n\nFirst **read** the notes, then:\n\n- write `a.md`\n- check it\n', usage: { input: 1200, output: 40 } }]);
    await t.waitFor(READY);
    t.type('make a plan');
    t.keys('Enter');
    const screen = await t.waitFor(/scripted\/script · .*↑1200 ↓40/);
    expect(screen).toContain('❯ make a plan');
    expect(screen).toMatch(/^Plan$/m); // the heading, without its #
    expect(screen).toContain('First read the notes, then:');
    expect(screen).toMatch(/• write a\.md/);
    expect(screen).not.toContain('**');
    t.keys('C-d');
    expect(await t.exited()).toEqual({ code: 0, cooked: true });
  });

  it('a tool call is one line with its key argument, status and duration, and a few lines of the result', async (ctx) => {
    const { t, cwd } = start(ctx, [{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] }, { toolCalls: [{ name: 'read_file', arguments: { path: 'missing.md' } }] }, { text: 'done' }]);
    writeFileSync(join(cwd, 'notes.md'), 'line one\nline two\nline three\nline four\n');
    await t.waitFor(READY);
    t.type('read it');
    t.keys('Enter');
    const screen = await t.waitFor(/done[\s\S]*scripted\/script/);
    expect(screen).toMatch(/✓ read_file notes\.md \d+ ms/);
    expect(screen).toMatch(/│ line one\n.*│ line two\n.*│ line three\n.*│ … 1 more line/);
    expect(screen).toMatch(/✗ read_file missing\.md \d+ ms/);
    expect(screen).toMatch(/│ .*file not found: missing\.md/);
  });

  it('/help, an unknown command with a suggestion (never sent to the model), /tree, /label and /branch', async (ctx) => {
    const { t } = start(ctx, [{ text: 'first answer' }, { text: 'second answer' }, { text: 'on a branch' }]);
    await t.waitFor(READY);
    t.type('/help');
    t.keys('Enter');
    await t.waitFor(/\/trace +a readable account[\s\S]*Ctrl\+D +leave/); // its end: the list is taller than the terminal
    t.type('/tre');
    t.keys('Enter');
    await t.waitFor(/unknown command \/tre; did you mean \/tree\?/);
    t.type('one');
    t.keys('Enter');
    await t.waitFor(/first answer[\s\S]*scripted\/script/);
    t.type('two');
    t.keys('Enter');
    await t.waitFor(/second answer[\s\S]*scripted\/script/);
    t.type('/tree print');
    t.keys('Enter');
    const tree = await t.waitFor(/second answer[\s\S]*❯ \/tree print[\s\S]*two/);
    const firstAnswer = /([0-9a-f]{8}) .*first answer/.exec(tree)?.[1];
    expect(firstAnswer, tree).toBeDefined();
    t.type(`/label ${firstAnswer} start`);
    t.keys('Enter');
    await t.waitFor(new RegExp(`labelled ${firstAnswer}[0-9a-f]* as start`));
    t.type('/branch start');
    t.keys('Enter');
    await t.waitFor(/now at entry [0-9a-f]+; the next prompt continues from there/);
    t.type('three');
    t.keys('Enter');
    await t.waitFor(/on a branch[\s\S]*scripted\/script/);
    t.type('/tree print');
    t.keys('Enter');
    const after = await t.waitFor(/\[label: start\][\s\S]*on a branch.*◀ leaf/);
    expect(after).toMatch(/└─ \* \w+ user\s+"three"/);
  });

  it('Ctrl+C mid-stream stops the run; the next prompt continues the same session', async (ctx) => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const { t } = start(ctx, [{ text: long, delayMs: 40 }, { text: 'after the stop' }]);
    await t.waitFor(READY);
    t.type('talk');
    t.keys('Enter');
    await t.waitFor(/word3/);
    t.keys('C-c');
    await t.waitFor(/stopped/);
    t.type('go on');
    t.keys('Enter');
    await t.waitFor(/after the stop[\s\S]*scripted\/script/);
  });

  it('Ctrl+C mid-tool kills the command; a steer sent while a tool runs is delivered after every call of that response', async (ctx) => {
    const { t, cwd } = start(
      ctx,
      [
        {
          toolCalls: [
            { name: 'bash', arguments: { command: 'sleep 3; echo slept' } },
            { name: 'read_file', arguments: { path: 'notes.md' } },
          ],
        },
        { text: 'steered answer' },
        { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] },
        { text: 'after the kill' },
      ],
      ['--approve', 'bash(sleep*)', '--approve', 'bash(echo*)'], // each part of a compound command needs a rule
    );
    writeFileSync(join(cwd, 'notes.md'), 'notes\n');
    await t.waitFor(READY);
    t.type('work');
    t.keys('Enter');
    await t.waitFor(/bash sleep 3/);
    t.type('also check the tests');
    t.keys('Enter');
    await t.waitFor(/steer 1: also check the tests/);
    const done = await t.waitFor(/steered answer[\s\S]*scripted\/script/);
    expect(done).toMatch(/✓ bash sleep 3; echo slept[\s\S]*✓ read_file notes\.md[\s\S]*↳ steer: also check the tests[\s\S]*steered answer/);
    // The next request held the steer after both results.
    const entries = sessionEntries(t.home).filter((e) => e.type === 'message');
    const roles = entries.map((e) => `${e.message.role}${e.message.role === 'user' ? `:${e.message.content[0].text}` : ''}`);
    expect(roles).toEqual(['user:work', 'assistant', 'toolResult', 'toolResult', 'user:also check the tests', 'assistant']);

    t.type('sleep now');
    t.keys('Enter');
    await t.waitFor(/bash sleep 30/);
    t.keys('C-c');
    await t.waitFor(/stopped/);
    t.type('again');
    t.keys('Enter');
    await t.waitFor(/after the kill/);
    // No `sleep 30` survives (read from /proc, not ps: no procps needed).
    const commands = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
        } catch {
          return '';
        }
      });
    expect(commands.filter((c) => c === 'sleep 30')).toHaveLength(0);
  });

  it('a follow-up (>>) sent during a run starts a new turn when the run would end', async (ctx) => {
    // The run is held by a command that waits for a file the test writes once the follow-up is
    // queued: no guess at how long a slow answer lasts on a busy machine.
    const wait = 'while [ ! -e go ]; do sleep 0.05; done';
    const { t, cwd } = start(
      ctx,
      [
        { text: 'slow first answer, with a good many more words to stream so that the run lasts a while', toolCalls: [{ name: 'bash', arguments: { command: wait } }] },
        { text: 'the first run would end here' },
        { text: 'answer to the follow-up' },
      ],
      ['--yes'],
    );
    await t.waitFor(READY);
    t.type('first');
    t.keys('Enter');
    await t.waitFor(/bash while/);
    t.type('>> and then this');
    t.keys('Enter');
    await t.waitFor(/follow-up 1: and then this/);
    writeFileSync(join(cwd, 'go'), '');
    const screen = await t.waitFor(/answer to the follow-up[\s\S]*scripted\/script/);
    expect(screen).toMatch(/slow first answer[\s\S]*lasts a while[\s\S]*the first run would end here[\s\S]*↳ follow-up: and then this[\s\S]*answer to the follow-up/);
  });

  it.for([
    ['y', 'ran-yes'],
    ['n', null],
    ['a', 'ran-always'],
  ] as const)('a confirmation answered %s', async ([answer, marker], ctx) => {
    const command = `echo ${marker ?? 'never'} > out.txt`;
    const { t, cwd } = start(ctx, [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text: 'finished' }]);
    await t.waitFor(READY);
    t.type('do it');
    t.keys('Enter');
    const q = await t.waitFor(/Allow\? \[y\]es, \[n\]o, \[a\]lways for this session/);
    expect(q).toContain(`$ ${command}`);
    t.type(answer);
    if (answer === 'n') t.keys('Enter'); // "no" asks for an optional reason; Enter sends none
    await t.waitFor(/finished[\s\S]*scripted\/script/);
    const out = (() => {
      try {
        return readFileSync(join(cwd, 'out.txt'), 'utf8').trim();
      } catch {
        return null;
      }
    })();
    expect(out).toBe(marker);
    if (answer === 'a') expect(sessionEntries(t.home).some((e) => e.type === 'permission_grant')).toBe(true);
  });

  it('an edit is asked about with its diff; Ctrl+C while the question waits aborts the run and the file is untouched', async (ctx) => {
    const cwd = tempDir();
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ permissions: { ask: ['edit_file'] } }));
    writeFileSync(join(cwd, 'app.ts'), 'const limit = 3;\nexport { limit };\n');
    const { t } = start(ctx, [{ toolCalls: [{ name: 'edit_file', arguments: { path: 'app.ts', edits: [{ oldText: 'const limit = 3;', newText: 'const limit = 30;' }] } }] }, { text: 'after the stop' }], [], { cwd });
    await t.waitFor(READY);
    t.type('raise the limit');
    t.keys('Enter');
    const q = await t.waitFor(/Allow\? \[y\]es/);
    expect(q).toMatch(/edit_file needs your approval[\s\S]*app\.ts\n\s+- const limit = 3;\n\s+\+ const limit = 30;/);
    t.keys('C-c');
    await t.waitFor(/stopped/);
    expect(readFileSync(join(cwd, 'app.ts'), 'utf8')).toBe('const limit = 3;\nexport { limit };\n');
    t.type('go on');
    t.keys('Enter');
    await t.waitFor(/after the stop[\s\S]*scripted\/script · ↑/);
  });

  it('/compact summarizes with the model and says so', async (ctx) => {
    const turns: ScriptTurn[] = [{ text: 'a long answer '.repeat(50) }, { text: 'another long answer '.repeat(50) }, summaryTurn('FACT: compacted here')];
    const cwd = tempDir();
    mkdirSync(join(cwd, '.mini-agent'));
    // Keep only the last ~150 tokens (the second exchange), so the first is summarized.
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ compaction: { keepRecentTokens: 150 } }));
    const { t } = start(ctx, turns, [], { cwd });
    await t.waitFor(READY);
    for (const p of ['one', 'two']) {
      t.type(p);
      t.keys('Enter');
      await t.waitFor(new RegExp(`❯ ${p}[\\s\\S]*scripted/script`));
    }
    t.type('/compact');
    t.keys('Enter');
    await t.waitFor(/compacted: \d+ entries summarized, \d+ → \d+ tokens/);
    expect(sessionEntries(t.home).filter((e) => e.type === 'compaction')).toHaveLength(1);
    t.type('/compact');
    t.keys('Enter');
    const again = await t.waitFor(/❯ \/compact\ncompaction failed: .*\n❯/); // a second one has nothing left to do
    expect(again.match(/compaction failed/g)).toHaveLength(1); // said once, not twice
  });

  it('leaving with Ctrl+D, then -c: the conversation continues where it was', async (ctx) => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const { t } = start(ctx, [{ text: 'remember the number 42' }], [], { cwd, home });
    await t.waitFor(READY);
    t.type('a number please');
    t.keys('Enter');
    await t.waitFor(/remember the number 42[\s\S]*scripted\/script/);
    t.keys('C-d');
    expect(await t.exited()).toEqual({ code: 0, cooked: true });
    const { t: again } = start(ctx, [{ text: 'it was 42' }], ['-c'], { cwd, home });
    const replay = await again.waitFor(READY);
    expect(replay).toContain('❯ a number please');
    expect(replay).toContain('remember the number 42');
    again.keys('Up');
    await again.waitFor(/❯ a number please\s*$/);
    again.keys('C-u');
    again.type('which number?');
    again.keys('Enter');
    await again.waitFor(/it was 42[\s\S]*scripted\/script/);
    const users = sessionEntries(home)
      .filter((e) => e.type === 'message' && e.message.role === 'user')
      .map((e) => e.message.content[0].text);
    expect(users).toEqual(['a number please', 'which number?']);
  });
});
