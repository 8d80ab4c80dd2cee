// Word-level highlights for a changed line pair of a diff, pure: the two lines are split into
// words, spaces and punctuation, the tokens both keep (jsdiff's `diffArrays`, a shortest edit
// script) stay plain, and the rest is marked. Lines that share too little are left whole (a
// rewrite, not an edit).
import { diffArrays } from 'diff';

export interface Piece {
  text: string;
  /** A word that changed. */
  changed: boolean;
}

const TOKEN = /\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;
/** Longer lines are not highlighted (their diff would cost time for little use). */
const MAX_TOKENS = 400;

export function tokens(line: string): string[] {
  return line.match(TOKEN) ?? [];
}

/** The removed and the added line as pieces, or undefined when they share less than `minShared` of their text. */
export function wordDiff(removed: string, added: string, minShared = 0.4): { removed: Piece[]; added: Piece[] } | undefined {
  const a = tokens(removed);
  const b = tokens(added);
  if (a.length === 0 || b.length === 0 || a.length > MAX_TOKENS || b.length > MAX_TOKENS) return undefined;
  const keepA: boolean[] = [];
  const keepB: boolean[] = [];
  let sharedChars = 0;
  for (const c of diffArrays(a, b)) {
    for (const t of c.value) {
      if (!c.added) keepA.push(!c.removed);
      if (!c.removed) keepB.push(!c.added);
      if (!c.added && !c.removed) sharedChars += t.trim() === '' ? 0 : t.length;
    }
  }
  const visible = (s: string) => s.replace(/\s+/g, '').length;
  if (sharedChars < minShared * Math.max(visible(removed), visible(added))) return undefined;
  return { removed: pieces(a, keepA), added: pieces(b, keepB) };
}

function pieces(toks: string[], keep: boolean[]): Piece[] {
  const out: Piece[] = [];
  toks.forEach((t, i) => {
    // Spaces between two changed words belong to the change, so a phrase is marked as one.
    const changed = !keep[i] || (t.trim() === '' && i > 0 && i < toks.length - 1 && !keep[i - 1] && !keep[i + 1]);
    const last = out[out.length - 1];
    if (last && last.changed === changed) last.text += t;
    else out.push({ text: t, changed });
  });
  return out;
}
