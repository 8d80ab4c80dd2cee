// Property tests for the session store: reload fidelity and crash recovery.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyUsage, type Message } from '../src/core/types.js';
import type { SessionEntry } from '../src/session/entries.js';
import { projectMessages } from '../src/session/projector.js';
import { SessionStore } from '../src/session/store.js';
import { tempDir } from './support/helpers.js';

/** Text with the characters that break naive line formats: newlines, quotes, backslashes, unicode. */
const textArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.array(fc.constantFrom('\n', '\r\n', '\r', '"', '\\', '}', '{', '\u2028', '\u2029', '\u0000', '\ud800', '\udfff', '\u{1F600}', 'é', '中', ' ', 'a'), { maxLength: 20 }).map((parts) => parts.join('')),
);

const messageArb: fc.Arbitrary<Message> = fc.oneof(
  textArb.map((text): Message => ({ role: 'user', content: [{ type: 'text', text }] })),
  textArb.map((text): Message => ({ role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', usage: emptyUsage() })),
  fc.constant<Message>({ role: 'assistant', content: [], stopReason: 'error', usage: emptyUsage(), errorMessage: 'x' }),
);

/** Targets are picked by index into the content entries seen so far (modulo their count). */
type Op = { kind: 'message'; message: Message } | { kind: 'checkout'; pick: number | null } | { kind: 'label'; pick: number; label: string | null } | { kind: 'compaction'; pick: number; summary: string };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: messageArb.map((message): Op => ({ kind: 'message', message })) },
  { weight: 2, arbitrary: fc.option(fc.nat(), { nil: null, freq: 4 }).map((pick): Op => ({ kind: 'checkout', pick })) },
  { weight: 2, arbitrary: fc.record({ pick: fc.nat(), label: fc.option(textArb, { nil: null, freq: 3 }) }).map((r): Op => ({ kind: 'label', ...r })) },
  { weight: 1, arbitrary: fc.record({ pick: fc.nat(), summary: textArb }).map((r): Op => ({ kind: 'compaction', ...r })) },
);

let counter = 0;

describe('session store properties', () => {
  it('reopening the file reproduces entries, leaf, active path and labels', () => {
    const dir = tempDir();
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const file = join(dir, `s${counter++}.jsonl`);
        const store = SessionStore.create(file, { cwd: dir });
        // an independent model of what the store should hold
        const content: string[] = [];
        const parent = new Map<string, string | null>();
        const labels = new Map<string, string>();
        let leaf: string | null = null;
        try {
          for (const op of ops) {
            if (op.kind === 'message') {
              const e = store.appendMessage(op.message);
              expect(e.parentId).toBe(leaf);
              parent.set(e.id, leaf);
              content.push(e.id);
              leaf = e.id;
            } else if (op.kind === 'checkout') {
              if (op.pick !== null && content.length === 0) continue;
              const target = op.pick === null ? null : content[op.pick % content.length];
              store.checkout(target);
              leaf = target;
            } else if (op.kind === 'label') {
              if (content.length === 0) continue;
              const target = content[op.pick % content.length];
              store.append({ type: 'label', targetId: target, label: op.label });
              if (op.label === null) labels.delete(target);
              else labels.set(target, op.label);
            } else {
              if (content.length === 0) continue;
              const e = store.append({ type: 'compaction', summary: op.summary, firstKeptEntryId: content[op.pick % content.length] });
              parent.set(e.id, leaf);
              content.push(e.id);
              leaf = e.id;
            }
          }
        } finally {
          store.close();
        }

        const expectedPath: string[] = [];
        for (let cur = leaf; cur !== null; cur = parent.get(cur) ?? null) expectedPath.unshift(cur);

        for (const s of [store, SessionStore.open(file)]) {
          expect(s.warnings).toEqual([]);
          expect(s.leafId).toBe(leaf);
          expect(s.activePath().map((e) => e.id)).toEqual(expectedPath);
          expect(new Map(s.labels())).toEqual(labels);
          for (const id of content) expect(s.children(id).map((e) => e.id)).toEqual(content.filter((c) => parent.get(c) === id));
        }
        const reopened = SessionStore.open(file);
        expect(reopened.entries()).toEqual(store.entries());
        expect(reopened.header).toEqual(store.header);
        expect(projectMessages(reopened.activePath())).toEqual(projectMessages(store.activePath()));
        // one line per entry, plus the header
        expect(readFileSync(file, 'utf8').split('\n').length).toBe(store.entries().length + 2);
        reopened.close();
      }),
      { numRuns: 80 },
    );
  });

  it('a crash inside the last line loses at most that entry; the next append and reopen recover the rest', () => {
    const dir = tempDir();
    fc.assert(
      fc.property(fc.array(messageArb, { minLength: 1, maxLength: 8 }), fc.double({ min: 0, max: 1, noNaN: true }), (messages, where) => {
        const file = join(dir, `c${counter++}.jsonl`);
        const store = SessionStore.create(file, { cwd: dir });
        const written: SessionEntry[] = messages.map((m) => store.appendMessage(m));
        store.close();

        const full = readFileSync(file);
        const lastEnd = full.length - 1; // the final '\n'
        const lastStart = full.lastIndexOf(0x0a, lastEnd - 1) + 1;
        const cut = lastStart + Math.min(lastEnd - lastStart, Math.floor(where * (lastEnd - lastStart + 1)));
        const crashed = full.subarray(0, cut);
        writeFileSync(file, crashed);

        const lastKept = cut === lastEnd; // the whole JSON text survived, only the newline is gone
        const torn = cut > lastStart && cut < lastEnd;
        const expected = lastKept ? written : written.slice(0, -1);

        const s = SessionStore.open(file);
        expect(readFileSync(file).equals(crashed)).toBe(true); // open never writes
        expect(s.entries()).toEqual(expected);
        expect(s.leafId).toBe(expected.length ? expected[expected.length - 1].id : null);
        if (torn) {
          expect(s.warnings.length).toBe(1);
          expect(s.warnings[0]).toContain(`line ${written.length + 1} `);
        } else {
          expect(s.warnings).toEqual([]);
        }

        const added = s.appendMessage({ role: 'user', content: [{ type: 'text', text: 'after the crash' }] });
        s.close();
        const after = readFileSync(file);
        expect(after.subarray(0, crashed.length).equals(crashed)).toBe(true);
        const tail = after.subarray(crashed.length).toString('utf8');
        expect(tail).toBe((cut === lastStart ? '' : '\n') + JSON.stringify(added) + '\n');

        const r = SessionStore.open(file);
        expect(r.entries()).toEqual([...expected, added]);
        expect(r.leafId).toBe(added.id);
        expect(r.activePath().map((e) => e.id)).toEqual([...expected, added].map((e) => e.id));
        expect(r.warnings.length).toBe(torn ? 1 : 0);
        r.close();
      }),
      { numRuns: 100 },
    );
  });
});
