// `rewind` (issue 26 §2): the files the agent changed go back to their state at an entry and the
// leaf moves there; a rewind to the entry left undoes it; a file changed outside the agent is not
// overwritten without force. Through the SDK, the CLI in process and RPC.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointDirOf } from '../src/session/checkpoint-store.js';
import { cliInProcess } from './support/cli-in-process.js';
import { editingSession } from './support/checkpoint-session.js';
import { writeScript } from './support/helpers.js';
import { RpcClient, type RpcResponse } from './support/rpc-client.js';

const session = () => editingSession('n.md');

const read = (cwd: string, path: string) => (existsSync(join(cwd, path)) ? readFileSync(join(cwd, path), 'utf8') : null);

describe('rewind', () => {
  it('SDK: back to an entry (files and leaf), and back again to the entry left; a dry run changes nothing', async () => {
    const { cwd, agent, written, edited } = await session();
    const dry = await agent.session.rewind(written, { dryRun: true });
    expect(dry.plan.restore.map((c) => c.path)).toEqual([join(cwd, 'a.txt'), join(cwd, 'n.md')]);
    expect(read(cwd, 'a.txt')).toBe('one\nthree\n');

    const back = await agent.session.rewind(written);
    expect(back).toMatchObject({ entryId: written, restored: [join(cwd, 'a.txt'), join(cwd, 'n.md')], moved: true });
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md'), read(cwd, 'keep.txt')]).toEqual(['one\ntwo\n', null, 'the user wrote this\n']);
    expect(agent.session.tree().leafId).toBe(written);
    expect(await agent.session.diff()).toContain('+two');

    const again = await agent.session.rewind(edited);
    expect(again.restored).toEqual([join(cwd, 'a.txt'), join(cwd, 'n.md')]);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['one\nthree\n', 'note\n']);
    expect(agent.session.tree().leafId).toBe(edited);

    // The whole session: before the agent's first change, a.txt did not exist.
    await agent.session.rewind(written, { filesOnly: true });
    expect(agent.session.tree().leafId).toBe(edited); // files only: the leaf stays
    expect(read(cwd, 'a.txt')).toBe('one\ntwo\n');
    await agent.session.rewind(edited, { conversationOnly: true });
    expect(read(cwd, 'a.txt')).toBe('one\ntwo\n'); // conversation only: the files stay
    await expect(agent.session.rewind(edited, { filesOnly: true, conversationOnly: true })).rejects.toThrow(/cannot be combined/);
    await agent.close();
  });

  it('a file changed outside the agent is not overwritten without force (nothing at all is changed then); a forced rewind is undone by a rewind back, the hand edit included', async () => {
    const { cwd, agent, written, edited } = await session();
    writeFileSync(join(cwd, 'a.txt'), 'edited by hand\n');
    await expect(agent.session.rewind(written)).rejects.toThrow(/changed outside the agent since its last change, so not overwritten: .*a\.txt \(give --force/);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['edited by hand\n', 'note\n']);
    const forced = await agent.session.rewind(written, { force: true });
    expect(forced.plan.changedOutside).toEqual([join(cwd, 'a.txt')]);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['one\ntwo\n', null]);
    const back = await agent.session.rewind(edited);
    expect(back.plan.changedOutside).toEqual([]);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['edited by hand\n', 'note\n']);
    await agent.close();
  });

  it('a fork carries the checkpoints of its path, with their objects: a rewind in the fork restores the files', async () => {
    const { cwd, file, agent, written, edited } = await session();
    const fork = agent.session.fork(edited);
    expect(fork.file).not.toBe(file);
    const forkLines = readFileSync(fork.file!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(forkLines.filter((e) => e.type === 'checkpoint')).toHaveLength(3); // write_file, edit_file, write_note: one per call
    expect(await agent.session.diff(written)).toContain('+three');
    // The objects are the fork's own: the parent's store may go (a deleted session) and the fork still rewinds.
    rmSync(checkpointDirOf(file), { recursive: true });
    const back = await agent.session.rewind(written);
    expect(back.restored).toEqual([join(cwd, 'a.txt'), join(cwd, 'n.md')]);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['one\ntwo\n', null]);
    await agent.close();
  });

  it('CLI: the plan first; without a terminal it needs --yes; --force for outside changes; --files-only; a memory session has nothing to rewind', async () => {
    const { cwd, home, file, agent, written, edited } = await session();
    await agent.close();
    const plan = await cliInProcess(['rewind', file, written], { cwd, home });
    expect(plan).toMatchObject({ code: 0, stdout: `restore a.txt\nremove (the agent created it) n.md\nmove the leaf to ${written}\n` });
    expect(plan.stderr).toMatch(/nothing was changed: give --yes/);
    expect(read(cwd, 'n.md')).toBe('note\n');

    const done = await cliInProcess(['rewind', file, written.slice(0, 8), '--yes'], { cwd, home });
    expect(done).toMatchObject({ code: 0 });
    expect(done.stdout).toContain(`rewound to ${written}: 2 files restored, the leaf moved there\n`);
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['one\ntwo\n', null]);

    writeFileSync(join(cwd, 'a.txt'), 'by hand\n');
    const refused = await cliInProcess(['rewind', file, edited, '--yes'], { cwd, home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not rewound: a\.txt changed outside the agent since its last change; give --force/);
    expect(read(cwd, 'a.txt')).toBe('by hand\n');
    const forced = await cliInProcess(['rewind', file, edited, '--yes', '--force', '--files-only'], { cwd, home });
    expect(forced).toMatchObject({ code: 0 });
    expect(forced.stdout).toContain('2 files restored\n');
    expect([read(cwd, 'a.txt'), read(cwd, 'n.md')]).toEqual(['one\nthree\n', 'note\n']);

    expect((await cliInProcess(['rewind', file], { cwd, home })).code).toBe(2);
    expect((await cliInProcess(['rewind', file, written, '--files-only', '--conversation-only', '--yes'], { cwd, home })).stderr).toMatch(/cannot be combined/);
    expect((await cliInProcess(['tree', file, '--force'], { cwd, home })).stderr).toMatch(/--force go with the rewind command/);
  });

  it('RPC: a dry run, then the rewind', async () => {
    const { cwd, home, file, agent, written } = await session();
    await agent.close();
    const rpc = new RpcClient(['--session', file, '--script', writeScript(cwd, [], 'none.json')], { cwd, home });
    const dry = (await rpc.send({ type: 'rewind', entry: written, dryRun: true })) as RpcResponse;
    expect(dry.result).toEqual({ entryId: written, restored: [join(cwd, 'a.txt'), join(cwd, 'n.md')], changedOutside: [], notKept: [], moved: false });
    expect(read(cwd, 'n.md')).toBe('note\n');
    const done = (await rpc.send({ type: 'rewind', entry: written })) as RpcResponse;
    expect(done.result).toMatchObject({ entryId: written, moved: true });
    expect(read(cwd, 'n.md')).toBeNull();
    await rpc.end();
  });
});
