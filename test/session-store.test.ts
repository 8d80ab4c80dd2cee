// Behaviour tests for the session store and the session file format.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyUsage, type AssistantMessage, type Message, type UserMessage } from '../src/core/types.js';
import { SESSION_FORMAT_VERSION, type ContentEntry, type SessionEntry } from '../src/session/entries.js';
import { projectMessages } from '../src/session/projector.js';
import { SessionFileError } from '../src/session/session-file.js';
import { SessionStore } from '../src/session/store.js';
import { tempDir } from './support/helpers.js';

// node:fs passes through to the real module. One test simulates a disk that fills up mid-line, the way
// write(2) does it: a short write of `partialNextWrite` bytes, then ENOSPC on the next call.
const fsFault = vi.hoisted(() => ({ partialNextWrite: undefined as number | undefined, failNext: false }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const writeSync = (fd: number, buf: Buffer, offset?: number, length?: number): number => {
    if (fsFault.failNext) {
      fsFault.failNext = false;
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    const n = fsFault.partialNextWrite;
    if (n !== undefined && Buffer.isBuffer(buf)) {
      fsFault.partialNextWrite = undefined;
      fsFault.failNext = true;
      const start = offset ?? 0;
      return real.writeSync(fd, buf, start, Math.min(n, buf.length - start));
    }
    return real.writeSync(fd, buf, offset, length);
  };
  return { ...real, writeSync };
});

// ---------------------------------------------------------------- helpers

const opened: SessionStore[] = [];
afterEach(() => {
  while (opened.length) opened.pop()!.close();
});

/** Keeps track of stores so their file descriptors are closed after each test. */
function track(store: SessionStore): SessionStore {
  opened.push(store);
  return store;
}

function user(text: string): UserMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function assistant(text: string): AssistantMessage {
  return { role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', usage: emptyUsage() };
}

/** A fixed clock that ticks one second per call. */
function clock(start = Date.UTC(2024, 0, 2, 3, 4, 5)): () => Date {
  let t = start;
  return () => new Date((t += 1000));
}

function sessionPath(name = 'session.jsonl'): string {
  return join(tempDir(), name);
}

function create(file = sessionPath()): SessionStore {
  return track(SessionStore.create(file, { cwd: '/some/project', now: clock() }));
}

function reopen(file: string): SessionStore {
  return track(SessionStore.open(file));
}

function bytes(file: string): Buffer {
  return readFileSync(file);
}

/** The file's lines without the empty string after the final newline. */
function lines(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

function ids(entries: readonly SessionEntry[]): string[] {
  return entries.map((e) => e.id);
}

function texts(messages: readonly Message[]): string[] {
  return messages.map((m) => m.content.map((c) => (c.type === 'text' ? c.text : '')).join(''));
}

function expectPrefix(before: Buffer, after: Buffer): void {
  expect(after.length).toBeGreaterThan(before.length);
  expect(after.subarray(0, before.length).equals(before)).toBe(true);
}

function expectRefused(file: string, pattern: RegExp): void {
  const before = bytes(file);
  let err: unknown;
  try {
    SessionStore.open(file);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(SessionFileError);
  expect((err as Error).message).toMatch(pattern);
  expect((err as Error).message).toContain(file);
  expect((err as Error).message).toMatch(/not modified/);
  expect(bytes(file).equals(before)).toBe(true);

  expect(() => SessionStore.openOrCreate(file, { cwd: '/x' })).toThrow(SessionFileError);
  expect(bytes(file).equals(before)).toBe(true);

  expect(() => SessionStore.create(file, { cwd: '/x' })).toThrow(SessionFileError);
  expect(bytes(file).equals(before)).toBe(true);
}

const HEADER = (over: Record<string, unknown> = {}) => JSON.stringify({ type: 'session', version: SESSION_FORMAT_VERSION, id: 'sess-1', cwd: '/p', timestamp: '2024-01-01T00:00:00.000Z', ...over });

// ---------------------------------------------------------------- store API

describe('SessionStore API', () => {
  it('chains content entries to the active leaf and indexes them', () => {
    const s = create();
    expect(s.leafId).toBeNull();
    expect(s.activePath()).toEqual([]);
    expect(s.children(null)).toEqual([]);

    const m1 = s.appendMessage(user('hello'));
    const m2 = s.appendMessage(assistant('hi'));
    const m3 = s.append({ type: 'message', message: user('again') });

    expect(m1.parentId).toBeNull();
    expect(m2.parentId).toBe(m1.id);
    expect(m3.parentId).toBe(m2.id);
    expect(s.leafId).toBe(m3.id);
    expect(new Set([m1.id, m2.id, m3.id]).size).toBe(3);

    expect(s.get(m1.id)).toBe(m1);
    expect(s.get(m2.id)).toEqual({ id: m2.id, parentId: m1.id, type: 'message', timestamp: m2.timestamp, message: assistant('hi') });
    expect(s.get('nope')).toBeUndefined();

    expect(s.children(null)).toEqual([m1]);
    expect(s.children(m1.id)).toEqual([m2]);
    expect(s.children(m2.id)).toEqual([m3]);
    expect(s.children(m3.id)).toEqual([]);

    expect(ids(s.activePath())).toEqual([m1.id, m2.id, m3.id]);
    expect(ids(s.pathTo(m2.id))).toEqual([m1.id, m2.id]);
    expect(s.pathTo(null)).toEqual([]);
    expect(ids(s.entries())).toEqual([m1.id, m2.id, m3.id]);
  });

  it('uses the injected clock for timestamps', () => {
    const s = track(SessionStore.create(sessionPath(), { cwd: '/p', now: () => new Date(Date.UTC(2030, 4, 6, 7, 8, 9, 10)) }));
    expect(s.header.timestamp).toBe('2030-05-06T07:08:09.010Z');
    expect(s.appendMessage(user('x')).timestamp).toBe('2030-05-06T07:08:09.010Z');
  });

  it('an explicit parentId branches without a checkout and makes the new entry the leaf', () => {
    const s = create();
    const m1 = s.appendMessage(user('1'));
    const m2 = s.appendMessage(assistant('2'));
    const side = s.append({ type: 'message', message: user('side'), parentId: m1.id });
    expect(side.parentId).toBe(m1.id);
    expect(s.leafId).toBe(side.id);
    expect(s.children(m1.id).map((e) => e.id)).toEqual([m2.id, side.id]);
    const root2 = s.append({ type: 'message', message: user('root2'), parentId: null });
    expect(root2.parentId).toBeNull();
    expect(ids(s.children(null))).toEqual([m1.id, root2.id]);
  });

  it('checkout moves the leaf and persists it as a leaf entry', () => {
    const file = sessionPath();
    const s = create(file);
    const m1 = s.appendMessage(user('1'));
    const m2 = s.appendMessage(assistant('2'));
    const linesBefore = lines(file).length;

    s.checkout(m1.id);
    expect(s.leafId).toBe(m1.id);
    expect(ids(s.activePath())).toEqual([m1.id]);

    const all = lines(file);
    expect(all.length).toBe(linesBefore + 1);
    const leafLine = JSON.parse(all[all.length - 1]);
    expect(leafLine).toMatchObject({ type: 'leaf', parentId: null, targetId: m1.id });
    expect(typeof leafLine.id).toBe('string');
    expect(typeof leafLine.timestamp).toBe('string');
    const last = s.entries()[s.entries().length - 1];
    expect(last).toEqual(leafLine);

    // the next content entry is a child of the checked-out entry
    const m3 = s.appendMessage(user('3'));
    expect(m3.parentId).toBe(m1.id);
    expect(ids(s.children(m1.id))).toEqual([m2.id, m3.id]);
    // control entries are not tree nodes
    expect(s.children(null)).toEqual([m1]);
  });

  it('checkout to the current leaf writes nothing', () => {
    const file = sessionPath();
    const s = create(file);
    s.checkout(null);
    const m1 = s.appendMessage(user('1'));
    const before = bytes(file);
    s.checkout(m1.id);
    expect(bytes(file).equals(before)).toBe(true);
    expect(s.entries().length).toBe(1);
  });

  it('checkout(null) moves before the first entry; the next message is a new root', () => {
    const s = create();
    const m1 = s.appendMessage(user('1'));
    s.checkout(null);
    expect(s.leafId).toBeNull();
    expect(s.activePath()).toEqual([]);
    const r2 = s.appendMessage(user('r2'));
    expect(r2.parentId).toBeNull();
    expect(ids(s.children(null))).toEqual([m1.id, r2.id]);
    expect(ids(s.activePath())).toEqual([r2.id]);
    const again = reopen(s.file!);
    expect(again.leafId).toBe(r2.id);
    expect(ids(again.children(null))).toEqual([m1.id, r2.id]);
  });

  it('rejects checkouts, labels and parents that are unknown or control entries, writing nothing', () => {
    const file = sessionPath();
    const s = create(file);
    const m1 = s.appendMessage(user('1'));
    s.append({ type: 'label', targetId: m1.id, label: 'x' });
    const labelEntry = s.entries()[1];
    const before = bytes(file);
    const count = s.entries().length;

    expect(() => s.checkout('missing')).toThrow(/missing/);
    expect(() => s.checkout(labelEntry.id)).toThrow(/label entry/);
    expect(() => s.append({ type: 'label', targetId: 'missing', label: 'y' })).toThrow(/missing/);
    expect(() => s.append({ type: 'label', targetId: labelEntry.id, label: 'y' })).toThrow(/label entry/);
    expect(() => s.append({ type: 'message', message: user('z'), parentId: 'missing' })).toThrow(/missing/);
    expect(() => s.append({ type: 'message', message: user('z'), parentId: labelEntry.id })).toThrow(/not a message or compaction/);
    expect(() => s.append({ type: 'compaction', summary: 's', firstKeptEntryId: 'missing' })).toThrow(/firstKeptEntryId/);

    expect(bytes(file).equals(before)).toBe(true);
    expect(s.entries().length).toBe(count);
    expect(s.leafId).toBe(m1.id);
    expect(s.labelOf(m1.id)).toBe('x');
  });

  it('labels: set, last one wins, clear with null; labels survive a reload', () => {
    const file = sessionPath();
    const s = create(file);
    const m1 = s.appendMessage(user('1'));
    const m2 = s.appendMessage(assistant('2'));
    expect(s.labelOf(m1.id)).toBeUndefined();

    const l1 = s.append({ type: 'label', targetId: m1.id, label: 'start' });
    expect(l1).toMatchObject({ type: 'label', parentId: null, targetId: m1.id, label: 'start' });
    expect(s.labelOf(m1.id)).toBe('start');
    s.append({ type: 'label', targetId: m1.id, label: 'beginning' });
    expect(s.labelOf(m1.id)).toBe('beginning');
    s.append({ type: 'label', targetId: m2.id, label: 'reply' });
    expect([...s.labels()].sort()).toEqual(
      [
        [m1.id, 'beginning'],
        [m2.id, 'reply'],
      ].sort(),
    );

    s.append({ type: 'label', targetId: m2.id, label: null });
    expect(s.labelOf(m2.id)).toBeUndefined();
    expect([...s.labels()]).toEqual([[m1.id, 'beginning']]);

    // labels are control entries: they neither move the leaf nor join the tree
    expect(s.leafId).toBe(m2.id);
    expect(s.children(m2.id)).toEqual([]);
    expect(ids(s.activePath())).toEqual([m1.id, m2.id]);

    const r = reopen(file);
    expect(r.labelOf(m1.id)).toBe('beginning');
    expect(r.labelOf(m2.id)).toBeUndefined();
    expect([...r.labels()]).toEqual([[m1.id, 'beginning']]);
    expect(r.leafId).toBe(m2.id);

    // a label set again after clearing
    r.append({ type: 'label', targetId: m2.id, label: 'back' });
    expect(reopen(file).labelOf(m2.id)).toBe('back');
  });

  it('compaction entries are content entries: they chain and become the leaf', () => {
    const s = create();
    const m1 = s.appendMessage(user('1'));
    const m2 = s.appendMessage(assistant('2'));
    const c = s.append({ type: 'compaction', summary: 'sum', firstKeptEntryId: m2.id, tokensBefore: 123 });
    expect(c).toMatchObject({ type: 'compaction', parentId: m2.id, summary: 'sum', firstKeptEntryId: m2.id, tokensBefore: 123 });
    expect(s.leafId).toBe(c.id);
    const m3 = s.appendMessage(user('3'));
    expect(m3.parentId).toBe(c.id);
    expect(ids(s.activePath())).toEqual([m1.id, m2.id, c.id, m3.id]);
    expect(reopen(s.file!).get(c.id)).toEqual(c);
  });

  it('an in-memory store behaves the same without a file', () => {
    const s = SessionStore.inMemory({ cwd: '/mem', id: 'mem-1' });
    expect(s.file).toBeNull();
    expect(s.id).toBe('mem-1');
    expect(s.header).toMatchObject({ type: 'session', version: SESSION_FORMAT_VERSION, id: 'mem-1', cwd: '/mem' });
    const m1 = s.appendMessage(user('1'));
    const m2 = s.appendMessage(assistant('2'));
    s.checkout(m1.id);
    const m3 = s.appendMessage(user('3'));
    s.append({ type: 'label', targetId: m3.id, label: 'l' });
    expect(ids(s.activePath())).toEqual([m1.id, m3.id]);
    expect(ids(s.children(m1.id))).toEqual([m2.id, m3.id]);
    expect(s.labelOf(m3.id)).toBe('l');
    expect(s.entries().map((e) => e.type)).toEqual(['message', 'message', 'leaf', 'message', 'label']);
    s.sync();
    s.close();
  });
});

// ---------------------------------------------------------------- file format

describe('session file format', () => {
  it('starts with the header line and nothing else', () => {
    const file = sessionPath();
    const s = track(SessionStore.create(file, { cwd: '/some/project', id: 'abc', now: () => new Date(Date.UTC(2024, 0, 1)) }));
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify({ type: 'session', version: SESSION_FORMAT_VERSION, id: 'abc', cwd: '/some/project', timestamp: '2024-01-01T00:00:00.000Z' }) + '\n');
    expect(s.header).toEqual({ type: 'session', version: SESSION_FORMAT_VERSION, id: 'abc', cwd: '/some/project', timestamp: '2024-01-01T00:00:00.000Z' });
    expect(s.id).toBe('abc');
  });

  it('generates a session id when none is given', () => {
    const a = create();
    const b = create();
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.id).not.toBe(b.id);
    expect(JSON.parse(lines(a.file!)[0]).id).toBe(a.id);
  });

  it('creates missing parent folders', () => {
    const file = join(tempDir(), 'a', 'b', 'c.jsonl');
    create(file);
    expect(existsSync(file)).toBe(true);
  });

  it('writes one line per entry with id, parentId, type and timestamp', () => {
    const file = sessionPath();
    const s = create(file);
    const m1 = s.appendMessage(user('q'));
    const m2 = s.appendMessage(assistant('a'));
    s.append({ type: 'label', targetId: m1.id, label: 'L' });
    const c = s.append({ type: 'compaction', summary: 'S', firstKeptEntryId: m2.id });
    s.checkout(m1.id);
    s.append({ type: 'label', targetId: m1.id, label: null });

    const all = lines(file);
    expect(all.length).toBe(1 + 6);
    const header = JSON.parse(all[0]);
    expect(header).toEqual({ type: 'session', version: SESSION_FORMAT_VERSION, id: s.id, cwd: '/some/project', timestamp: expect.any(String) });
    expect(Number.isNaN(Date.parse(header.timestamp))).toBe(false);

    const parsed = all.slice(1).map((l) => JSON.parse(l));
    for (const e of parsed) {
      expect(typeof e.id).toBe('string');
      expect(e.id).not.toBe('');
      expect('parentId' in e).toBe(true);
      expect(e.parentId === null || typeof e.parentId === 'string').toBe(true);
      expect(['message', 'compaction', 'label', 'leaf']).toContain(e.type);
      expect(typeof e.timestamp).toBe('string');
      expect(new Date(e.timestamp).toISOString()).toBe(e.timestamp);
      if (e.type === 'label' || e.type === 'leaf') expect(e.parentId).toBeNull();
    }
    expect(parsed.map((e) => e.type)).toEqual(['message', 'message', 'label', 'compaction', 'leaf', 'label']);
    expect(parsed.map((e) => e.parentId)).toEqual([null, m1.id, null, m2.id, null, null]);
    expect(parsed[3]).toEqual(c);
    // the file and the store agree
    expect(parsed).toEqual(s.entries());
  });

  it('each append adds exactly one whole line; the old bytes stay an unchanged prefix', () => {
    const file = sessionPath();
    const s = create(file);
    const tricky = 'line one\nline two\r\n"quoted" \\ back\u2028sep \u{1F600} é ü 中文 }{';
    const ops: Array<() => unknown> = [
      () => s.appendMessage(user(tricky)),
      () => s.appendMessage(assistant('')),
      () => s.append({ type: 'label', targetId: s.entries()[0].id, label: 'lab\nel' }),
      () => s.checkout(s.entries()[0].id),
      () => s.append({ type: 'compaction', summary: 'sum\n"mary"', firstKeptEntryId: s.entries()[0].id }),
      () => s.checkout(null),
      () => s.appendMessage(user('\u0000\u001f\u007f')),
    ];
    let before = bytes(file);
    let lineCount = lines(file).length;
    for (const op of ops) {
      op();
      const after = bytes(file);
      expectPrefix(before, after);
      const added = after.subarray(before.length).toString('utf8');
      expect(added.endsWith('\n')).toBe(true);
      expect(added.indexOf('\n')).toBe(added.length - 1); // one line, no embedded newline
      expect(JSON.parse(added)).toEqual(s.entries()[s.entries().length - 1]);
      expect(lines(file).length).toBe(lineCount + 1);
      before = after;
      lineCount++;
    }
    const r = reopen(file);
    expect(r.warnings).toEqual([]);
    expect(r.entries()).toEqual(s.entries());
    expect((r.get(s.entries()[0].id) as ContentEntry & { type: 'message' }).message).toEqual(user(tricky));
  });

  it('open keeps the header and never writes to the file', () => {
    const file = sessionPath();
    const s = create(file);
    s.appendMessage(user('1'));
    const before = bytes(file);
    const r = reopen(file);
    expect(r.header).toEqual(s.header);
    expect(r.id).toBe(s.id);
    expect(r.file).toBe(file);
    expect(r.warnings).toEqual([]);
    r.sync();
    r.close();
    expect(bytes(file).equals(before)).toBe(true);
  });
});

// ---------------------------------------------------------------- branches

describe('the branch experiment', () => {
  function build() {
    const file = sessionPath();
    const s = create(file);
    const m1 = s.appendMessage(user('m1: list the files'));
    const m2 = s.appendMessage(assistant('m2: here they are'));
    const a3 = s.appendMessage(user('a3: branch A question'));
    const a4 = s.appendMessage(assistant('a4: branch A answer'));
    s.checkout(m2.id);
    const b3 = s.appendMessage(user('b3: branch B question'));
    const b4 = s.appendMessage(assistant('b4: branch B answer'));
    return { file, s, m1, m2, a3, a4, b3, b4 };
  }

  it('branch A stays in the file while the active path follows branch B', () => {
    const { file, s, m1, m2, a3, a4, b3, b4 } = build();
    const fileIds = lines(file)
      .slice(1)
      .map((l) => JSON.parse(l).id);
    expect(fileIds).toEqual(expect.arrayContaining([a3.id, a4.id, b3.id, b4.id]));
    expect(s.get(a3.id)).toEqual(a3);
    expect(s.get(a4.id)).toEqual(a4);

    expect(ids(s.activePath())).toEqual([m1.id, m2.id, b3.id, b4.id]);
    expect(ids(s.children(m2.id))).toEqual([a3.id, b3.id]);
    expect(b3.parentId).toBe(m2.id);

    const projected = projectMessages(s.activePath());
    expect(texts(projected)).toEqual(['m1: list the files', 'm2: here they are', 'b3: branch B question', 'b4: branch B answer']);
    expect(JSON.stringify(projected)).not.toMatch(/branch A/);
    expect(ids(s.pathTo(a4.id))).toEqual([m1.id, m2.id, a3.id, a4.id]);
  });

  it('a new store reopening the file has the same leaf and both branches', () => {
    const { file, s, m1, m2, a3, a4, b3, b4 } = build();
    s.close();
    const r = reopen(file);
    expect(r.warnings).toEqual([]);
    expect(r.leafId).toBe(b4.id);
    expect(ids(r.activePath())).toEqual([m1.id, m2.id, b3.id, b4.id]);
    expect(ids(r.children(m2.id))).toEqual([a3.id, b3.id]);
    expect(r.get(a4.id)).toEqual(a4);
    expect(r.entries()).toEqual(s.entries());
    expect(texts(projectMessages(r.activePath()))).toEqual(['m1: list the files', 'm2: here they are', 'b3: branch B question', 'b4: branch B answer']);
  });

  it('checkout(a4) then reload: the leaf is a4', () => {
    const { file, s, m1, m2, a3, a4, b3 } = build();
    s.checkout(a4.id);
    expect(ids(s.activePath())).toEqual([m1.id, m2.id, a3.id, a4.id]);
    s.close();
    const r = reopen(file);
    expect(r.leafId).toBe(a4.id);
    expect(ids(r.activePath())).toEqual([m1.id, m2.id, a3.id, a4.id]);
    expect(ids(r.children(m2.id))).toEqual([a3.id, b3.id]);
    // and continuing from there extends branch A
    const a5 = r.appendMessage(user('a5'));
    expect(a5.parentId).toBe(a4.id);
    expect(reopen(file).leafId).toBe(a5.id);
  });
});

// ---------------------------------------------------------------- bad input

describe('bad input', () => {
  /** A valid session file with N messages, closed; returns its path and entries. */
  function fileWith(n: number) {
    const file = sessionPath();
    const s = create(file);
    const entries: SessionEntry[] = [];
    for (let i = 0; i < n; i++) entries.push(s.appendMessage(i % 2 ? assistant(`a${i}`) : user(`u${i}`)));
    s.close();
    return { file, entries, header: s.header };
  }

  it('a corrupt line in the middle: the rest loads, the warning names the line, the file is untouched', () => {
    const { file, entries } = fileWith(2);
    // line 1 header, line 2 entries[0], line 3 entries[1], line 4 garbage, then two more entries
    writeFileSync(file, readFileSync(file, 'utf8') + '{"id":"broken", "type": mess\n', { flag: 'w' });
    const s0 = reopen(file);
    const e3 = s0.appendMessage(user('after garbage'));
    const e4 = s0.appendMessage(assistant('more'));
    s0.close();

    const before = bytes(file);
    const s = reopen(file);
    expect(bytes(file).equals(before)).toBe(true);
    expect(ids(s.entries())).toEqual([entries[0].id, entries[1].id, e3.id, e4.id]);
    expect(s.warnings.length).toBe(1);
    expect(s.warnings[0]).toMatch(/line 4\b/);
    expect(s.warnings[0]).toContain(file);
    expect(s.leafId).toBe(e4.id);
    expect(ids(s.activePath())).toEqual([entries[0].id, entries[1].id, e3.id, e4.id]);

    const e5 = s.appendMessage(user('e5'));
    s.close();
    const after = bytes(file);
    expectPrefix(before, after);
    expect(after.subarray(before.length).toString('utf8')).toBe(JSON.stringify(e5) + '\n');
    const again = reopen(file);
    expect(ids(again.entries())).toEqual([entries[0].id, entries[1].id, e3.id, e4.id, e5.id]);
  });

  it('a missing parent: the orphan starts its own branch, with a warning', () => {
    const { file, entries } = fileWith(3);
    const all = lines(file);
    // drop entries[1] by corrupting its line in place (a test fixture, not the store, edits the file)
    all[2] = 'xx' + all[2];
    writeFileSync(file, all.join('\n') + '\n');
    const before = bytes(file);
    const s = reopen(file);
    expect(bytes(file).equals(before)).toBe(true);
    expect(ids(s.entries())).toEqual([entries[0].id, entries[2].id]);
    expect(s.warnings.some((w) => /line 3\b/.test(w))).toBe(true);
    expect(s.warnings.some((w) => w.includes(entries[1].id) && /missing/.test(w))).toBe(true);
    expect(s.leafId).toBe(entries[2].id);
    expect(ids(s.activePath())).toEqual([entries[2].id]);
  });

  it('a parent cycle in a hand-edited file does not hang the active path', () => {
    const file = sessionPath();
    const msg = (id: string, parentId: string | null) => JSON.stringify({ id, parentId, type: 'message', timestamp: 't', message: user(id) });
    writeFileSync(file, [HEADER(), msg('self', 'self'), msg('a', 'b'), msg('b', 'a')].join('\n') + '\n');
    const before = bytes(file);
    const s = reopen(file);
    expect(bytes(file).equals(before)).toBe(true);
    expect(ids(s.entries())).toEqual(['self', 'a', 'b']);
    expect(s.leafId).toBe('b');
    expect(ids(s.activePath())).toEqual(['a', 'b']);
    expect(ids(s.pathTo('self'))).toEqual(['self']);
    expect(s.warnings.some((w) => /entry a follows b/.test(w))).toBe(true);
    // the store keeps working: a new message continues from the leaf
    const c = s.appendMessage(user('c'));
    expect(ids(s.activePath())).toEqual(['a', 'b', c.id]);
  });

  it('lines with a wrong shape, unknown types and duplicate ids are skipped with their line numbers', () => {
    const { file, entries } = fileWith(1);
    const extra = [
      JSON.stringify({ parentId: null, type: 'message', timestamp: 't', message: user('no id') }), // line 3
      JSON.stringify({ id: 'x1', parentId: null, type: 'weird', timestamp: 't' }), // line 4
      JSON.stringify({ ...entries[0], message: user('dup') }), // line 5
      '[1,2,3]', // line 6
      JSON.stringify({ id: 'x2', parentId: null, type: 'message', timestamp: 't', message: { role: 'robot', content: [] } }), // line 7
      '', // line 8: blank lines are ignored silently
      JSON.stringify({ id: 'ok', parentId: entries[0].id, type: 'message', timestamp: 't', message: user('fine') }), // line 9
    ];
    writeFileSync(file, readFileSync(file, 'utf8') + extra.join('\n') + '\n');
    const before = bytes(file);
    const s = reopen(file);
    expect(bytes(file).equals(before)).toBe(true);
    expect(ids(s.entries())).toEqual([entries[0].id, 'ok']);
    expect((s.get(entries[0].id) as { message: Message }).message).toEqual(user('u0'));
    expect(s.warnings.length).toBe(5);
    expect(s.warnings[0]).toMatch(/line 3\b.*"id"/);
    expect(s.warnings[1]).toMatch(/line 4\b.*unknown entry type "weird"/);
    expect(s.warnings[2]).toMatch(/line 5\b.*duplicate/);
    expect(s.warnings[3]).toMatch(/line 6\b/);
    expect(s.warnings[4]).toMatch(/line 7\b.*role/);
  });

  it('a torn last line: open warns, and the next append starts on its own new line', () => {
    const { file, entries } = fileWith(3);
    const torn = '{"id":"deadbeef","parentId":"' + entries[2].id + '","type":"mess';
    writeFileSync(file, readFileSync(file, 'utf8') + torn); // no trailing newline
    const before = bytes(file);

    const s = reopen(file);
    expect(bytes(file).equals(before)).toBe(true);
    expect(ids(s.entries())).toEqual(ids(entries));
    expect(s.warnings.length).toBe(1);
    expect(s.warnings[0]).toMatch(/line 5\b/);
    expect(s.warnings[0]).toMatch(/incomplete|torn/);
    expect(s.leafId).toBe(entries[2].id);

    const e = s.appendMessage(user('after the crash'));
    const f = s.appendMessage(assistant('and another'));
    s.close();
    const after = bytes(file);
    expectPrefix(before, after);
    const text = after.toString('utf8');
    const all = text.slice(0, -1).split('\n');
    expect(all[4]).toBe(torn); // the fragment is still there, on its own
    expect(JSON.parse(all[5])).toEqual(e); // the new entry parses on its own line
    expect(JSON.parse(all[6])).toEqual(f);
    expect(all.length).toBe(7);

    const r = reopen(file);
    expect(ids(r.entries())).toEqual([...ids(entries), e.id, f.id]);
    expect(r.warnings.length).toBe(1);
    expect(r.warnings[0]).toMatch(/line 5\b/);
    expect(r.leafId).toBe(f.id);
    expect(ids(r.activePath())).toEqual([...ids(entries), e.id, f.id]);
  });

  it('a torn last line is also set aside by a leaf or label append', () => {
    const { file, entries } = fileWith(2);
    writeFileSync(file, readFileSync(file, 'utf8') + '{"id":"ab');
    const s = reopen(file);
    s.checkout(entries[0].id);
    s.append({ type: 'label', targetId: entries[0].id, label: 'L' });
    s.close();
    const r = reopen(file);
    expect(r.leafId).toBe(entries[0].id);
    expect(r.labelOf(entries[0].id)).toBe('L');
    expect(r.entries().length).toBe(4);
  });

  it('a write that fails halfway (disk full) does not glue the next entry to the fragment', () => {
    const file = sessionPath();
    const s = create(file);
    const m1 = s.appendMessage(user('one'));
    const before = bytes(file);
    fsFault.partialNextWrite = 17;
    expect(() => s.appendMessage(assistant('lost'))).toThrow(/ENOSPC/);
    expect(fsFault.partialNextWrite).toBeUndefined(); // the fault was really injected
    expect(fsFault.failNext).toBe(false);
    expect(bytes(file).length).toBe(before.length + 17);
    // the failed entry is not in the store
    expect(ids(s.entries())).toEqual([m1.id]);
    expect(s.leafId).toBe(m1.id);

    const m2 = s.appendMessage(user('two'));
    expect(m2.parentId).toBe(m1.id);
    s.close();
    const after = bytes(file);
    expectPrefix(before, after);
    const r = reopen(file);
    expect(ids(r.entries())).toEqual([m1.id, m2.id]);
    expect(r.get(m2.id)).toEqual(m2);
    expect(r.warnings.length).toBe(1);
    expect(r.warnings[0]).toMatch(/line 3\b.*not valid JSON/);
  });

  it('a valid last line without the trailing newline is kept, and the next append starts a new line', () => {
    const { file, entries } = fileWith(2);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, -1)); // drop the final newline
    const before = bytes(file);

    const s = reopen(file);
    expect(bytes(file).equals(before)).toBe(true);
    expect(s.warnings).toEqual([]);
    expect(ids(s.entries())).toEqual(ids(entries));
    expect(s.leafId).toBe(entries[1].id);

    const e = s.appendMessage(user('next'));
    expect(e.parentId).toBe(entries[1].id);
    s.close();
    const after = bytes(file);
    expectPrefix(before, after);
    expect(after.subarray(before.length).toString('utf8')).toBe('\n' + JSON.stringify(e) + '\n');
    const r = reopen(file);
    expect(r.warnings).toEqual([]);
    expect(ids(r.entries())).toEqual([...ids(entries), e.id]);
  });

  it('a header-only file without its trailing newline still takes appends on a new line', () => {
    const file = sessionPath();
    writeFileSync(file, HEADER());
    const s = reopen(file);
    expect(s.entries()).toEqual([]);
    const e = s.appendMessage(user('first'));
    s.close();
    expect(readFileSync(file, 'utf8')).toBe(HEADER() + '\n' + JSON.stringify(e) + '\n');
    expect(ids(reopen(file).entries())).toEqual([e.id]);
  });

  it('a missing header is refused without touching the file', () => {
    const file = sessionPath();
    writeFileSync(file, '\n' + JSON.stringify({ id: 'e1', parentId: null, type: 'message', timestamp: 't', message: user('x') }) + '\n');
    expectRefused(file, /header.*missing/);
  });

  it('a whitespace-only file is refused without touching the file', () => {
    const file = sessionPath();
    writeFileSync(file, '  \n\n');
    expectRefused(file, /header.*missing/);
  });

  it('an entry in place of the header is refused', () => {
    const file = sessionPath();
    writeFileSync(file, JSON.stringify({ id: 'e1', parentId: null, type: 'message', timestamp: 't', message: user('x') }) + '\n');
    expectRefused(file, /not a session header/);
  });

  it('an unreadable header is refused', () => {
    const file = sessionPath();
    writeFileSync(file, '{"type":"session","vers\n' + JSON.stringify({ id: 'e1', parentId: null, type: 'message', timestamp: 't', message: user('x') }) + '\n');
    expectRefused(file, /invalid JSON/);
  });

  it('a header from a newer format version is refused', () => {
    const file = sessionPath();
    writeFileSync(file, HEADER({ version: SESSION_FORMAT_VERSION + 1 }) + '\n');
    expectRefused(file, new RegExp(`version ${SESSION_FORMAT_VERSION + 1}.*newer`));
  });

  it('a header without a valid version or id is refused', () => {
    for (const bad of [{ version: undefined }, { version: 0 }, { version: 1.5 }, { version: '1' }]) {
      const file = sessionPath();
      writeFileSync(file, HEADER(bad) + '\n');
      expectRefused(file, /version/);
    }
    const file = sessionPath();
    writeFileSync(file, HEADER({ id: '' }) + '\n');
    expectRefused(file, /"id"/);
  });

  it('opening a missing file throws and does not create it', () => {
    const file = sessionPath();
    expect(() => SessionStore.open(file)).toThrow();
    expect(existsSync(file)).toBe(false);
  });

  it('create refuses an existing file and leaves it alone', () => {
    const { file } = fileWith(2);
    const before = bytes(file);
    expect(() => SessionStore.create(file, { cwd: '/x' })).toThrow(SessionFileError);
    expect(() => SessionStore.create(file, { cwd: '/x' })).toThrow(/already exists/);
    expect(bytes(file).equals(before)).toBe(true);

    const empty = sessionPath('empty.jsonl');
    writeFileSync(empty, '');
    expect(() => SessionStore.create(empty, { cwd: '/x' })).toThrow(SessionFileError);
    expect(bytes(empty).length).toBe(0);
  });

  it('openOrCreate: creates a missing file, initialises an empty one, opens an existing one', () => {
    const missing = sessionPath();
    const a = track(SessionStore.openOrCreate(missing, { cwd: '/a', id: 'A' }));
    expect(lines(missing)).toEqual([JSON.stringify(a.header)]);
    expect(a.header).toMatchObject({ type: 'session', id: 'A', cwd: '/a', version: SESSION_FORMAT_VERSION });

    const empty = sessionPath('empty.jsonl');
    writeFileSync(empty, '');
    const b = track(SessionStore.openOrCreate(empty, { cwd: '/b', id: 'B' }));
    expect(lines(empty)).toEqual([JSON.stringify(b.header)]);
    const m = b.appendMessage(user('hi'));
    b.close();
    expect(lines(empty)).toEqual([JSON.stringify(b.header), JSON.stringify(m)]);

    const { file, entries, header } = fileWith(2);
    const before = bytes(file);
    const c = track(SessionStore.openOrCreate(file, { cwd: '/elsewhere', id: 'other' }));
    expect(bytes(file).equals(before)).toBe(true);
    expect(c.header).toEqual(header); // the file's header, not the options
    expect(ids(c.entries())).toEqual(ids(entries));
  });
});
