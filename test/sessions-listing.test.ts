// Listing and inspecting sessions through the CLI: `sessions [--all] [--json]` and
// `tree [SESSION] [--json]`, checked against SessionStore. The sessions they list are made in
// process (createAgent, what the CLI's print mode runs); the listing runs the real CLI.
import { randomUUID } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newSessionFile, sessionsDir } from '../src/session/paths.js';
import type { ScriptTurn } from '../src/model/script.js';
import type { SessionSummary } from '../src/session/catalog.js';
import { sessionStats, snapshotOf } from '../src/session/stats.js';
import { SessionStore } from '../src/session/store.js';
import { emptyUsage, type AssistantMessage } from '../src/core/types.js';
import { cliInProcess } from './support/cli-in-process.js';
import { runCli, tempDir } from './support/helpers.js';
import { agentLabel, agentName, agentOpen, agentRun, withStore, type AgentRun } from './support/sessions.js';

const env = (home: string) => ({ MINI_AGENT_HOME: home });

/** The run completed (the CLI's exit code 0). */
function ok(r: AgentRun): AgentRun {
  expect(r.result.stopReason, `stop reason; error: ${JSON.stringify(r.result.error)}`).toBe('completed');
  return r;
}

async function listJson(cwd: string, home: string, all = false): Promise<SessionSummary[]> {
  const r = await cliInProcess(['sessions', '--json', ...(all ? ['--all'] : [])], { cwd, home });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as SessionSummary[];
}

/** What the listing says must be what loading the whole file says. */
function expectMatchesStore(row: SessionSummary): void {
  withStore(row.file, (store) => {
    const stats = sessionStats(store);
    expect(row.id).toBe(store.id);
    expect(row.cwd).toBe(store.header.cwd);
    expect(row.entries, `${row.file}: entries`).toBe(store.entries().length);
    expect(row.branches, `${row.file}: branches`).toBe(store.branchCount());
    expect(row.name).toBe(store.name);
    expect(row.firstUserMessage).toBe(snapshotOf(store).firstUserMessage);
    expect(row.stats, `${row.file}: stats`).toEqual({ session: stats.session, activePath: stats.activePath });
    if (stats.lastRun) expect(row.lastRun).toMatchObject(stats.lastRun);
    else expect(row.lastRun).toBeNull();
  });
}

const withUsage = (text: string, input: number, output: number, cost: number): ScriptTurn => ({ text, usage: { input, output, cost } });

describe('listing: sessions', () => {
  it('lists this workspace’s sessions (all of them with --all), with counts and stats that match the files', async () => {
    const home = tempDir('mini-agent-home-');
    const cwd = tempDir();
    const other = tempDir();
    const empty = await runCli(['sessions'], { cwd, home });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain('no sessions in this workspace');
    expect(await listJson(cwd, home)).toEqual([]);

    // A: tool calls (one fails), two runs, a branch, a name and a label after the last run.
    const a1 = ok(
      await agentRun(
        [
          {
            text: 'Reading.',
            toolCalls: [
              { name: 'read_file', arguments: { path: 'missing.txt' } },
              { name: 'write_note', arguments: { path: 'n.md', text: 'x' } },
            ],
            usage: { input: 100, output: 10, cost: 0.25 },
          },
          withUsage('Read.', 200, 20, 0.5),
        ],
        'Summarize the notes please',
        { cwd, home },
      ),
    );
    const a = a1.start!.session!;
    const [firstAnswer, lastAnswer] = a1.events.flatMap((e) => (e.type === 'message_end' ? [e.entryId] : []));
    ok(await agentRun([withUsage('Again.', 300, 30, 1)], 'and again', { cwd, home, session: { resume: a.id } }));
    ok(await agentRun([withUsage('Branched.', 50, 5, 0.125)], 'on a branch', { cwd, home, session: { resume: a.id }, branch: lastAnswer }));
    await agentName({ cwd, home }, a.id, 'Notes work');
    expect(await agentLabel({ cwd, home }, a.id, firstAnswer, 'first-answer')).toBe(firstAnswer);
    // B: one plain run. C: in another workspace.
    const b = ok(await agentRun([withUsage('Hello.', 10, 1, 0)], 'Say hello', { cwd, home })).start!.session!;
    const c = ok(await agentRun([withUsage('Elsewhere.', 10, 1, 0)], 'Other workspace', { cwd: other, home })).start!.session!;

    const rows = await listJson(cwd, home);
    expect(rows.map((r) => r.id)).toEqual([b.id, a.id]); // most recently used first
    for (const row of rows) expectMatchesStore(row);
    const ra = rows.find((r) => r.id === a.id)!;
    expect(ra).toMatchObject({ name: 'Notes work', branches: 2, firstUserMessage: 'Summarize the notes please', cwd, file: a.file, parentSession: null });
    expect(ra.stats!.session).toMatchObject({
      usage: { input: 650, output: 65, cost: 1.875 },
      turns: 4,
      toolCalls: 2,
      toolErrors: 1,
      compactions: 0,
    });
    expect(ra.stats!.session.wallTimeMs).toBeGreaterThan(0);
    expect(ra.stats!.activePath).toMatchObject({ usage: { input: 350, output: 35, cost: 0.875 }, turns: 3, toolCalls: 2 });
    expect(ra.lastRun).toMatchObject({ stopReason: 'completed', turns: 1, toolCalls: 0, usage: { input: 50, output: 5, cost: 0.125 } });
    expect(Date.parse(ra.lastUsed)).toBeGreaterThanOrEqual(Date.parse(ra.created));

    // Moving the leaf without a run changes the active path: the listing follows.
    await agentOpen({ cwd, home, session: { resume: a.id }, branch: 'first-answer' });
    const moved = (await listJson(cwd, home)).find((r) => r.id === a.id)!;
    expectMatchesStore(moved);
    expect(moved.stats!.activePath.turns).toBe(1);

    const all = await listJson(cwd, home, true);
    expect(all.map((r) => r.id).sort()).toEqual([a.id, b.id, c.id].sort());
    for (const row of all) expectMatchesStore(row);
    expect((await listJson(other, home)).map((r) => r.id)).toEqual([c.id]);

    // The table: a header and one row per session, ids shortened, counts and the first message.
    const table = await cliInProcess(['sessions'], { cwd, home });
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+LAST USED\s+ENTRIES\s+BRANCHES\s+CHECKPOINTS\s+FIRST MESSAGE$/);
    expect(lines).toHaveLength(3);
    const rowA = lines.find((l) => l.startsWith(a.id.slice(0, 8)))!;
    expect(rowA).toContain('Notes work');
    expect(rowA).toContain(moved.lastUsed.slice(0, 16).replace('T', ' '));
    expect(rowA).toMatch(new RegExp(`\\s${moved.entries}\\s+2\\s+(-|[\\d.]+ K?B)\\s+"Summarize the notes please"$`)); // the checkpoints' size: test/checkpoints-gc.test.ts
    expect(lines.some((l) => l.startsWith(b.id.slice(0, 8)) && l.endsWith('"Say hello"'))).toBe(true);
    expect(table.stdout).not.toContain(c.id.slice(0, 8));
    const allTable = await cliInProcess(['sessions', '--all'], { cwd, home });
    expect(allTable.stdout.split('\n')[0]).toMatch(/BRANCHES\s+CHECKPOINTS\s+WORKSPACE\s+FIRST MESSAGE$/);
    expect(allTable.stdout).toContain(c.id.slice(0, 8));
    expect(allTable.stdout).toContain(other);
  });

  it('1,000 session files: every readable one listed, newest first, unreadable ones skipped, in reasonable time', async () => {
    const home = tempDir('mini-agent-home-');
    const cwd = tempDir();
    const dir = sessionsDir(cwd, env(home));
    mkdirSync(dir, { recursive: true });
    const base = Date.UTC(2024, 0, 1);
    const expected: { id: string; file: string; mtime: number }[] = [];
    const answer = (text: string): AssistantMessage => ({ role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', usage: { ...emptyUsage(), input: 7, output: 3 } });
    for (let i = 0; i < 1000; i++) {
      const id = randomUUID();
      const file = newSessionFile(cwd, id, new Date(base + i * 1000), env(home));
      const store = SessionStore.create(file, { cwd, id });
      const turns = 1 + (i % 4);
      for (let t = 0; t < turns; t++) {
        store.appendMessage({ role: 'user', content: [{ type: 'text', text: `question ${t} of session ${i}` }] });
        store.appendMessage(answer(`answer ${t}`));
      }
      if (i % 7 === 0) store.append({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'a branch' }] }, parentId: store.activePath()[0].id });
      const kind = i % 5;
      // 0, 1, 2: a run record with a snapshot at the end (the fast path); 3: none (a full scan);
      // 4: a run record followed by more content (a full scan); every 50th: a big file.
      if (i % 50 === 0) for (let k = 0; k < 40; k++) store.appendMessage(answer('x'.repeat(2000)));
      if (kind !== 3) {
        store.append({
          type: 'run',
          runId: randomUUID(),
          startedAt: new Date(base).toISOString(),
          durationMs: 10 + i,
          stopReason: 'completed',
          turns,
          toolCalls: 0,
          toolErrors: 0,
          usage: emptyUsage(),
          leafId: store.leafId,
          snapshot: snapshotOf(store),
        });
      }
      if (kind === 4) store.appendMessage({ role: 'user', content: [{ type: 'text', text: 'after the run' }] });
      if (i % 11 === 0) store.append({ type: 'session_info', name: `session ${i}` });
      store.close();
      // Last used times in a shuffled order, all distinct.
      const mtime = base / 1000 + ((i * 389) % 1000) * 60;
      utimesSync(file, mtime, mtime);
      expected.push({ id, file, mtime });
    }
    // Files that are not readable sessions: skipped, never fatal.
    const junk: [string, string][] = [
      ['garbage.jsonl', 'not a session at all\n'],
      ['empty.jsonl', ''],
      ['entry-first.jsonl', '{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"user","content":[]}}\n'],
      ['newer-version.jsonl', '{"type":"session","version":99,"id":"from-the-future","cwd":"/","timestamp":"t"}\n{"some":"thing"}\n'],
      ['no-id.jsonl', '{"type":"session","version":2,"cwd":"/","timestamp":"t"}\n'],
      ['binary.jsonl', '\u0000\u0001\u0002\uffff'],
    ];
    for (const [name, text] of junk) writeFileSync(join(dir, name), text);
    mkdirSync(join(dir, 'a-folder.jsonl'));
    writeFileSync(join(dir, 'notes.txt'), 'not a .jsonl file');

    const started = performance.now();
    const r = await cliInProcess(['sessions', '--json'], { cwd, home, timeoutMs: 30_000 });
    const elapsed = performance.now() - started;
    expect(r.code, r.stderr).toBe(0);
    expect(elapsed).toBeLessThan(10_000);
    const rows = JSON.parse(r.stdout) as SessionSummary[];
    expect(rows).toHaveLength(1000);
    const order = [...expected].sort((x, y) => y.mtime - x.mtime).map((e) => e.id);
    expect(rows.map((row) => row.id)).toEqual(order);
    for (let k = 1; k < rows.length; k++) expect(rows[k - 1].lastUsed >= rows[k].lastUsed).toBe(true);
    for (const row of rows) expectMatchesStore(row);
    const table = await cliInProcess(['sessions'], { cwd, home });
    expect(table.code).toBe(0);
    expect(table.stdout.trimEnd().split('\n')).toHaveLength(1001);
  }, 60_000);
});

describe('listing: tree', () => {
  /** A hand-made session with branches, labels, a compaction, tool calls and a moved leaf. */
  function richSession(cwd: string): { file: string; ids: Record<string, string> } {
    const file = join(cwd, 'rich.jsonl');
    const store = SessionStore.create(file, { cwd });
    const user = (text: string) => store.appendMessage({ role: 'user', content: [{ type: 'text', text }] }).id;
    const said = (text: string, extra: Partial<AssistantMessage> = {}) => store.appendMessage({ role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', usage: { ...emptyUsage(), input: 10, output: 2 }, ...extra }).id;
    const ids: Record<string, string> = {};
    ids.q1 = user('What is in the notes folder?');
    ids.call = store.appendMessage({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'toolCall', id: 'c1', name: 'read_file', arguments: { path: 'notes/todo.md' } },
      ],
      stopReason: 'toolUse',
      usage: { ...emptyUsage(), input: 10, output: 2 },
    }).id;
    ids.result = store.appendMessage({ role: 'toolResult', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'text', text: 'buy milk' }], isError: false }).id;
    ids.a1 = said('The notes say: buy milk.');
    ids.q2 = user('Make it a list');
    ids.a2 = said('- milk');
    ids.compaction = store.append({ type: 'compaction', summary: 'User asked about notes; they say buy milk.', firstKeptEntryId: ids.q2 }).id;
    ids.q3 = user('And eggs?');
    ids.a3 = said('- milk\n- eggs');
    // A second branch from a1.
    ids.alt = store.append({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'Translate it to French' }] }, parentId: ids.a1 }).id;
    ids.altAnswer = said('Les notes disent : acheter du lait.');
    store.append({ type: 'label', targetId: ids.a1, label: 'answered' });
    store.append({ type: 'label', targetId: ids.compaction, label: 'compacted' });
    store.checkout(ids.a3);
    store.close();
    return { file, ids };
  }

  it('tree shows ids, roles, previews, indented branches, labels, the compaction and the active path', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const { file, ids } = richSession(cwd);
    const r = await runCli(['tree', file], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const [head, body] = r.stdout.split('\n\n');
    const store = SessionStore.open(file);
    expect(head).toContain(`Session ${store.id} (${file})`);
    expect(head).toContain(`${store.entries().length} entries · 2 branches · leaf ${ids.a3}`);
    expect(head).toMatch(/session: +5 turns · 1 tool calls \(0 failed\) · 1 compactions/);
    expect(head).toMatch(/active path: +4 turns · 1 tool calls \(0 failed\) · 1 compactions/);
    const lines = body.trimEnd().split('\n');
    const line = (id: string) => {
      const found = lines.find((l) => l.includes(` ${id} `));
      expect(found, `a line for ${id} in\n${body}`).toBeDefined();
      return found!;
    };
    // One line per content entry, in tree order, each with its short id, role and preview.
    expect(lines).toHaveLength(11);
    expect(line(ids.q1)).toMatch(new RegExp(`^\\* ${ids.q1} user +"What is in the notes folder\\?"$`));
    expect(line(ids.call)).toMatch(/ assistant +/);
    expect(line(ids.call)).toContain(JSON.stringify('Let me look. → read_file({"path":"notes/todo.md"})'));
    expect(line(ids.result)).toMatch(/result +"✓ read_file: buy milk"/);
    expect(line(ids.a1)).toContain('[label: answered]');
    expect(line(ids.compaction)).toMatch(/compaction +"\[summary\] User asked about notes; they say buy milk\." \[label: compacted\]/);
    expect(line(ids.a3)).toMatch(/"- milk - eggs" ◀ leaf$/);
    // The fork after a1 indents both branches; the active one is starred, the other is not.
    expect(line(ids.q2)).toMatch(new RegExp(`^├─ \\* ${ids.q2} `));
    expect(line(ids.a2)).toMatch(new RegExp(`^│  \\* ${ids.a2} `));
    expect(line(ids.alt)).toMatch(new RegExp(`^└─   ${ids.alt} user +"Translate it to French"`));
    expect(line(ids.altAnswer)).toMatch(new RegExp(`^     ${ids.altAnswer} `));
    const starred = lines.filter((l) => /^[│├└ ─]*\* /.test(l)).length;
    expect(starred).toBe(store.activePath().length);
    store.close();

    // The most recent session when SESSION is left out, and a clear error when there is none.
    const none = await cliInProcess(['tree'], { cwd, home });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no session to continue');
  });

  it('tree --json: entries with parentId, children, active, label; the session and its stats', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const { file, ids } = richSession(cwd);
    const r = await cliInProcess(['tree', file, '--json'], { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    const tree = JSON.parse(r.stdout) as {
      session: { id: string; file: string; name: string | null; cwd: string; parentSession: unknown };
      leafId: string;
      branches: number;
      stats: ReturnType<typeof sessionStats>;
      entries: { id: string; parentId: string | null; type: string; kind: string; preview: string; label: string | null; active: boolean; children: string[] }[];
    };
    withStore(file, (store) => {
      expect(tree.session).toEqual({ id: store.id, file, name: null, cwd, parentSession: null });
      expect(tree.leafId).toBe(ids.a3);
      expect(tree.branches).toBe(2);
      expect(tree.stats).toEqual(sessionStats(store));
      const content = store.entries().filter((e) => e.type === 'message' || e.type === 'compaction');
      expect(tree.entries.map((e) => e.id)).toEqual(content.map((e) => e.id));
      const active = new Set(store.activePath().map((e) => e.id));
      for (const e of tree.entries) {
        expect(e.parentId).toBe(store.get(e.id)!.parentId);
        expect(e.children).toEqual(store.children(e.id).map((c) => c.id));
        expect(e.active).toBe(active.has(e.id));
        expect(e.label).toBe(store.labelOf(e.id) ?? null);
      }
    });
    const byId = new Map(tree.entries.map((e) => [e.id, e]));
    expect(byId.get(ids.a1)).toMatchObject({ label: 'answered', children: [ids.q2, ids.alt], kind: 'assistant' });
    expect(byId.get(ids.compaction)).toMatchObject({ type: 'compaction', kind: 'compaction', label: 'compacted', active: true });
    expect(byId.get(ids.alt)).toMatchObject({ active: false, kind: 'user', preview: 'Translate it to French' });
    expect(byId.get(ids.result)).toMatchObject({ kind: 'result', preview: '✓ read_file: buy milk' });
    expect(tree.stats.session.compactions).toBe(1);
    expect(tree.stats.activePath.turns).toBe(4);
    expect(tree.stats.session.turns).toBe(5);
    expect(tree.stats.lastRun).toBeNull();
  });
});
