// The session file format is public: docs/session.schema.json must match the TypeBox schema in
// src/session/entry-schema.ts, and files written by real runs must validate against it.
// Regenerate the docs file with `npm run docs:schema` (UPDATE_SCHEMA=1).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { SessionEntrySchema, SessionHeaderSchema, sessionJsonSchema } from '../src/session/entry-schema.js';
import { runCli, tempDir, writeScript } from './support/helpers.js';

const FILE = fileURLToPath(new URL('../docs/session.schema.json', import.meta.url));

describe('docs/session.schema.json', () => {
  it('is generated from the TypeBox schema (run `npm run docs:schema` to update it)', () => {
    const expected = JSON.stringify(sessionJsonSchema(), null, 2) + '\n';
    if (process.env.UPDATE_SCHEMA === '1') writeFileSync(FILE, expected);
    expect(existsSync(FILE), 'docs/session.schema.json is missing: run `npm run docs:schema`').toBe(true);
    expect(readFileSync(FILE, 'utf8'), 'docs/session.schema.json is out of date: run `npm run docs:schema`').toBe(expected);
  });

  it('documents every entry type in docs/session-format.md', () => {
    const doc = readFileSync(fileURLToPath(new URL('../docs/session-format.md', import.meta.url)), 'utf8');
    const types = (SessionEntrySchema as unknown as { anyOf: { properties: { type: { const: string } } }[] }).anyOf.map((b) => b.properties.type.const);
    expect(types.sort()).toEqual(['branch_summary', 'compaction', 'compaction_failed', 'label', 'leaf', 'message', 'model_change', 'model_window', 'permission_grant', 'run', 'session_info']);
    for (const t of types) expect(doc, `docs/session-format.md does not mention "${t}"`).toContain(`\`${t}\``);
  });

  it('every line of session files written by real runs validates', async () => {
    const cwd = tempDir();
    const home = tempDir();
    writeFileSync(join(cwd, 'a.md'), 'alpha\n');
    const session = join(cwd, 's.jsonl');
    const s1 = writeScript(cwd, [
      { thinking: 'hmm', text: 'reading', toolCalls: [{ name: 'read_file', arguments: { path: 'a.md' } }, { name: 'nope', arguments: {} }] },
      { text: 'done', usage: { input: 3, output: 4, cacheRead: 1, cacheWrite: 2, cost: 0.5 } },
    ]);
    expect((await runCli(['--session', session, '--script', s1, 'go'], { cwd, home })).code).toBe(0);
    const s2 = writeScript(cwd, [{ error: { kind: 'auth', message: 'no', status: 401 } }], 's2.json');
    expect((await runCli(['--session', session, '--script', s2, 'again'], { cwd, home })).code).toBe(1);
    const lines = readFileSync(session, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const first = lines[0].id;
    expect((await runCli(['name', session, 'schema check'], { cwd, home })).code).toBe(0);
    const entryId = lines.find((l) => l.type === 'message').id;
    expect((await runCli(['label', session, entryId, 'start'], { cwd, home })).code).toBe(0);
    const s3 = writeScript(cwd, [{ text: 'branched' }], 's3.json');
    expect((await runCli(['--session', session, '--branch', 'start', '--script', s3, 'branch'], { cwd, home })).code).toBe(0);
    const fork = await runCli(['--session', session, '--fork', 'start'], { cwd, home });
    expect(fork.code).toBe(0);
    const forkFile = fork.stdout.trim().split(' ')[1];

    const header = Compile(SessionHeaderSchema);
    const entry = Compile(SessionEntrySchema);
    const seen = new Set<string>();
    for (const file of [session, forkFile]) {
      const [h, ...rest] = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(header.Check(h), JSON.stringify([...header.Errors(h)].slice(0, 3))).toBe(true);
      for (const e of rest) {
        seen.add(e.type);
        expect(entry.Check(e), `${e.type}: ${JSON.stringify([...entry.Errors(e)].slice(0, 3))}`).toBe(true);
      }
    }
    expect(first).toBeTypeOf('string');
    expect([...seen].sort()).toEqual(['label', 'leaf', 'message', 'run', 'session_info']); // compaction: no writer yet
  });
});
