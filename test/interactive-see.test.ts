// Seeing what changed, in the interactive mode (tmux, scripted model): an edit's coloured
// unified diff with word-level marks, Ctrl+O expanding and collapsing the last tool block
// (printed again below: the scrollback is append-only), previews that keep indentation and blank
// lines and count what they leave out, bash's output streamed while it runs and its tail at the
// end, and /diff: the session's changes file by file (at 80 and 40 columns), those made before
// a compaction included.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summaryTurn } from './support/compaction.js';
import { tempDir } from './support/helpers.js';
import { interactiveSessions, READY, sessionEntries } from './support/interactive.js';

const start = interactiveSessions();

const SOURCE = ['export function total(items) {', '  let sum = 0;', '  for (const item of items) {', '    sum += item.price;', '  }', '  return sum;', '}', ''].join('\n');
const NOTES = ['# Notes', '', '  indented line', '', 'fifth', 'sixth', 'seventh'].join('\n');

describe.each([80, 40])('seeing what changed at %i columns', (columns) => {
  it("an edit shows a coloured diff with the changed words marked; Ctrl+O expands and collapses the last tool block; /diff lists the session's changes", async (ctx) => {
    const { t, cwd } = start(
      ctx,
      [
        { toolCalls: [{ name: 'edit_file', arguments: { path: 'app.js', edits: [{ oldText: '    sum += item.price;', newText: '    sum += item.cost;\n    count++;' }] } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'config.txt', content: 'mode = fast\nlevel = 1\nname = demo\n' } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'cat notes.md' } }] },
        { text: 'Done.' },
      ],
      ['--yes'],
      { columns, rows: 50 },
    );
    writeFileSync(join(cwd, 'app.js'), SOURCE);
    writeFileSync(join(cwd, 'notes.md'), NOTES);
    writeFileSync(join(cwd, 'config.txt'), 'mode = slow\nlevel = 1\nname = demo\n');
    await t.waitFor(READY);
    t.type('change it');
    t.keys('Enter');
    const done = await t.waitFor(/Done\.[\s\S]*scripted\/script/, { history: true });
    expect(readFileSync(join(cwd, 'app.js'), 'utf8')).toContain('item.cost');
    // The removed and the added lines are on the screen, with their marks and numbers.
    expect(done).toMatch(/│ -\s*4│ {4}sum \+= item\.price;/);
    expect(done).toMatch(/│ \+\s*4│ {4}sum \+= item\.cost;/);
    expect(done).toMatch(/│ \+\s*5│ {4}count\+\+;/);
    expect(done).toMatch(/│ {2}\s*3│ {2}for \(const item of items\) \{/);
    // write_file over a file shows its diff too.
    expect(done).toMatch(/✓ write_file config\.txt.*\n {2}│ Overwrote config\.txt[^\n]*\n {2}│ @@ -1,3 \+1,3 @@\n {2}│ -1│mode = slow\n {2}│ \+1│mode = fast\n {2}│ {2}2│level = 1\n/);
    // Colours: the removed line red, the added green, the changed word reversed in each.
    const raw = t.tmux(['capture-pane', '-p', '-e', '-S', '-200', '-t', t.name]);
    // (tmux re-encodes the attributes it draws: reverse video shows as SGR 7 on the line's colour.)
    expect(raw).toMatch(/\x1b\[31m-\s*4│ {4}sum \+= item\.(\x1b\[[\d;]*m)*\x1b\[7m(\x1b\[[\d;]*m)*price(\x1b\[[\d;]*m)+;/);
    expect(raw).toMatch(/\x1b\[32m\+\s*4│ {4}sum \+= item\.(\x1b\[[\d;]*m)*\x1b\[7m(\x1b\[[\d;]*m)*cost(\x1b\[[\d;]*m)+;/);
    expect(raw).not.toMatch(/\x1b\[7m(\x1b\[[\d;]*m)*( {4}sum|item)/);
    expect(raw).toMatch(/\x1b\[32m\+\s*5│ {4}count\+\+;/);
    // bash's block: the last lines of the output, indentation and blank lines kept, the rest counted.
    expect(done).toMatch(/✓ bash cat notes\.md.*\n {2}│ … 4 earlier lines \(Ctrl\+O( to expand)?\)\n {2}│ fifth\n {2}│ sixth\n {2}│ seventh\n {2}│\s*\n {2}│ \[Exit code 0\]/);

    // Ctrl+O: the last block (bash) again, in full, below; then collapsed again.
    t.keys('C-o');
    const full = await t.waitFor(/bash in full \(Ctrl\+O to collapse\):[\s\S]*\[Exit code 0\]\n[\s\S]*❯/, { history: true });
    expect(full.slice(full.indexOf('bash in full'))).toMatch(/│ # Notes\n {2}│\s*\n {2}│ {3}indented line\n {2}│\s*\n {2}│ fifth\n/);
    t.keys('C-o');
    const collapsed = await t.waitFor(/bash collapsed \(Ctrl\+O( to expand)?\):/, { history: true });
    expect(collapsed.slice(collapsed.indexOf('bash collapsed'))).toMatch(/… 4 earlier lines \(Ctrl\+O( to expand)?\)\n {2}│ fifth/);

    // /diff: the session's changes, a plain unified diff per file.
    t.type('/diff');
    t.keys('Enter');
    const diff = await t.waitFor(/2 files changed in this session:\n--- a\/app\.js\n\+\+\+ b\/app\.js\n@@ -1,7 \+1,8 @@\n[\s\S]*- {4}sum \+= item\.price;\n\+ {4}sum \+= item\.cost;\n\+ {4}count\+\+;/, { history: true });
    expect(diff).toContain('\n   return sum;\n');
    expect(diff).toMatch(/--- a\/config\.txt\n\+\+\+ b\/config\.txt\n@@ -1,3 \+1,3 @@\n-mode = slow\n\+mode = fast\n level = 1\n/);
  });

  it('bash streams its output while it runs, with the elapsed time, and ends with the tail and the error lines', async (ctx) => {
    // After line1 the command waits until the test has seen it running (the file go), no longer.
    const { t, cwd } = start(
      ctx,
      [
        { toolCalls: [{ name: 'bash', arguments: { command: 'for i in 1 2 3; do echo line$i; while [ $i = 1 ] && [ ! -e go ]; do sleep 0.05; done; done' } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo "error: the first step failed"; seq 1 30' } }] },
        { text: 'Finished.' },
      ],
      ['--yes'],
      { columns, rows: 40 },
    );
    await t.waitFor(READY);
    t.type('run it');
    t.keys('Enter');
    // Before the command ends: its first line under the running tool line, which shows the time.
    const live = await t.waitFor(/bash for i in[^\n]*\d(\.\d)? (ms|s)\n {2}│ line1/);
    expect(live).not.toMatch(/✓ bash for i/);
    expect(live).not.toContain('line3');
    writeFileSync(join(cwd, 'go'), '');
    const done = await t.waitFor(/Finished\.[\s\S]*scripted\/script/, { history: true, timeoutMs: 20_000 });
    expect(done).toMatch(/✓ bash for i in[^\n]*\n {2}│ line1\n {2}│ line2\n {2}│ line3\n {2}│\s*\n {2}│ \[Exit code 0\]/);
    // A long output: the error line from the part not shown, the count, then the tail.
    expect(done).toMatch(/✓ bash echo[^\n]*\n {2}│ error: the first step failed\n {2}│ … 27 earlier lines \(Ctrl\+O( to expand)?\)\n {2}│ 28\n {2}│ 29\n {2}│ 30\n/);
    expect(done).not.toMatch(/│ 1\n {2}│ 2\n/);
  });
});

describe('/diff after a compaction', () => {
  it('still lists an edit made before the compaction (the whole branch, not what the model sees)', async (ctx) => {
    const cwd = tempDir();
    mkdirSync(join(cwd, '.mini-agent'));
    // Keep only the last ~150 tokens (the second exchange), so the first one, with the edit, is summarized.
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ compaction: { keepRecentTokens: 150 } }));
    writeFileSync(join(cwd, 'app.js'), SOURCE);
    const { t } = start(
      ctx,
      [
        { toolCalls: [{ name: 'edit_file', arguments: { path: 'app.js', edits: [{ oldText: '    sum += item.price;', newText: '    sum += item.cost;' }] } }] },
        { text: 'Edited.' },
        { text: 'a long answer '.repeat(50) },
        summaryTurn('the price became the cost'),
      ],
      ['--yes'],
      { cwd, columns: 80, rows: 40 },
    );
    await t.waitFor(READY);
    for (const [prompt, answer] of [
      ['change it', 'Edited.'],
      ['go on', 'a long answer'],
    ]) {
      t.type(prompt);
      t.keys('Enter');
      await t.waitFor(new RegExp(`${answer}[\\s\\S]*scripted/script`), { history: true });
    }
    t.type('/compact');
    t.keys('Enter');
    await t.waitFor(/compacted: \d+ entries summarized, \d+ → \d+ tokens/, { history: true });
    // The edit's tool result is before the entry the compaction kept: the model no longer sees it.
    const entries = sessionEntries(t.home);
    const compaction = entries.find((e) => e.type === 'compaction')!;
    const index = (pred: (e: Record<string, any>) => boolean) => entries.findIndex(pred);
    expect(index((e) => e.message?.role === 'toolResult')).toBeLessThan(index((e) => e.id === compaction.firstKeptEntryId));
    t.type('/diff');
    t.keys('Enter');
    const diff = await t.waitFor(/❯ \/diff\n1 file changed in this session:\n--- a\/app\.js\n\+\+\+ b\/app\.js\n@@ [^\n]*\n[\s\S]*- {4}sum \+= item\.price;\n\+ {4}sum \+= item\.cost;/, { history: true });
    expect(diff).not.toContain('no files changed');
  });
});
