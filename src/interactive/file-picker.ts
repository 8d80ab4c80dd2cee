// The `@` file picker of the interactive editor (issue 24 §2): the workspace's files, walked as
// the find tool walks them (.gitignore respected, .git skipped, what a read deny rule covers left
// out), ranked by a fuzzy match of the query, drawn in the live region below the input. Pure but
// for workspaceFiles, which reads the disk once when the picker opens.
import type { PermissionRule } from '../tools/permissions.js';
import { searchDenyFilter } from '../tools/search-deny.js';
import { newWalkStats, openSearchRoot, walkTree } from '../tools/walk.js';
import stringWidth from 'string-width';
import { cut, type Paint } from './view.js';

/** The most files listed (a huge tree is cut here; the query still narrows what was listed). */
export const PICKER_MAX_FILES = 20_000;
/** The most rows the picker shows. */
export const PICKER_ROWS = 8;

/** The workspace's files and folders (folders end with '/'), in the find tool's order. */
export function workspaceFiles(cwd: string, allowedPaths: readonly string[], deny: readonly PermissionRule[], max = PICKER_MAX_FILES): string[] {
  const ctx = { cwd, allowedPaths: [...allowedPaths], hidden: searchDenyFilter(deny, 'find') };
  const out: string[] = [];
  try {
    const root = openSearchRoot(ctx, '.');
    for (const e of walkTree(ctx, root, { signal: new AbortController().signal }, newWalkStats())) {
      if (e.kind === 'file' || e.kind === 'symlink') out.push(e.shown);
      else if (e.kind === 'dir') out.push(e.shown + '/');
      if (out.length >= max) break;
    }
  } catch {
    // an unreadable workspace: nothing to pick
  }
  return out;
}

/**
 * How well `query` matches `path` (higher is better), or null when its characters do not all
 * appear in order (case-insensitive). Matches in the file name, at word starts and in runs score more.
 */
export function fuzzyScore(query: string, path: string): number | null {
  if (query === '') return 0;
  const q = query.toLowerCase();
  const p = path.toLowerCase();
  const nameStart = p.replace(/\/$/, '').lastIndexOf('/') + 1;
  let best: number | null = null;
  // Greedy from each place the first character occurs (so a match in the name is not hidden by an earlier one in a folder).
  for (let from = p.indexOf(q[0]); from >= 0; from = p.indexOf(q[0], from + 1)) {
    let score = 0;
    let at = from - 1;
    let run = 0;
    let whole = true;
    for (const ch of q) {
      const i = p.indexOf(ch, at + 1);
      if (i < 0) {
        whole = false;
        break;
      }
      run = i === at + 1 ? run + 1 : 0;
      score += 1 + run * 2 + (i >= nameStart ? 2 : 0) + (i === 0 || '/._-'.includes(p[i - 1]) ? 3 : 0);
      at = i;
    }
    if (!whole) break; // a later start cannot match either
    if (best === null || score > best) best = score;
  }
  if (best === null) return null;
  if (p.slice(nameStart).startsWith(q)) best += 10;
  return best - path.length / 100;
}

/** The paths matching `query`, best first (ties: shorter, then in order). */
export function rankPaths(paths: readonly string[], query: string): string[] {
  const scored: { path: string; score: number; i: number }[] = [];
  paths.forEach((path, i) => {
    const score = fuzzyScore(query, path);
    if (score !== null) scored.push({ path, score, i });
  });
  if (query !== '') scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return scored.map((s) => s.path);
}

/** A list shown below the input: the rows in view, the chosen one marked, cut to the width. */
export function listLines(items: readonly { label: string; note?: string }[], selected: number, width: number, p: Paint, rows = PICKER_ROWS, empty = 'no match', hint = '↑↓ move · Enter/Tab choose · Esc close'): string[] {
  if (items.length === 0) return [p.dim('  ' + cut(`(${empty})`, Math.max(1, width - 2)))];
  const first = Math.max(0, Math.min(selected - Math.floor(rows / 2), items.length - rows));
  const shown = items.slice(first, first + rows);
  const column = Math.min(Math.max(...shown.map((i) => stringWidth(i.label))), Math.floor(width / 2));
  const lines = shown.map((item, k) => {
    const on = first + k === selected;
    const name = cut(item.label, Math.max(1, width - 2));
    const label = item.note ? name + ' '.repeat(Math.max(0, column - stringWidth(name))) : name;
    const room = width - 2 - stringWidth(label) - 2;
    const note = item.note && room > 3 ? `  ${cut(item.note, room)}` : '';
    return on ? p.cyan(`› ${label}`) + p.dim(note) : `  ${label}` + p.dim(note);
  });
  const count = items.length > rows ? `${selected + 1}/${items.length} · ` : '';
  lines.push(p.dim('  ' + cut(`${count}${hint}`, Math.max(1, width - 2))));
  return lines;
}
