// File checkpoints in a run (issue 26 §1): each call of write_file, edit_file and write_note that
// changes a file is followed in the session by a `checkpoint` entry naming its tool result, with
// the file's state before and after (contents in the store beside the session file). A call that
// changes nothing leaves none, a session in memory keeps none, and the model never sees them.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import { checkpointDirOf, CheckpointStore } from '../src/session/checkpoint-store.js';
import type { CheckpointEntry, SessionEntry } from '../src/session/entries.js';
import { SessionStore } from '../src/session/store.js';
import { tempDir, writeScript } from './support/helpers.js';

const checkpoints = (entries: readonly SessionEntry[]) => entries.filter((e): e is CheckpointEntry => e.type === 'checkpoint');

describe('file checkpoints in a run', () => {
  it('write_file, edit_file and write_note: one checkpoint per call that changed a file, after its result, with the states before and after', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'old.txt'), 'old text\n');
    mkdirSync(join(cwd, 'folder'));
    const script = writeScript(cwd, [
      {
        toolCalls: [
          { id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } },
          { id: 'e', name: 'edit_file', arguments: { path: 'old.txt', edits: [{ oldText: 'old', newText: 'new' }] } },
          { id: 'n', name: 'write_note', arguments: { path: 'notes/n.md', text: 'note\n' } },
          { id: 'x', name: 'write_file', arguments: { path: 'folder', content: 'refused' } }, // a folder: an error, nothing changed
          { id: 's', name: 'write_file', arguments: { path: 'same.txt', content: 'same\n' } },
        ],
      },
      { toolCalls: [{ id: 's2', name: 'write_file', arguments: { path: 'same.txt', content: 'same\n' } }] }, // the same bytes again: no change
      { text: 'done' },
    ]);
    const file = join(cwd, 'session.jsonl');
    const agent = await createAgent({ cwd, home: tempDir('mini-agent-home-'), env: {}, script, session: { file } });
    await agent.prompt('write things');
    const messagesSeen = JSON.stringify(agent.messages());
    await agent.close();

    const store = SessionStore.open(file);
    const entries = store.entries();
    const found = checkpoints(entries);
    const resultOf = (id: string) => entries.find((e) => e.type === 'message' && e.message.role === 'toolResult' && e.message.toolCallId === id)!;
    expect(found.map((c) => c.entryId)).toEqual(['w', 'e', 'n', 's'].map((id) => resultOf(id).id));
    for (const c of found) expect(entries[entries.indexOf(c) - 1].id).toBe(c.entryId); // right after its result

    const objects = new CheckpointStore(checkpointDirOf(file));
    const [w, e, n] = found;
    expect(w.files).toEqual([{ path: join(cwd, 'a.txt'), before: { kind: 'absent' }, after: { kind: 'file', blob: expect.stringMatching(/^[0-9a-f]{64}$/), size: 4, mode: statSync(join(cwd, 'a.txt')).mode & 0o7777 } }]);
    expect(e.files[0].path).toBe(join(cwd, 'old.txt'));
    expect(e.files[0].before.kind === 'file' && (await objects.get(e.files[0].before.blob)).toString()).toBe('old text\n');
    expect(e.files[0].after.kind === 'file' && (await objects.get(e.files[0].after.blob)).toString()).toBe('new text\n');
    expect(n.files).toMatchObject([{ path: join(cwd, 'notes', 'n.md'), before: { kind: 'absent' }, after: { kind: 'file', size: 5 } }]);
    // The store is private; the checkpoint restores the file's earlier bytes.
    expect(statSync(objects.dir).mode & 0o777).toBe(0o700);
    await objects.restore(e.files[0].path, e.files[0].before);
    expect(readFileSync(join(cwd, 'old.txt'), 'utf8')).toBe('old text\n');
    // Never sent to the model.
    expect(messagesSeen).not.toContain('checkpoint');
    expect(messagesSeen).not.toContain(w.files[0].after.kind === 'file' ? w.files[0].after.blob : 'none');
  });

  it('a session kept in memory keeps no checkpoints, and writes nothing beside a session file', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const script = writeScript(cwd, [{ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }] }, { text: 'ok' }]);
    const agent = await createAgent({ cwd, home, env: {}, script, session: 'memory' });
    await agent.prompt('go');
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('x');
    expect(existsSync(join(home, 'sessions'))).toBe(false);
    await agent.close();
  });
});
