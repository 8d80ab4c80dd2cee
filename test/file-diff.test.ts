// `diff` (issue 26 §2): what the agent changed in the files, from the checkpoints, as a unified
// diff: over the whole session or since an entry, through the SDK, the CLI (in process) and RPC;
// and the lines for what has no text diff (binary, over the cap, symlinks, modes).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileState } from '../src/session/entries.js';
import { filesDiff } from '../src/session/file-diff.js';
import { cliInProcess } from './support/cli-in-process.js';
import { answerId, editingSession } from './support/checkpoint-session.js';
import { writeScript } from './support/helpers.js';
import { RpcClient, type RpcResponse } from './support/rpc-client.js';

const WHOLE = `--- /dev/null
+++ b/a.txt
@@ -0,0 +1,2 @@
+one
+three
--- /dev/null
+++ b/notes/n.md
@@ -0,0 +1,1 @@
+note
`;
const SINCE_FIRST = `--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,2 @@
 one
-two
+three
--- /dev/null
+++ b/notes/n.md
@@ -0,0 +1,1 @@
+note
`;

const session = () => editingSession('notes/n.md');

describe('diff', () => {
  it('through the SDK, the CLI and RPC: the whole session, and since an entry', async () => {
    const { cwd, home, file, agent } = await session();
    const writtenId = answerId(file, 'written');
    expect(await agent.session.diff()).toBe(WHOLE);
    expect(await agent.session.diff(writtenId)).toBe(SINCE_FIRST);
    await agent.session.label(writtenId, 'first');
    expect(await agent.session.diff('first')).toBe(SINCE_FIRST);
    await agent.close();

    const whole = await cliInProcess(['diff', file], { cwd, home });
    expect(whole).toMatchObject({ code: 0, stdout: WHOLE });
    const since = await cliInProcess(['diff', file, writtenId.slice(0, 8)], { cwd, home });
    expect(since).toMatchObject({ code: 0, stdout: SINCE_FIRST });
    const last = answerId(file, 'edited');
    const nothing = await cliInProcess(['diff', file, last], { cwd, home });
    expect(nothing).toMatchObject({ code: 0, stdout: '' });
    expect(nothing.stderr).toMatch(/^no file changes since \S+ on its active branch\n$/);
    const unknown = await cliInProcess(['diff', file, 'nosuchentry'], { cwd, home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/nosuchentry/);
    expect((await cliInProcess(['diff', file, writtenId, 'extra'], { cwd, home })).code).toBe(2);

    const rpc = new RpcClient(['--session', file, '--script', writeScript(cwd, [], 'none.json')], { cwd, home });
    expect(((await rpc.send({ type: 'diff' })) as RpcResponse).result).toEqual({ diff: WHOLE });
    expect(((await rpc.send({ type: 'diff', entry: 'first' })) as RpcResponse).result).toEqual({ diff: SINCE_FIRST });
    expect(await rpc.send({ type: 'diff', entry: 'nosuchentry' })).toMatchObject({ ok: false });
    await rpc.end();
  });

  it('what has no text diff gets one line: binary, over the cap, a symlink; a mode change is shown', async () => {
    const blobs = new Map<string, Buffer>();
    const file = (bytes: Buffer | string, mode = 0o644): FileState => {
      const b = Buffer.from(bytes);
      const blob = createHash('sha256').update(b).digest('hex');
      blobs.set(blob, b);
      return { kind: 'file', blob, size: b.length, mode };
    };
    const load = async (blob: string) => blobs.get(blob)!;
    const from = new Map<string, FileState>([
      ['/w/bin', file(Buffer.from([0, 1, 2]))],
      ['/w/big', { kind: 'too_big', size: 20_000_000, mode: 0o644 }],
      ['/w/ln', { kind: 'symlink', target: 'a' }],
      ['/w/run.sh', file('echo hi\n')],
      ['/outside/x', { kind: 'absent' }],
    ]);
    const to = new Map<string, FileState>([
      ['/w/bin', file(Buffer.from([0, 1, 3]))],
      ['/w/big', { kind: 'absent' }],
      ['/w/ln', { kind: 'symlink', target: 'b' }],
      ['/w/run.sh', file('echo hi\n', 0o755)],
      ['/outside/x', file('x\n')],
    ]);
    const text = await filesDiff([...from.keys()], from, to, load, '/w');
    expect(text).toBe(
      [
        '--- a/bin\n+++ b/bin\nBinary files differ: bin: 3 bytes → 3 bytes\n',
        '--- a/big\n+++ /dev/null\nbig: 20000000 bytes (over the checkpoint cap, not kept) → absent\n',
        '--- a/ln\n+++ b/ln\nln: a symlink to a → a symlink to b\n',
        'old mode 644\nnew mode 755\n--- a/run.sh\n+++ b/run.sh\n',
        '--- /dev/null\n+++ /outside/x\n@@ -0,0 +1,1 @@\n+x\n',
      ].join(''),
    );
  });
});
