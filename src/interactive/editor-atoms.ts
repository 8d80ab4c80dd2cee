// The atoms of the line editor's buffer (editor.ts): grapheme clusters and collapsed pastes, how
// each shows on the screen, word classes and the re-segmenting join. Pure.
import stringWidth from 'string-width';

export type PastedBlock = { readonly text: string; readonly label: string };
export type Atom = string | PastedBlock;
export type Row = Atom[];

export const TAB = '    ';
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
export const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** The grapheme clusters of `text`. */
export function clusters(text: string): string[] {
  if (PLAIN_ASCII.test(text)) return text.split('');
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

export const normalizeNewlines = (text: string) => text.replace(/\r\n?/g, '\n');
export const atomText = (a: Atom) => (typeof a === 'string' ? a : a.text);
export const rowText = (row: Row) => row.map(atomText).join('');
export const rowsOf = (text: string): Row[] => normalizeNewlines(text).split('\n').map(clusters);

/** How an atom shows on the screen: never a control character (tabs are spaces, others caret notation). */
export function cellOf(atom: Atom): { text: string; width: number; plain: boolean } {
  if (typeof atom !== 'string') return { text: atom.label, width: atom.label.length, plain: true };
  const c = atom.charCodeAt(0);
  if (atom.length === 1 && c >= 0x20 && c < 0x7f) return { text: atom, width: 1, plain: true };
  if (c === 0x09) return { text: TAB, width: TAB.length, plain: true };
  if (c < 0x20 || c === 0x7f) {
    const text = Array.from(atom, (ch) => (ch.charCodeAt(0) === 0x7f ? '^?' : ch.charCodeAt(0) < 0x20 ? '^' + String.fromCharCode(ch.charCodeAt(0) + 0x40) : ch)).join('');
    return { text, width: stringWidth(text), plain: PLAIN_ASCII.test(text) };
  }
  if ((c >= 0x80 && c <= 0x9f) || (atom.length === 1 && c >= 0xd800 && c <= 0xdfff)) return { text: '\ufffd', width: 1, plain: false };
  return { text: atom, width: stringWidth(atom), plain: false };
}

export const atomWidth = (a: Atom) => cellOf(a).width;

/** The class of an atom for word moves: spaces, word characters, other characters, or a paste (a word of its own). */
export function wordClass(a: Atom): 'space' | 'word' | 'other' | 'paste' {
  if (typeof a !== 'string') return 'paste';
  if (/^\s/u.test(a)) return 'space';
  return /^[\p{L}\p{N}\p{M}_]/u.test(a) ? 'word' : 'other';
}

/**
 * `left` + the clusters of `text` + `right`, re-segmented where they meet (a combining mark
 * typed after "e" joins it), and the column just after the inserted text.
 */
export function joinAtoms(left: Row, text: string, right: Row): { row: Row; col: number } {
  const prev = typeof left.at(-1) === 'string' ? (left.at(-1) as string) : '';
  const next = typeof right[0] === 'string' ? (right[0] as string) : '';
  const segs = clusters(prev + text + next);
  const at = prev.length + text.length;
  let inserted = 0;
  for (let off = 0, k = 0; k < segs.length && off < at; off += segs[k++].length) inserted++;
  const head = prev ? left.slice(0, -1) : left;
  return { row: [...head, ...segs, ...(next ? right.slice(1) : right)], col: head.length + inserted };
}
