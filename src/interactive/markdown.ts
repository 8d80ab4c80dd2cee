// Markdown for the interactive terminal: a whole text as lines (renderMarkdown), and a streaming
// answer as lines committed once to the scrollback plus the lines of the block still in progress
// (MarkdownStream). Lines fit the width (wide characters count 2), carry ANSI styles only with
// color (each styled line ends with a reset), and never pass on the text's own escape sequences.
import type { Token, Tokens } from 'marked';
import { lexMarkdown } from '../session/markdown-html.js';
import { BlockOutput, renderBlock, type BlockOptions } from './markdown-blocks.js';
import { codeHeader, fenceOf, OpenCodeBlock } from './markdown-code.js';
import { blockTokens, completeBlocks, continues, definitionsIn, endedAfterBlank, openBlockOf, type Links, type OpenBlock, type Pending } from './markdown-open.js';
import { OpenLexer } from './markdown-relex.js';
import { serializeRow, stripControls, type Row } from './terminal-text.js';

export { sanitizeForTerminal } from './terminal-text.js';

export interface MarkdownOptions {
  /** ANSI styles (headings, emphasis, code, links, frames); false for NO_COLOR or output that is not a terminal. */
  color: boolean;
}

const ATX = /^ {0,3}#/;

/** A stream's open block is committed in parts once its complete lines pass this many characters (see MarkdownStream). */
export const MAX_OPEN_BLOCK_CHARS = 8192;
/** live() draws at most this many characters of a code line still arriving (its end). */
export const MAX_LIVE_LINE_CHARS = 4096;

function checkedWidth(width: number): number {
  if (!Number.isFinite(width) || width < 1) throw new RangeError(`Markdown width must be a number of columns ≥ 1, got ${width}`);
  return Math.floor(width);
}

/** `text` (a complete Markdown document) as terminal lines of at most `width` columns, a blank line between blocks. */
export function renderMarkdown(text: string, width: number, opts: MarkdownOptions): string[] {
  const w = checkedWidth(width);
  const out = new BlockOutput(opts.color);
  for (const t of lexMarkdown(stripControls(text))) out.block(renderBlock(t, w, opts));
  return out.lines;
}

/**
 * A streaming answer. push(delta) returns the lines of the blocks that this delta completed (for
 * the scrollback, drawn once); live() the lines of the block still in progress (the live region
 * redraws them); end() the rest. For ordinary Markdown, the lines push() returned plus those of
 * end() are renderMarkdown(whole text), and after any push, those lines plus live() are
 * renderMarkdown(text so far). The exceptions (tested):
 * - a reference link whose definition comes in a later block than its own may show as text (its
 *   block may be committed before the definition arrives), and an inline `<a>` tag left open in
 *   one block does not keep URLs in later blocks from being links (marked, lexing the whole text
 *   at once, carries it over);
 * - a block whose complete lines pass MAX_OPEN_BLOCK_CHARS is committed in parts, cut at a line
 *   (preferably one starting at the margin: a paragraph's line, a top-level list item), so the
 *   parts lay out on their own (no blank line between them); a line longer than that, still
 *   arriving, is cut at a space. This keeps every delta's work bounded: a 1 MB paragraph costs
 *   about as much per delta as an 8 KB one;
 * - a fenced code block is committed segment by segment as it arrives (its own lines are final,
 *   so nothing changes), and live() draws at most the last MAX_LIVE_LINE_CHARS of a code line
 *   still arriving.
 * When a block is committed: once a complete line after it starts another block, or, after a
 * blank line, as soon as the line still arriving shows a new block beginning (see
 * endedAfterBlank; an ATX heading or a rule as soon as its line is complete). With live() between
 * pushes, what live() found complete is committed by the next push().
 * The work per delta. live() lexes and draws the text after the last committed block (usually a
 * few hundred characters: one block), reusing what does not change (OpenLexer), and sees there
 * which blocks are complete: the next push() commits them with the lines live() drew, lexing
 * nothing. Without a live() in between, a push() lexes (marked's block lexer, no inline parsing)
 * only when a new complete line may have completed a block (see continues()), and draws each
 * completed block once. So the cost is linear in the text.
 */
export class MarkdownStream {
  private width: number;
  private readonly color: boolean;
  private readonly opts: BlockOptions;
  private blocks = 0;
  private glued = false;
  private readonly links: Links = Object.create(null) as Links;
  /** Sanitized complete lines after the last committed block (outside a code block). */
  private text = '';
  /** The last line, still arriving (raw: sanitized when read, as renderMarkdown would). */
  private tail = '';
  private code: OpenCodeBlock | undefined;
  private ended = false;
  /** The last block of `text` as last seen, and whether `text`'s last line is blank. */
  private open: OpenBlock | undefined;
  private afterBlank = true;
  /**
   * The lines of each block the last live() drew, by source (raw), while the width and links stay
   * the same. Replaced rather than cleared: a long-lived Map refilled after every delta keeps its
   * new entries alive through young collections (a fifth more GC time over a long answer).
   */
  private drawn = new Map<string, string[]>();
  /** live()'s last answer, and what it found complete, until the next push or width. */
  private liveLines: string[] | undefined;
  private pending: Pending | undefined;
  private readonly lexer: OpenLexer;

  constructor(width: number, opts: MarkdownOptions) {
    this.width = checkedWidth(width);
    this.color = opts.color;
    this.opts = { color: opts.color };
    this.lexer = new OpenLexer(this.links, opts.color);
  }

  /** The width for lines not committed yet (a terminal resize). */
  setWidth(width: number): void {
    const w = checkedWidth(width);
    if (w === this.width) return;
    this.width = w;
    this.forget();
  }

  push(delta: string): string[] {
    if (this.ended) throw new Error('MarkdownStream.push() after end(): start a new stream for the next answer');
    if (delta === '') return [];
    const out = this.output();
    const pending = this.pending;
    this.pending = undefined;
    this.liveLines = undefined;
    if (pending) this.commitPending(pending, out);
    // After a live(), the next one finds what this delta completes; else look now, when it may have.
    // (A block that a new block's first character ends is committed now either way, so that what
    // reached the scrollback when an answer is cut off does not hang on when frames were drawn.)
    const lexing = pending === undefined;
    const newline = delta.lastIndexOf('\n');
    if (newline < 0) {
      this.tail += delta;
    } else {
      const complete = stripControls(this.tail + delta.slice(0, newline + 1));
      this.tail = delta.slice(newline + 1);
      this.feed(complete, out, lexing);
    }
    if (!this.code && this.tail.length > MAX_OPEN_BLOCK_CHARS) this.feed(this.cutTail(), out, lexing);
    if (!this.code && this.afterBlank && this.open && endedAfterBlank(this.open.type, this.nextLineStart()) && this.text.trim() !== '') {
      this.feed(this.commitBlocks(out), out, lexing);
    }
    if (!this.code && this.text.length > MAX_OPEN_BLOCK_CHARS) {
      const body = this.commitBlocks(out); // what was left open for live() to look at
      if (body !== '') this.feed(body, out, lexing);
      if (!this.code && this.text.length > MAX_OPEN_BLOCK_CHARS) this.cutOpenBlock(out);
    }
    this.save(out);
    return out.lines;
  }

  /** The lines of the block in progress: what end() would add now, with the blank line that separates it from committed ones. */
  live(): string[] {
    if (this.ended) return [];
    if (this.liveLines === undefined) {
      const out = this.output();
      if (this.code) {
        const tail = this.tail.length > MAX_LIVE_LINE_CHARS ? this.tail.slice(-MAX_LIVE_LINE_CHARS) : this.tail;
        this.codeRows(out, this.code.rest(stripControls(tail), this.width, this.opts), false);
      } else {
        this.pending = this.drawOpen(out, true);
      }
      this.liveLines = out.lines;
    }
    return this.liveLines.slice();
  }

  /** The rest of the answer's lines; the stream takes no more text after it. */
  end(): string[] {
    if (this.ended) return [];
    const out = this.output();
    if (this.code) {
      this.codeRows(out, this.code.rest(stripControls(this.tail), this.width, this.opts));
      this.code = undefined;
    } else {
      this.drawOpen(out, false);
    }
    this.ended = true;
    this.text = '';
    this.tail = '';
    this.forget();
    return out.lines;
  }

  private output(): BlockOutput {
    return new BlockOutput(this.color, this.blocks, this.glued);
  }

  private save(out: BlockOutput): void {
    this.blocks = out.blocks;
    this.glued = out.glued;
  }

  /** Drops what was drawn of the open text (the width or the definitions changed). */
  private forget(): void {
    this.drawn = new Map();
    this.lexer.clear();
    this.liveLines = undefined;
    this.pending = undefined;
  }

  private lines(rows: Row[]): string[] {
    return rows.map((r) => serializeRow(r, this.color));
  }

  /**
   * The blocks of the text after the last committed one, the line still arriving included. With
   * `remember` (live()), keeps their lines for commitBlocks and returns what is complete in them.
   */
  private drawOpen(out: BlockOutput, remember: boolean): Pending | undefined {
    const text = this.text + stripControls(this.tail);
    const tokens = this.lexer.lex(text, this.links);
    const opts = this.lexer.options(text);
    const drawn: string[][] = [];
    this.drawn = new Map();
    for (const t of tokens) {
      const lines = this.lines(renderBlock(t, this.width, opts));
      // A definition in the text changes how the text before it reads: nothing drawn with one is kept.
      if (remember && tokens.reusable && lines.length > 0) this.drawn.set(t.raw, lines);
      drawn.push(lines);
      out.add(lines);
    }
    this.lexer.rotate();
    return remember && tokens.reusable ? completeBlocks(tokens, drawn, text, this.text.length, (t) => this.lastIsComplete(t)) : undefined;
  }

  /** Commits what live() found complete (the text has not changed since: push() comes next). */
  private commitPending(p: Pending, out: BlockOutput): void {
    if (!this.text.startsWith(p.raw)) return;
    if (p.blank) out.glued = false; // blank lines end a block cut in parts
    for (const lines of p.lines) out.add(lines);
    this.text = this.text.slice(p.raw.length);
    this.open = p.open;
    if (p.fence) {
      const body = this.enterCode(out);
      if (body !== '') this.feed(body, out, false);
    }
  }

  /** Complete, sanitized lines: into the open code block, or the text, committing what they complete (`lexing`: looking for it now). */
  private feed(lines: string, out: BlockOutput, lexing: boolean): void {
    let rest = lines;
    while (rest !== '') {
      while (this.code && rest !== '') {
        const end = rest.indexOf('\n');
        this.codeLine(rest.slice(0, end), this.code, out);
        rest = rest.slice(end + 1);
      }
      if (rest === '') return;
      this.text += rest;
      rest = this.mayComplete(rest) && (lexing || this.text.trim() === '') ? this.commitBlocks(out) : '';
    }
  }

  /** Whether `lines`, just added to the text, may complete a block (see continues()); also tracks `afterBlank`. */
  private mayComplete(lines: string): boolean {
    let may = this.text.trim() === ''; // blank lines only: commitBlocks drops them
    let start = 0;
    while (start < lines.length) {
      const end = lines.indexOf('\n', start);
      const line = lines.slice(start, end);
      if (!continues(line, this.open, this.afterBlank)) may = true;
      this.afterBlank = line.trim() === '';
      start = end + 1;
    }
    return may;
  }

  private codeLine(line: string, code: OpenCodeBlock, out: BlockOutput): void {
    const { rows, closed } = code.line(line, this.width, this.opts);
    this.codeRows(out, rows);
    if (closed) {
      this.code = undefined;
      this.afterBlank = false;
    }
  }

  /** Rows of the open code block: its first ones start a block in the output; `keep` false (live()) leaves it not started. */
  private codeRows(out: BlockOutput, rows: Row[], keep = true): void {
    const code = this.code!;
    if (code.started) out.more(this.lines(rows));
    else if (rows.length > 0) {
      out.add(this.lines(rows));
      if (keep) code.started = true;
    }
  }

  /**
   * Commits every block of the complete lines but the last one, which more lines may still change
   * (unless lastIsComplete()). The line still arriving is left out: "1" may be a paragraph now and
   * a list's "10." later. When the last block opens a fenced code block, enters it and returns the
   * text after its opening line.
   */
  private commitBlocks(out: BlockOutput): string {
    const { tokens, links } = blockTokens(this.text, this.links);
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last].type === 'space') last--;
    if (last < 0) {
      this.open = undefined;
      if (this.text.trim() === '') {
        this.text = ''; // blank lines after a committed block change nothing, but end a block cut in parts
        out.glued = false;
      }
      return '';
    }
    if (this.lastIsComplete(tokens[last])) last = tokens.length;
    this.open = last < tokens.length ? openBlockOf(tokens[last]) : undefined;
    const done = tokens.slice(0, last);
    const raw = done.map((t) => t.raw).join('');
    if (!this.text.startsWith(raw)) return ''; // offsets unclear: wait for more
    if (done.length > 0) this.commit(done, raw, links, out);
    this.text = this.text.slice(raw.length);
    const open = tokens[last];
    return open?.type === 'code' && (open as Tokens.Code).codeBlockStyle !== 'indented' ? this.enterCode(out) : '';
  }

  /** Enters the fenced code block whose opening line starts the text; returns the text after that line. */
  private enterCode(out: BlockOutput): string {
    const firstLineEnd = this.text.indexOf('\n');
    const fence = firstLineEnd < 0 ? undefined : fenceOf(this.text.slice(0, firstLineEnd));
    if (!fence) return '';
    const body = this.text.slice(firstLineEnd + 1);
    this.text = '';
    this.open = undefined;
    this.code = new OpenCodeBlock(fence);
    this.codeRows(out, codeHeader(fence.lang, this.width));
    return body;
  }

  /**
   * Whether the last block of the complete lines is complete as well: no line can change an ATX
   * heading or a rule, and after a blank line, the start of the line still arriving may show that
   * a new block begins (see endedAfterBlank).
   */
  private lastIsComplete(t: Token): boolean {
    if (t.type === 'hr' || (t.type === 'heading' && ATX.test(t.raw))) return true;
    return this.afterBlank && endedAfterBlank(openBlockOf(t).type, this.nextLineStart());
  }

  /** The first character of the line still arriving, escape sequences left out ('' while there is none). */
  private nextLineStart(): string {
    return stripControls(this.tail.slice(0, 64)).charAt(0);
  }

  /**
   * Draws completed blocks (`done`, block tokens of the text; `raw`, their source): as the last
   * live() drew them when it drew each of them from the same source, else lexed and rendered now,
   * from the whole text as the block lexer saw it (how marked reads a block's last line may hang
   * on the line after it) and knowing the definitions anywhere in it, `links`. Then remembers
   * their definitions.
   */
  private commit(done: Token[], raw: string, links: Links, out: BlockOutput): void {
    const sameLinks = Object.keys(links).length === Object.keys(this.links).length;
    const drawn = sameLinks ? done.map((t) => (t.type === 'space' ? [] : this.drawn.get(t.raw))) : [];
    if (sameLinks && drawn.every((d) => d !== undefined)) {
      for (const lines of drawn) out.add(lines!);
    } else {
      const source = sameLinks ? this.links : links;
      const opts = sameLinks ? this.lexer.options(this.text) : this.opts;
      let tokens: Token[] = this.lexer.lex(this.text, source).slice(0, done.length);
      if (tokens.map((t) => t.raw).join('') !== raw) tokens = lexMarkdown(raw, source); // not expected: the same lexer found these blocks
      for (const t of tokens) out.add(this.lines(renderBlock(t, this.width, opts)));
    }
    this.drawn = new Map();
    let added = false;
    for (const def of definitionsIn(done)) {
      if (!(def.tag in this.links)) {
        this.links[def.tag] = { href: def.href, title: def.title };
        added = true;
      }
    }
    if (added) this.forget();
  }

  /** A line too long to wait for its end: its start, cut at a space (which becomes the line break), as a complete line. */
  private cutTail(): string {
    const limit = MAX_OPEN_BLOCK_CHARS;
    let cut = this.tail.lastIndexOf(' ', limit);
    if (cut < limit / 2) cut = limit - (/[\ud800-\udbff]/.test(this.tail[limit - 1]) ? 1 : 0);
    const head = this.tail.slice(0, cut);
    this.tail = this.tail.slice(this.tail[cut] === ' ' ? cut + 1 : cut);
    return `${stripControls(head)}\n`;
  }

  /** Commits the start of a block grown past MAX_OPEN_BLOCK_CHARS, cut at a line; what follows continues it without a blank line. */
  private cutOpenBlock(out: BlockOutput): void {
    const text = this.text;
    let cut = -1;
    for (let i = text.length - 2; i >= text.length / 4; i--) {
      if (text[i] === '\n' && text[i + 1] !== ' ' && text[i + 1] !== '\t' && text[i + 1] !== '\n') {
        cut = i + 1;
        break;
      }
    }
    if (cut < 0) cut = text.lastIndexOf('\n', text.length - 2) + 1 || text.length;
    for (const t of lexMarkdown(text.slice(0, cut), this.links)) out.add(this.lines(renderBlock(t, this.width, this.opts)));
    this.drawn = new Map();
    this.text = text.slice(cut);
    out.glued = true;
  }
}
