// Navigating sessions: --branch, --fork, --resume, -c, labels and names, across reopenings.
// The navigation itself runs in process, through createAgent (what every front end runs) and
// the store: each step opens the session afresh and closes it, as a new CLI process would. The
// last block runs the real CLI (bin/mini-agent → dist/) once per command and flag, for what
// only the CLI does: its output lines, its exit codes, its own checks.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import type { ScriptTurn } from '../src/model/script.js';
import { newSessionFile, sessionsDir } from '../src/session/paths.js';
import { SessionStore } from '../src/session/store.js';
import { cliInProcess } from './support/cli-in-process.js';
import { runCli, tempDir, writeScript } from './support/helpers.js';
import { agentLabel, agentName, agentOpen, agentRun, expectValidActivePath, fileLines, jsonRun, treeOf, usageError, userText, withStore, type AgentRun } from './support/sessions.js';
import { SESSION_FORMAT_VERSION as CURRENT } from '../src/session/entries.js';

const answer = (text: string): ScriptTurn[] => [{ text }];

/** The assistant entry id a run announced last. */
function lastAnswer(r: AgentRun): string {
  const ends = r.events.filter((e) => e.type === 'message_end');
  const last = ends.at(-1);
  if (last?.type !== 'message_end') throw new Error(`no message_end in: ${JSON.stringify(r.events)}`);
  return last.entryId;
}

/** The run completed (the CLI's exit code 0). */
function ok(r: AgentRun): AgentRun {
  expect(r.result.stopReason, `stop reason; error: ${JSON.stringify(r.result.error)}`).toBe('completed');
  return r;
}

/** The shortest prefix (at least `min` chars) of `id` that no other id starts with. */
function uniquePrefix(id: string, others: readonly string[], min = 3): string {
  for (let n = min; n <= id.length; n++) {
    const p = id.slice(0, n);
    if (!others.some((o) => o !== id && o.startsWith(p))) return p;
  }
  return id;
}

function env(home: string) {
  return { MINI_AGENT_HOME: home };
}

function dirs() {
  return { cwd: tempDir(), home: tempDir('mini-agent-home-') };
}

describe('navigation: --branch', () => {
  it('a branch made in a later run survives reopening; both branches stay intact', async () => {
    const o = dirs();
    const file = join(o.cwd, 'exp.jsonl');
    const at = { ...o, session: { file } };
    const run1 = ok(await agentRun(answer('first answer'), 'm1', at));
    const p1 = run1.start!.promptEntryId;
    const a1 = lastAnswer(run1);
    const run2 = ok(await agentRun(answer('second answer'), 'm2', at));
    const p2 = run2.start!.promptEntryId;
    const a2 = lastAnswer(run2);
    expect(withStore(file, (s) => s.get(p2)?.parentId)).toBe(a1);
    const beforeBranch = readFileSync(file);

    const run3 = ok(await agentRun(answer('branched answer'), 'm3', { ...at, branch: a1 }));
    const p3 = run3.start!.promptEntryId;
    const a3 = lastAnswer(run3);

    // A fresh reader sees the new branch as active, and the old one untouched.
    const tree = treeOf(file, o);
    expect(tree.leafId).toBe(a3);
    expect(tree.branches).toBe(2);
    const byId = new Map(tree.entries.map((e) => [e.id, e]));
    expect(byId.get(a1)!.children).toEqual([p2, p3]);
    expect(byId.get(p3)!.parentId).toBe(a1);
    expect(byId.get(a3)!.parentId).toBe(p3);
    expect(byId.get(a2)!.parentId).toBe(p2);
    expect(tree.entries.filter((e) => e.active).map((e) => e.id)).toEqual([p1, a1, p3, a3]);
    expect(byId.get(p2)!.active).toBe(false);
    expect(byId.get(a2)!.active).toBe(false);
    expect(byId.get(a2)!.preview).toBe('second answer');
    // The old branch's entries are the same bytes: the file was only appended to.
    const now = readFileSync(file);
    expect(now.subarray(0, beforeBranch.length).equals(beforeBranch)).toBe(true);
    withStore(file, (s) => {
      expect(s.pathTo(a2).map((e) => e.id)).toEqual([p1, a1, p2, a2]);
      expect(s.activePath().map((e) => e.id)).toEqual([p1, a1, p3, a3]);
    });

    // Reopening without --branch continues the new branch.
    const run4 = ok(await agentRun(answer('fourth'), 'm4', at));
    expect(withStore(file, (s) => s.get(run4.start!.promptEntryId)?.parentId)).toBe(a3);

    // --branch without a prompt only moves the leaf (persisted), by a unique id prefix.
    const ids = tree.entries.map((e) => e.id);
    await agentOpen({ ...at, branch: uniquePrefix(a2, ids) });
    expect(treeOf(file, o).leafId).toBe(a2);
    const run5 = ok(await agentRun(answer('back on the old branch'), 'm5', at));
    withStore(file, (s) => {
      expect(s.get(run5.start!.promptEntryId)?.parentId).toBe(a2);
      expect(s.branchCount()).toBe(2);
      expectValidActivePath(s, 'after moving back');
    });
  });

  it('--branch by id prefix and by label; the last label wins; --clear removes it', async () => {
    const o = dirs();
    const file = join(o.cwd, 'labels.jsonl');
    const at = { ...o, session: { file } };
    const r1 = ok(await agentRun(answer('one'), 'q1', at));
    const a1 = lastAnswer(r1);
    const r2 = ok(await agentRun(answer('two'), 'q2', at));
    const a2 = lastAnswer(r2);

    expect(await agentLabel(o, file, a1, 'checkpoint')).toBe(a1);
    const byLabel = ok(await agentRun(answer('from the label'), 'q3', { ...at, branch: 'checkpoint' }));
    expect(withStore(file, (s) => s.get(byLabel.start!.promptEntryId)?.parentId)).toBe(a1);

    const ids = withStore(file, (s) => s.entries().map((e) => e.id));
    const byPrefix = ok(await agentRun(answer('from the prefix'), 'q4', { ...at, branch: uniquePrefix(a2, ids) }));
    expect(withStore(file, (s) => s.get(byPrefix.start!.promptEntryId)?.parentId)).toBe(a2);

    // A label may be set on the label target by prefix too; the last label entry wins.
    expect(await agentLabel(o, file, uniquePrefix(a1, ids), 'renamed')).toBe(a1);
    let tree = treeOf(file, o);
    expect(tree.entries.find((e) => e.id === a1)!.label).toBe('renamed');
    expect(await usageError(() => agentOpen({ ...at, branch: 'checkpoint' }))).toContain('entry "checkpoint" is not in session');
    await agentOpen({ ...at, branch: 'renamed' });
    expect(treeOf(file, o).leafId).toBe(a1);

    expect(await agentLabel(o, file, 'renamed', null)).toBe(a1);
    tree = treeOf(file, o);
    expect(tree.entries.every((e) => e.label === null)).toBe(true);
    await usageError(() => agentOpen({ ...at, branch: 'renamed' }));
    // Labels are control entries: the file holds all three, the last one (null) wins on load.
    const labels = fileLines(file).filter((e) => e.type === 'label');
    expect(labels.map((e) => e.label)).toEqual(['checkpoint', 'renamed', null]);

    // A label name shared by two entries is ambiguous: both are listed.
    await agentLabel(o, file, a1, 'twin');
    await agentLabel(o, file, a2, 'twin');
    const twin = await usageError(() => agentOpen({ ...at, branch: 'twin' }));
    expect(twin).toContain(a1);
    expect(twin).toContain(a2);

    // Bad labels are usage errors and write nothing (an empty label: the CLI block below).
    const before = readFileSync(file);
    await usageError(() => agentLabel(o, file, 'ffffffff0', 'x'));
    const runEntry = fileLines(file).find((e) => e.type === 'run')!.id as string;
    expect(await usageError(() => agentLabel(o, file, runEntry, 'x'))).toContain('is a run entry');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('an ambiguous prefix lists the candidates; an unknown entry suggests the closest; another session’s entry is refused', async () => {
    const o = dirs();
    const { cwd } = o;
    const file = join(cwd, 'many.jsonl');
    const at = { ...o, session: { file } };
    // 2 runs × (prompt + 2 answers + 8 results) = 22 content entries: two of them share a first hex digit.
    const reads: ScriptTurn[] = [{ text: 'Reading.', toolCalls: Array.from({ length: 8 }, (_, k) => ({ name: 'read_file', arguments: { path: `missing-${k}.txt` } })) }, { text: 'Done.' }];
    ok(await agentRun(reads, 'first', at));
    ok(await agentRun(reads, 'second', at));
    const ids = withStore(file, (s) =>
      s
        .entries()
        .filter((e) => e.type === 'message')
        .map((e) => e.id),
    );
    expect(ids.length).toBe(22);
    const byFirst = new Map<string, string[]>();
    for (const id of ids) byFirst.set(id[0], [...(byFirst.get(id[0]) ?? []), id]);
    const [prefix, shared] = [...byFirst].find(([, list]) => list.length >= 2)!;
    const sessionId = withStore(file, (s) => s.id);
    const before = readFileSync(file);

    const amb = await usageError(() => agentRun(answer('never'), 'x', { ...at, branch: prefix }));
    expect(amb).toContain(`"${prefix}" matches ${shared.length} entries of session ${sessionId}`);
    for (const id of shared.slice(0, 10)) expect(amb).toContain(id);
    expect(amb).toContain('give more of the id');

    // One character off: not found, and the entry it was meant to be comes first.
    const target = ids[5];
    const typo = target.slice(0, 7) + (target[7] === '0' ? '1' : '0');
    expect(ids).not.toContain(typo);
    expect(await usageError(() => agentOpen({ ...at, branch: typo }))).toContain(`entry "${typo}" is not in session ${sessionId}; closest: ${target}`);

    // An entry of another session is not in this one.
    const otherFile = join(cwd, 'other.jsonl');
    const other = ok(await agentRun(answer('elsewhere'), 'other', { ...o, session: { file: otherFile } }));
    const foreign = lastAnswer(other);
    expect(ids).not.toContain(foreign);
    expect(await usageError(() => agentOpen({ ...at, branch: foreign }))).toContain(`entry "${foreign}" is not in session ${sessionId}`);
    expect(await usageError(() => agentOpen({ ...at, fork: foreign }))).toContain(`is not in session ${sessionId}`);

    // None of this wrote anything, and no lock is left behind.
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(
      readdirSync(cwd)
        .filter((f) => f.endsWith('.jsonl'))
        .sort(),
    ).toEqual(['many.jsonl', 'other.jsonl']);
  });
});

describe('navigation: --fork', () => {
  it('writes a new session holding root → entry with its labels; the fork and the parent never touch each other', async () => {
    const o = dirs();
    const { cwd, home } = o;
    const file = join(cwd, 'parent.jsonl');
    const at = { ...o, session: { file } };
    const r1 = ok(await agentRun([{ text: 'Looking.', toolCalls: [{ name: 'read_file', arguments: { path: 'nope.txt' } }] }, { text: 'Not there.' }], 'find nope.txt', at));
    const p1 = r1.start!.promptEntryId;
    const a1 = lastAnswer(r1);
    const r2 = ok(await agentRun(answer('later answer'), 'later', at));
    const a2 = lastAnswer(r2);
    await agentLabel(o, file, p1, 'start');
    await agentLabel(o, file, a2, 'after-fork-point');
    const parentId = withStore(file, (s) => s.id);
    const parentPath = withStore(file, (s) => s.pathTo(a1));
    expect(parentPath).toHaveLength(4);

    // Without a prompt: the fork is created and named; the parent is untouched.
    const parentBefore = readFileSync(file);
    const fork = await agentOpen({ ...at, fork: a1 });
    const [forkId, forkFile] = [fork.id, fork.file!];
    expect(forkFile.startsWith(sessionsDir(cwd, env(home)) + '/')).toBe(true);
    expect(forkFile.endsWith(`_${forkId}.jsonl`)).toBe(true);
    expect(fork.notes.join('\n')).toContain(`forked session ${parentId} at ${a1} into ${forkId}`);
    expect(readFileSync(file).equals(parentBefore)).toBe(true);
    expect(existsSync(`${forkFile}.lock`)).toBe(false);

    const lines = fileLines(forkFile);
    expect(lines[0]).toMatchObject({ type: 'session', version: CURRENT, id: forkId, cwd, parentSession: { id: parentId, path: file, entryId: a1 } });
    // Exactly the path, byte-for-byte the same entries, then the labels on it (and only those).
    expect(lines.slice(1, 5)).toEqual(JSON.parse(JSON.stringify(parentPath)));
    expect(lines.slice(5)).toEqual([expect.objectContaining({ type: 'label', targetId: p1, label: 'start' })]);
    withStore(forkFile, (s) => {
      expect(s.warnings).toEqual([]);
      expect(s.leafId).toBe(a1);
      expect(s.labelOf(p1)).toBe('start');
      expect(s.get(a2)).toBeUndefined();
      expectValidActivePath(s, 'fork');
    });
    expect(treeOf(forkId, o).session.parentSession).toEqual({ id: parentId, path: file, entryId: a1 });

    // With a prompt: the run continues in a second fork (by label), the parent is unchanged.
    const inFork = ok(await agentRun(answer('fork answer'), 'in the fork', { ...at, fork: 'start' }));
    const fork2 = inFork.start!.session!;
    expect(fork2.id).not.toBe(parentId);
    expect(fork2.id).not.toBe(forkId);
    expect(inFork.notes.join('\n')).toContain(`forked session ${parentId} at ${p1}`);
    expect(readFileSync(file).equals(parentBefore)).toBe(true);
    withStore(fork2.file!, (s) => {
      expect(s.header.parentSession).toEqual({ id: parentId, path: file, entryId: p1 });
      expect(
        s
          .activePath()
          .map((e) => e.id)
          .slice(0, 2),
      ).toEqual([p1, inFork.start!.promptEntryId]);
      expect(userText(s.get(inFork.start!.promptEntryId))).toBe('in the fork');
      expect(s.entries().at(-1)).toMatchObject({ type: 'run', stopReason: 'completed' });
    });

    // Independence, both ways.
    const forkBefore = readFileSync(forkFile);
    ok(await agentRun(answer('more in the fork'), 'fork again', { ...o, session: { resume: forkId } }));
    await agentLabel(o, forkId, a1, 'fork-only');
    expect(readFileSync(file).equals(parentBefore)).toBe(true);
    const forkAfter = readFileSync(forkFile);
    expect(forkAfter.length).toBeGreaterThan(forkBefore.length);
    ok(await agentRun(answer('more in the parent'), 'parent again', at));
    await agentLabel(o, file, a1, 'parent-only');
    expect(readFileSync(forkFile).equals(forkAfter)).toBe(true);
    expect(withStore(forkFile, (s) => s.labelOf(a1))).toBe('fork-only');
    expect(withStore(file, (s) => s.labelOf(a1))).toBe('parent-only');
  });

  it('a fork of a missing entry is refused and creates nothing', async () => {
    const o = dirs();
    const { cwd, home } = o;
    const file = join(cwd, 'p.jsonl');
    const at = { ...o, session: { file } };
    ok(await agentRun(answer('a'), 'q', at));
    const before = readFileSync(file);
    for (const spec of ['0123abcd', 'no-such-label']) {
      expect(await usageError(() => agentOpen({ ...at, fork: spec }))).toContain(`entry "${spec}" is not in session`);
    }
    const runEntry = fileLines(file).find((e) => e.type === 'run')!.id as string;
    expect(await usageError(() => agentOpen({ ...at, fork: runEntry }))).toContain('is a run entry');
    expect(existsSync(sessionsDir(cwd, env(home)))).toBe(false);
    expect(readFileSync(file).equals(before)).toBe(true);
    // A session file that does not exist has nothing to fork or branch from: a usage error, and no file appears.
    for (const flag of ['fork', 'branch'] as const) {
      const missing = join(cwd, `missing--${flag}.jsonl`);
      expect(await usageError(() => agentOpen({ ...o, session: { file: missing }, [flag]: '0123abcd' }))).toContain('session file not found');
      expect(existsSync(missing)).toBe(false);
    }
  });
});

describe('navigation: choosing the session', () => {
  it('--resume by full id, by unique prefix and by name; unknown sessions suggest the closest', async () => {
    const o = dirs();
    const s1 = ok(await agentRun(answer('one'), 'first session', o)).start!.session!;
    const s2 = ok(await agentRun(answer('two'), 'second session', o)).start!.session!;
    expect(s1.id).not.toBe(s2.id);

    const byId = ok(await agentRun(answer('again'), 'by id', { ...o, session: { resume: s1.id } }));
    expect(byId.start!.session).toEqual(s1);
    const prefix = uniquePrefix(s2.id, [s1.id], 4);
    const byPrefix = ok(await agentRun(answer('again'), 'by prefix', { ...o, session: { resume: prefix } }));
    expect(byPrefix.start!.session).toEqual(s2);

    await agentName(o, s1.id.slice(0, 8), 'Refactor the parser');
    const byName = ok(await agentRun(answer('again'), 'by name', { ...o, session: { resume: 'Refactor the parser' } }));
    expect(byName.start!.session).toEqual(s1);
    expect(treeOf('Refactor the parser', o).session.name).toBe('Refactor the parser');

    // A session of another workspace is found by id.
    const elsewhere = tempDir();
    const fromThere = ok(await agentRun(answer('from elsewhere'), 'from another folder', { ...o, cwd: elsewhere, session: { resume: s2.id } }));
    expect(fromThere.start!.session).toEqual(s2);

    const unknown = await usageError(() => agentRun(answer('never'), 'p', { ...o, session: { resume: 'Refactor the parsre' } }));
    expect(unknown).toContain('no session matches "Refactor the parsre"; closest: Refactor the parser');
    const unknownId = await usageError(() => treeOf('ffffffff-0000', o));
    expect(unknownId).toMatch(/no session matches "ffffffff-0000"; closest: [0-9a-f-]{36}/);
    expect(unknownId).toContain('mini-agent sessions --all');
  });

  it('an ambiguous session prefix lists the candidates', async () => {
    const o = dirs();
    const { cwd, home } = o;
    const dir = sessionsDir(cwd, env(home));
    // Sessions until two share a first hex digit (at most 17).
    const byFirst = new Map<string, string[]>();
    let shared: string[] | undefined;
    for (let k = 0; !shared; k++) {
      const id = randomUUID();
      const store = SessionStore.create(newSessionFile(cwd, id, new Date(Date.UTC(2024, 0, 1, 0, 0, k)), env(home)), { cwd, id });
      store.appendMessage({ role: 'user', content: [{ type: 'text', text: `session ${k}` }] });
      store.close();
      const list = [...(byFirst.get(id[0]) ?? []), id];
      byFirst.set(id[0], list);
      if (list.length === 2) shared = list;
    }
    expect(readdirSync(dir).length).toBeLessThanOrEqual(17);
    const prefix = shared[0][0];
    const r = await usageError(() => agentRun(answer('never'), 'p', { ...o, session: { resume: prefix } }));
    expect(r).toContain(`"${prefix}" matches 2 sessions; give more of the id`);
    for (const id of shared) expect(r).toContain(id.slice(0, 8));
    expect(await usageError(() => treeOf(prefix, o))).toContain(`"${prefix}" matches 2 sessions`);
    // One more character settles it (the ids differ somewhere).
    const longer = uniquePrefix(shared[1], shared, 2);
    expect(treeOf(longer, o).session.id).toBe(shared[1]);
  });

  it('-c continues the most recently used session, not the last created', async () => {
    const o = dirs();
    const last = { ...o, session: 'continue' as const };
    expect(await usageError(() => agentRun(answer('never'), 'p', last))).toContain('no session to continue in this workspace');

    const a = ok(await agentRun(answer('A'), 'session A', o));
    const b = ok(await agentRun(answer('B'), 'session B', o));
    // Appending a label to A makes it the most recently used.
    await agentLabel(o, a.start!.session!.id, a.start!.promptEntryId, 'touched');
    const c1 = ok(await agentRun(answer('continued'), 'continue', last));
    expect(c1.start!.session).toEqual(a.start!.session);
    expect(withStore(a.start!.session!.file!, (s) => s.get(c1.start!.promptEntryId)?.parentId)).toBe(lastAnswer(a));
    // A run on B makes B the most recent.
    ok(await agentRun(answer('B again'), 'B again', { ...o, session: { resume: b.start!.session!.id } }));
    const c2 = ok(await agentRun(answer('continued'), 'continue', last));
    expect(c2.start!.session).toEqual(b.start!.session);
    // `tree` without SESSION shows the most recent one too.
    expect(treeOf(undefined, o).session.id).toBe(b.start!.session!.id);
  });

  it('a run without -c, --resume or --session starts a new session file each time', async () => {
    const o = dirs();
    const runs = [];
    for (const p of ['one', 'two', 'three']) runs.push(ok(await agentRun(answer(p), p, o)));
    const sessions = runs.map((r) => r.start!.session!);
    expect(new Set(sessions.map((s) => s.id)).size).toBe(3);
    const dir = sessionsDir(o.cwd, env(o.home));
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort(),
    ).toEqual(sessions.map((s) => s.file!.slice(dir.length + 1)).sort());
    for (const [i, s] of sessions.entries()) {
      withStore(s.file!, (store) => {
        expect(store.header.id).toBe(s.id);
        expect(store.header.cwd).toBe(o.cwd);
        expect(
          store
            .activePath()
            .map((e) => userText(e))
            .filter(Boolean),
        ).toEqual([['one', 'two', 'three'][i]]);
      });
    }
  });
});

describe('navigation: -c skips what is not a session', () => {
  it('an empty or foreign file newer than the last session does not capture -c', async () => {
    const o = dirs();
    ok(await agentRun([{ text: 'first' }], 'one', o));
    const dir = sessionsDir(o.cwd, env(o.home));
    mkdirSync(dir, { recursive: true });
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(join(dir, 'zz-empty.jsonl'), '');
    writeFileSync(join(dir, 'zz-junk.jsonl'), 'not json\n');
    const r = ok(await agentRun([{ text: 'second' }], 'two', { ...o, session: 'continue' }));
    expect(r.start!.session!.file).not.toMatch(/zz-/);
    expect(readFileSync(join(dir, 'zz-empty.jsonl'), 'utf8')).toBe('');
  });
});

describe('navigation: --session on something that is not a file', () => {
  it('a directory is a usage error naming it, and nothing is created', async () => {
    const { cwd, home } = dirs();
    mkdirSync(join(cwd, 'adir'));
    const script = writeScript(cwd, [{ text: 'x' }]);
    const message = await usageError(() => createAgent({ cwd, home, env: { HOME: home }, script, session: { file: join(cwd, 'adir') } }).then((a) => a.prompt('hi')));
    expect(message).toMatch(/adir is a directory, not a session file/);
    expect(readdirSync(cwd).sort()).toEqual(['adir', 'script.json']);
  });
});

describe('navigation through the CLI: its flags, output lines and exit codes', () => {
  it('--session, label (and --clear), --branch and --fork without a prompt, name, --resume and tree, each as a real process', async () => {
    const { cwd, home } = dirs();
    const run1 = await jsonRun([], answer('first answer'), 'm1', { cwd, home });
    expect(run1.code, run1.stderr).toBe(0);
    const file = run1.start!.session!.file!;
    const a1 = run1.events.filter((e) => e.type === 'message_end').at(-1);
    if (a1?.type !== 'message_end') throw new Error(`no answer: ${run1.stderr}`);
    const run2 = await jsonRun(['--session', file], answer('second answer'), 'm2', { cwd, home });
    expect(run2.code, run2.stderr).toBe(0);
    const ids = withStore(file, (s) => s.entries().map((e) => e.id));

    const label = await runCli(['label', file, a1.entryId, 'checkpoint'], { cwd, home });
    expect(label.code, label.stderr).toBe(0);
    expect(label.stdout).toContain(`labelled ${a1.entryId} "checkpoint"`);
    const move = await cliInProcess(['--session', file, '--branch', uniquePrefix(a1.entryId, ids)], { cwd, home });
    expect(move.code, move.stderr).toBe(0);
    expect(move.stdout).toContain(`is now ${a1.entryId}`);
    const clear = await cliInProcess(['label', file, 'checkpoint', '--clear'], { cwd, home });
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stdout).toContain(`cleared the label of ${a1.entryId}`);
    const old = await cliInProcess(['--session', file, '--branch', 'checkpoint'], { cwd, home });
    expect(old.code).toBe(2);
    expect(old.stderr).toContain('entry "checkpoint" is not in session');

    // Bad label commands are usage errors and write nothing; an empty label is the CLI's own check.
    const before = readFileSync(file);
    expect((await runCli(['label', file, a1.entryId, '  '], { cwd, home })).code).toBe(2);
    expect((await cliInProcess(['label', file, 'ffffffff0', 'x'], { cwd, home })).code).toBe(2);
    expect(readFileSync(file).equals(before)).toBe(true);

    const sessionId = withStore(file, (s) => s.id);
    const fork = await runCli(['--session', file, '--fork', a1.entryId], { cwd, home });
    expect(fork.code, fork.stderr).toBe(0);
    const [forkId, forkFile] = fork.stdout.trim().split(' ');
    expect(forkFile.startsWith(sessionsDir(cwd, env(home)) + '/')).toBe(true);
    expect(forkFile.endsWith(`_${forkId}.jsonl`)).toBe(true);
    expect(fork.stderr).toContain(`forked session ${sessionId} at ${a1.entryId} into ${forkId}`);

    const named = await cliInProcess(['name', sessionId.slice(0, 8), 'Refactor the parser'], { cwd, home });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain(`session ${sessionId} is now named "Refactor the parser"`);
    const byName = await jsonRun(['--resume', 'Refactor the parser'], answer('again'), 'by name', { cwd, home });
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.start!.session!.id).toBe(sessionId);
    const tree = await cliInProcess(['tree', '--json'], { cwd, home });
    expect(tree.code, tree.stderr).toBe(0);
    expect((JSON.parse(tree.stdout) as { session: { id: string } }).session.id).toBe(sessionId);
    const unknownId = await runCli(['tree', 'ffffffff-0000'], { cwd, home });
    expect(unknownId.code).toBe(2);
    expect(unknownId.stderr).toContain('mini-agent sessions --all');
  }, 90_000); // fifteen CLI processes in a row: on a busy 2-core machine well over 30 s

  it('-c with no session, and --session on a directory: exit 2 with the reason', async () => {
    const { cwd, home } = dirs();
    const none = await jsonRun(['-c'], answer('never'), 'p', { cwd, home });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no session to continue in this workspace');
    mkdirSync(join(cwd, 'adir'));
    const s = writeScript(cwd, [{ text: 'x' }]);
    const r = await cliInProcess(['--session', join(cwd, 'adir'), '--script', s, 'hi'], { cwd, home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/adir is a directory, not a session file/);
  });
});
