// Navigating sessions through the CLI: --branch, --fork, --resume, -c, labels and names,
// across process restarts. Run `npm run build` first.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../src/model/script.js';
import { newSessionFile, sessionsDir } from '../src/session/paths.js';
import type { SessionHeader } from '../src/session/entries.js';
import { SessionStore } from '../src/session/store.js';
import { runCli, tempDir } from './support/helpers.js';
import { expectValidActivePath, fileLines, jsonRun, userText, withStore, type JsonRun } from './support/sessions.js';
import { SESSION_FORMAT_VERSION as CURRENT } from '../src/session/entries.js';

const answer = (text: string): ScriptTurn[] => [{ text }];

interface TreeJson {
  session: { id: string; file: string; name: string | null; parentSession: SessionHeader['parentSession'] | null };
  leafId: string | null;
  branches: number;
  stats: { session: { turns: number }; activePath: { turns: number } };
  entries: { id: string; parentId: string | null; kind: string; preview: string; label: string | null; active: boolean; children: string[] }[];
}

async function treeJson(spec: string, cwd: string, home: string): Promise<TreeJson> {
  const r = await runCli(['tree', spec, '--json'], { cwd, home });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as TreeJson;
}

/** The assistant entry id a run announced last. */
function lastAnswer(r: JsonRun): string {
  const ends = r.events.filter((e) => e.type === 'message_end');
  const last = ends.at(-1);
  if (last?.type !== 'message_end') throw new Error(`no message_end in: ${r.stdout}\n${r.stderr}`);
  return last.entryId;
}

function ok(r: JsonRun): JsonRun {
  expect(r.code, `exit code; stderr: ${r.stderr}`).toBe(0);
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

describe('navigation: --branch', () => {
  it('a branch made in a later process survives restarts; both branches stay intact', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const file = join(cwd, 'exp.jsonl');
    const run1 = ok(await jsonRun(['--session', file], answer('first answer'), 'm1', { cwd, home }));
    const p1 = run1.start!.promptEntryId;
    const a1 = lastAnswer(run1);
    const run2 = ok(await jsonRun(['--session', file], answer('second answer'), 'm2', { cwd, home }));
    const p2 = run2.start!.promptEntryId;
    const a2 = lastAnswer(run2);
    expect(withStore(file, (s) => s.get(p2)?.parentId)).toBe(a1);
    const beforeBranch = readFileSync(file);

    const run3 = ok(await jsonRun(['--session', file, '--branch', a1], answer('branched answer'), 'm3', { cwd, home }));
    const p3 = run3.start!.promptEntryId;
    const a3 = lastAnswer(run3);

    // A new process sees the new branch as active, and the old one untouched.
    const tree = await treeJson(file, cwd, home);
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

    // Restarting without --branch continues the new branch.
    const run4 = ok(await jsonRun(['--session', file], answer('fourth'), 'm4', { cwd, home }));
    expect(withStore(file, (s) => s.get(run4.start!.promptEntryId)?.parentId)).toBe(a3);

    // --branch without a prompt only moves the leaf (persisted), by a unique id prefix.
    const ids = tree.entries.map((e) => e.id);
    const move = await runCli(['--session', file, '--branch', uniquePrefix(a2, ids)], { cwd, home });
    expect(move.code, move.stderr).toBe(0);
    expect(move.stdout).toContain(`is now ${a2}`);
    expect((await treeJson(file, cwd, home)).leafId).toBe(a2);
    const run5 = ok(await jsonRun(['--session', file], answer('back on the old branch'), 'm5', { cwd, home }));
    withStore(file, (s) => {
      expect(s.get(run5.start!.promptEntryId)?.parentId).toBe(a2);
      expect(s.branchCount()).toBe(2);
      expectValidActivePath(s, 'after moving back');
    });
  });

  it('--branch by id prefix and by label; the last label wins; --clear removes it', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const file = join(cwd, 'labels.jsonl');
    const r1 = ok(await jsonRun(['--session', file], answer('one'), 'q1', { cwd, home }));
    const a1 = lastAnswer(r1);
    const r2 = ok(await jsonRun(['--session', file], answer('two'), 'q2', { cwd, home }));
    const a2 = lastAnswer(r2);

    const label = await runCli(['label', file, a1, 'checkpoint'], { cwd, home });
    expect(label.code, label.stderr).toBe(0);
    expect(label.stdout).toContain(`labelled ${a1} "checkpoint"`);
    const byLabel = ok(await jsonRun(['--session', file, '--branch', 'checkpoint'], answer('from the label'), 'q3', { cwd, home }));
    expect(withStore(file, (s) => s.get(byLabel.start!.promptEntryId)?.parentId)).toBe(a1);

    const ids = withStore(file, (s) => s.entries().map((e) => e.id));
    const byPrefix = ok(await jsonRun(['--session', file, '--branch', uniquePrefix(a2, ids)], answer('from the prefix'), 'q4', { cwd, home }));
    expect(withStore(file, (s) => s.get(byPrefix.start!.promptEntryId)?.parentId)).toBe(a2);

    // A label may be set on the label target by prefix too; the last label entry wins.
    expect((await runCli(['label', file, uniquePrefix(a1, ids), 'renamed'], { cwd, home })).code).toBe(0);
    let tree = await treeJson(file, cwd, home);
    expect(tree.entries.find((e) => e.id === a1)!.label).toBe('renamed');
    const old = await runCli(['--session', file, '--branch', 'checkpoint'], { cwd, home });
    expect(old.code).toBe(2);
    expect(old.stderr).toContain('entry "checkpoint" is not in session');
    expect((await runCli(['--session', file, '--branch', 'renamed'], { cwd, home })).code).toBe(0);
    expect((await treeJson(file, cwd, home)).leafId).toBe(a1);

    const clear = await runCli(['label', file, 'renamed', '--clear'], { cwd, home });
    expect(clear.code, clear.stderr).toBe(0);
    expect(clear.stdout).toContain(`cleared the label of ${a1}`);
    tree = await treeJson(file, cwd, home);
    expect(tree.entries.every((e) => e.label === null)).toBe(true);
    expect((await runCli(['--session', file, '--branch', 'renamed'], { cwd, home })).code).toBe(2);
    // Labels are control entries: the file holds all three, the last one (null) wins on load.
    const labels = fileLines(file).filter((e) => e.type === 'label');
    expect(labels.map((e) => e.label)).toEqual(['checkpoint', 'renamed', null]);

    // A label name shared by two entries is ambiguous: both are listed.
    expect((await runCli(['label', file, a1, 'twin'], { cwd, home })).code).toBe(0);
    expect((await runCli(['label', file, a2, 'twin'], { cwd, home })).code).toBe(0);
    const twin = await runCli(['--session', file, '--branch', 'twin'], { cwd, home });
    expect(twin.code).toBe(2);
    expect(twin.stderr).toContain(a1);
    expect(twin.stderr).toContain(a2);

    // Bad label commands are usage errors and write nothing.
    const before = readFileSync(file);
    expect((await runCli(['label', file, a1, '  '], { cwd, home })).code).toBe(2);
    expect((await runCli(['label', file, 'ffffffff0', 'x'], { cwd, home })).code).toBe(2);
    const runEntry = fileLines(file).find((e) => e.type === 'run')!.id as string;
    const onControl = await runCli(['label', file, runEntry, 'x'], { cwd, home });
    expect(onControl.code).toBe(2);
    expect(onControl.stderr).toContain('is a run entry');
    expect(readFileSync(file).equals(before)).toBe(true);
  }, 90_000); // thirteen CLI processes in a row: on a busy 2-core machine (CI on Node 24) over 30 s

  it('an ambiguous prefix lists the candidates; an unknown entry suggests the closest; another session’s entry is refused', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const file = join(cwd, 'many.jsonl');
    // 2 runs × (prompt + 2 answers + 8 results) = 22 content entries: two of them share a first hex digit.
    const reads: ScriptTurn[] = [
      { text: 'Reading.', toolCalls: Array.from({ length: 8 }, (_, k) => ({ name: 'read_file', arguments: { path: `missing-${k}.txt` } })) },
      { text: 'Done.' },
    ];
    ok(await jsonRun(['--session', file], reads, 'first', { cwd, home }));
    ok(await jsonRun(['--session', file], reads, 'second', { cwd, home }));
    const ids = withStore(file, (s) => s.entries().filter((e) => e.type === 'message').map((e) => e.id));
    expect(ids.length).toBe(22);
    const byFirst = new Map<string, string[]>();
    for (const id of ids) byFirst.set(id[0], [...(byFirst.get(id[0]) ?? []), id]);
    const [prefix, shared] = [...byFirst].find(([, list]) => list.length >= 2)!;
    const sessionId = withStore(file, (s) => s.id);
    const before = readFileSync(file);

    const amb = await jsonRun(['--session', file, '--branch', prefix], answer('never'), 'x', { cwd, home });
    expect(amb.code).toBe(2);
    expect(amb.stderr).toContain(`"${prefix}" matches ${shared.length} entries of session ${sessionId}`);
    for (const id of shared.slice(0, 10)) expect(amb.stderr).toContain(id);
    expect(amb.stderr).toContain('give more of the id');

    // One character off: not found, and the entry it was meant to be comes first.
    const target = ids[5];
    const typo = target.slice(0, 7) + (target[7] === '0' ? '1' : '0');
    expect(ids).not.toContain(typo);
    const miss = await runCli(['--session', file, '--branch', typo], { cwd, home });
    expect(miss.code).toBe(2);
    expect(miss.stderr).toContain(`entry "${typo}" is not in session ${sessionId}; closest: ${target}`);

    // An entry of another session is not in this one.
    const otherFile = join(cwd, 'other.jsonl');
    const other = ok(await jsonRun(['--session', otherFile], answer('elsewhere'), 'other', { cwd, home }));
    const foreign = lastAnswer(other);
    expect(ids).not.toContain(foreign);
    const cross = await runCli(['--session', file, '--branch', foreign], { cwd, home });
    expect(cross.code).toBe(2);
    expect(cross.stderr).toContain(`entry "${foreign}" is not in session ${sessionId}`);
    const crossFork = await runCli(['--session', file, '--fork', foreign], { cwd, home });
    expect(crossFork.code).toBe(2);
    expect(crossFork.stderr).toContain(`is not in session ${sessionId}`);

    // None of this wrote anything, and no lock is left behind.
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(readdirSync(cwd).filter((f) => f.endsWith('.jsonl')).sort()).toEqual(['many.jsonl', 'other.jsonl']);
  });
});

describe('navigation: --fork', () => {
  it('writes a new session holding root → entry with its labels; the fork and the parent never touch each other', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const file = join(cwd, 'parent.jsonl');
    const r1 = ok(
      await jsonRun(
        ['--session', file],
        [{ text: 'Looking.', toolCalls: [{ name: 'read_file', arguments: { path: 'nope.txt' } }] }, { text: 'Not there.' }],
        'find nope.txt',
        { cwd, home },
      ),
    );
    const p1 = r1.start!.promptEntryId;
    const a1 = lastAnswer(r1);
    const r2 = ok(await jsonRun(['--session', file], answer('later answer'), 'later', { cwd, home }));
    const a2 = lastAnswer(r2);
    expect((await runCli(['label', file, p1, 'start'], { cwd, home })).code).toBe(0);
    expect((await runCli(['label', file, a2, 'after-fork-point'], { cwd, home })).code).toBe(0);
    const parentId = withStore(file, (s) => s.id);
    const parentPath = withStore(file, (s) => s.pathTo(a1));
    expect(parentPath).toHaveLength(4);

    // Without a prompt: the fork is created and named on stdout; the parent is untouched.
    const parentBefore = readFileSync(file);
    const fork = await runCli(['--session', file, '--fork', a1], { cwd, home });
    expect(fork.code, fork.stderr).toBe(0);
    const [forkId, forkFile] = fork.stdout.trim().split(' ');
    expect(forkFile.startsWith(sessionsDir(cwd, env(home)) + '/')).toBe(true);
    expect(forkFile.endsWith(`_${forkId}.jsonl`)).toBe(true);
    expect(fork.stderr).toContain(`forked session ${parentId} at ${a1} into ${forkId}`);
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
    const tree = await treeJson(forkId, cwd, home);
    expect(tree.session.parentSession).toEqual({ id: parentId, path: file, entryId: a1 });

    // With a prompt: the run continues in a second fork (by label), the parent is unchanged.
    const inFork = ok(await jsonRun(['--session', file, '--fork', 'start'], answer('fork answer'), 'in the fork', { cwd, home }));
    const fork2 = inFork.start!.session!;
    expect(fork2.id).not.toBe(parentId);
    expect(fork2.id).not.toBe(forkId);
    expect(inFork.stderr).toContain(`forked session ${parentId} at ${p1}`);
    expect(readFileSync(file).equals(parentBefore)).toBe(true);
    withStore(fork2.file!, (s) => {
      expect(s.header.parentSession).toEqual({ id: parentId, path: file, entryId: p1 });
      expect(s.activePath().map((e) => e.id).slice(0, 2)).toEqual([p1, inFork.start!.promptEntryId]);
      expect(userText(s.get(inFork.start!.promptEntryId))).toBe('in the fork');
      expect(s.entries().at(-1)).toMatchObject({ type: 'run', stopReason: 'completed' });
    });

    // Independence, both ways.
    const forkBefore = readFileSync(forkFile);
    ok(await jsonRun(['--resume', forkId], answer('more in the fork'), 'fork again', { cwd, home }));
    expect((await runCli(['label', forkId, a1, 'fork-only'], { cwd, home })).code).toBe(0);
    expect(readFileSync(file).equals(parentBefore)).toBe(true);
    const forkAfter = readFileSync(forkFile);
    expect(forkAfter.length).toBeGreaterThan(forkBefore.length);
    ok(await jsonRun(['--session', file], answer('more in the parent'), 'parent again', { cwd, home }));
    expect((await runCli(['label', file, a1, 'parent-only'], { cwd, home })).code).toBe(0);
    expect(readFileSync(forkFile).equals(forkAfter)).toBe(true);
    expect(withStore(forkFile, (s) => s.labelOf(a1))).toBe('fork-only');
    expect(withStore(file, (s) => s.labelOf(a1))).toBe('parent-only');
  });

  it('a fork of a missing entry is refused and creates nothing', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const file = join(cwd, 'p.jsonl');
    ok(await jsonRun(['--session', file], answer('a'), 'q', { cwd, home }));
    const before = readFileSync(file);
    for (const spec of ['0123abcd', 'no-such-label']) {
      const r = await runCli(['--session', file, '--fork', spec], { cwd, home });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`entry "${spec}" is not in session`);
    }
    const runEntry = fileLines(file).find((e) => e.type === 'run')!.id as string;
    const control = await runCli(['--session', file, '--fork', runEntry], { cwd, home });
    expect(control.code).toBe(2);
    expect(control.stderr).toContain('is a run entry');
    expect(existsSync(sessionsDir(cwd, env(home)))).toBe(false);
    expect(readFileSync(file).equals(before)).toBe(true);
    // A session file that does not exist has nothing to fork or branch from: a usage error, and no file appears.
    for (const flag of ['--fork', '--branch']) {
      const missing = join(cwd, `missing${flag}.jsonl`);
      const r = await runCli(['--session', missing, flag, '0123abcd'], { cwd, home });
      expect(r.code, `${flag}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('session file not found');
      expect(existsSync(missing)).toBe(false);
    }
  });
});

describe('navigation: choosing the session', () => {
  it('--resume by full id, by unique prefix and by name; unknown sessions suggest the closest', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const s1 = ok(await jsonRun([], answer('one'), 'first session', { cwd, home })).start!.session!;
    const s2 = ok(await jsonRun([], answer('two'), 'second session', { cwd, home })).start!.session!;
    expect(s1.id).not.toBe(s2.id);

    const byId = ok(await jsonRun(['--resume', s1.id], answer('again'), 'by id', { cwd, home }));
    expect(byId.start!.session).toEqual(s1);
    const prefix = uniquePrefix(s2.id, [s1.id], 4);
    const byPrefix = ok(await jsonRun(['--resume', prefix], answer('again'), 'by prefix', { cwd, home }));
    expect(byPrefix.start!.session).toEqual(s2);

    const named = await runCli(['name', s1.id.slice(0, 8), 'Refactor the parser'], { cwd, home });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain(`session ${s1.id} is now named "Refactor the parser"`);
    const byName = ok(await jsonRun(['--resume', 'Refactor the parser'], answer('again'), 'by name', { cwd, home }));
    expect(byName.start!.session).toEqual(s1);
    expect((await treeJson('Refactor the parser', cwd, home)).session.name).toBe('Refactor the parser');

    // A path works as SESSION too, and a session of another workspace is found by id.
    const elsewhere = tempDir();
    const fromThere = ok(await jsonRun(['--resume', s2.id], answer('from elsewhere'), 'from another folder', { cwd: elsewhere, home }));
    expect(fromThere.start!.session).toEqual(s2);

    const unknown = await jsonRun(['--resume', 'Refactor the parsre'], answer('never'), 'p', { cwd, home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no session matches "Refactor the parsre"; closest: Refactor the parser');
    const unknownId = await runCli(['tree', 'ffffffff-0000'], { cwd, home });
    expect(unknownId.code).toBe(2);
    expect(unknownId.stderr).toMatch(/no session matches "ffffffff-0000"; closest: [0-9a-f-]{36}/);
    expect(unknownId.stderr).toContain('mini-agent sessions --all');
  });

  it('an ambiguous session prefix lists the candidates', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
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
    const r = await jsonRun(['--resume', prefix], answer('never'), 'p', { cwd, home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`"${prefix}" matches 2 sessions; give more of the id`);
    for (const id of shared) expect(r.stderr).toContain(id.slice(0, 8));
    const tree = await runCli(['tree', prefix], { cwd, home });
    expect(tree.code).toBe(2);
    expect(tree.stderr).toContain(`"${prefix}" matches 2 sessions`);
    // One more character settles it (the ids differ somewhere).
    const longer = uniquePrefix(shared[1], shared, 2);
    expect((await treeJson(longer, cwd, home)).session.id).toBe(shared[1]);
  });

  it('-c continues the most recently used session, not the last created', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const none = await jsonRun(['-c'], answer('never'), 'p', { cwd, home });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no session to continue in this workspace');

    const a = ok(await jsonRun([], answer('A'), 'session A', { cwd, home }));
    const b = ok(await jsonRun([], answer('B'), 'session B', { cwd, home }));
    // Appending a label to A makes it the most recently used.
    expect((await runCli(['label', a.start!.session!.id, a.start!.promptEntryId, 'touched'], { cwd, home })).code).toBe(0);
    const c1 = ok(await jsonRun(['-c'], answer('continued'), 'continue', { cwd, home }));
    expect(c1.start!.session).toEqual(a.start!.session);
    expect(withStore(a.start!.session!.file!, (s) => s.get(c1.start!.promptEntryId)?.parentId)).toBe(lastAnswer(a));
    // A run on B makes B the most recent.
    ok(await jsonRun(['--resume', b.start!.session!.id], answer('B again'), 'B again', { cwd, home }));
    const c2 = ok(await jsonRun(['-c'], answer('continued'), 'continue', { cwd, home }));
    expect(c2.start!.session).toEqual(b.start!.session);
    // `tree` without SESSION shows the most recent one too.
    expect((await runCli(['tree', '--json'], { cwd, home }).then((r) => JSON.parse(r.stdout) as TreeJson)).session.id).toBe(b.start!.session!.id);
  });

  it('a run without -c, --resume or --session starts a new session file each time', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const runs = [];
    for (const p of ['one', 'two', 'three']) runs.push(ok(await jsonRun([], answer(p), p, { cwd, home })));
    const sessions = runs.map((r) => r.start!.session!);
    expect(new Set(sessions.map((s) => s.id)).size).toBe(3);
    const dir = sessionsDir(cwd, env(home));
    expect(readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()).toEqual(sessions.map((s) => s.file!.slice(dir.length + 1)).sort());
    for (const [i, s] of sessions.entries()) {
      withStore(s.file!, (store) => {
        expect(store.header.id).toBe(s.id);
        expect(store.header.cwd).toBe(cwd);
        expect(store.activePath().map((e) => userText(e)).filter(Boolean)).toEqual([['one', 'two', 'three'][i]]);
      });
    }
  });
});

describe('navigation: -c skips what is not a session', () => {
  it('an empty or foreign file newer than the last session does not capture -c', async () => {
    const { mkdirSync: mk, writeFileSync: wf, readFileSync: rf } = await import('node:fs');
    const { join: j } = await import('node:path');
    const { sessionsDir } = await import('../src/session/paths.js');
    const h = await import('./support/helpers.js');
    const cwd = h.tempDir();
    const home = h.tempDir();
    const s1 = h.writeScript(cwd, [{ text: 'first' }]);
    expect((await h.runCli(['--script', s1, 'one'], { cwd, home })).code).toBe(0);
    const dir = sessionsDir(cwd, { MINI_AGENT_HOME: home });
    mk(dir, { recursive: true });
    await new Promise((r) => setTimeout(r, 20));
    wf(j(dir, 'zz-empty.jsonl'), '');
    wf(j(dir, 'zz-junk.jsonl'), 'not json\n');
    const s2 = h.writeScript(cwd, [{ text: 'second' }], 's2.json');
    const r = await h.runCli(['-c', '--json', '--script', s2, 'two'], { cwd, home });
    expect(r.code).toBe(0);
    const start = h.parseJsonl(r.stdout)[0] as { type: string; session: { file: string } };
    expect(start.session.file).not.toMatch(/zz-/);
    expect(rf(j(dir, 'zz-empty.jsonl'), 'utf8')).toBe('');
  });
});

describe('navigation: --session on something that is not a file', () => {
  it('a directory is a usage error naming it, and nothing is created', async () => {
    const { mkdirSync: mk, readdirSync: rd } = await import('node:fs');
    const { join: j } = await import('node:path');
    const h = await import('./support/helpers.js');
    const cwd = h.tempDir();
    mk(j(cwd, 'adir'));
    const s = h.writeScript(cwd, [{ text: 'x' }]);
    const r = await h.runCli(['--session', j(cwd, 'adir'), '--script', s, 'hi'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/adir is a directory, not a session file/);
    expect(rd(cwd).sort()).toEqual(['adir', 'script.json']);
  });
});
