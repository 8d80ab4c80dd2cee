// Reading a session file accepts every line an older mini-agent accepted (the reading schema:
// src/session/entry-kinds/reading.ts), so no entry an older version wrote, or a hand edit, is
// lost; what flows on from such a line (projection, tree, exports, the adapters) does not fail.
// The reference is the reader of a09fcf4 (entryShapeError of src/session/entries.ts), copied
// below as it was; a line both readers refuse is still skipped, with a warning naming the problem.
import { SESSION_FORMAT_VERSION } from '../src/session/entries.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toAnthropicRequest } from '../src/model/anthropic-convert.js';
import { toOpenAIRequest } from '../src/model/openai-convert.js';
import { projectMessages } from '../src/session/projector.js';
import { READ_FORM_CHECKS } from '../src/session/entry-checks.generated.js';
import { SessionStore } from '../src/session/store.js';
import { runCli, tempDir } from './support/helpers.js';
import { agentRun } from './support/sessions.js';

// ---- the reference: entryShapeError as of a09fcf4, unchanged ----
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const ENTRY_TYPES = new Set(['message', 'compaction', 'branch_summary', 'label', 'leaf', 'session_info', 'run', 'compaction_failed', 'permission_grant', 'model_change', 'model_window']);
function oldEntryShapeError(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'not a JSON object';
  const e = value;
  if (typeof e.id !== 'string' || e.id === '') return 'missing "id"';
  if (e.parentId !== null && typeof e.parentId !== 'string') return 'missing "parentId"';
  if (typeof e.type !== 'string') return 'missing "type"';
  if (!ENTRY_TYPES.has(e.type)) return `unknown entry type "${e.type}"`;
  if (typeof e.timestamp !== 'string') return 'missing "timestamp"';
  switch (e.type) {
    case 'message': {
      const m = e.message as Record<string, unknown> | undefined;
      if (typeof m !== 'object' || m === null) return 'message entry without "message"';
      if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'toolResult') return `unknown message role "${String(m.role)}"`;
      if (!Array.isArray(m.content)) return 'message without a "content" array';
      for (const c of m.content as unknown[]) {
        const block = c as Record<string, unknown> | null;
        if (typeof block !== 'object' || block === null || typeof block.type !== 'string') return 'message content item without a "type"';
        if (block.type === 'text' && typeof block.text !== 'string') return 'text content without "text"';
        if (block.type === 'toolCall' && (typeof block.id !== 'string' || typeof block.name !== 'string')) return 'tool call without "id"/"name"';
      }
      if (m.role === 'toolResult' && typeof m.toolCallId !== 'string') return 'tool result without "toolCallId"';
      if (m.role === 'assistant' && (typeof m.usage !== 'object' || m.usage === null || typeof m.stopReason !== 'string')) {
        return 'assistant message without "usage"/"stopReason"';
      }
      return undefined;
    }
    case 'compaction':
      if (typeof e.summary !== 'string' || typeof e.firstKeptEntryId !== 'string') return 'compaction without "summary"/"firstKeptEntryId"';
      return undefined;
    case 'branch_summary':
      if (typeof e.summary !== 'string' || typeof e.fromId !== 'string') return 'branch_summary without "summary"/"fromId"';
      return undefined;
    case 'compaction_failed':
      if (typeof e.error !== 'string' || typeof e.reason !== 'string') return 'compaction_failed without "reason"/"error"';
      return undefined;
    case 'model_change':
      if (typeof e.provider !== 'string' || typeof e.model !== 'string') return 'model_change without "provider"/"model"';
      return undefined;
    case 'model_window':
      if (typeof e.provider !== 'string' || typeof e.model !== 'string') return 'model_window without "provider"/"model"';
      if (typeof e.contextWindow !== 'number' || !(e.contextWindow > 0) || (e.source !== 'error' && e.source !== 'server')) return 'model_window without a positive "contextWindow" and a "source" (error or server)';
      return undefined;
    case 'permission_grant':
      if (typeof e.rule !== 'string' || e.rule === '') return 'permission_grant without "rule"';
      return undefined;
    case 'label':
      if (typeof e.targetId !== 'string' || (e.label !== null && typeof e.label !== 'string')) return 'label without "targetId"/"label"';
      return undefined;
    case 'leaf':
      if (e.targetId !== null && typeof e.targetId !== 'string') return 'leaf without "targetId"';
      return undefined;
    case 'session_info':
      if (e.name !== null && typeof e.name !== 'string') return 'session_info without "name"';
      return undefined;
    case 'run':
      if (typeof e.runId !== 'string' || typeof e.snapshot !== 'object' || e.snapshot === null) return 'run without "runId"/"snapshot"';
      return undefined;
  }
  return undefined;
}
// ---- end of the reference ----

const T = '2026-01-01T00:00:00.000Z';
// The current version: what is under test is the shapes of older lines, read in place (a file of an
// older version is migrated first: session-store.test.ts).
const HEADER = { type: 'session', version: SESSION_FORMAT_VERSION, id: 'old-session', cwd: '/w', timestamp: T };
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: 0 };

/** Lines an older version (or a hand edit) could have written, one for each thing the reader accepts beyond the schema. */
const OLD_SHAPES: Record<string, unknown>[] = [
  {
    type: 'message',
    id: 'u1',
    parentId: null,
    timestamp: T,
    message: {
      role: 'user',
      content: [
        { type: 'text', text: 'read a' },
        { type: 'file', name: 'a.txt' },
      ],
    },
    extra: 'kept',
  },
  {
    type: 'message',
    id: 'a1',
    parentId: 'u1',
    timestamp: T,
    message: {
      role: 'assistant',
      // a tool call without arguments, a thinking block without its text, a block of an unknown type
      content: [{ type: 'thinking' }, { type: 'text', text: 'reading' }, { type: 'toolCall', id: 'c1', name: 'read_file' }, { type: 'citation', text: 'x' }],
      stopReason: 'pause_turn',
      usage: { input: 1 },
      model: 7,
    },
  },
  // a tool result without its tool's name and error flag, an image without data, a block of an unknown type
  { type: 'message', id: 't1', parentId: 'a1', timestamp: T, message: { role: 'toolResult', toolCallId: 'c1', content: [{ type: 'text', text: 'A' }, { type: 'image' }, { type: 'audio', data: 'AAAA' }] } },
  { type: 'message', id: 'a2', parentId: 't1', timestamp: T, message: { role: 'assistant', content: [{ type: 'text', text: 'done' }], stopReason: 'stop', usage: [] } },
  { type: 'compaction', id: 'k1', parentId: 'a2', timestamp: T, summary: 'before', firstKeptEntryId: 'a2', tokensBefore: 'many', summarizedIds: 3, details: 'none', reason: 7, warnings: 'w' },
  { type: 'branch_summary', id: 'b1', parentId: 'k1', timestamp: T, summary: 'left', fromId: 'a1' },
  { type: 'message', id: 'u2', parentId: 'b1', timestamp: T, message: { role: 'user', content: [{ type: 'text', text: 'again' }] } },
  { type: 'message', id: 'a3', parentId: 'u2', timestamp: T, message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }], stopReason: 'stop', usage } },
  // control entries with a parentId (ignored), fields of other types, values no longer written
  { type: 'label', id: 'l1', parentId: 'u1', timestamp: T, targetId: 'u2', label: 'again' },
  { type: 'session_info', id: 'n1', parentId: 'u1', timestamp: T, name: 'older' },
  { type: 'compaction_failed', id: 'f1', parentId: 'a2', timestamp: T, targetId: 'a2', reason: 'quota', error: 'no summary' },
  { type: 'model_change', id: 'm1', parentId: 'a2', timestamp: T, provider: 'scripted', model: 'scripted', why: 'test' },
  { type: 'model_window', id: 'w1', parentId: 'a2', timestamp: T, provider: 'scripted', model: 'scripted', contextWindow: 200000.5, source: 'error', detail: 5 },
  { type: 'permission_grant', id: 'g1', parentId: 'a2', timestamp: T, rule: 'bash(ls)', seal: 5 },
  { type: 'run', id: 'r1', parentId: 'a3', timestamp: T, runId: 'run-1', snapshot: {} },
  { type: 'leaf', id: 'x1', parentId: 'a3', timestamp: T, targetId: 'a3' },
];

/** Lines both readers refuse, and the warning of the new one (line numbers: after the header and OLD_SHAPES). */
const REFUSED: [Record<string, unknown>, string][] = [
  [{ type: 'message', id: 'z1', parentId: null, timestamp: T, message: { role: 'robot', content: [] } }, 'message entry: "message.role" is "robot", expected "user", "assistant", "toolResult"'],
  [{ type: 'message', id: 'z2', parentId: null, timestamp: T, message: { role: 'user', content: [{ type: 'text' }] } }, 'message entry: missing "message.content[0].text"'],
  [{ type: 'message', id: 'z3', parentId: null, timestamp: T, message: { role: 'assistant', content: [{ type: 'toolCall', name: 'x' }], stopReason: 'stop', usage } }, 'message entry: missing "message.content[0].id"'],
  [{ type: 'message', id: 'z4', parentId: null, timestamp: T, message: { role: 'assistant', content: [], stopReason: 'stop' } }, 'message entry: missing "message.usage"'],
  [{ type: 'message', id: 'z5', parentId: null, timestamp: T, message: { role: 'toolResult', content: [] } }, 'message entry: missing "message.toolCallId"'],
  [{ type: 'message', id: 'z6', parentId: null, timestamp: T, message: { role: 'user', content: [5] } }, 'message entry: "message.content[0]" is 5, expected an object'],
  [{ type: 'compaction', id: 'z7', parentId: 'u1', timestamp: T, summary: 's' }, 'compaction entry: missing "firstKeptEntryId"'],
  [{ type: 'model_window', id: 'z8', parentId: null, timestamp: T, provider: 'p', model: 'm', contextWindow: 0, source: 'server' }, 'model_window entry: "contextWindow" is 0, expected more than 0'],
  [{ type: 'model_window', id: 'z9', parentId: null, timestamp: T, provider: 'p', model: 'm', contextWindow: 9, source: 'guess' }, 'model_window entry: "source" is "guess", expected "error" or "server"'],
  [{ type: 'permission_grant', id: 'z10', parentId: null, timestamp: T, rule: '' }, 'permission_grant entry: "rule" is empty'],
  [{ type: 'leaf', id: 'z11', parentId: null, timestamp: T, targetId: 5 }, 'leaf entry: "targetId" is 5, expected string or null'],
  [{ type: 'label', id: 'z12', parentId: null, timestamp: T, label: 'x' }, 'label entry: missing "targetId"'],
  [{ type: 'session_info', id: 'z13', parentId: null, timestamp: T }, 'session_info entry: missing "name"'],
  [{ type: 'run', id: 'z14', parentId: null, timestamp: T, runId: 'r' }, 'run entry: missing "snapshot"'],
  [{ type: 'telepathy', id: 'z15', parentId: null, timestamp: T }, 'unknown entry type "telepathy"'],
  [{ type: 'leaf', parentId: null, timestamp: T, targetId: null }, 'missing "id"'],
  [{ type: 'compaction_failed', id: 'z16', parentId: null, timestamp: T, reason: 'overflow' }, 'compaction_failed entry: missing "error"'],
];

function writeSession(dir: string, lines: readonly unknown[]): string {
  const file = join(dir, 'old.jsonl');
  writeFileSync(file, [HEADER, ...lines].map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

describe('a session file written by an older version, or edited by hand', () => {
  it('the fixture lines are ones the older reader accepted, and the refused ones it refused', () => {
    for (const line of OLD_SHAPES) expect(oldEntryShapeError(line), JSON.stringify(line)).toBeUndefined();
    for (const [line] of REFUSED) expect(oldEntryShapeError(line), JSON.stringify(line)).toBeDefined();
  });

  it('loses no line the older reader accepted; lines both refuse are skipped with a warning naming the problem', () => {
    const dir = tempDir();
    const file = writeSession(dir, [...OLD_SHAPES, ...REFUSED.map(([line]) => line)]);
    const before = readFileSync(file, 'utf8');
    const store = SessionStore.open(file);
    try {
      expect(store.entries().map((e) => e.id)).toEqual(OLD_SHAPES.map((l) => l.id));
      expect(store.warnings).toEqual(REFUSED.map(([, why], i) => `${file}: line ${2 + OLD_SHAPES.length + i}: ${why}; skipped`));
      // What the readers can use is kept as written (extra fields, other block types, any stop
      // reason, a fractional window); a field missing or of another type is filled in (required)
      // or left out (optional); the file itself is not changed.
      expect(readFileSync(file, 'utf8')).toBe(before);
      const byId = new Map(store.entries().map((e) => [e.id, e as unknown as Record<string, unknown>]));
      expect(byId.get('u1')).toEqual(OLD_SHAPES[0]);
      expect(byId.get('a1')!.message).toEqual({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: '' },
          { type: 'text', text: 'reading' },
          { type: 'toolCall', id: 'c1', name: 'read_file', arguments: {} },
          { type: 'citation', text: 'x' },
        ],
        stopReason: 'pause_turn',
        usage: { input: 1, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 },
      });
      expect(byId.get('t1')!.message).toEqual({
        role: 'toolResult',
        toolCallId: 'c1',
        toolName: '',
        isError: false,
        content: [
          { type: 'text', text: 'A' },
          { type: 'image', data: '', mimeType: '' },
          { type: 'audio', data: 'AAAA' },
        ],
      });
      expect(byId.get('k1')).toEqual({ type: 'compaction', id: 'k1', parentId: 'a2', timestamp: T, summary: 'before', firstKeptEntryId: 'a2' });
      expect(byId.get('b1')).toMatchObject({ summarizedIds: [], details: { readFiles: [], modifiedFiles: [] } });
      expect(byId.get('f1')).toMatchObject({ parentId: null, targetId: 'a2', reason: 'quota', tokensBefore: 0 });
      expect(byId.get('w1')).toEqual({ type: 'model_window', id: 'w1', parentId: null, timestamp: T, provider: 'scripted', model: 'scripted', contextWindow: 200000.5, source: 'error' });
      expect(byId.get('r1')).toMatchObject({ runId: 'run-1', durationMs: 0, leafId: null, snapshot: { entries: 0, branches: 0, name: null, firstUserMessage: null } });
      expect(store.activePath().map((e) => e.id)).toEqual(['u1', 'a1', 't1', 'a2', 'k1', 'b1', 'u2', 'a3']);
      // The projection, and both adapters' requests built from it, take the older blocks as they always did.
      const messages = projectMessages(store.activePath());
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user', 'assistant']);
      expect(() => toOpenAIRequest({ messages, tools: [], systemPrompt: 's' }, { provider: 'ollama', model: 'm', maxOutputTokens: 100 })).not.toThrow();
      expect(() => toAnthropicRequest({ messages, tools: [], systemPrompt: 's' }, { model: 'm', maxOutputTokens: 100 })).not.toThrow();
      const early = projectMessages(store.activePath().slice(0, 4));
      expect(() => toOpenAIRequest({ messages: early, tools: [], systemPrompt: 's' }, { provider: 'ollama', model: 'm', maxOutputTokens: 100 })).not.toThrow();
      expect(() => toAnthropicRequest({ messages: early, tools: [], systemPrompt: 's' }, { model: 'm', maxOutputTokens: 100 })).not.toThrow();
    } finally {
      store.close();
    }
  });

  it('tree, the exports and a resumed run work on it (CLI and SDK)', async () => {
    const dir = tempDir();
    const home = tempDir('mini-agent-home-');
    const file = writeSession(dir, OLD_SHAPES);
    const before = readFileSync(file, 'utf8');
    const tree = await runCli(['tree', file], { cwd: dir, home });
    expect(tree.stderr).toBe('');
    expect(tree.code).toBe(0);
    expect(tree.stdout).toContain('again');
    expect(tree.stdout).toContain('! compaction failed (quota, 0 tokens): no summary');
    expect(tree.stdout).toContain('reading → read_file({})');
    const json = await runCli(['tree', file, '--json'], { cwd: dir, home });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toBeTruthy();
    for (const format of ['md', 'html', 'jsonl']) {
      const r = await runCli(['export', file, '--format', format, '-o', `out.${format}`], { cwd: dir, home });
      expect(r.stderr, format).toBe(`wrote out.${format}\n`);
      expect(r.code, format).toBe(0);
    }
    expect(readFileSync(join(dir, 'out.md'), 'utf8')).toContain('again');
    const run = await agentRun([{ text: 'continued' }], 'go on', { cwd: dir, home, session: { file } });
    expect(run.result.stopReason).toBe('completed');
    const store = SessionStore.open(file);
    try {
      expect(store.warnings).toEqual([]);
      expect(
        store
          .entries()
          .map((e) => e.id)
          .slice(0, OLD_SHAPES.length),
      ).toEqual(OLD_SHAPES.map((l) => l.id));
      expect(readFileSync(file, 'utf8').startsWith(before)).toBe(true);
    } finally {
      store.close();
    }
  });
});

// ---- the property: whatever line the older reader accepted, the new one keeps ----
const anyValue = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1, 1.5, 0.25, '', 'x', 'stop', 'error', 'server', 'user', 'text', [], {}, [1], { type: 'nope' }, ['a']),
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
/** Mostly a value of the kind the field holds, sometimes anything. */
const mostly = (usual: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: anyValue, weight: 1 });
const str = fc.constantFrom('x', 'u1', 'a.txt');
const block = fc.record(
  {
    type: mostly(fc.constantFrom('text', 'image', 'thinking', 'toolCall', 'other')),
    text: mostly(str),
    id: mostly(str),
    name: mostly(str),
    arguments: anyValue,
    thinking: anyValue,
    signature: anyValue,
    data: anyValue,
    mimeType: anyValue,
  },
  { requiredKeys: [] },
);
const message = fc.record(
  {
    role: mostly(fc.constantFrom('user', 'assistant', 'toolResult')),
    content: mostly(fc.array(mostly(block), { maxLength: 3 })),
    stopReason: mostly(fc.constantFrom('stop', 'toolUse', 'pause_turn')),
    usage: mostly(fc.constantFrom(usage, {}, [])),
    toolCallId: mostly(str),
    toolName: anyValue,
    isError: anyValue,
    model: anyValue,
    details: anyValue,
  },
  { requiredKeys: ['role', 'content'] },
);
/** The fields of the kinds, each mostly of its usual kind of value. */
const FIELDS: Record<string, fc.Arbitrary<unknown>> = {
  summary: mostly(str),
  firstKeptEntryId: mostly(str),
  fromId: mostly(str),
  summarizedIds: anyValue,
  details: anyValue,
  targetId: mostly(fc.constantFrom('u1', null)),
  label: mostly(fc.constantFrom('x', null)),
  name: mostly(fc.constantFrom('x', null)),
  reason: mostly(fc.constantFrom('overflow', 'branch', 'quota')),
  error: mostly(str),
  tokensBefore: anyValue,
  provider: mostly(fc.constantFrom('p', '')),
  model: mostly(fc.constantFrom('m', '')),
  contextWindow: mostly(fc.constantFrom(1, 0.5, 200000, 1000.5)),
  source: mostly(fc.constantFrom('error', 'server')),
  detail: anyValue,
  rule: mostly(fc.constantFrom('bash(ls)', 'read_file')),
  seal: anyValue,
  runId: mostly(str),
  snapshot: mostly(fc.constantFrom({}, [], { entries: 1, branches: 1, name: null, firstUserMessage: null })),
  stopReason: anyValue,
  leafId: anyValue,
  usage: anyValue,
  durationMs: anyValue,
};
const entryLike = fc.record(
  {
    type: mostly(fc.constantFrom(...ENTRY_TYPES)),
    parentId: mostly(fc.constantFrom(null, 'u1')),
    timestamp: mostly(fc.constant(T)),
    message,
    ...FIELDS,
  },
  { requiredKeys: ['type', 'parentId', 'timestamp'] },
);

describe('reading compared with the older reader', () => {
  it('keeps every line the older reader accepted (fast-check)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(entryLike, { minLength: 1, maxLength: 40 }), (drawn) => {
        const lines = drawn.map((l, i) => ({ ...l, id: `e${i}` }));
        const kept = lines.filter((l) => oldEntryShapeError(l) === undefined).map((l) => l.id);
        accepted += kept.length;
        const file = writeSession(tempDir(), lines);
        const store = SessionStore.open(file);
        try {
          expect(store.entries().map((e) => e.id)).toEqual(expect.arrayContaining(kept));
          // and each entry, as read, is of its kind's read form: no reader meets a field it cannot use
          for (const e of store.entries()) expect(READ_FORM_CHECKS.get(e.type)!(e), JSON.stringify(e)).toBe(true);
        } finally {
          store.close();
        }
      }),
      { numRuns: 150 },
    );
    // The generator reaches lines the older reader accepted, of every kind.
    expect(accepted).toBeGreaterThan(150);
  });
});
