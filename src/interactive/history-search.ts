// Ctrl+R (issue 24 §4): reverse incremental search of the input history, shown in the live region
// in place of the input. Typing narrows it (case-insensitive substring, newest first), Ctrl+R again
// goes to the next older match, Enter or an arrow takes the match into the editor, Esc or Ctrl+G
// gives the input back as it was. Pure apart from the editor it fills.
import type { Key } from './keys.js';
import { clean, cut, type Paint } from './view.js';

export interface HistorySearch {
  readonly query: string;
  /** How many newer matches are skipped (Ctrl+R pressed again). */
  readonly skip: number;
}

interface SearchEditor {
  readonly text: string;
  historyEntries(): readonly string[];
  setText(text: string): void;
}

/** Whether `key` opens the search. */
export function startsSearch(key: Key): boolean {
  return key.name === 'r' && key.ctrl && !key.alt;
}

/** The entry found: the newest that holds the query, `skip` matches older. */
export function searchMatch(entries: readonly string[], s: HistorySearch): string | undefined {
  const q = s.query.toLowerCase();
  let n = 0;
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].toLowerCase().includes(q) && n++ === s.skip) return entries[i];
  return undefined;
}

/** One key while searching (or the Ctrl+R that starts it): the search after it, or undefined when it ended. */
export function searchKey(s: HistorySearch | undefined, key: Key, editor: SearchEditor): HistorySearch | undefined {
  if (!s) return { query: '', skip: 0 };
  if (key.name === 'text' || key.name === 'paste') return { query: s.query + key.text.replace(/\s+/g, ' '), skip: 0 };
  if (startsSearch(key)) return searchMatch(editor.historyEntries(), { ...s, skip: s.skip + 1 }) === undefined ? s : { ...s, skip: s.skip + 1 };
  if (key.name === 'backspace') return { query: s.query.slice(0, -1), skip: 0 };
  if (key.name === 'escape' || (key.ctrl && (key.name === 'g' || key.name === 'c'))) return undefined;
  if (key.name === 'space') return { query: s.query + ' ', skip: 0 };
  const found = searchMatch(editor.historyEntries(), s);
  if (found !== undefined) editor.setText(found); // Enter, an arrow, any other key: take it
  return undefined;
}

/** The search, as the live region shows it in place of the input. */
export function searchLine(s: HistorySearch, entries: readonly string[], width: number, p: Paint): string {
  const found = searchMatch(entries, s);
  const head = `(history search) ${s.query}: `;
  if (found === undefined) return p.yellow(cut(`${head}no match (Esc gives the input back)`, width));
  return p.dim(head) + cut(clean(found), Math.max(8, width - head.length));
}
