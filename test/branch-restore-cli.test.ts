// `--branch ENTRY --restore-files` (issue 26 §2), the CLI in process: branching and restoring the
// files in one step, without a prompt (no agent) and with one (before the run), with
// --summarize-left; refused, with nothing changed, when a file was changed outside the agent
// (unless --force); a usage error without --branch.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../src/session/store.js';
import { cliInProcess } from './support/cli-in-process.js';
import { editingSession } from './support/checkpoint-session.js';
import { summaryTurn } from './support/compaction.js';
import { writeScript } from './support/helpers.js';

const read = (cwd: string, path: string) => (existsSync(join(cwd, path)) ? readFileSync(join(cwd, path), 'utf8') : null);
const leafOf = (file: string) => SessionStore.open(file).leafId;

async function closedSession() {
  const s = await editingSession('n.md');
  await s.agent.close();
  return s;
}

describe('--branch ENTRY --restore-files', () => {
  it('without a prompt: the files go back to their state at ENTRY and the leaf moves there; no model is needed', async () => {
    const { cwd, home, file, written } = await closedSession();
    const r = await cliInProcess(['--session', file, '--branch', written.slice(0, 8), '--restore-files'], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^active leaf of session [0-9a-f-]{36} is now ${written}\\n$`));
    expect(r.stderr).toContain(`mini-agent: restored a.txt, n.md to their state at ${written}\n`);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md'), read(cwd, 'keep.txt')]).toEqual(['one\ntwo\n', null, 'the user wrote this\n']);
    expect(leafOf(file)).toBe(written);
    // Again at the same entry: nothing left to restore, said so.
    const again = await cliInProcess(['--session', file, '--branch', written, '--restore-files'], { cwd, home });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`the files are as they were at ${written}: nothing to restore`);
  });

  it('with a prompt: restored before the run, and the prompt continues from ENTRY', async () => {
    const { cwd, home, file, written } = await closedSession();
    const script = writeScript(cwd, [{ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'read it again' }], 'branch.json');
    const r = await cliInProcess(['--session', file, '--branch', written, '--restore-files', '--script', script, 'look again'], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('read it again');
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['one\ntwo\n', null]);
    const store = SessionStore.open(file);
    const prompt = store.activePath().find((e) => e.type === 'message' && e.message.role === 'user' && JSON.stringify(e.message.content).includes('look again'));
    expect(prompt?.parentId).toBe(written);
    // What the model read is the restored file.
    expect(JSON.stringify(store.activePath().at(-2))).toContain('one\\ntwo');
  });

  it('with --summarize-left: the summary goes on the new branch and the files are restored', async () => {
    const { cwd, home, file, written } = await closedSession();
    const script = writeScript(cwd, [summaryTurn('FACT: a.txt was edited on the left branch')], 'left.json');
    const r = await cliInProcess(['--session', file, '--branch', written, '--restore-files', '--summarize-left', '--script', script], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/left the branch with a summary of \d+ entries/);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['one\ntwo\n', null]);
    const store = SessionStore.open(file);
    expect(store.get(store.leafId!)).toMatchObject({ type: 'branch_summary', parentId: written });
  });

  it('a file changed outside the agent: refused with a usage error naming it, nothing changed (files or leaf); --force overwrites it', async () => {
    const { cwd, home, file, written, edited } = await closedSession();
    writeFileSync(join(cwd, 'a.txt'), 'by hand\n');
    const refused = await cliInProcess(['--session', file, '--branch', written, '--restore-files'], { cwd, home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not branched: a\.txt was changed outside the agent since its last change; give --force to overwrite it, or leave out --restore-files/);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['by hand\n', 'note\n']);
    expect(leafOf(file)).toBe(edited);
    // With a prompt too: refused before the run (the model is never asked).
    const script = writeScript(cwd, [{ text: 'never' }], 'never.json');
    const withPrompt = await cliInProcess(['--session', file, '--branch', written, '--restore-files', '--script', script, 'go'], { cwd, home });
    expect(withPrompt.code).toBe(2);
    expect(withPrompt.stdout).not.toContain('never');
    expect(leafOf(file)).toBe(edited);

    const forced = await cliInProcess(['--session', file, '--branch', written, '--restore-files', '--force'], { cwd, home });
    expect(forced.code, forced.stderr).toBe(0);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['one\ntwo\n', null]);
    expect(leafOf(file)).toBe(written);
    // A rewind back to the entry left gives the files as they were when it was left: the hand edit too (recorded there before it was overwritten).
    const back = await cliInProcess(['rewind', file, edited, '--yes'], { cwd, home });
    expect(back.code, back.stderr).toBe(0);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['by hand\n', 'note\n']);
  });

  it('usage errors: without --branch, --force without --restore-files, a session file that does not exist', async () => {
    const { cwd, home, file, written } = await closedSession();
    const alone = await cliInProcess(['--session', file, '--restore-files'], { cwd, home });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--restore-files goes with --branch ENTRY/);
    const withFork = await cliInProcess(['--session', file, '--fork', written, '--restore-files'], { cwd, home });
    expect(withFork.code).toBe(2);
    expect(withFork.stderr).toMatch(/--restore-files goes with --branch ENTRY/);
    const force = await cliInProcess(['--session', file, '--branch', written, '--force'], { cwd, home });
    expect(force.code).toBe(2);
    expect(force.stderr).toMatch(/--force go with the rewind command/);
    const missing = await cliInProcess(['--session', join(cwd, 'nope.jsonl'), '--branch', written, '--restore-files'], { cwd, home });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/session file not found/);
    expect(existsSync(join(cwd, 'nope.jsonl'))).toBe(false);
    expect(read(cwd, 'n.md')).toBe('note\n'); // none of them touched a file
  });
});
