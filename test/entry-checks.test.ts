// Session entries are checked, when a file is read, by checks generated ahead of time from the
// entry kinds' schemas (src/session/entry-checks.generated.ts): they must be current, agree with
// the schema compiled at run time, and a line that fails names its problem in the warning.
// Regenerate with `npm run gen:entry-checks` (UPDATE_ENTRY_CHECKS=1).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript
import { renderEntryChecks } from '../scripts/entry-checks.mjs';
import { emptyUsage } from '../src/core/types.js';
import type { SessionEntry } from '../src/session/entries.js';
import { ENTRY_CHECKS, READ_FORM_CHECKS } from '../src/session/entry-checks.generated.js';
import { ENTRY_KINDS } from '../src/session/entry-kinds/index.js';
import { readForm, readingSchema } from '../src/session/entry-kinds/reading.js';
import { SessionStore } from '../src/session/store.js';
import { tempDir } from './support/helpers.js';

const GENERATED = fileURLToPath(new URL('../src/session/entry-checks.generated.ts', import.meta.url));

/** One entry of every kind, written through the store API. */
function entriesOfEveryKind(): readonly SessionEntry[] {
  const store = SessionStore.inMemory({ cwd: '/w' });
  const u = store.appendMessage({
    role: 'user',
    content: [
      { type: 'text', text: 'hi' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ],
  });
  const a = store.appendMessage({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'hmm' },
      { type: 'text', text: 'ok' },
      { type: 'toolCall', id: 'c1', name: 'read_file', arguments: { path: 'a' } },
    ],
    stopReason: 'toolUse',
    usage: emptyUsage(),
    model: 'm',
  });
  const r = store.appendMessage({ role: 'toolResult', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'text', text: 'x' }], isError: false, details: { path: 'a' } });
  store.append({
    type: 'checkpoint',
    entryId: r.id,
    files: [
      { path: '/w/a', before: { kind: 'absent' }, after: { kind: 'file', blob: 'a'.repeat(64), size: 1, mode: 0o644 } },
      { path: '/w/l', before: { kind: 'symlink', target: 'a' }, after: { kind: 'too_big', size: 20, mode: 0o600 } },
      { path: '/w/d', before: { kind: 'other' }, after: { kind: 'absent' } },
    ],
  });
  store.append({ type: 'compaction', summary: 's', firstKeptEntryId: a.id, tokensBefore: 10, summarizedIds: [u.id], details: { readFiles: ['a'], modifiedFiles: [] }, reason: 'manual', warnings: ['w'] });
  store.append({ type: 'branch_summary', summary: 'b', fromId: a.id, summarizedIds: [a.id], details: { readFiles: [], modifiedFiles: ['b'] }, parentId: u.id });
  store.append({ type: 'compaction_failed', targetId: a.id, reason: 'overflow', error: 'no', tokensBefore: 5 });
  store.append({ type: 'label', targetId: u.id, label: 'start' });
  store.append({ type: 'leaf', targetId: a.id });
  store.append({ type: 'session_info', name: 'n' });
  store.append({ type: 'model_change', provider: 'p', model: 'm' });
  store.append({ type: 'model_window', provider: 'p', model: 'm', contextWindow: 1000, source: 'server', detail: 'vLLM' });
  store.append({ type: 'permission_grant', rule: 'bash(ls)' });
  store.recordRun({ runId: 'r', startedAt: 't', durationMs: 1, stopReason: 'completed', turns: 1, toolCalls: 1, toolErrors: 0, usage: emptyUsage(), leafId: a.id });
  return store.entries();
}

/** The entry with each property left out, and set to values of other kinds. */
function variants(entry: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  for (const k of Object.keys(entry)) {
    const { [k]: _left, ...rest } = entry;
    out.push(rest);
    for (const v of [null, 0, -1, 1.5, '', 'x', true, [], {}, [1], { type: 'nope' }]) out.push({ ...entry, [k]: v });
  }
  const m = entry.message as Record<string, unknown> | undefined;
  if (m) for (const v of variants(m)) out.push({ ...entry, message: v });
  return out;
}

describe('the generated entry checks', () => {
  it("match the entry kinds' schemas (regenerate: npm run gen:entry-checks)", () => {
    const expected = (renderEntryChecks as (k: unknown) => string)(ENTRY_KINDS.map((k) => ({ type: k.type, reading: readingSchema(k), readForm: readForm(k) })));
    if (process.env.UPDATE_ENTRY_CHECKS) writeFileSync(GENERATED, expected);
    expect(readFileSync(GENERATED, 'utf8'), 'src/session/entry-checks.generated.ts is out of date: run `npm run gen:entry-checks`').toBe(expected);
    expect([...ENTRY_CHECKS.keys()]).toEqual(ENTRY_KINDS.map((k) => k.type));
    expect([...READ_FORM_CHECKS.keys()]).toEqual(ENTRY_KINDS.map((k) => k.type));
  });

  it('agree with the schemas (reading, read form) compiled at run time, on valid entries of every kind and on broken ones', () => {
    const entries = entriesOfEveryKind();
    expect(new Set(entries.map((e) => e.type))).toEqual(new Set(ENTRY_KINDS.map((k) => k.type)));
    for (const kind of ENTRY_KINDS) {
      for (const [schema, check] of [
        [readingSchema(kind), ENTRY_CHECKS.get(kind.type)!],
        [readForm(kind), READ_FORM_CHECKS.get(kind.type)!],
      ] as const) {
        const compiled = Compile(schema);
        for (const entry of entries.filter((e) => e.type === kind.type)) {
          expect(check(entry), kind.type).toBe(true);
          for (const v of variants(entry as Record<string, unknown>)) expect(check(v), `${kind.type}: ${JSON.stringify(v)}`).toBe(compiled.Check(v));
        }
      }
    }
  });
});

describe("a line that does not match its kind's schema", () => {
  it('is skipped with a warning that names the problem; the other lines load', () => {
    const file = join(tempDir(), 's.jsonl');
    const store = SessionStore.create(file, { cwd: '/w' });
    const ok = store.appendMessage({ role: 'user', content: [{ type: 'text', text: 'hi' }] });
    store.close();
    const t = '2026-01-01T00:00:00.000Z';
    const bad = [
      { id: 'b1', parentId: null, type: 'model_window', timestamp: t, provider: 'p', model: 'm', contextWindow: 0, source: 'server' }, // line 3
      { id: 'b2', parentId: ok.id, type: 'message', timestamp: t, message: { role: 'user', content: [{ type: 'text' }] } }, // line 4
      { id: 'b3', parentId: ok.id, type: 'compaction', timestamp: t, summary: 's' }, // line 5
      { id: 'b4', parentId: null, type: 'permission_grant', timestamp: t, rule: '' }, // line 6
      { id: 'b5', parentId: ok.id, type: 'message', timestamp: t, message: { role: 'robot', content: [] } }, // line 7
      { id: 'b6', parentId: null, type: 'leaf', timestamp: t, targetId: 5 }, // line 8
    ];
    writeFileSync(file, readFileSync(file, 'utf8') + bad.map((b) => JSON.stringify(b)).join('\n') + '\n');
    const reopened = SessionStore.open(file);
    expect(reopened.entries().map((e) => e.id)).toEqual([ok.id]);
    expect(reopened.warnings).toEqual([
      `${file}: line 3: model_window entry: "contextWindow" is 0, expected more than 0; skipped`,
      `${file}: line 4: message entry: missing "message.content[0].text"; skipped`,
      `${file}: line 5: compaction entry: missing "firstKeptEntryId"; skipped`,
      `${file}: line 6: permission_grant entry: "rule" is empty; skipped`,
      `${file}: line 7: message entry: "message.role" is "robot", expected "user", "assistant", "toolResult"; skipped`,
      `${file}: line 8: leaf entry: "targetId" is 5, expected string or null; skipped`,
    ]);
    reopened.close();
  });
});
