// The files in the interactive mode (issue 26 §2), in a real terminal (tmux, scripted model): /diff
// from the checkpoints (coloured; since an entry; a session in memory falls back to the edits'
// own diffs), /rewind's picker and confirmation (files restored on disk, the leaf moved and the
// conversation shown from there; a file changed outside the agent only after an explicit o; not
// while a run is going), the tree picker's r (branch here and restore the files), and the
// question `mini-agent rewind` asks on a terminal (y rewinds, n changes nothing).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../src/model/script.js';
import { SessionStore } from '../src/session/store.js';
import { answerId, editingSession } from './support/checkpoint-session.js';
import { interactiveSessions, READY, sessionEntries } from './support/interactive.js';
import { TMUX, useSystemTool } from './support/system-tools.js';
import { TmuxSession } from './support/tmux.js';

const start = interactiveSessions();
let tmuxBin: string | undefined;
afterAll(() => {
  if (tmuxBin) TmuxSession.killServer(tmuxBin);
});

const TURNS: ScriptTurn[] = [
  { toolCalls: [{ name: 'write_file', arguments: { path: 'notes/plan.md', content: 'step one\nstep two\n' } }] },
  { text: 'Written.' },
  { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes/plan.md', edits: [{ oldText: 'step two', newText: 'step 2' }] } }] },
  { text: 'Edited.' },
];

const plan = (cwd: string) => (existsSync(join(cwd, 'notes/plan.md')) ? readFileSync(join(cwd, 'notes/plan.md'), 'utf8') : null);

/** Two runs: the agent writes notes/plan.md, then edits it. */
async function writeThenEditRuns(t: TmuxSession): Promise<void> {
  await t.waitFor(READY);
  t.type('write the plan');
  t.keys('Enter');
  await t.waitFor(/Written\.[\s\S]*scripted\/script/);
  t.type('edit the plan');
  t.keys('Enter');
  await t.waitFor(/Edited\.[\s\S]*scripted\/script[\s\S]*❯/);
}

/** The two runs in a session with a file: the ids of the two answers. */
async function writeThenEdit(t: TmuxSession): Promise<{ written: string; edited: string }> {
  await writeThenEditRuns(t);
  const id = (text: string) => sessionEntries(t.home).find((e) => e.type === 'message' && e.message.role === 'assistant' && JSON.stringify(e.message.content).includes(text))!.id as string;
  return { written: id('Written.'), edited: id('Edited.') };
}

const leaf = (home: string) =>
  sessionEntries(home)
    .filter((e) => e.type === 'leaf')
    .at(-1)?.targetId;

// Many steps each, six terminals side by side: more time than the default.
describe.concurrent('the files in the interactive mode', { timeout: 60_000 }, () => {
  it('/diff shows what the agent changed from the checkpoints, coloured; /diff ENTRY since an entry', async (ctx) => {
    const { t } = start(ctx, TURNS, ['--yes'], { columns: 80, rows: 40 });
    const { written } = await writeThenEdit(t);
    t.type('/diff');
    t.keys('Enter');
    // One diff of the file as it is now against before the session (no "created" note and separate edit: the checkpoints, not the tool results).
    await t.waitFor(/❯ \/diff\n1 file changed in this session:\n--- \/dev\/null\n\+\+\+ b\/notes\/plan\.md\n@@ -0,0 \+1,2 @@\n\+step one\n\+step 2\n/, { history: true });
    const raw = t.tmux(['capture-pane', '-p', '-e', '-S', '-40', '-t', t.name]);
    // (tmux re-encodes the attributes it draws: a style may come with others, and carries over to the next line.)
    expect(raw).toMatch(/\x1b\[[\d;]*1m(\x1b\[[\d;]*m)*--- \/dev\/null\n\+\+\+ b\/notes/);
    expect(raw).toMatch(/\x1b\[36m(\x1b\[[\d;]*m)*@@ -0,0 \+1,2 @@/);
    expect(raw).toMatch(/\x1b\[32m(\x1b\[[\d;]*m)*\+step one\n\+step 2/);

    t.type(`/diff ${written.slice(0, 6)}`);
    t.keys('Enter');
    const since = await t.waitFor(new RegExp(`1 file changed since ${written.slice(0, 6)} on this branch:\\n--- a/notes/plan\\.md\\n\\+\\+\\+ b/notes/plan\\.md\\n@@ -1,2 \\+1,2 @@\\n step one\\n-step two\\n\\+step 2\\n`), {
      history: true,
    });
    expect(t.tmux(['capture-pane', '-p', '-e', '-S', '-20', '-t', t.name])).toMatch(/\x1b\[31m(\x1b\[[\d;]*m)*-step two/);
    expect(since).not.toContain('# created');
    t.type('/diff nosuchentry');
    t.keys('Enter');
    await t.waitFor(/\/diff: [^\n]*nosuchentry/);
  });

  it('/diff in a session kept in memory lists the edits from their results', async (ctx) => {
    const { t } = start(ctx, TURNS, ['--yes', '--no-session'], { columns: 80, rows: 40 });
    await writeThenEditRuns(t);
    t.type('/diff');
    t.keys('Enter');
    await t.waitFor(/1 file changed in this session:\n--- a\/notes\/plan\.md\n\+\+\+ b\/notes\/plan\.md\n# created with write_file/, { history: true });
  });

  it('/rewind: a picker of the branch, the plan, Enter rewinds files and conversation; a file changed outside the agent needs o', async (ctx) => {
    const { t, cwd } = start(ctx, TURNS, ['--yes'], { columns: 80, rows: 40 });
    const { written, edited } = await writeThenEdit(t);
    t.type('/rewind');
    t.keys('Enter');
    const picker = await t.waitFor(/Rewind to an entry of this branch \(newest first\)[\s\S]*4 items/);
    expect(picker.slice(picker.lastIndexOf('Rewind to an entry'))).toMatch(/❯ answer: Edited\.\n\s+[0-9a-f]{8} · [\d-]+\s[\d:]+ · here now\n\s+you: edit the plan\n[\s\S]*answer: Written\.\n[\s\S]*you: write the plan/);
    t.type('Written');
    await t.waitFor(/filter ❯ Written[\s\S]*1 of 4 items/);
    t.keys('Enter');
    // The plan, then the choice: files and conversation first.
    const confirm = await t.waitFor(new RegExp(`Rewind to assistant ${written}: Written\\.\\n\\s+restore notes/plan\\.md\\n❯ \\[b\\] Files and conversation`));
    expect(confirm).toMatch(/\[f\] Files only[\s\S]*\[c\] Conversation only[\s\S]*Enter rewind · Esc cancel/);
    expect(plan(cwd)).toBe('step one\nstep 2\n'); // nothing yet
    t.keys('Enter');
    await t.waitFor(new RegExp(`rewound to ${written}: 1 file restored \\(notes/plan\\.md\\); the conversation continues\\s+from there\\n[\\s\\S]*write the plan[\\s\\S]*Written\\.\\s*\\n[\\s\\S]*❯\\s*$`));
    expect(plan(cwd)).toBe('step one\nstep two\n');
    expect(leaf(t.home)).toBe(written);

    // Changed by hand: the choice asks once more; n leaves everything as it is, o overwrites.
    writeFileSync(join(cwd, 'notes/plan.md'), 'by hand\n');
    t.type(`/rewind ${edited}`);
    t.keys('Enter');
    await t.waitFor(/restore notes\/plan\.md \(changed outside the agent since\)[\s\S]*notes\/plan\.md changed outside the agent since its last change: rewinding the\s+files asks once more/);
    t.keys('Enter');
    await t.waitFor(/Overwrite it\s+with its state at [0-9a-f]{8}\?[\s\S]*o overwrite · n cancel/);
    t.type('n');
    await t.waitFor((s) => !s.includes('o overwrite') && /❯\s*$/.test(s));
    expect(plan(cwd)).toBe('by hand\n');
    expect(leaf(t.home)).toBe(written);
    t.type(`/rewind ${edited}`);
    t.keys('Enter');
    await t.waitFor(/rewinding the\s+files asks once more/);
    t.keys('Enter');
    await t.waitFor(/o overwrite/);
    t.type('o');
    await t.waitFor(new RegExp(`rewound to ${edited}: 1 file restored \\(notes/plan\\.md\\)`));
    expect(plan(cwd)).toBe('step one\nstep 2\n');
    expect(leaf(t.home)).toBe(edited);
  });

  it('/rewind waits for the run to settle', async (ctx) => {
    const { t } = start(ctx, [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 20' } }] }, { text: 'never' }], ['--yes'], { columns: 80, rows: 30 });
    await t.waitFor(READY);
    t.type('wait a while');
    t.keys('Enter');
    await t.waitFor(/bash sleep 20/);
    t.type('/rewind');
    t.keys('Enter');
    await t.waitFor(/\/rewind: a run is in progress: rewind when it has settled/);
    t.keys('Escape');
    await t.waitFor(/scripted\/script/);
  });

  it("the tree's r branches there and restores the files (after the plan, as /rewind)", async (ctx) => {
    const { t, cwd } = start(ctx, TURNS, ['--yes'], { columns: 80, rows: 40 });
    const { written } = await writeThenEdit(t);
    t.type('/tree');
    t.keys('Enter');
    const tree = await t.waitFor(/Session tree \(8 entries[\s\S]*◀ leaf/);
    expect(tree).toMatch(/Enter branch here · r branch here and restore the files ·\s+l label/);
    t.keys('Up', 'Up', 'Up', 'Up');
    await t.waitFor(new RegExp(`assistant ${written}: Written\\.`));
    t.type('r');
    await t.waitFor(new RegExp(`Rewind to assistant ${written}: Written\\.\\n\\s+restore notes/plan\\.md\\n❯ \\[b\\] Files and conversation`));
    t.keys('Enter');
    await t.waitFor(new RegExp(`rewound to ${written}: 1 file restored \\(notes/plan\\.md\\); the conversation continues\\s+from there`));
    expect(plan(cwd)).toBe('step one\nstep two\n');
    expect(leaf(t.home)).toBe(written);
    // The rewind is recorded (a checkpoint naming the entry), so a rewind back can undo it.
    expect(sessionEntries(t.home).filter((e) => e.type === 'checkpoint' && e.entryId === written)).toHaveLength(1);
  });

  it('mini-agent rewind asks on a terminal: n changes nothing, y rewinds', async (ctx) => {
    const bin = useSystemTool(ctx, TMUX);
    tmuxBin = bin;
    const { cwd, home, file, agent, written } = await editingSession('n.md');
    await agent.close();
    const ask = () => {
      const t = new TmuxSession(bin, ['rewind', file, written], { cwd, home, columns: 80, rows: 20 });
      ctx.onTestFinished(() => t.kill());
      return t;
    };
    const no = ask();
    await no.waitFor(new RegExp(`restore a\\.txt\\nremove \\(the agent created it\\) n\\.md\\nmove the leaf to ${written}\\nRewind\\? \\[y/N\\]`));
    no.type('n');
    no.keys('Enter');
    await no.waitFor(/nothing was changed/);
    expect((await no.exited()).code).toBe(0);
    expect([readFileSync(join(cwd, 'a.txt'), 'utf8'), existsSync(join(cwd, 'n.md'))]).toEqual(['one\nthree\n', true]);
    expect(SessionStore.open(file).leafId).toBe(answerId(file, 'edited'));

    const yes = ask();
    await yes.waitFor(/Rewind\? \[y\/N\]/);
    yes.type('y');
    yes.keys('Enter');
    await yes.waitFor(new RegExp(`rewound to ${written}: 2 files restored, the leaf moved there`));
    expect(await yes.exited()).toEqual({ code: 0, cooked: true });
    expect([readFileSync(join(cwd, 'a.txt'), 'utf8'), existsSync(join(cwd, 'n.md'))]).toEqual(['one\ntwo\n', false]);
    expect(SessionStore.open(file).leafId).toBe(written);
  });
});
