// The session file format is public: docs/session.schema.json must match the TypeBox schema in
// src/session/entry-schema.ts, and files written by real runs must validate against it.
// Regenerate the docs file with `npm run docs:schema` (UPDATE_SCHEMA=1).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { SessionEntrySchema, SessionHeaderSchema, sessionJsonSchema } from '../src/session/entry-schema.js';
import type { ScriptTurn } from '../src/model/script.js';
import { tempDir } from './support/helpers.js';
import { agentLabel, agentName, agentOpen, agentRun } from './support/sessions.js';

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
    expect(types.sort()).toEqual(['branch_summary', 'checkpoint', 'compaction', 'compaction_failed', 'label', 'leaf', 'message', 'model_change', 'model_window', 'permission_grant', 'run', 'session_info']);
    for (const t of types) expect(doc, `docs/session-format.md does not mention "${t}"`).toContain(`\`${t}\``);
  });

  it('every line of session files written by real runs validates', async () => {
    const cwd = tempDir();
    const home = tempDir();
    writeFileSync(join(cwd, 'a.md'), 'alpha\n');
    const session = join(cwd, 's.jsonl');
    // The runs and commands in process (createAgent, what the CLI runs; the CLI's own tests run it as a process).
    const o = { cwd, home, session: { file: session } };
    const s1: ScriptTurn[] = [
      {
        thinking: 'hmm',
        text: 'reading',
        toolCalls: [
          { name: 'read_file', arguments: { path: 'a.md' } },
          { name: 'nope', arguments: {} },
        ],
      },
      { text: 'done', usage: { input: 3, output: 4, cacheRead: 1, cacheWrite: 2, cost: 0.5 } },
    ];
    expect((await agentRun(s1, 'go', o)).result.stopReason).toBe('completed');
    expect((await agentRun([{ error: { kind: 'auth', message: 'no', status: 401 } }], 'again', o)).result.stopReason).toBe('error');
    const lines = readFileSync(session, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const first = lines[0].id;
    await agentName(o, session, 'schema check');
    const entryId = lines.find((l) => l.type === 'message').id;
    expect(await agentLabel(o, session, entryId, 'start')).toBe(entryId);
    expect((await agentRun([{ text: 'branched' }], 'branch', { ...o, branch: 'start' })).result.stopReason).toBe('completed');
    const forkFile = (await agentOpen({ ...o, fork: 'start' })).file!;

    const header = Compile(SessionHeaderSchema);
    const entry = Compile(SessionEntrySchema);
    const seen = new Set<string>();
    for (const file of [session, forkFile]) {
      const [h, ...rest] = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
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
