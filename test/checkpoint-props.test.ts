// The whole of issue 26's promise, as a property through the tools a model calls: a random
// sequence of write_file, edit_file and bash calls (appending, binary bytes, deleting, renaming,
// changing modes, removing, moving and replacing a whole folder), each in a run of its own. Rewinding to any entry, in any order, gives the exact
// bytes, modes and presence of every file at that entry's time, and rewinding back to the last one
// gives the final state again.
import { lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import { answerId } from './support/checkpoint-session.js';
import { tempDir, writeScript } from './support/helpers.js';

const TEXT = ['a.txt', 'dir/c.txt', 'x.sh'];
const FILES = [...TEXT, 'b.bin'];

type Op =
  | { kind: 'write'; file: number }
  | { kind: 'edit'; file: number }
  | { kind: 'append'; file: number }
  | { kind: 'binary' }
  | { kind: 'delete'; file: number }
  | { kind: 'rename'; from: number; to: number }
  | { kind: 'chmod'; file: number; mode: number }
  | { kind: 'folder'; how: 'remove' | 'move' | 'replace' | 'swap' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), file: fc.nat(TEXT.length - 1) }),
  fc.record({ kind: fc.constant('edit' as const), file: fc.nat(TEXT.length - 1) }),
  fc.record({ kind: fc.constant('append' as const), file: fc.nat(TEXT.length - 1) }),
  fc.record({ kind: fc.constant('binary' as const) }),
  fc.record({ kind: fc.constant('delete' as const), file: fc.nat(FILES.length - 1) }),
  fc.record({ kind: fc.constant('rename' as const), from: fc.nat(TEXT.length - 1), to: fc.nat(TEXT.length - 1) }),
  fc.record({ kind: fc.constant('chmod' as const), file: fc.nat(FILES.length - 1), mode: fc.constantFrom(0o600, 0o644, 0o755, 0o700) }),
  fc.record({ kind: fc.constant('folder' as const), how: fc.constantFrom('remove' as const, 'move' as const, 'replace' as const, 'swap' as const) }),
);

/** The tool call for each op, chosen against a model of the text files' lines (an edit needs a line that is there). */
function toolCalls(ops: readonly Op[]): { name: string; arguments: Record<string, unknown> }[] {
  const lines = new Map<string, string[]>();
  return ops.map((o, i) => {
    const token = `t${i}`;
    const bash = (command: string) => ({ name: 'bash', arguments: { command } });
    switch (o.kind) {
      case 'write':
        lines.set(TEXT[o.file], [token]);
        return { name: 'write_file', arguments: { path: TEXT[o.file], content: `${token}\n` } };
      case 'edit': {
        const have = lines.get(TEXT[o.file]);
        if (!have?.length) return bash(`true ${token}`); // nothing to edit: a call that changes nothing
        const old = have[have.length - 1];
        have[have.length - 1] = token;
        return { name: 'edit_file', arguments: { path: TEXT[o.file], edits: [{ oldText: `${old}\n`, newText: `${token}\n` }] } };
      }
      case 'append':
        lines.set(TEXT[o.file], [...(lines.get(TEXT[o.file]) ?? []), token]);
        return bash(`mkdir -p dir && printf '${token}\\n' >> ${TEXT[o.file]}`);
      case 'binary':
        return bash(`printf '\\000\\377${token}' >> b.bin`);
      case 'delete':
        lines.delete(FILES[o.file]);
        return bash(`rm -f ${FILES[o.file]}`);
      case 'rename': {
        const [from, to] = [TEXT[o.from], TEXT[o.to]];
        if (from === to || !lines.has(from)) return bash(`true ${token}`);
        lines.set(to, lines.get(from)!);
        lines.delete(from);
        return bash(`mkdir -p dir && mv -f ${from} ${to}`);
      }
      case 'chmod':
        return bash(`[ ! -e ${FILES[o.file]} ] || chmod ${o.mode.toString(8)} ${FILES[o.file]}`);
      case 'folder':
        // A whole folder at once: removed, moved aside (dir2), or replaced by a new one of the same name.
        lines.delete('dir/c.txt');
        if (o.how === 'remove') return bash('rm -rf dir');
        if (o.how === 'move') return bash('rm -rf dir2 && if [ -d dir ]; then mv dir dir2; fi');
        lines.set('dir/c.txt', [token]);
        if (o.how === 'replace') return bash(`rm -rf dir && mkdir -p dir/deep && printf '${token}\\n' > dir/c.txt && echo ${token} > dir/deep/d.txt`);
        // swap: a folder made aside takes the place of dir, which is moved away whole (its subfolders see no event)
        return bash(`rm -rf tmpd old && mkdir -p tmpd/deep && printf '${token}\\n' > tmpd/c.txt && echo ${token} > tmpd/deep/e.txt && { [ ! -d dir ] || mv dir old; } && mv tmpd dir`);
    }
  });
}

/** Every file and symlink under `dir` (folders are not states of their own), with its mode and bytes. */
function files(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, rel))) {
    if (!rel && name.startsWith('session.')) continue;
    const path = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(dir, path));
    if (st.isDirectory()) Object.assign(out, files(dir, path));
    else out[path] = st.isSymbolicLink() ? `-> ${readlinkSync(join(dir, path))}` : `${(st.mode & 0o777).toString(8)} ${readFileSync(join(dir, path)).toString('hex')}`;
  }
  return out;
}

describe('checkpoints through the tools', () => {
  it('property: rewinding to any entry gives every file as it was then; rewinding back gives the later state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 4 }), async (ops, picks) => {
        const cwd = tempDir();
        writeFileSync(join(cwd, 'a.txt'), 'start\n');
        writeFileSync(join(cwd, 'b.bin'), Buffer.from([0, 1, 2]));
        const file = join(cwd, 'session.jsonl');
        const turns = [{ text: 'step start' }, ...toolCalls(ops).flatMap((call, i) => [{ toolCalls: [call] }, { text: `step ${i}` }])];
        const agent = await createAgent({ cwd, home: tempDir('mini-agent-home-'), env: {}, yes: true, script: writeScript(tempDir(), turns), session: { file } });
        try {
          const states: Record<string, string>[] = [];
          await agent.prompt('start');
          states.push(files(cwd));
          for (let i = 0; i < ops.length; i++) {
            await agent.prompt(`op ${i}`);
            states.push(files(cwd));
          }
          expect(agent.messages().filter((m) => m.role === 'toolResult' && m.isError)).toEqual([]); // every call did what it was built to do
          const ids = ['start', ...ops.map((_, i) => `${i}`)].map((s) => answerId(file, `step ${s}`));
          for (const pick of [...picks, 0]) {
            const at = pick % ids.length;
            await agent.session.rewind(ids[at]);
            expect(files(cwd), `rewound to step ${at - 1}`).toEqual(states[at]);
          }
          await agent.session.rewind(ids[ids.length - 1]);
          expect(files(cwd)).toEqual(states[states.length - 1]);
        } finally {
          await agent.close();
        }
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
