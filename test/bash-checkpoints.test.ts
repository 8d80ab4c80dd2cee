// Checkpoints of bash (issue 26 §1): a call that declares no files has the workspace scanned
// before and after it, and what it changed (created, changed, deleted, renamed, modes, symlinks,
// binary bytes) becomes a `checkpoint` entry after its result, so a rewind puts every file back.
// Ignored paths, the session's own files and a call that touches nothing leave no trace; a change
// made outside the agent between calls is not put on bash's account; a workspace too large to scan
// is skipped with one warning.
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkspaceCheckpoints } from '../src/agent/workspace-checkpoints.js';
import { createAgent } from '../src/app/agent.js';
import { checkpointDirOf, CheckpointStore } from '../src/session/checkpoint-store.js';
import type { CheckpointEntry, SessionEntry } from '../src/session/entries.js';
import { SessionStore } from '../src/session/store.js';
import { answerId } from './support/checkpoint-session.js';
import { tempDir, writeScript } from './support/helpers.js';

const checkpoints = (entries: readonly SessionEntry[]) => entries.filter((e): e is CheckpointEntry => e.type === 'checkpoint');

/** Every file and symlink under `dir` (but the session's own), with its bytes or target and mode. */
function tree(dir: string, skip = /^session\./): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${name}` : name;
      if (!rel && skip.test(name)) continue;
      const st = lstatSync(join(dir, path));
      if (st.isDirectory()) {
        out[`${path}/`] = 'dir';
        walk(path);
      } else if (st.isSymbolicLink()) out[path] = `-> ${readlinkSync(join(dir, path))}`;
      else out[path] = `${(st.mode & 0o777).toString(8)} ${readFileSync(join(dir, path)).toString('hex')}`;
    }
  };
  walk('');
  return out;
}

async function bashSession(cwd: string, commands: string[]) {
  const file = join(cwd, 'session.jsonl'); // inside the workspace: the scans must leave it out
  const turns = [{ text: 'ready' }, ...commands.flatMap((command, i) => [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text: `ran ${i}` }])];
  const agent = await createAgent({ cwd, home: tempDir('mini-agent-home-'), env: {}, yes: true, script: writeScript(tempDir(), turns), session: { file } });
  return { agent, file };
}

describe('bash checkpoints', () => {
  it('created in a new folder, changed, deleted, renamed, chmod, symlink, binary: one checkpoint; a rewind gives back every byte, mode and absence, and a rewind back the later state', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'a.txt'), 'a\n');
    writeFileSync(join(cwd, 'gone.txt'), 'gone\n');
    writeFileSync(join(cwd, 'mv-me.txt'), 'moving\n');
    writeFileSync(join(cwd, 'run.sh'), 'echo hi\n');
    chmodSync(join(cwd, 'run.sh'), 0o644);
    writeFileSync(join(cwd, 'bin.dat'), Buffer.from([0, 1, 2, 255]));
    writeFileSync(join(cwd, 'empty'), '');
    writeFileSync(join(cwd, '.gitignore'), 'ignored/\n');
    mkdirSync(join(cwd, 'ignored'));
    writeFileSync(join(cwd, 'ignored', 'x.txt'), 'x\n');
    const start = tree(cwd);
    const command =
      "echo more >> a.txt && rm gone.txt && mv mv-me.txt moved.txt && chmod 755 run.sh && ln -s a.txt link && mkdir -p new/deep && printf '\\000\\001' > new/deep/b.bin && printf '\\377' >> bin.dat && echo z > ignored/x.txt && : > empty2";
    const { agent, file } = await bashSession(cwd, [command, 'true']);
    await agent.prompt('ready?');
    await agent.prompt('change things');
    const later = tree(cwd);
    await agent.prompt('nothing'); // `true`: touches nothing

    const entries = SessionStore.open(file).entries();
    const [c, ...more] = checkpoints(entries);
    expect(more).toEqual([]); // the call that touched nothing left none, and the session file never counts
    expect(c.entryId).toBe(entries[entries.indexOf(c) - 1].id);
    const byPath = Object.fromEntries(c.files.map((f) => [f.path.slice(cwd.length + 1), f]));
    expect(Object.keys(byPath).sort()).toEqual(['a.txt', 'bin.dat', 'empty2', 'gone.txt', 'link', 'moved.txt', 'mv-me.txt', 'new/deep/b.bin', 'run.sh']);
    expect(byPath['gone.txt']).toMatchObject({ before: { kind: 'file', size: 5 }, after: { kind: 'absent' } });
    expect(byPath['new/deep/b.bin']).toMatchObject({ before: { kind: 'absent', missingFrom: join(cwd, 'new') }, after: { kind: 'file', size: 2 } });
    expect(byPath['run.sh']).toMatchObject({ before: { mode: 0o644 }, after: { mode: 0o755 } });
    expect(byPath.link).toEqual({ path: join(cwd, 'link'), before: { kind: 'absent' }, after: { kind: 'symlink', target: 'a.txt' } });
    const objects = new CheckpointStore(checkpointDirOf(file));
    const bin = byPath['bin.dat'].before;
    expect(bin.kind === 'file' && [...(await objects.get(bin.blob))]).toEqual([0, 1, 2, 255]);

    await agent.session.rewind(answerId(file, 'ready'));
    expect(tree(cwd)).toEqual({ ...start, 'ignored/x.txt': later['ignored/x.txt'] }); // the ignored file is not the agent's to restore
    expect(existsSync(join(cwd, 'new'))).toBe(false); // the folder bash made goes with its file
    await agent.session.rewind(answerId(file, 'ran 0'));
    expect(tree(cwd)).toEqual(later);
    await agent.close();
  });

  it('a change made outside the agent between calls is not put on the next bash call; a new ignore rule does not make a file deleted', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'mine.txt'), 'v1\n');
    writeFileSync(join(cwd, 'log.txt'), 'log\n');
    const { agent, file } = await bashSession(cwd, ['echo one > one.txt', 'echo log.txt > .gitignore']);
    await agent.prompt('ready?');
    await agent.prompt('first');
    writeFileSync(join(cwd, 'mine.txt'), 'v2 by the user\n');
    await agent.prompt('second');
    const found = checkpoints(SessionStore.open(file).entries());
    expect(found.map((c) => c.files.map((f) => f.path.slice(cwd.length + 1)))).toEqual([['one.txt'], ['.gitignore']]);
    expect(readFileSync(join(cwd, 'log.txt'), 'utf8')).toBe('log\n');
    // Rewinding to the start keeps the user's own change and the file now ignored.
    await agent.session.rewind(answerId(file, 'ready'));
    expect(readFileSync(join(cwd, 'mine.txt'), 'utf8')).toBe('v2 by the user\n');
    expect(readFileSync(join(cwd, 'log.txt'), 'utf8')).toBe('log\n');
    expect(existsSync(join(cwd, 'one.txt'))).toBe(false);
    expect(existsSync(join(cwd, '.gitignore'))).toBe(false);
    await agent.close();
  });

  it('folders removed, replaced, and swapped by renames (the old one moved away whole, its subfolders silent): each call records exactly its changes', async () => {
    const cwd = tempDir();
    const steps = [
      'mkdir -p dir/deep gone/sub && echo x > dir/deep/x.txt && echo c > dir/c.txt && echo g > gone/sub/g.txt',
      'rm -rf gone',
      'rm -rf tmpd && mkdir -p tmpd/deep && echo e > tmpd/deep/e.txt && mv dir old && mv tmpd dir',
      'rm -rf dir && mkdir -p dir/deep && echo n > dir/deep/n.txt',
    ];
    const { agent, file } = await bashSession(cwd, steps);
    await agent.prompt('ready?');
    const states = [tree(cwd)];
    for (let i = 0; i < steps.length; i++) {
      await agent.prompt(`step ${i}`);
      states.push(tree(cwd));
    }
    const files = (t: Record<string, string>) => Object.fromEntries(Object.entries(t).filter(([k]) => !k.endsWith('/')));
    for (const [i, at] of [2, 0, 4, 1, 3].entries()) {
      await agent.session.rewind(answerId(file, at === 0 ? 'ready' : `ran ${at - 1}`));
      expect(files(tree(cwd)), `rewind ${i} to state ${at}`).toEqual(files(states[at]));
    }
    await agent.close();
  });

  it('a workspace with more files than the cap is not scanned: one warning, nothing recorded', async () => {
    const cwd = tempDir();
    for (let i = 0; i < 6; i++) writeFileSync(join(cwd, `f${i}`), `${i}`);
    const scans = new WorkspaceCheckpoints(new CheckpointStore(join(tempDir(), 'store')), cwd, [], 5);
    const warnings: string[] = [];
    expect(await scans.before(undefined, (m) => warnings.push(m))).toBeUndefined();
    expect(await scans.before(undefined, (m) => warnings.push(m))).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/more than 5 files outside \.gitignore, so the changes of bash .* are not checkpointed/)]);
  });

  it('a workspace with more bytes than the cap is not scanned either', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'big'), Buffer.alloc(2048));
    const scans = new WorkspaceCheckpoints(new CheckpointStore(join(tempDir(), 'store')), cwd, [], 100, 1024);
    const warnings: string[] = [];
    expect(await scans.before(undefined, (m) => warnings.push(m))).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/more than 0 MB in files outside \.gitignore/)]);
  });

  it('a second session of the workspace links the objects the first stored instead of writing them again', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'a.txt'), 'shared content\n');
    const folder = tempDir();
    const objectOf = (file: string) => {
      const c = checkpoints(SessionStore.open(file).entries())[0];
      const before = c.files[0].before;
      return before.kind === 'file' ? join(checkpointDirOf(file), 'objects', before.blob.slice(0, 2), before.blob.slice(2)) : '';
    };
    for (const name of ['one', 'two']) {
      const file = join(folder, `${name}.jsonl`);
      const script = writeScript(tempDir(), [{ toolCalls: [{ name: 'bash', arguments: { command: `echo ${name} >> a.txt` } }] }, { text: 'ok' }]);
      const agent = await createAgent({ cwd, home: tempDir('mini-agent-home-'), env: {}, yes: true, script, session: { file } });
      await agent.prompt('go');
      await agent.close();
      writeFileSync(join(cwd, 'a.txt'), 'shared content\n');
    }
    const [one, two] = [objectOf(join(folder, 'one.jsonl')), objectOf(join(folder, 'two.jsonl'))];
    expect(readFileSync(two, 'utf8')).toBe('shared content\n');
    expect(lstatSync(two).ino).toBe(lstatSync(one).ino);
    expect(lstatSync(two).nlink).toBe(2);
  });

  it('paths a read deny rule hides are never scanned or stored', async () => {
    const cwd = tempDir();
    const store = new CheckpointStore(join(tempDir(), 'store'));
    const scans = new WorkspaceCheckpoints(store, cwd);
    writeFileSync(join(cwd, '.env'), 'SECRET=1\n');
    const hidden = (p: string) => p === '.env';
    const before = await scans.before(hidden, () => {});
    writeFileSync(join(cwd, '.env'), 'SECRET=2\n');
    writeFileSync(join(cwd, 'seen.txt'), 'seen\n');
    const changes = await scans.after(before!);
    expect(changes.map((c) => c.path)).toEqual([join(cwd, 'seen.txt')]);
    expect((await store.usage()).bytes).toBe(5); // only seen.txt's bytes
  });
});
