// Word-level highlights for a changed line pair of a diff, pure: the two lines are split into
// words, spaces and punctuation, the longest common subsequence of those tokens is kept plain,
// and the rest is marked. Lines that share too little are left whole (a rewrite, not an edit).

export interface Piece {
  text: string;
  /** A word that changed. */
  changed: boolean;
}

const TOKEN = /\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;
/** Token LCS is quadratic: longer lines are not highlighted. */
const MAX_TOKENS = 400;

export function tokens(line: string): string[] {
  return line.match(TOKEN) ?? [];
}

/** The removed and the added line as pieces, or undefined when they share less than `minShared` of their text. */
export function wordDiff(removed: string, added: string, minShared = 0.4): { removed: Piece[]; added: Piece[] } | undefined {
  const a = tokens(removed);
  const b = tokens(added);
  if (a.length === 0 || b.length === 0 || a.length > MAX_TOKENS || b.length > MAX_TOKENS) return undefined;
  // lcs[i][j]: the common length of a[i..] and b[j..]
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const keepA = new Array<boolean>(a.length).fill(false);
  const keepB = new Array<boolean>(b.length).fill(false);
  let sharedChars = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      keepA[i++] = true;
      keepB[j++] = true;
      sharedChars += a[i - 1].trim() === '' ? 0 : a[i - 1].length;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) i++;
    else j++;
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
