// Export: Markdown (the active path, golden files), JSONL (round-trip) and the CLI command
// (stdout, -o, unwritable destinations leave nothing behind). UPDATE_GOLDEN=1 rewrites the goldens.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { parseSessionText } from '../src/session/session-file.js';
import { SessionStore } from '../src/session/store.js';
import { codeSpan, exportJsonl, exportMarkdown, safeText } from '../src/session/export-text.js';
import { assistant, buildSession, CWD, fakeClock, normalizeIds, result, SESSION_ID, user, XSS } from './support/export-session.js';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir } from './support/helpers.js';

const GOLDEN_DIR = fileURLToPath(new URL('./fixtures/export/', import.meta.url));

function golden(name: string, actual: string): void {
  const file = join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(file, actual);
  }
  if (!existsSync(file)) throw new Error(`golden file ${file} is missing; run with UPDATE_GOLDEN=1 to write it`);
  expect(actual, `differs from ${name} (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(file, 'utf8'));
}

describe('Markdown export', () => {
  test('the full fixture matches its golden file (ids normalized)', () => {
    const { store } = buildSession();
    golden('session.md', normalizeIds(exportMarkdown(store), store));
  });

  test('an empty session matches its golden file', () => {
    const store = SessionStore.inMemory({ cwd: CWD, id: SESSION_ID, now: fakeClock() });
    golden('empty.md', exportMarkdown(store));
  });

  test('a session without tools, labels or branches matches its golden file', () => {
    const store = SessionStore.inMemory({ cwd: CWD, id: SESSION_ID, now: fakeClock() });
    store.appendMessage(user('What is 2 + 2?'));
    store.appendMessage({ ...assistant([{ type: 'text', text: '4.' }]), model: undefined, provider: undefined });
    store.appendMessage(user('And the square root of -1?'));
    store.appendMessage({ ...assistant([], 'error'), errorMessage: 'overloaded (529)' });
    golden('plain.md', normalizeIds(exportMarkdown(store), store));
  });

  test('is deterministic: two builds with different random ids give the same text once ids are normalized', () => {
    const a = buildSession().store;
    const b = buildSession().store;
    expect(a.activePath()[0].id).not.toBe(b.activePath()[0].id);
    expect(normalizeIds(exportMarkdown(a), a)).toBe(normalizeIds(exportMarkdown(b), b));
    expect(exportMarkdown(a)).toBe(exportMarkdown(a));
  });

  test('shows only the active path, with labels, the compaction and the leaf', () => {
    const { store, ids } = buildSession();
    const md = exportMarkdown(store);
    expect(md).toContain('BRANCH-B');
    expect(md).not.toContain('BRANCH-A');
    expect(md).not.toContain(ids.branchAUser);
    expect(md).toMatch(new RegExp(`^## User · \`${ids.firstUser}\` · label: \\*\\*start\\*\\*`, 'm'));
    expect(md).toMatch(new RegExp(`^## Compaction · \`${ids.compaction}\` · label: \\*\\*after compaction\\*\\*`, 'm'));
    expect(md).toContain('> **Compacted:** the model sees this summary');
    expect(md).toMatch(new RegExp(`^## Assistant · \`${ids.branchBReply}\` · label: .* · leaf$`, 'm'));
    expect(md).toMatch(/^# Summarize the \\\*todo\\\* list$/m);
  });

  test('tool output: first 20 lines in a fence longer than any backtick run inside, then a count', () => {
    const { store, ids } = buildSession();
    const md = exportMarkdown(store);
    const section = md.slice(md.indexOf(`\`${ids.longResult}\``));
    expect(section).toMatch(/^`````\nline 1: /m);
    expect(section).toContain('line 20: - [ ] task 20\n`````\n\n_… 10 more lines_');
    expect(section).not.toContain('line 21');
    expect(md).toMatch(new RegExp(`^### ✗ read\\\\_file failed · \`${ids.failedResult}\``, 'm'));
    expect(md).toContain('**→ read\\_file** `{"path":"notes/todo.md"}`');
    expect(md).toContain('<details><summary>Thinking (55 chars)</summary>');
  });

  test('message text cannot inject HTML or swallow the rest of the transcript', () => {
    const store = SessionStore.inMemory({ cwd: CWD, id: SESSION_ID, now: fakeClock() });
    store.appendMessage(user(`${XSS} and </details> but \`<kept>\` in code`));
    store.appendMessage(
      assistant([
        { type: 'thinking', thinking: 'end </details> here' },
        { type: 'text', text: 'open fence:\n````js\nx < y' },
      ]),
    );
    store.appendMessage(user('after'));
    const md = exportMarkdown(store);
    expect(md).not.toContain('<script>');
    expect(md).toContain('&lt;/script>&lt;script>window.pwned=1&lt;/script> and &lt;/details> but `<kept>` in code');
    expect(md).toContain('end &lt;/details> here');
    expect(md).toContain('````js\nx < y\n````');
    expect(md).toMatch(/\n## User · `[0-9a-f]{8}` · leaf\n\nafter\n$/);
  });

  test('codeSpan and safeText helpers', () => {
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x`')).toBe('`` `x` ``');
    expect(safeText('```\n<b>\n```\n<i>')).toBe('```\n<b>\n```\n&lt;i>');
    expect(safeText('a < b and 1<2')).toBe('a < b and 1<2');
    expect(safeText('~~~\nopen')).toBe('~~~\nopen\n~~~');
  });

  test('a tool call with invalid arguments and an empty tool result', () => {
    const store = SessionStore.inMemory({ cwd: CWD, id: SESSION_ID, now: fakeClock() });
    store.appendMessage(assistant([{ type: 'toolCall', id: 'c', name: 'read_file', arguments: {}, argumentsError: 'Unexpected end of JSON' }], 'toolUse'));
    store.appendMessage(result('c', 'read_file', '', true));
    const md = exportMarkdown(store);
    expect(md).toContain('**→ read\\_file** ✗ invalid arguments: Unexpected end of JSON');
    expect(md).toMatch(/### ✗ read\\_file failed · `[0-9a-f]{8}` · leaf\n\n_\(no output\)_\n$/);
  });
});

describe('JSONL export', () => {
  test('round-trips: parsing the output gives the same header and entries', () => {
    const { store } = buildSession();
    const parsed = parseSessionText(exportJsonl(store), 'export');
    expect(parsed.warnings).toEqual([]);
    expect(parsed.header).toEqual(store.header);
    expect(parsed.entries).toEqual(store.entries());
  });

  test('is byte for byte the session file', () => {
    const dir = tempDir();
    const file = join(dir, 's.jsonl');
    buildSession(SessionStore.create(file, { cwd: CWD, id: SESSION_ID, now: fakeClock() })).store.close();
    expect(exportJsonl(SessionStore.open(file))).toBe(readFileSync(file, 'utf8'));
  });
});

describe('mini-agent export (CLI)', () => {
  function sessionFile(): { dir: string; file: string; store: SessionStore } {
    const dir = tempDir();
    const file = join(dir, 'session.jsonl');
    const { store } = buildSession(SessionStore.create(file, { cwd: CWD, id: SESSION_ID, now: fakeClock() }));
    store.close();
    return { dir, file, store: SessionStore.open(file) };
  }

  test('--format jsonl -o FILE writes a file that round-trips', async () => {
    const { dir, file, store } = sessionFile();
    const r = await cliInProcess(['export', file, '--format', 'jsonl', '-o', 'out.jsonl'], { cwd: dir });
    expect(r.stderr).toContain('wrote out.jsonl');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const text = readFileSync(join(dir, 'out.jsonl'), 'utf8');
    expect(text).toBe(readFileSync(file, 'utf8'));
    const parsed = parseSessionText(text, 'out.jsonl');
    expect(parsed.header).toEqual(store.header);
    expect(parsed.entries).toEqual(store.entries());
    expect(readdirSync(dir).sort()).toEqual(['out.jsonl', 'session.jsonl']);
  });

  test('--format md prints the transcript to stdout', async () => {
    const { dir, file, store } = sessionFile();
    const r = await cliInProcess(['export', file, '--format', 'md'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(exportMarkdown(store));
    expect(normalizeIds(r.stdout, store)).toBe(readFileSync(join(GOLDEN_DIR, 'session.md'), 'utf8'));
  });

  test('--format html -o FILE replaces an existing file', async () => {
    const { dir, file } = sessionFile();
    writeFileSync(join(dir, 'out.html'), 'old');
    const r = await cliInProcess(['export', file, '--format', 'html', '-o', 'out.html'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'out.html'), 'utf8')).toMatch(/^<!doctype html>/);
    expect(readdirSync(dir).sort()).toEqual(['out.html', 'session.jsonl']);
  });

  test('a destination inside a missing directory: exit 2, a clear message, nothing written', async () => {
    const { dir, file } = sessionFile();
    const r = await cliInProcess(['export', file, '--format', 'md', '-o', 'missing/out.md'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mini-agent: cannot write missing\/out\.md: .*director/m);
    expect(r.stdout).toBe('');
    expect(readdirSync(dir)).toEqual(['session.jsonl']);
  });

  test('a destination that is a directory: exit 2, a clear message, no temp file left', async () => {
    const { dir, file } = sessionFile();
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out', 'keep.txt'), 'x');
    const r = await cliInProcess(['export', file, '--format', 'html', '-o', 'out'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mini-agent: cannot write out: .*director/m);
    expect(readdirSync(dir).sort()).toEqual(['out', 'session.jsonl']);
    expect(readdirSync(join(dir, 'out'))).toEqual(['keep.txt']);
  });

  test('a session that does not exist: exit 2', async () => {
    const dir = tempDir();
    const r = await cliInProcess(['export', './nope.jsonl', '--format', 'md'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('session file not found: ./nope.jsonl');
  });
});
