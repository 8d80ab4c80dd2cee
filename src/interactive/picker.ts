// A list picker for the interactive mode, pure: keys in, lines out. Items have a title and an
// optional detail (a second, dim row); typing filters them (every word of the filter must occur in
// the item, case-insensitive), ↑↓ PgUp PgDn Home End move, Enter chooses, Esc cancels. It is drawn
// in the live region below the scrollback (like the approval question): nothing above is redrawn,
// and every row is cut to the width, so it reads at 40 columns as at 200.
import stringWidth from 'string-width';
import type { Key } from './keys.js';
import type { Cursor } from './screen.js';
import { serializeRow, wrapSpans } from './terminal-text.js';
import { cut, type Paint } from './view.js';

export interface PickerItem {
  title: string;
  /** A second row, dim, under the title. */
  detail?: string;
  /** More text the filter matches (not shown). */
  search?: string;
}

/** What a key did: the picker chose or was cancelled; handled; or left it to its host (a key of the host's own). */
export type PickerResult = 'choose' | 'cancel' | 'handled' | 'unhandled';

export interface PickerOptions<T extends PickerItem> {
  /** The heading row. */
  title: string;
  /** The key help under the list (wrapped). */
  hint?: string;
  /** Typing filters the list (default true). Without it, letters go to the host. */
  filter?: boolean;
  /** Lines about the selected item, under the list (word-wrapped by the picker). */
  preview?: (item: T) => string | undefined;
  /** The item selected first. */
  initial?: number;
}

export interface PickerFrame {
  lines: string[];
  cursor?: Cursor;
}

/** A picker as the conversation hosts it, in place of the editor: keys until it closes. */
export interface Overlay {
  /** 'close': the overlay is done (chosen or cancelled). */
  key(key: Key): 'close' | undefined;
  frame(width: number, room: number, p: Paint): PickerFrame;
}

/** Where the conversation keeps the open overlay (one at a time; a new one replaces the old). */
export class OverlayHost {
  private current: Overlay | undefined;

  open(overlay: Overlay): void {
    this.current = overlay;
  }

  /** True when an overlay is open: it took the key (and closed, if the key said so). */
  key(key: Key): boolean {
    if (!this.current) return false;
    if (this.current.key(key) === 'close') this.current = undefined;
    return true;
  }

  /** The open overlay's lines, its cursor moved down by `top` (the live lines above it); undefined when none is open. */
  frame(width: number, room: number, p: Paint, top: number): PickerFrame | undefined {
    const f = this.current?.frame(width, room, p);
    return f && { lines: f.lines, cursor: f.cursor && { line: top + f.cursor.line, column: f.cursor.column } };
  }
}

/** The fewest item rows shown, however little room there is. */
const MIN_ROWS = 3;
/** An item's detail takes at most this many rows. */
const DETAIL_ROWS = 2;
/** The preview's most rows. */
const PREVIEW_ROWS = 3;

export class Picker<T extends PickerItem> {
  query = '';
  private selected: number;
  private top = 0;
  /** Items per page as last drawn (PgUp/PgDn move by it). */
  private page = 5;
  private shown: T[] | undefined;

  constructor(
    private items: readonly T[],
    private readonly opts: PickerOptions<T>,
  ) {
    this.selected = Math.max(0, Math.min(opts.initial ?? 0, items.length - 1));
  }

  /** Replaces the items (after a change), keeping the selection near where it was. */
  setItems(items: readonly T[], select?: number): void {
    this.items = items;
    this.shown = undefined;
    if (select !== undefined) this.selected = select;
    this.selected = Math.max(0, Math.min(this.selected, this.visible().length - 1));
  }

  /** The items the filter lets through, in order. */
  visible(): T[] {
    if (this.shown) return this.shown;
    const words = this.query.toLowerCase().split(/\s+/).filter(Boolean);
    this.shown = words.length === 0 ? [...this.items] : this.items.filter((i) => matches(i, words));
    return this.shown;
  }

  current(): T | undefined {
    return this.visible()[this.selected];
  }

  key(key: Key): PickerResult {
    if (key.name === 'paste' || key.name === 'text') {
      if (this.opts.filter === false) return 'unhandled';
      this.setQuery(this.query + (key.name === 'paste' ? key.text.replace(/\s+/g, ' ') : key.text));
      return 'handled';
    }
    if (key.name === 'enter') return this.current() ? 'choose' : 'handled';
    if (key.name === 'escape' || (key.ctrl && key.name === 'c')) return 'cancel';
    if (key.name === 'backspace' && this.opts.filter !== false) {
      this.setQuery([...this.query].slice(0, -1).join(''));
      return 'handled';
    }
    if (key.ctrl && key.name === 'u' && this.opts.filter !== false) {
      this.setQuery('');
      return 'handled';
    }
    const n = this.visible().length;
    const moves: Partial<Record<string, number>> = { up: this.selected - 1, down: this.selected + 1, pageup: this.selected - this.page, pagedown: this.selected + this.page, home: 0, end: n - 1 };
    const to = key.ctrl || key.alt ? undefined : moves[key.name];
    if (to === undefined) return 'unhandled';
    this.selected = Math.max(0, Math.min(n - 1, to));
    return 'handled';
  }

  private setQuery(q: string): void {
    this.query = q;
    this.shown = undefined;
    this.selected = 0;
    this.top = 0;
  }

  /** The picker in `room` rows (it takes a few more when there is less: the list keeps MIN_ROWS). */
  frame(width: number, room: number, p: Paint): PickerFrame {
    const all = this.visible();
    const head = [p.bold(cut(this.opts.title, width - 1))];
    let cursor: Cursor | undefined;
    if (this.opts.filter !== false) {
      const shownQuery = cut(this.query, Math.max(4, width - 12));
      head.push(p.cyan('  filter ❯ ') + shownQuery);
      cursor = { line: 1, column: Math.min(width - 1, 11 + stringCells(shownQuery)) };
    }
    const item = this.current();
    const preview = item && this.opts.preview ? wrapped(this.opts.preview(item) ?? '', width, p.dim).slice(0, PREVIEW_ROWS) : [];
    const hint = wrapped(`${this.opts.hint ?? '↑↓ PgUp PgDn move · Enter choose · Esc cancel'}`, width, p.dim);
    const count = p.dim(`  ${all.length === this.items.length ? `${all.length}` : `${all.length} of ${this.items.length}`} item${this.items.length === 1 ? '' : 's'}`);
    const perItem = 1 + Math.max(0, ...all.slice(0, 50).map((i) => detailRows(i, width).length));
    const rows = Math.max(MIN_ROWS, room - head.length - preview.length - hint.length - 1); // 1: the count
    this.page = Math.max(1, Math.floor(rows / perItem));
    if (this.selected < this.top) this.top = this.selected;
    if (this.selected >= this.top + this.page) this.top = this.selected - this.page + 1;
    this.top = Math.max(0, Math.min(this.top, all.length - this.page));
    const list: string[] = [];
    for (let i = this.top; i < Math.min(all.length, this.top + this.page); i++) {
      const it = all[i];
      const on = i === this.selected;
      list.push((on ? p.cyan('❯ ') : '  ') + (on ? p.bold(cut(it.title, width - 3)) : cut(it.title, width - 3)));
      list.push(...detailRows(it, width).map((row) => p.dim(`    ${row}`)));
    }
    if (all.length === 0) list.push(p.dim(this.query ? `  nothing matches "${cut(this.query, width - 22)}"` : '  (nothing to pick)'));
    const more = all.length > this.page ? p.dim(` · ${this.top + 1}–${Math.min(all.length, this.top + this.page)} shown`) : '';
    return { lines: [...head, ...list, count + more, ...preview, ...hint], cursor };
  }
}

/** An item's detail in at most DETAIL_ROWS rows (word-wrapped, the last cut with an ellipsis). */
function detailRows(item: PickerItem, width: number): string[] {
  if (item.detail === undefined) return [];
  const room = Math.max(10, width - 5);
  const rows = wrapSpans([{ text: item.detail.replace(/[ \t\r\n]+/g, ' ').trim(), style: '' }], room).map((r) => serializeRow(r, false));
  if (rows.length <= DETAIL_ROWS) return rows;
  return [...rows.slice(0, DETAIL_ROWS - 1), cut(rows.slice(DETAIL_ROWS - 1).join(' '), room)];
}

function matches(item: PickerItem, words: readonly string[]): boolean {
  const text = `${item.title}\n${item.detail ?? ''}\n${item.search ?? ''}`.toLowerCase();
  return words.every((w) => text.includes(w));
}

function stringCells(s: string): number {
  return stringWidth(s);
}

/** `text` word-wrapped to `width` under a two-space indent, each row styled. */
export function wrapped(text: string, width: number, style: (s: string) => string): string[] {
  if (text.trim() === '') return [];
  return wrapSpans([{ text: text.replace(/\s+/g, ' ').trim(), style: '' }], Math.max(10, width - 3)).map((row) => style('  ' + serializeRow(row, false)));
}
