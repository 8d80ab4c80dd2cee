// --record FILE saves the model's responses in the script format; --script FILE replays them.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScript } from '../src/model/script.js';
import { cliInProcess } from './support/cli-in-process.js';
import { essence, parseJsonl, tempDir, writeScript } from './support/helpers.js';

describe('record and replay', () => {
  it('a recorded run replays with the same tool calls and the same events, offline', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'alpha\nbeta\n');
    const original = writeScript(cwd, [
      { text: 'Reading.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } }], usage: { input: 50, output: 7 } },
      { text: 'Writing.', toolCalls: [{ id: 'c2', name: 'write_note', arguments: { path: 'out.md', text: 'ab', mode: 'append' } }] },
      { text: 'Done: two lines.', usage: { input: 90, output: 5, cacheRead: 10 } },
    ]);
    const recording = join(cwd, 'recorded.json');
    const first = await cliInProcess(['--json', '--no-session', '--script', original, '--record', recording, 'summarize'], { cwd });
    expect(first.code).toBe(0);

    const script = parseScript(readFileSync(recording, 'utf8'), recording);
    expect(script.turns).toHaveLength(3);
    expect(script.turns[0]).toMatchObject({ text: 'Reading.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } }] });
    expect(script.turns[2]).toMatchObject({ text: 'Done: two lines.', usage: { input: 90, output: 5, cacheRead: 10 } });

    const replay = await cliInProcess(['--json', '--no-session', '--script', recording, 'summarize'], { cwd });
    expect(replay.code).toBe(0);
    expect(essence(parseJsonl(replay.stdout))).toEqual(essence(parseJsonl(first.stdout)));
    expect(readFileSync(join(cwd, 'out.md'), 'utf8')).toBe('abab'); // the replayed tool really ran
  });

  it('errors and stop reasons are recorded too, so a failing run replays as the same failure', async () => {
    const cwd = tempDir();
    const original = writeScript(cwd, [
      { toolCalls: [{ id: 'x', name: 'read_file', arguments: { path: 'a' } }], stopReason: 'length' },
      { text: 'partial', error: { kind: 'auth', message: 'bad key', status: 401 } },
    ]);
    const recording = join(cwd, 'rec.json');
    const first = await cliInProcess(['--json', '--no-session', '--script', original, '--record', recording, 'go'], { cwd });
    expect(first.code).toBe(1);
    const script = parseScript(readFileSync(recording, 'utf8'), recording);
    expect(script.turns[0].stopReason).toBe('length');
    expect(script.turns[1].error).toMatchObject({ kind: 'auth', message: 'bad key', status: 401, retryable: false });
    const replay = await cliInProcess(['--json', '--no-session', '--script', recording, 'go'], { cwd });
    expect(replay.code).toBe(1);
    expect(essence(parseJsonl(replay.stdout))).toEqual(essence(parseJsonl(first.stdout)));
  });

  it('an unwritable --record path is a usage error before anything runs', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'hi' }]);
    const r = await cliInProcess(['--no-session', '--script', script, '--record', join(cwd, 'missing-dir', 'x.json'), 'go'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write --record file .*missing-dir/);
  });
});
