// The bounds of the file checkpoints (issue 26 §3): what a session's store takes, shown by
// `sessions` (table and JSON), the SDK's `session.checkpointsSize()` and the interactive `/status`;
// and `mini-agent gc`, which removes the stores of deleted sessions and of sessions older than
// checkpoints.maxAgeDays, never a session file, never a session in use, with --dry-run. Then a
// diff or rewind that needs a removed object fails with an error naming it, and writes nothing.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import type { Agent } from '../src/app/agent.js';
import { runCommand, type CommandContext } from '../src/interactive/commands.js';
import { paint } from '../src/interactive/view.js';
import { checkpointDirOf } from '../src/session/checkpoint-store.js';
import { answerId } from './support/checkpoint-session.js';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir, writeScript } from './support/helpers.js';

const DAY = 24 * 60 * 60 * 1000;

/** The first line of NAME.txt: three characters of the name's own. */
const first = (name: string) => `${name}___`.slice(0, 3);

/** A session in the home's sessions folder: write_file NAME.txt ("NAM\ntwo\n", 8 bytes), then edit_file it ("NAM\nthree\n", 10 bytes): 2 objects, 18 bytes. */
async function editedSession(cwd: string, home: string, name: string) {
  const script = writeScript(
    cwd,
    [
      // Content of its own (same size): sessions of one workspace share the objects they have in common (hard links), which is not what these tests are about.
      { toolCalls: [{ name: 'write_file', arguments: { path: `${name}.txt`, content: `${first(name)}\ntwo\n` } }] },
      { text: 'written' },
      { toolCalls: [{ name: 'edit_file', arguments: { path: `${name}.txt`, edits: [{ oldText: 'two', newText: 'three' }] } }] },
      { text: 'edited' },
    ],
    `${name}.json`,
  );
  const agent = await createAgent({ cwd, home, env: {}, script });
  await agent.prompt(`write ${name}`);
  await agent.prompt(`edit ${name}`);
  const file = agent.session.file!;
  return { agent, file, store: checkpointDirOf(file), written: answerId(file, 'written') };
}

/** Sets the modification time of `path` (and of everything under it, for a folder) to `days` ago. */
function age(path: string, days: number): void {
  const t = new Date(Date.now() - days * DAY);
  const all = statSync(path).isDirectory() ? [...readdirSync(path, { recursive: true }).map((p) => join(path, String(p))), path] : [path];
  for (const p of all) utimesSync(p, t, t);
}

/** The bytes of the objects under a store, counted on disk. */
function objectBytes(store: string): { bytes: number; objects: number } {
  const root = join(store, 'objects');
  const files = readdirSync(root, { recursive: true })
    .map((p) => join(root, String(p)))
    .filter((p) => statSync(p).isFile() && !p.endsWith('.tmp'));
  return { bytes: files.reduce((n, p) => n + statSync(p).size, 0), objects: files.length };
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** What `/status` prints, run in process as the interactive mode runs it. */
async function status(agent: Agent): Promise<string[]> {
  const lines: string[] = [];
  const ctx: CommandContext = {
    agent,
    env: {},
    width: 120,
    paint: paint(false),
    print: (l) => void lines.push(...l),
    exit: () => {},
    lastRun: () => [],
    switched: () => {},
    toggleReasoning: () => {},
    open: () => {},
    run: async () => {},
  };
  await runCommand('/status', ctx);
  return lines;
}

describe('the size of the file checkpoints', () => {
  it('`sessions` shows each store (table and JSON), counted as the disk holds it; a session without checkpoints shows none', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const edited = await editedSession(cwd, home, 'a');
    const editedId = edited.agent.session.id;
    await edited.agent.close();
    const plain = await createAgent({ cwd, home, env: {}, script: writeScript(cwd, [{ text: 'hello' }], 'plain.json') });
    await plain.prompt('just talk');
    const plainId = plain.session.id;
    await plain.close();
    expect(objectBytes(edited.store)).toEqual({ bytes: 18, objects: 2 });
    expect(existsSync(checkpointDirOf(join(plain.sessionsFolder, 'x.jsonl')))).toBe(false);

    const json = await cliInProcess(['sessions', '--json'], { cwd, home });
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as { id: string; checkpoints: { bytes: number; objects: number } }[];
    expect(Object.fromEntries(rows.map((r) => [r.id, r.checkpoints]))).toEqual({ [editedId]: { bytes: 18, objects: 2 }, [plainId]: { bytes: 0, objects: 0 } });

    const table = await cliInProcess(['sessions'], { cwd, home });
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +LAST USED +ENTRIES +BRANCHES +CHECKPOINTS +FIRST MESSAGE$/);
    const column = (id: string) => {
      const line = lines.find((l) => l.startsWith(id.slice(0, 8)))!;
      return line.slice(lines[0].indexOf('BRANCHES') + 'BRANCHES'.length, lines[0].indexOf('CHECKPOINTS') + 'CHECKPOINTS'.length).trim();
    };
    expect(column(editedId)).toBe('18 B');
    expect(column(plainId)).toBe('-');
  });

  it('the SDK (session.checkpointsSize) and /status: the store of this session, none for a new one, none kept in memory', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const { agent, store } = await editedSession(cwd, home, 'a');
    expect(await agent.session.checkpointsSize()).toEqual(objectBytes(store));
    expect(await status(agent)).toContain('file checkpoints: 18 B in 2 objects');
    agent.newSession();
    expect(await agent.session.checkpointsSize()).toEqual({ bytes: 0, objects: 0 });
    expect(await status(agent)).toContain('file checkpoints: (none)');
    await agent.close();

    const memory = await createAgent({ cwd, home, env: {}, session: 'memory', script: writeScript(cwd, [{ text: 'hi' }], 'memory.json') });
    expect(await memory.session.checkpointsSize()).toBeNull();
    expect(await status(memory)).toContain('file checkpoints: (none: the session is kept in memory)');
    await memory.close();
  });
});

describe('mini-agent gc', () => {
  it('removes the stores of deleted and old sessions and the temp files a kill left; keeps live stores, sessions in use and a store written a moment ago; --dry-run removes nothing', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const root = join(home, 'sessions');
    const shown = (dir: string) => relative(root, dir);
    const deleted = await editedSession(cwd, home, 'deleted');
    const live = await editedSession(cwd, home, 'live');
    const old = await editedSession(cwd, home, 'old');
    const inUse = await editedSession(cwd, home, 'inuse'); // left open: its lock is held
    for (const s of [deleted, live, old]) await s.agent.close();
    rmSync(deleted.file);
    age(deleted.store, 1);
    age(old.file, 40);
    age(inUse.file, 40);
    // A kill in the middle of an object's write leaves a temp file in the store.
    const tmp = join(live.store, 'objects', 'ab', `${'c'.repeat(62)}.4242.0a0b0c0d.tmp`);
    mkdirSync(join(live.store, 'objects', 'ab'), { recursive: true });
    writeFileSync(tmp, 'part!');
    // A store whose session file is not there yet, written just now (as a fork writes its objects first).
    const fresh = join(live.agent.sessionsFolder, 'fresh.checkpoints');
    mkdirSync(join(fresh, 'objects', 'aa'), { recursive: true });
    writeFileSync(join(fresh, 'objects', 'aa', 'a'.repeat(62)), 'fork');
    const files = [live.file, old.file, inUse.file];
    const before = files.map((f) => [sha(f), statSync(f).mtimeMs]);
    const oldDay = new Date(statSync(old.file).mtimeMs).toISOString().slice(0, 10);

    const expected = (verb: string) => [
      `${verb} ${shown(deleted.store)} (its session was deleted): 2 objects, 18 B`,
      `${verb} 1 temp file left by an interrupted write in ${shown(live.store)}: 5 B`,
      `${verb} ${shown(old.store)} (its session was last written ${oldDay}, over 30 days ago): 2 objects, 18 B`,
    ];
    const dry = await cliInProcess(['gc', '--dry-run'], { cwd, home });
    expect(dry.code).toBe(0);
    expect(dry.stderr).toBe('');
    const dryLines = dry.stdout.trimEnd().split('\n');
    expect(dryLines.filter((l) => l.startsWith('would remove')).sort()).toEqual(expected('would remove').sort());
    expect(dryLines).toContain(`skipped ${shown(inUse.store)}: its session is in use by pid ${process.pid}`);
    expect(dryLines).toContain(`skipped ${shown(fresh)}: its session file is missing, but the store was written a moment ago (a fork may be writing it); run gc again later`);
    expect(dryLines.at(-1)).toBe('would free 41 B; kept 1 checkpoint store (18 B) of sessions written in the last 30 days (a dry run: nothing was removed)');
    expect([existsSync(deleted.store), existsSync(old.store), existsSync(tmp)]).toEqual([true, true, true]);

    const gc = await cliInProcess(['gc'], { cwd, home });
    expect(gc.code).toBe(0);
    const lines = gc.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('removed')).sort()).toEqual(expected('removed').sort());
    expect(lines).toContain(`skipped ${shown(inUse.store)}: its session is in use by pid ${process.pid}`);
    expect(lines.at(-1)).toBe('freed 41 B; kept 1 checkpoint store (18 B) of sessions written in the last 30 days');
    expect([existsSync(deleted.store), existsSync(old.store), existsSync(tmp)]).toEqual([false, false, false]);
    expect(objectBytes(live.store)).toEqual({ bytes: 18, objects: 2 });
    expect(objectBytes(inUse.store)).toEqual({ bytes: 18, objects: 2 });
    expect(existsSync(join(fresh, 'objects', 'aa', 'a'.repeat(62)))).toBe(true);
    // The session files are untouched (bytes and times), and gc left no lock behind.
    expect(files.map((f) => [sha(f), statSync(f).mtimeMs])).toEqual(before);
    expect(readdirSync(live.agent.sessionsFolder).filter((f) => f.endsWith('.lock'))).toEqual([`${inUse.file.split('/').pop()}.lock`]);
    // The live session still rewinds: its objects are whole.
    expect(await cliInProcess(['rewind', live.file, live.written, '--yes'], { cwd, home })).toMatchObject({ code: 0 });
    expect(readFileSync(join(cwd, 'live.txt'), 'utf8')).toBe('liv\ntwo\n');

    // Once the session in use is closed, its old store goes too.
    await inUse.agent.close();
    age(inUse.file, 40);
    const again = await cliInProcess(['gc'], { cwd, home });
    expect(again.stdout).toMatch(new RegExp(`^removed ${shown(inUse.store).replace(/[.]/g, '\\.')} \\(its session was last written .*\\): 2 objects, 18 B$`, 'm'));
    expect(existsSync(inUse.store)).toBe(false);
  });

  it('the age comes from checkpoints.maxAgeDays (default 30), --max-age-days overrides it, 0 never removes by age; bad values are usage errors', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const old = await editedSession(cwd, home, 'old');
    await old.agent.close();
    age(old.file, 40);
    writeFileSync(join(home, 'config.json'), JSON.stringify({ checkpoints: { maxAgeDays: 50 } }));
    expect((await cliInProcess(['gc'], { cwd, home })).stdout).toBe('nothing to remove; kept 1 checkpoint store (18 B) of sessions written in the last 50 days\n');
    expect((await cliInProcess(['gc', '--max-age-days', '0'], { cwd, home })).stdout).toBe('nothing to remove; kept 1 checkpoint store (18 B) (maxAgeDays 0: none is removed by age)\n');
    expect((await cliInProcess(['gc', '--max-age-days', '10', '--dry-run'], { cwd, home })).stdout).toMatch(/^would remove .* \(its session was last written .*, over 10 days ago\): 2 objects, 18 B$/m);
    expect(existsSync(old.store)).toBe(true);
    expect((await cliInProcess(['gc', '--max-age-days', '10'], { cwd, home })).stdout).toMatch(/^freed 18 B; kept 0 checkpoint stores \(0 B\) of sessions written in the last 10 days$/m);
    expect(existsSync(old.store)).toBe(false);

    for (const bad of ['-1', '1.5', 'x', '']) {
      const r = await cliInProcess(['gc', `--max-age-days=${bad}`], { cwd, home });
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain(`--max-age-days must be a whole number of days, 0 or more (0: never by age), got "${bad}"`);
    }
    expect((await cliInProcess(['gc', 'extra'], { cwd, home })).stderr).toContain('gc takes no arguments');
    expect((await cliInProcess(['sessions', '--dry-run'], { cwd, home })).stderr).toContain('--dry-run and --max-age-days go with the gc command');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ checkpoints: { maxAgeDays: -3 } }));
    expect((await cliInProcess(['gc'], { cwd, home })).code).toBe(2);
  });

  it("a deleted parent's store frees nothing while a fork still links its objects; the fork rewinds on its own, and its deletion frees them", async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const parent = await editedSession(cwd, home, 'p');
    const fork = parent.agent.session.fork(answerId(parent.file, 'edited'));
    const forkFile = fork.file!;
    await parent.agent.close();
    rmSync(parent.file);
    age(parent.store, 1);
    const gc = await cliInProcess(['gc'], { cwd, home });
    expect(gc.stdout).toContain(`removed ${relative(join(home, 'sessions'), parent.store)} (its session was deleted): 2 objects, 18 B (0 B freed: the rest is hard-linked from another session's store)`);
    expect(gc.stdout).toMatch(/^freed 0 B; kept 1 checkpoint store \(18 B\)/m);
    expect(await cliInProcess(['rewind', forkFile, parent.written, '--yes'], { cwd, home })).toMatchObject({ code: 0 });
    expect(readFileSync(join(cwd, 'p.txt'), 'utf8')).toBe('p__\ntwo\n');
    rmSync(forkFile);
    age(checkpointDirOf(forkFile), 1);
    expect((await cliInProcess(['gc'], { cwd, home })).stdout).toMatch(/^freed 18 B;/m);
  });

  it('after gc, a diff or rewind that needs a removed object fails with an error naming it (exit 2) and writes nothing; moving the leaf alone still works', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const old = await editedSession(cwd, home, 'old');
    await old.agent.close();
    age(old.file, 40);
    expect((await cliInProcess(['gc'], { cwd, home })).code).toBe(0);
    expect(existsSync(old.store)).toBe(false);
    const sessionBefore = readFileSync(old.file, 'utf8');
    const missing = /^mini-agent: checkpoint object [0-9a-f]{12}.* is missing from .*\.checkpoints \(removed by `mini-agent gc` or by hand\): the file state it held cannot be shown or restored$/m;

    const diff = await cliInProcess(['diff', old.file, old.written], { cwd, home });
    expect(diff.code).toBe(2);
    expect(diff.stderr).toMatch(missing);
    expect(diff.stderr).not.toContain('internal error');

    const rewind = await cliInProcess(['rewind', old.file, old.written, '--yes'], { cwd, home });
    expect(rewind.code).toBe(2);
    expect(rewind.stderr).toMatch(missing);
    expect(rewind.stderr).toContain(join(cwd, 'old.txt')); // the file whose earlier state is gone
    expect(readFileSync(join(cwd, 'old.txt'), 'utf8')).toBe('old\nthree\n');
    expect(readFileSync(old.file, 'utf8')).toBe(sessionBefore);
    expect(existsSync(old.store)).toBe(false); // the failed rewind stored nothing
    expect(existsSync(`${old.file}.lock`)).toBe(false);

    // SDK: the same error, with its kind.
    const agent = await createAgent({ cwd, home, env: {}, session: { file: old.file }, script: writeScript(cwd, [{ text: 'x' }], 'sdk.json') });
    await expect(agent.session.diff(old.written)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(agent.session.rewind(old.written)).rejects.toMatchObject({ kind: 'not_found' });
    await agent.close();

    const leafOnly = await cliInProcess(['rewind', old.file, old.written, '--conversation-only', '--yes'], { cwd, home });
    expect(leafOnly).toMatchObject({ code: 0 });
    expect(leafOnly.stdout).toContain(`rewound to ${old.written}`);
  });
});
