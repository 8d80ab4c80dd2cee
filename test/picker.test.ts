// The list picker and the items of the /resume, /model and /tree pickers, as pure functions:
// filtering, moving, paging, width; key status without the key; the tree's order and folds.
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import type { Key } from '../src/interactive/keys.js';
import { Picker } from '../src/interactive/picker.js';
import { keyStatus, modelItems, sessionItems } from '../src/interactive/pickers.js';
import { treeItems, treeRows } from '../src/interactive/tree-picker.js';
import { paint } from '../src/interactive/view.js';
import { PROVIDERS } from '../src/model/models.js';
import type { SessionSummary } from '../src/session/catalog.js';
import type { TreeJson } from '../src/session/tree-json.js';

const p = paint(false);
const named = (name: string): Key => ({ name, ctrl: false, alt: false, shift: false }) as Key;
const text = (t: string): Key => ({ name: 'text', text: t });

describe('Picker', () => {
  const items = Array.from({ length: 30 }, (_, i) => ({ title: `item ${i} ${i % 2 ? 'odd' : 'even'}`, detail: `detail of item ${i}, long enough to wrap at forty columns of width` }));

  it('filters by every typed word, moves, pages, chooses and cancels', () => {
    const picker = new Picker(items, { title: 'Pick' });
    for (const ch of 'odd 1') picker.key(text(ch));
    expect(picker.visible().map((i) => i.title)).toEqual(['item 1 odd', 'item 11 odd', 'item 13 odd', 'item 15 odd', 'item 17 odd', 'item 19 odd', 'item 21 odd']);
    expect(picker.key(named('down'))).toBe('handled');
    expect(picker.current()?.title).toBe('item 11 odd');
    picker.key(named('backspace'));
    picker.key(named('backspace'));
    expect(picker.visible()).toHaveLength(15);
    picker.frame(80, 12, p); // sets the page size
    picker.key(named('pagedown'));
    expect(picker.current()?.title).not.toBe('item 1 odd');
    picker.key(named('end'));
    expect(picker.current()?.title).toBe('item 29 odd');
    expect(picker.key(named('enter'))).toBe('choose');
    expect(picker.key(named('escape'))).toBe('cancel');
    for (const ch of ' nothing') picker.key(text(ch));
    expect(picker.key(named('enter'))).toBe('handled'); // nothing to choose
    expect(picker.frame(80, 12, p).lines.join('\n')).toContain('nothing matches "odd nothing"');
  });

  it('fits the width and the room: rows cut or wrapped, the selection kept in view', () => {
    const picker = new Picker(items, { title: 'Pick one of the thirty items below, a long heading' });
    for (let i = 0; i < 20; i++) picker.key(named('down'));
    const frame = picker.frame(40, 14, p);
    for (const line of frame.lines) expect(stringWidth(line)).toBeLessThanOrEqual(40);
    expect(frame.lines.length).toBeLessThanOrEqual(14);
    expect(frame.lines.join('\n')).toContain('❯ item 20 even');
    expect(frame.cursor).toEqual({ line: 1, column: 11 });
  });

  it('without a filter, letters go to the host', () => {
    const picker = new Picker(items, { title: 'Pick', filter: false });
    expect(picker.key(text('l'))).toBe('unhandled');
    expect(picker.frame(40, 10, p).cursor).toBeUndefined();
  });
});

describe('the /resume and /model items', () => {
  it('a session: its name or first prompt, date, entries, size; the one in use marked', () => {
    const row = (id: string, name: string | null, first: string | null) => ({ id, file: `/s/${id}.jsonl`, name, firstUserMessage: first, lastUsed: '2026-12-02T04:00:00.000Z', entries: 4 }) as SessionSummary;
    const items = sessionItems([row('aaaaaaaa-1', 'planning', 'first\nprompt'), row('bbbbbbbb-2', null, null)], 'bbbbbbbb-2', () => 2048);
    expect(items[0]).toMatchObject({ id: 'aaaaaaaa-1', title: 'planning' });
    expect(items[0].detail).toBe('2026-12-02\u00a004:00 · 4\u00a0entries · 2.0\u00a0KB · aaaaaaaa · first prompt');
    expect(items[1].title).toBe('* (no prompt yet)');
  });

  it('key status says where a key is set, never the key', () => {
    expect(keyStatus('openai', PROVIDERS.openai, { OPENAI_API_KEY: 'sk-secret' })).toBe('key set (OPENAI_API_KEY)');
    expect(keyStatus('anthropic', PROVIDERS.anthropic, {}, { provider: 'anthropic', apiKey: 'sk-secret' })).toBe('key set (config)');
    expect(keyStatus('anthropic', PROVIDERS.anthropic, {}, { provider: 'openai', apiKey: 'sk-secret' })).toBe('no key (set ANTHROPIC_API_KEY)');
    expect(keyStatus('ollama', PROVIDERS.ollama, {})).toBe('no key needed');
    const items = modelItems({ OPENAI_API_KEY: 'sk-secret' }, { provider: 'openai', id: 'gpt-4.1' });
    expect(JSON.stringify(items)).not.toContain('sk-secret');
    expect(items.find((i) => i.provider === 'openai' && i.model === 'gpt-4.1')?.title).toBe('* openai/gpt-4.1');
    expect(items.some((i) => i.provider === 'anthropic' && i.model === 'claude-sonnet-5-5')).toBe(true);
    expect(items.some((i) => i.provider === 'openrouter' && i.model === 'anthropic/claude-opus-4-7')).toBe(true);
    expect(modelItems({}, { provider: 'scripted', id: 'script' })[0]).toMatchObject({ title: '* scripted/script', detail: 'in use' });
  });
});

describe('the /tree items', () => {
  const entry = (id: string, parentId: string | null, kind: string, preview: string, children: string[], extra: Partial<TreeJson['entries'][number]> = {}) =>
    ({ id, parentId, type: 'message', kind, preview, timestamp: '', label: null, active: true, children, ...extra }) as TreeJson['entries'][number];
  const tree = {
    session: { id: 's', file: null, name: null, cwd: '/', parentSession: null },
    leafId: 'e8',
    branches: 2,
    entries: [
      entry('e1', null, 'user', 'one', ['e2']),
      entry('e2', 'e1', 'assistant', '→ read_file({})', ['e3']),
      entry('e3', 'e2', 'result', '✓ read_file: a', ['e4']),
      entry('e4', 'e3', 'assistant', '→ bash({})', ['e5']),
      entry('e5', 'e4', 'result', '✗ bash: failed', ['e6', 'e9']),
      entry('e6', 'e5', 'assistant', 'done', ['e7']),
      entry('e7', 'e6', 'user', 'two', ['e8']),
      entry('e8', 'e7', 'assistant', 'answer', []),
      entry('e9', 'e5', 'assistant', 'other', [], { active: false, label: 'alt' }),
    ],
  } as unknown as TreeJson;

  it('walks the tree as `mini-agent tree` prints it, and folds a run of tool entries', () => {
    expect(treeRows(tree).map((r) => `${r.prefix}${r.entry.id}`)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', '├─ e6', '│  e7', '│  e8', '└─ e9']);
    const folded = treeItems(tree, new Set());
    expect(folded.map((i) => i.title)).toEqual([
      '* e1 user "one"',
      '* ▸ 4 tool entries (read_file ×1, bash ×1)',
      '├─ * e6 assistant "done"',
      '│  * e7 user "two"',
      '│  * e8 assistant ◀ leaf "answer"',
      '└─   e9 assistant [label: alt] "other"',
    ]);
    const open = treeItems(tree, new Set(['e2']));
    expect(open.map((i) => i.id)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9']);
    expect(open[1].inFold).toBe('e2');
    // A run holding the leaf is never folded.
    expect(treeItems({ ...tree, leafId: 'e4' } as TreeJson, new Set()).some((i) => i.fold)).toBe(false);
  });
});
