// The interactive /diff and /rewind pieces, as pure functions: the checkpoint diff painted (file
// headers told from removed lines by the hunk counts), /rewind's argument, the entries its picker
// offers, and the confirmation's keys: which command line each choice runs, and that files changed
// outside the agent need a second, explicit `o`.
import { describe, expect, it } from 'vitest';
import type { Key } from '../src/interactive/keys.js';
import { parseRewindArg, RewindConfirm, rewindItems } from '../src/interactive/rewind-view.js';
import { checkpointDiffLines } from '../src/interactive/session-diff.js';
import { paint } from '../src/interactive/view.js';
import type { TreeJson } from '../src/session/tree-json.js';

const named = (name: string): Key => ({ name, ctrl: false, alt: false, shift: false }) as Key;
const text = (t: string): Key => ({ name: 'text', text: t });
// Colours as markers: bold [b], red [r], green [g], cyan [c], dim [d].
const marks = { dim: (s: string) => `[d]${s}`, bold: (s: string) => `[b]${s}`, red: (s: string) => `[r]${s}`, green: (s: string) => `[g]${s}`, yellow: (s: string) => `[y]${s}`, cyan: (s: string) => `[c]${s}` };

describe('checkpointDiffLines', () => {
  it('paints headers, hunk heads, removed and added lines; a removed "-- x" and an added "++ y" stay hunk rows', () => {
    const diff = ['--- a/a.txt', '+++ b/a.txt', '@@ -1,3 +1,3 @@', ' keep', '--- x', '+++ y', ' tail', '\\ No newline at end of file', 'old mode 644', 'new mode 755', '--- /dev/null', '+++ b/n.md', '@@ -0,0 +1 @@', '+note', ''].join('\n');
    expect(checkpointDiffLines(diff, undefined, 80, marks)).toEqual([
      '[d]2 files changed in this session:',
      '[b]--- a/a.txt',
      '[b]+++ b/a.txt',
      '[c]@@ -1,3 +1,3 @@',
      ' keep',
      '[r]--- x',
      '[g]+++ y',
      ' tail',
      '[d]\\ No newline at end of file',
      '[d]old mode 644',
      '[d]new mode 755',
      '[b]--- /dev/null',
      '[b]+++ b/n.md',
      '[c]@@ -0,0 +1 @@',
      '[g]+note',
    ]);
  });

  it('says when nothing changed, and since which entry', () => {
    expect(checkpointDiffLines('', undefined, 80, paint(false))).toEqual(['no files changed in this session yet (from the file checkpoints)']);
    expect(checkpointDiffLines('', 'first', 80, paint(false))).toEqual(['no files changed since first on this branch (from the file checkpoints)']);
    expect(checkpointDiffLines('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n', 'first', 80, paint(false))[0]).toBe('1 file changed since first on this branch:');
  });
});

describe('/rewind', () => {
  it('its argument: the entry (a label may hold spaces) and the flags; unknown and contradictory flags are refused', () => {
    expect(parseRewindArg('')).toEqual({ entry: '', flags: new Set() });
    expect(parseRewindArg('my label --yes --files-only')).toEqual({ entry: 'my label', flags: new Set(['--yes', '--files-only']) });
    expect(() => parseRewindArg('abc --hard')).toThrow(/unknown flag --hard/);
    expect(() => parseRewindArg('abc --files-only --conversation-only')).toThrow(/cannot be combined/);
  });

  it("its picker offers the active branch's prompts and answers (and labelled entries), newest first", () => {
    const entry = (id: string, parentId: string | null, kind: string, preview: string, label: string | null = null) => ({ id, parentId, type: 'message', kind, preview, timestamp: '2026-01-02T03:04:05Z', label, active: true, children: [] });
    const tree = {
      leafId: 'e6',
      entries: [
        entry('e1', null, 'user', 'first prompt'),
        entry('e2', 'e1', 'assistant', '→ write_file({"path":"a"})'),
        entry('e3', 'e2', 'result', '✓ write_file: wrote a', 'after-write'),
        entry('e4', 'e3', 'assistant', 'written'),
        { ...entry('x1', 'e4', 'user', 'another branch'), active: false },
        entry('e5', 'e4', 'user', 'second prompt'),
        entry('e6', 'e5', 'assistant', 'done'),
      ],
    } as unknown as TreeJson;
    const items = rewindItems(tree);
    expect(items.map((i) => [i.id, i.title])).toEqual([
      ['e6', 'answer: done'],
      ['e5', 'you: second prompt'],
      ['e4', 'answer: written'],
      ['e3', 'result: ✓ write_file: wrote a'],
      ['e1', 'you: first prompt'],
    ]);
    expect(items[0].detail).toBe('e6 · 2026-01-02\u00a003:04 · here now');
    expect(items[3].detail).toContain('label: after-write');
  });

  it('the confirmation runs the chosen rewind as a command line; files changed outside the agent need o after the choice', () => {
    const ran: string[] = [];
    const run = (line: string) => void ran.push(line);
    const plain = new RewindConfirm('e1', 'user e1: first prompt', ['restore a.txt'], [], run);
    expect(plain.frame(60, 20, paint(false)).lines.join('\n')).toMatch(/Rewind to user e1: first prompt\n {2}restore a\.txt\n❯ \[b\] Files and conversation/);
    expect(plain.key(named('enter'))).toBe('close');
    const down = new RewindConfirm('e1', 'x', [], [], run);
    down.key(named('down'));
    expect(down.key(named('enter'))).toBe('close');
    expect(new RewindConfirm('e1', 'x', [], [], run).key(text('c'))).toBe('close');
    expect(new RewindConfirm('e1', 'x', [], [], run).key(named('escape'))).toBe('close');
    expect(ran).toEqual(['/rewind e1 --yes', '/rewind e1 --yes --files-only', '/rewind e1 --yes --conversation-only']);

    ran.length = 0;
    const outside = new RewindConfirm('e1', 'x', ['restore a.txt (changed outside the agent since)'], ['a.txt'], run);
    expect(outside.key(named('enter'))).toBeUndefined(); // not yet: the overwrite question
    expect(outside.frame(60, 20, paint(false)).lines.join('\n')).toMatch(/a\.txt changed outside the agent since its last change\.\s+Overwrite it with its state at e1\?/);
    expect(outside.key(named('enter'))).toBeUndefined(); // Enter does not overwrite
    expect(outside.key(named('escape'))).toBeUndefined(); // back to the choice
    expect(outside.key(text('c'))).toBe('close'); // conversation only touches no file: no question
    const forced = new RewindConfirm('e1', 'x', [], ['a.txt'], run);
    forced.key(text('f'));
    expect(forced.key(text('o'))).toBe('close');
    const declined = new RewindConfirm('e1', 'x', [], ['a.txt'], run);
    declined.key(named('enter'));
    expect(declined.key(text('n'))).toBe('close');
    expect(ran).toEqual(['/rewind e1 --yes --conversation-only', '/rewind e1 --yes --files-only --force']);

    // /rewind ENTRY --files-only starts on that choice; --force asks no second question.
    ran.length = 0;
    const filesFirst = new RewindConfirm('e1', 'x', [], [], run, 1);
    expect(filesFirst.frame(80, 20, paint(false)).lines.join('\n')).toMatch(/❯ \[f\] Files only/);
    filesFirst.key(named('enter'));
    new RewindConfirm('e1', 'x', ['restore a.txt (changed outside the agent since)'], [], run).forcing().key(named('enter'));
    expect(ran).toEqual(['/rewind e1 --yes --files-only', '/rewind e1 --yes --force']);
  });
});
