// What a Markdown stream needs to know about the block still open, cheaply: marked's block
// tokens without their inline parsing (enough to find where blocks end), whether a new line
// surely continues the open block (then no block can have completed, and the stream need not
// lex at all), whether a block is over once a blank line and the start of a new line follow it,
// which blocks of a drawing are complete (completeBlocks), and the reference definitions a block
// holds, however deeply.
import { getDefaults, Lexer, type Token, type Tokens } from 'marked';

/** Reference definitions by label, as lexMarkdown takes them. */
export type Links = Record<string, { href: string | null; title: string | null }>;

/**
 * marked's block tokens of `text` (no inline parsing: their `tokens` stay empty) with the options
 * lexMarkdown (session/markdown-html.ts) uses, and the definitions found in it added to `links`'s copy.
 */
export function blockTokens(text: string, links: Links): { tokens: Token[]; links: Links } {
  const lexer = new Lexer(getDefaults());
  Object.assign(lexer.tokens.links, links);
  const tokens = lexer.blockTokens(text, []);
  return { tokens, links: lexer.tokens.links as Links };
}

/** The reference definitions in `tokens`, in lists and quotes too (marked defines those for the whole document). */
export function definitionsIn(tokens: Token[], into: Tokens.Def[] = []): Tokens.Def[] {
  for (const t of tokens) {
    if (t.type === 'def') into.push(t as Tokens.Def);
    else if (t.type === 'blockquote') definitionsIn(t.tokens ?? [], into);
    else if (t.type === 'list') for (const item of (t as Tokens.List).items) definitionsIn(item.tokens, into);
  }
  return into;
}

/**
 * The open block, as far as continues() and endedAfterBlank() need it: its kind, a list's marker
 * (`-`, `*`, `+`, or `.`/`)` after a number), and its token's type ('indented' for indented code).
 */
export interface OpenBlock {
  kind: 'paragraph' | 'list' | 'blockquote' | 'table' | 'other';
  marker?: string;
  type: string;
}

const BULLET = /^ {0,3}([-*+])(?:[ \t]|$)/;
const NUMBERED = /^ {0,3}\d{1,9}([.)])(?:[ \t]|$)/;
export const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}>/;
const LETTER = /^\p{L}/u;

/** The open block of `t`, the last block of a text. */
export function openBlockOf(t: Token): OpenBlock {
  const type = t.type === 'code' && (t as Tokens.Code).codeBlockStyle === 'indented' ? 'indented' : t.type;
  switch (t.type) {
    case 'paragraph':
    case 'blockquote':
    case 'table':
      return { kind: t.type, type };
    case 'list': {
      const m = BULLET.exec(t.raw) ?? NUMBERED.exec(t.raw);
      return m ? { kind: 'list', marker: m[1], type } : { kind: 'other', type };
    }
    default:
      return { kind: 'other', type };
  }
}

/**
 * Whether a block (see OpenBlock's `type`) is over when, after a blank line, a line starts with
 * `first` at the margin (not a space): a paragraph, heading, quote, table, definition or indented
 * code always is, a list unless the line may be its next item (`-`, `*`, `+`, a digit); a fenced
 * code block or raw HTML may go on.
 */
export function endedAfterBlank(type: string, first: string): boolean {
  if (first === '' || first === ' ' || first === '\t') return false;
  switch (type) {
    case 'paragraph':
    case 'heading':
    case 'blockquote':
    case 'table':
    case 'def':
    case 'indented':
    case 'hr':
      return true;
    case 'list':
      return !/[-*+\d]/.test(first);
    default:
      return false;
  }
}

/**
 * Whether the complete `line` surely continues the open block (`afterBlank`: the line before it
 * was blank), so that no block can have completed with it. False when unsure: the stream then
 * lexes, which is always right; this only spares it the work where that is clear. A blank line
 * completes nothing by itself (the next line does).
 */
export function continues(line: string, open: OpenBlock | undefined, afterBlank: boolean): boolean {
  if (line.trim() === '') return true;
  if (open === undefined) return false;
  const lazy = !afterBlank && LETTER.test(line); // a paragraph's next line, or a lazy continuation
  switch (open.kind) {
    case 'paragraph':
      return lazy;
    case 'blockquote':
      return QUOTE.test(line) || lazy;
    case 'table':
      return !afterBlank && (line.startsWith('|') || LETTER.test(line));
    case 'list': {
      if (RULE.test(line)) return false;
      const item = BULLET.exec(line) ?? NUMBERED.exec(line);
      if (item) return item[1] === open.marker;
      return lazy || (!afterBlank && line.startsWith('  ')) || line.startsWith('    ');
    }
    default:
      return false;
  }
}

/** What the last live() found complete in the text, for the next push() to commit without lexing it again. */
export interface Pending {
  /** The complete blocks' source (the start of the text) and their lines as live() drew them. */
  raw: string;
  lines: string[][];
  /** The block left open after them, if any; `fence`: it is a fenced code block, to enter. */
  open: OpenBlock | undefined;
  fence: boolean;
  /** The text is blank lines only (they end a block cut in parts). */
  blank: boolean;
}

const UNDERLINE_SO_FAR = /^[ \t]*[-=|:][-=|: \t]*$/;

/** The first token a line under the last complete line may change: the one holding that line, or the block before when the line starts one. */
function undecided(tokens: Token[], starts: number[], text: string, complete: number): number {
  const lineStart = text.lastIndexOf('\n', complete - 2) + 1;
  if (text.slice(lineStart, complete).trim() === '') return tokens.length; // nothing reads a blank line as a heading or a table's head
  let k = tokens.length - 1;
  while (k > 0 && starts[k] > lineStart) k--;
  if (starts[k] < lineStart) return k;
  k--;
  while (k >= 0 && tokens[k].type === 'space') k--;
  return Math.max(0, k);
}

/**
 * The blocks of `tokens` (those of `text`: the complete lines, `complete` characters, and the
 * line still arriving) that are complete, with their lines (`drawn`, one entry per token): those
 * before the last block that starts in a complete line (lines after a block's start never change
 * the blocks before it), and that block too when `isComplete` says so. Undefined when unsure:
 * the tokens' sources do not add up to the text, or the line still arriving may change them.
 */
export function completeBlocks(tokens: Token[], drawn: string[][], text: string, complete: number, isComplete: (t: Token) => boolean): Pending | undefined {
  const starts: number[] = [];
  let end = 0;
  for (const t of tokens) {
    starts.push(end);
    end += t.raw.length;
  }
  if (end !== text.length) return undefined;
  let j = -1;
  for (let i = 0; i < tokens.length; i++) if (tokens[i].type !== 'space' && starts[i] < complete) j = i;
  const blank = complete > 0 && text.slice(0, complete).trim() === '';
  if (j < 0) return { raw: '', lines: [], open: undefined, fence: false, blank };
  const t = tokens[j];
  const fence = t.type === 'code' && (t as Tokens.Code).codeBlockStyle !== 'indented';
  let done = !fence && starts[j] + t.raw.length <= complete && isComplete(t) ? j + 1 : j;
  // A line still arriving made of `-`, `=`, `|`, `:` may be a setext underline or a table's
  // delimiter row: marked then reads the line above it another way, and with it the block before
  // when that line starts a block. Those stay open.
  if (UNDERLINE_SO_FAR.test(text.slice(complete))) done = Math.min(done, undecided(tokens, starts, text, complete));
  const cut = Math.min(done < tokens.length ? starts[done] : end, complete);
  return { raw: text.slice(0, cut), lines: drawn.slice(0, done), open: done > j ? undefined : openBlockOf(t), fence: done === j && fence, blank };
}
