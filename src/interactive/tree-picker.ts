// /tree in the interactive mode: the tree `mini-agent tree` prints (chains flat, a fork indents its
// branches, * the active path), made navigable. ↑↓ move and the chosen entry's preview shows under
// the list; Enter branches there (as /branch ID), `r` branches there and restores the files (as
// /rewind ID: the plan, then the choice), `l` asks for a label inline (as /label ID NAME);
// a long run of tool calls and results is one fold line that Enter or → opens (← closes it again).
import type { TreeJson } from '../session/tree-json.js';
import { LineEditor } from './editor.js';
import type { Key } from './keys.js';
import { Picker, wrapped, type Overlay, type PickerFrame, type PickerItem } from './picker.js';
import type { RunLine } from './pickers.js';
import { clean, type Paint } from './view.js';

type TreeEntry = TreeJson['entries'][number];

export interface TreeRow {
  entry: TreeEntry;
  /** The branch drawing before the entry (├─ │ └─), as `mini-agent tree` draws it. */
  prefix: string;
}

export interface TreeItem extends PickerItem {
  /** The entry of the row; for a fold, its first entry. */
  id: string;
  /** A folded run of tool entries: the ids it hides. */
  fold?: string[];
  /** The fold this entry belongs to, when it is shown unfolded. */
  inFold?: string;
}

/** A run of at least this many tool calls and results in a chain is folded. */
export const FOLD_MIN = 4;

/** The rows of the tree in the order `mini-agent tree` prints them (iterative: a long chain cannot overflow the stack). */
export function treeRows(tree: TreeJson): TreeRow[] {
  const byId = new Map(tree.entries.map((e) => [e.id, e]));
  const kidsOf = (id: string | null) => (id === null ? tree.entries.filter((e) => e.parentId === null) : (byId.get(id)?.children ?? []).flatMap((c) => byId.get(c) ?? []));
  const rows: TreeRow[] = [];
  const stack: Array<{ entry: TreeEntry; first: string; rest: string }> = [];
  const pushKids = (kids: readonly TreeEntry[], prefix: string) => {
    for (let i = kids.length - 1; i >= 0; i--) {
      const last = i === kids.length - 1;
      stack.push({ entry: kids[i], first: prefix + (last ? '└─ ' : '├─ '), rest: prefix + (last ? '   ' : '│  ') });
    }
  };
  const roots = kidsOf(null);
  if (roots.length === 1) stack.push({ entry: roots[0], first: '', rest: '' });
  else pushKids(roots, '');
  while (stack.length) {
    let { entry, first, rest } = stack.pop()!;
    for (;;) {
      rows.push({ entry, prefix: first });
      const kids = kidsOf(entry.id);
      if (kids.length === 1) {
        entry = kids[0];
        first = rest;
        continue;
      }
      pushKids(kids, rest);
      break;
    }
  }
  return rows;
}

const isTool = (e: TreeEntry) => e.kind === 'result' || (e.kind === 'assistant' && e.preview.startsWith('→'));

/** The picker's items: one per row, but a chain's run of FOLD_MIN or more tool entries (none of them the leaf, unless `open`) is one fold item. */
export function treeItems(tree: TreeJson, open: ReadonlySet<string>): TreeItem[] {
  const rows = treeRows(tree);
  const items: TreeItem[] = [];
  for (let i = 0; i < rows.length; ) {
    let j = i;
    while (j < rows.length && isTool(rows[j].entry) && (j === i || rows[j].entry.parentId === rows[j - 1].entry.id)) j++;
    const run = rows.slice(i, j);
    if (run.length >= FOLD_MIN && !run.some((r) => r.entry.id === tree.leafId)) {
      const id = run[0].entry.id;
      if (!open.has(id)) {
        items.push(foldItem(run, tree));
        i = j;
        continue;
      }
      items.push(...run.map((r) => ({ ...entryItem(r, tree), inFold: id })));
      i = j;
      continue;
    }
    items.push(entryItem(rows[i], tree));
    i++;
  }
  return items;
}

function entryItem(r: TreeRow, tree: TreeJson): TreeItem {
  const e = r.entry;
  const tags = [e.label ? `[label: ${clean(e.label)}]` : '', e.id === tree.leafId ? '◀ leaf' : ''].filter(Boolean).join(' ');
  return { id: e.id, title: `${r.prefix}${e.active ? '*' : ' '} ${e.id} ${e.kind}${tags ? ' ' + tags : ''} ${JSON.stringify(clean(e.preview))}` };
}

function foldItem(run: readonly TreeRow[], tree: TreeJson): TreeItem {
  const counts = new Map<string, number>();
  for (const r of run) {
    const name = /^[✓✗] ([^:]+):/.exec(r.entry.preview)?.[1];
    if (r.entry.kind === 'result' && name) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const tools = [...counts].map(([n, c]) => `${clean(n)} ×${c}`).join(', ');
  const active = run.some((r) => r.entry.active) ? '*' : ' ';
  return { id: run[0].entry.id, fold: run.map((r) => r.entry.id), title: `${run[0].prefix}${active} ▸ ${run.length} tool entries${tools ? ` (${tools})` : ''}`, search: tree.session.id };
}

class TreeOverlay implements Overlay {
  private tree: TreeJson;
  private readonly open = new Set<string>();
  private readonly picker: Picker<TreeItem>;
  private labelling: { id: string; editor: LineEditor } | undefined;

  constructor(
    private readonly load: () => TreeJson,
    private readonly run: RunLine,
  ) {
    this.tree = load();
    const items = treeItems(this.tree, this.open);
    this.picker = new Picker(items, {
      title: `Session tree (${this.tree.entries.length} entries, * the active path)`,
      filter: false,
      hint: '↑↓ PgUp PgDn move · Enter branch here · r branch here and restore the files · l label · → ← open/close a fold · Esc close',
      initial: Math.max(
        0,
        items.findIndex((i) => i.id === this.tree.leafId),
      ),
      preview: (item) => this.preview(item),
    });
  }

  private preview(item: TreeItem): string {
    if (item.fold) return `${item.fold.length} tool calls and results, folded: Enter or → opens them`;
    const e = this.tree.entries.find((x) => x.id === item.id);
    return e ? `${e.kind} ${e.id}${e.label ? ` [label: ${clean(e.label)}]` : ''}: ${clean(e.preview)}` : '';
  }

  private rebuild(select?: (items: readonly TreeItem[]) => number): void {
    const items = treeItems(this.tree, this.open);
    this.picker.setItems(items, select ? Math.max(0, select(items)) : undefined);
  }

  key(key: Key): 'close' | undefined {
    if (this.labelling) return this.labelKey(key, this.labelling);
    const item = this.picker.current();
    if (item?.fold && (key.name === 'enter' || key.name === 'right')) {
      this.open.add(item.id);
      this.rebuild((items) => items.findIndex((i) => i.id === item.id));
      return undefined;
    }
    if (item?.inFold && key.name === 'left') {
      const fold = item.inFold;
      this.open.delete(fold);
      this.rebuild((items) => items.findIndex((i) => i.id === fold));
      return undefined;
    }
    if (item && !item.fold && key.name === 'text' && key.text === 'l') {
      const editor = new LineEditor();
      editor.setText(this.tree.entries.find((e) => e.id === item.id)?.label ?? '');
      this.labelling = { id: item.id, editor };
      return undefined;
    }
    if (item && !item.fold && key.name === 'text' && key.text === 'r') {
      this.run(`/rewind ${item.id}`); // the plan, then the choice (files and conversation first): as /rewind ENTRY
      return 'close';
    }
    const r = this.picker.key(key);
    if (r === 'cancel') return 'close';
    if (r === 'choose' && item && !item.fold) {
      this.run(`/branch ${item.id}`);
      return 'close';
    }
    return undefined;
  }

  private labelKey(key: Key, l: { id: string; editor: LineEditor }): undefined {
    if (key.name === 'escape' || (key.name !== 'text' && key.name !== 'paste' && key.ctrl && key.name === 'c')) {
      this.labelling = undefined;
      return undefined;
    }
    if (l.editor.handleKey(key) !== 'submit') return undefined;
    const name = l.editor.text.replace(/\s+/g, ' ').trim();
    this.labelling = undefined;
    if (name === '') return undefined;
    // The tree is read again once the command is done (it may wait, e.g. for the prompt templates to be re-read).
    void Promise.resolve(this.run(`/label ${l.id} ${name}`)).then(() => {
      this.tree = this.load();
      this.rebuild();
    });
    return undefined;
  }

  frame(width: number, room: number, p: Paint): PickerFrame {
    if (!this.labelling) return this.picker.frame(width, room, p);
    const ask = wrapped(`Label for entry ${this.labelling.id} (Enter saves · Esc back):`, width, p.yellow);
    const r = this.labelling.editor.render(width, { prompt: '  label ❯ ' });
    const list = this.picker.frame(width, room - ask.length - r.lines.length, p).lines;
    return { lines: [...list, ...ask, ...r.lines], cursor: { line: list.length + ask.length + r.cursorLine, column: r.cursorColumn } };
  }
}

export function treePicker(load: () => TreeJson, run: RunLine): Overlay {
  return new TreeOverlay(load, run);
}
