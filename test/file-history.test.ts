// The files of the session tree (issue 26): a file's state at any entry, on any branch, from the
// checkpoint entries alone. A property over random sessions: writes and deletions of a few files,
// messages that change nothing, and branches back to any earlier entry, in a world where the files
// follow the tree (the states before a change are the tree's at its parent).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { userMessage } from '../src/core/types.js';
import type { FileState } from '../src/session/entries.js';
import { fileHistory } from '../src/session/file-history.js';
import { SessionStore } from '../src/session/store.js';

const FILES = ['/w/a.txt', '/w/b.txt', '/w/new/c.txt'];
const fileState = (text: string): FileState => ({ kind: 'file', blob: createHash('sha256').update(text).digest('hex'), size: text.length, mode: 0o644 });

type Step = { kind: 'write'; file: number; text: string | null } | { kind: 'message' } | { kind: 'branch'; to: number };
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('write' as const), file: fc.nat(FILES.length - 1), text: fc.option(fc.string({ maxLength: 6 }), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('message' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('branch' as const), to: fc.nat() }) },
);

describe('file history', () => {
  it('property: the state of every file at every entry of every branch is what the tree says, and latest() is what the agent last wrote', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.string({ maxLength: 4 }), { nil: null }), { minLength: FILES.length, maxLength: FILES.length }), fc.array(step, { minLength: 1, maxLength: 30 }), (initial, steps) => {
        const store = SessionStore.inMemory({ cwd: '/w' });
        const start = new Map(FILES.map((f, i): [string, FileState] => [f, initial[i] === null ? { kind: 'absent' } : fileState(initial[i]!)]));
        const model = new Map<string | null, Map<string, FileState>>([[null, start]]);
        const nodes: (string | null)[] = [null];
        const lastWritten = new Map<string, FileState>();
        for (const s of steps) {
          if (s.kind === 'branch') {
            const to = nodes[s.to % nodes.length];
            store.checkout(to);
            continue;
          }
          const parent = model.get(store.leafId)!;
          if (s.kind === 'message') {
            const e = store.appendMessage(userMessage('nothing changes'));
            model.set(e.id, parent);
            nodes.push(e.id);
            continue;
          }
          const file = FILES[s.file];
          const after: FileState = s.text === null ? { kind: 'absent' } : fileState(s.text);
          const result = store.appendMessage({ role: 'toolResult', toolCallId: `c${nodes.length}`, toolName: 'write_file', content: [{ type: 'text', text: 'ok' }], isError: false });
          store.append({ type: 'checkpoint', entryId: result.id, files: [{ path: file, before: parent.get(file)!, after }] });
          model.set(result.id, new Map(parent).set(file, after));
          nodes.push(result.id);
          lastWritten.set(file, after);
        }
        const history = fileHistory(store.entries());
        for (const id of nodes) {
          const states = history.statesAt(store.pathTo(id));
          for (const file of history.files) expect(states.get(file), `${file} at ${id}`).toEqual(model.get(id)!.get(file));
        }
        expect(history.latest()).toEqual(lastWritten);
        expect(new Set(history.files)).toEqual(new Set(lastWritten.keys()));
      }),
      { numRuns: 300 },
    );
  });
});
