// The input area of the interactive mode: a multi-line buffer and its cursor, the editing keys,
// the submit rules, collapsed pastes, the history of submitted entries, and the buffer laid out
// for a terminal width. Pure: keys in, state and rendered lines out; no I/O, no timers.
// A line is a list of atoms: grapheme clusters (so the cursor never splits a character) and
// collapsed pastes (one atom each, shown as a placeholder, submitted as their full text).
import stringWidth from 'string-width';
import type { Key } from './keys.js';
import { atomText, atomWidth, cellOf, clusters, joinAtoms, normalizeNewlines, rowsOf, rowText, wordClass, type PastedBlock, type Row } from './editor-atoms.js';

/** A buffer and its cursor, kept while the history is walked. */
type Snapshot = { rows: Row[]; line: number; col: number };

/** What a key did: 'submit' (Enter: the caller takes the text with submit()), 'handled', or 'ignored' (not an editing key: the caller's to use). */
export type KeyResult = 'submit' | 'handled' | 'ignored';

export interface EditorOptions {
  /** Earlier entries, oldest first (the session's earlier user messages). */
  history?: readonly string[];
  /** The most entries kept; older ones are dropped. Default 10,000. */
  historyLimit?: number;
  /** A paste of more lines than this is shown collapsed. Default 10. */
  collapseLines?: number;
  /** A paste of more UTF-8 bytes than this is shown collapsed. Default 2,048. */
  collapseBytes?: number;
}

export interface RenderOptions {
  /** Before the first line. Default "> ". ANSI styling is allowed (it takes no width). */
  prompt?: string;
  /** Before every other line and every wrapped part. Default: spaces as wide as the prompt. */
  indent?: string;
  /** Styles a collapsed paste's placeholder (e.g. dims it); its width must stay that of the label. */
  pasteStyle?: (label: string) => string;
}

/** The buffer laid out: screen lines, none wider than the width, and the cursor's cell in them. */
export type Rendered = { lines: string[]; cursorLine: number; cursorColumn: number };

export class LineEditor {
  private rows: Row[] = [[]];
  private line = 0;
  private col = 0;
  /** The cell column vertical moves aim for, kept across consecutive Up/Down. */
  private goalX: number | null = null;
  private history: string[] = [];
  /** Which history entry is shown; history.length is the draft. */
  private historyIndex = 0;
  /** The draft and the edited entries, kept while walking the history, until a submit. */
  private saved = new Map<number, Snapshot>();
  /** Whether the shown entry was edited since it was loaded. */
  private changed = false;
  private pasteCount = 0;
  private readonly historyLimit: number;
  private readonly collapseLines: number;
  private readonly collapseBytes: number;

  constructor(options: EditorOptions = {}) {
    this.historyLimit = Math.max(1, options.historyLimit ?? 10_000);
    this.collapseLines = options.collapseLines ?? 10;
    this.collapseBytes = options.collapseBytes ?? 2048;
    this.setHistory(options.history ?? []);
  }

  /** Applies one key; see KeyResult. */
  handleKey(key: Key): KeyResult {
    if (key.name === 'text') return this.insert(key.text);
    if (key.name === 'paste') return this.paste(key.text);
    const { ctrl, alt, shift } = key;
    const word = ctrl || alt;
    switch (key.name) {
      case 'enter':
        if (ctrl || alt || shift) return this.edit(() => this.newline());
        if (this.col > 0 && this.col === this.row.length && this.row[this.col - 1] === '\\') {
          return this.edit(() => (this.deleteRange(this.col - 1, this.col), this.newline())); // "\" + Enter: a continuation line
        }
        return 'submit';
      case 'backspace':
        return this.edit(() => this.erase(-1, word));
      case 'delete':
        return this.edit(() => this.erase(1, word));
      case 'left':
        return this.move(() => this.step(-1, word));
      case 'right':
        return this.move(() => this.step(1, word));
      case 'up':
        return this.line > 0 ? this.vertical(this.line - 1) : this.walkHistory(-1);
      case 'down':
        return this.line < this.rows.length - 1 ? this.vertical(this.line + 1) : this.walkHistory(1);
      case 'home':
        return this.move(() => (ctrl ? (this.line = this.col = 0) : (this.col = 0)));
      case 'end':
        return this.move(() => (ctrl && (this.line = this.rows.length - 1), (this.col = this.row.length)));
    }
    if (ctrl && !alt) {
      if (key.name === 'a') return this.move(() => (this.col = 0));
      if (key.name === 'e') return this.move(() => (this.col = this.row.length));
      if (key.name === 'j') return this.edit(() => this.newline()); // Ctrl+J sends "\n": a newline, as in many terminals' Shift+Enter set-ups
      if (key.name === 'u') return this.edit(() => (this.col > 0 ? this.deleteRange(0, this.col) : this.erase(-1, false)));
      if (key.name === 'k') return this.edit(() => (this.col < this.row.length ? this.deleteRange(this.col, this.row.length) : this.erase(1, false)));
      if (key.name === 'w') return this.edit(() => this.erase(-1, true));
    }
    if (alt && !ctrl) {
      if (key.name === 'b') return this.move(() => this.step(-1, true));
      if (key.name === 'f') return this.move(() => this.step(1, true));
      if (key.name === 'd') return this.edit(() => this.erase(1, true));
    }
    return 'ignored';
  }

  /** Inserts text at the cursor ("\n", "\r\n" and "\r" start new lines). */
  insert(text: string): KeyResult {
    return this.edit(() => {
      const parts = normalizeNewlines(text).split('\n');
      const n = parts.length - 1;
      const before = this.row.slice(0, this.col);
      const last = joinAtoms(n ? [] : before, parts[n], this.row.slice(this.col));
      const added = n ? [joinAtoms(before, parts[0], []).row, ...parts.slice(1, -1).map(clusters), last.row] : [last.row];
      this.rows = this.rows.slice(0, this.line).concat(added, this.rows.slice(this.line + 1));
      this.line += n;
      this.col = last.col;
    });
  }

  /** Inserts a paste: as text, or collapsed into one placeholder when it has more than `collapseLines` lines or `collapseBytes` bytes. */
  paste(text: string): KeyResult {
    const body = normalizeNewlines(text);
    const breaks = body.split('\n').length - 1;
    const lines = body.endsWith('\n') ? breaks : breaks + 1;
    const bytes = Buffer.byteLength(body, 'utf8');
    if (lines <= this.collapseLines && bytes <= this.collapseBytes) return this.insert(body);
    const size = lines > 1 ? `${lines.toLocaleString('en')} lines` : `${(bytes / 1024).toFixed(1)} KB`;
    const block: PastedBlock = { text: body, label: `[paste #${++this.pasteCount}: ${size}]` };
    return this.edit(() => this.row.splice(this.col++, 0, block));
  }

  /** The full text (pastes expanded), cleared from the editor and added to the history. */
  submit(): string {
    const text = this.text;
    if (text.trim() !== '' && this.history.at(-1) !== text) this.history.push(text);
    if (this.history.length > this.historyLimit) this.history.splice(0, this.history.length - this.historyLimit);
    this.replace(rowsOf(''));
    this.pasteCount = 0;
    return text;
  }

  /** Replaces the buffer with `text` (a queued message pulled back), the cursor at its end. */
  setText(text: string): void {
    this.replace(rowsOf(text));
  }

  /** Replaces the history (oldest first); the buffer stays, as the draft. */
  /** The submitted entries, oldest first (Ctrl+R searches them). */
  historyEntries(): readonly string[] {
    return this.history;
  }

  setHistory(entries: readonly string[]): void {
    this.history = entries.slice(-this.historyLimit);
    this.historyIndex = this.history.length;
    this.saved.clear();
    this.changed = false;
  }

  /** The text of the cursor's line before the cursor (pastes expanded): what completion looks at. */
  beforeCursor(): string {
    return this.row.slice(0, this.col).map(atomText).join('');
  }

  /** Replaces the last `count` characters before the cursor (UTF-16 units, as beforeCursor gives them) with `text`: a completion. */
  completeWith(count: number, text: string): void {
    let n = 0;
    let from = this.col;
    while (from > 0 && n < count) n += atomText(this.row[--from]).length;
    this.deleteRange(from, this.col);
    this.insert(text);
  }

  isEmpty(): boolean {
    return this.rows.length === 1 && this.rows[0].length === 0;
  }

  /** The full text, pastes expanded. */
  get text(): string {
    return this.rows.map(rowText).join('\n');
  }

  /** The cursor: its line and its column in atoms (grapheme clusters; a collapsed paste is one). */
  get cursor(): { line: number; column: number } {
    return { line: this.line, column: this.col };
  }

  /** The buffer wrapped to `width` cells (a non-finite width counts as 80, less than 1 as 1). O(size of the buffer). */
  render(width: number, opts: RenderOptions = {}): Rendered {
    const cols = Number.isFinite(width) ? Math.max(1, Math.floor(width)) : 80;
    let prompt = opts.prompt ?? '> ';
    let indent = opts.indent ?? ' '.repeat(stringWidth(prompt));
    if (cols < Math.max(stringWidth(prompt), stringWidth(indent)) + 2) prompt = indent = ''; // too narrow for them
    const indentWidth = stringWidth(indent);
    const lines: string[] = [];
    let cursorLine = 0;
    let cursorColumn = 0;
    this.rows.forEach((row, li) => {
      let text = li === 0 ? prompt : indent;
      let x = stringWidth(text);
      let start = x;
      const here = () => li === this.line && ((cursorLine = lines.length), (cursorColumn = x));
      row.forEach((atom, ai) => {
        const cell = cellOf(atom);
        if (x + Math.max(cell.width, 1) > cols && x > start) {
          lines.push(text);
          text = indent;
          x = start = indentWidth;
        }
        if (ai === this.col) here();
        let shown = cell.text;
        let w = cell.width;
        if (w > cols - x) [shown, w] = cell.plain ? [shown.slice(0, cols - x), cols - x] : ['?', 1]; // wider than the screen
        text += typeof atom !== 'string' && opts.pasteStyle ? opts.pasteStyle(shown) : shown;
        x += w;
      });
      if (li === this.line && this.col === row.length && x >= cols) {
        lines.push(text); // the cursor after a full line: on a line of its own
        [text, x] = [indent, indentWidth];
      }
      if (this.col === row.length) here();
      lines.push(text);
    });
    return { lines, cursorLine, cursorColumn };
  }

  private get row(): Row {
    return this.rows[this.line];
  }

  /** Runs a move along a line: vertical moves aim anew. */
  private move(fn: () => void): KeyResult {
    this.goalX = null;
    fn();
    return 'handled';
  }

  /** Runs an edit: the shown history entry is now changed, and vertical moves aim anew. */
  private edit(fn: () => void): KeyResult {
    fn();
    this.changed = true;
    this.goalX = null;
    return 'handled';
  }

  private replace(rows: Row[]): void {
    this.rows = rows;
    this.line = rows.length - 1;
    this.col = rows[this.line].length;
    this.goalX = null;
    this.historyIndex = this.history.length;
    this.saved.clear();
    this.changed = false;
  }

  private newline(): void {
    this.rows.splice(this.line, 1, this.row.slice(0, this.col), this.row.slice(this.col));
    this.line++;
    this.col = 0;
  }

  /** Removes atoms [from, to) of the cursor's line; the cursor goes to `from` (after a cluster the two sides join into). */
  private deleteRange(from: number, to: number): void {
    const { row, col } = joinAtoms(this.row.slice(0, from), '', this.row.slice(to));
    this.rows[this.line] = row;
    this.col = col;
  }

  /** Joins the cursor's line to the one before it, the cursor where they meet. */
  private joinUp(): void {
    const { row, col } = joinAtoms(this.rows[this.line - 1], '', this.row);
    this.rows.splice(this.line - 1, 2, row);
    this.line--;
    this.col = col;
  }

  /** Deletes a character or a word back (-1) or forward (1); at the line's start or end, joins the lines there. */
  private erase(dir: -1 | 1, word: boolean): void {
    if (this.col !== (dir < 0 ? 0 : this.row.length)) {
      const to = word ? this.wordEdge(dir) : this.col + dir;
      this.deleteRange(Math.min(this.col, to), Math.max(this.col, to));
    } else if (dir < 0 && this.line > 0) this.joinUp();
    else if (dir > 0 && this.line < this.rows.length - 1) {
      this.line++;
      this.joinUp();
    }
  }

  /** Where word moves and deletes go from the cursor (back: -1): over spaces, then over one run of a class (a paste is a word alone). */
  private wordEdge(dir: -1 | 1): number {
    const row = this.row;
    const at = (i: number) => wordClass(row[dir < 0 ? i - 1 : i]);
    const end = dir < 0 ? 0 : row.length;
    let i = this.col;
    while (i !== end && at(i) === 'space') i += dir;
    const cls = i === end ? 'space' : at(i);
    if (cls === 'paste') return i + dir;
    while (i !== end && at(i) === cls) i += dir;
    return i;
  }

  /** Moves a character or a word back (-1) or forward (1); from the line's start or end, to the line before or after. */
  private step(dir: -1 | 1, word: boolean): void {
    if (this.col !== (dir < 0 ? 0 : this.row.length)) this.col = word ? this.wordEdge(dir) : this.col + dir;
    else if (dir < 0 && this.line > 0) this.col = this.rows[--this.line].length;
    else if (dir > 0 && this.line < this.rows.length - 1) [this.line, this.col] = [this.line + 1, 0];
  }

  /** Up or Down within the buffer, keeping the cell column it started from. */
  private vertical(target: number): KeyResult {
    let x = 0;
    for (let i = 0; i < this.col; i++) x += atomWidth(this.row[i]);
    const goal = (this.goalX ??= x);
    const row = this.rows[target];
    let col = 0;
    for (let w = 0; col < row.length && w + atomWidth(row[col]) <= goal; col++) w += atomWidth(row[col]);
    this.line = target;
    this.col = col;
    return 'handled';
  }

  /** Up at the first line (-1) or Down at the last (+1): the entry before or after, the draft after the newest. */
  private walkHistory(step: -1 | 1): KeyResult {
    const target = this.historyIndex + step;
    if (target < 0 || target > this.history.length) return 'handled';
    if (this.historyIndex === this.history.length || this.changed) this.saved.set(this.historyIndex, { rows: this.rows, line: this.line, col: this.col });
    const kept = this.saved.get(target);
    this.historyIndex = target;
    this.goalX = null;
    if (kept) {
      ({ rows: this.rows, line: this.line, col: this.col } = kept);
      this.changed = true; // kept again when left
    } else {
      this.rows = rowsOf(this.history[target] ?? '');
      this.line = step < 0 ? 0 : this.rows.length - 1; // Up lands on the first line, so Up again goes on back; Down on the last
      this.col = this.rows[this.line].length;
      this.changed = false;
    }
    return 'handled';
  }
}
