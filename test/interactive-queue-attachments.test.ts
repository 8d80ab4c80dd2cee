// A message typed while a run is going (a steer, or a follow-up with its marker) carries what a
// prompt carries (issue 24 §2): the text files its `@path` tokens name go into its user message
// as <file> blocks, read when it was queued. In a real terminal (tmux) on the scripted model.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textOf } from '../src/core/types.js';
import { tempDir } from './support/helpers.js';
import { interactiveSessions, READY, sessionEntries } from './support/interactive.js';

const start = interactiveSessions();

describe('interactive: a steer names a file', () => {
  it('typed during a run, "@notes.md" puts the file into the delivered message; the screen shows what was typed', async (ctx) => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'the launch code is 4242\n');
    const { t } = start(ctx, [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 5' } }] }, { text: 'the notes are read' }], ['--yes'], { cwd, columns: 80, rows: 30 });
    await t.waitFor(READY);
    t.type('start');
    t.keys('Enter');
    await t.waitFor(/bash sleep 5/);
    t.type('read @notes.md now');
    await t.waitFor(/❯ read @notes\.md now\s*$/m);
    t.keys('Enter');
    await t.waitFor(/steer 1: read @notes\.md now/);
    const screen = await t.waitFor(/the notes are read/, { timeoutMs: 20_000 });
    expect(screen).not.toContain('launch code');
    const users = sessionEntries(t.home).filter((e) => e.type === 'message' && e.message.role === 'user');
    expect(users.map((e) => textOf(e.message.content))).toEqual(['start', 'read @notes.md now\n<file path="notes.md">\nthe launch code is 4242\n</file>']);
  });
});
