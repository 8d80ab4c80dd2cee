// Markdown for the interactive terminal: a whole text as lines (renderMarkdown), and a streaming
// answer as lines committed once to the scrollback plus the lines of the block still in progress
// (MarkdownStream). Lines fit the width (wide characters count 2), carry ANSI styles only with
// color (each styled line ends with a reset), and never pass on the text's own escape sequences.
import type { Token, Tokens } from 'marked';
import { lexMarkdown } from '../session/markdown-html.js';
import { closesFence, codeFooter, codeHeader, codeSegmentDone, codeSegmentRows, fenceBodyLine, fenceOf, renderBlock, type Fence } from './markdown-blocks.js';
import { serializeRow, stripControls, type Row } from './terminal-text.js';

export { sanitizeForTerminal } from './terminal-text.js';

export interface MarkdownOptions {
  /** ANSI styles (headings, emphasis, code, links, frames); false for NO_COLOR or output that is not a terminal. */
  color: boolean;
}

/** A stream's open block is committed in parts once its complete lines pass this many characters (see MarkdownStream). */
export const MAX_OPEN_BLOCK_CHARS = 8192;
/** live() draws at most this many characters of a code line still arriving (its end). */
export const MAX_LIVE_LINE_CHARS = 4096;

type Links = Record<string, { href: string | null; title: string | null }>;

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
 * Lines of top-level blocks, with one blank line between two blocks, none before a block that
 * continues one cut in parts (`glued`). A stream carries `blocks` and `glued` from call to call.
 */
class BlockOutput {
  readonly lines: string[] = [];
  constructor(
    private readonly color: boolean,
    public blocks = 0,
    public glued = false,
  ) {}

  /** A whole block's rows. */
  block(rows: Row[]): void {
    if (this.start(rows)) this.more(rows);
  }

  /** The first rows of a block (false when there are none: the block has not started); more() adds the rest. */
  start(rows: Row[]): boolean {
    if (rows.length === 0) return false;
    if (this.blocks > 0 && !this.glued) this.lines.push('');
    this.blocks++;
    this.glued = false;
    return true;
  }

  more(rows: Row[]): void {
    for (const r of rows) this.lines.push(serializeRow(r, this.color));
  }
}

/** A fenced code block the stream is inside: its fence and the lines of its segment not committed yet. */
interface OpenCode {
  fence: Fence;
  segment: string[];
  chars: number;
  started: boolean;
}

/**
 * A streaming answer. push(delta) returns the lines of the blocks that this delta completed (for
 * the scrollback, drawn once); live() the lines of the block still in progress (the live region
 * redraws them); end() the rest. For ordinary Markdown, the lines push() returned plus those of
 * end() are renderMarkdown(whole text), and after any push, those lines plus live() are
 * renderMarkdown(text so far). The exceptions (tested):
 * - a reference link whose definition comes after it, or sits inside a list or quote, shows as
 *   text (its block was committed before the definition arrived);
 * - a block whose complete lines pass MAX_OPEN_BLOCK_CHARS is committed in parts, cut at a line
 *   (preferably one starting at the margin: a paragraph's line, a top-level list item), so the
 *   parts lay out on their own (no blank line between them); a line longer than that, still
 *   arriving, is cut at a space. This keeps every delta's work bounded: a 1 MB paragraph costs
 *   about as much per delta as an 8 KB one;
 * - a fenced code block is committed segment by segment as it arrives (its own lines are final,
 *   so nothing changes), and live() draws at most the last MAX_LIVE_LINE_CHARS of a code line
 *   still arriving.
 * Each delta re-lexes only the text after the last committed block, so the cost is linear.
 */
export class MarkdownStream {
  private width: number;
  private readonly color: boolean;
  private blocks = 0;
  private glued = false;
  private links: Links = Object.create(null) as Links;
  /** Sanitized complete lines after the last committed block (outside a code block). */
  private text = '';
  /** The last line, still arriving (raw: sanitized when read, as renderMarkdown would). */
  private tail = '';
  private code: OpenCode | undefined;
  private ended = false;
  private lexed: { text: string; tail: string; tokens: Token[] } | undefined;

  constructor(
    width: number,
    private readonly opts: MarkdownOptions,
  ) {
    this.width = checkedWidth(width);
    this.color = opts.color;
  }

  /** The width for lines not committed yet (a terminal resize). */
  setWidth(width: number): void {
    this.width = checkedWidth(width);
  }

  push(delta: string): string[] {
    if (this.ended) throw new Error('MarkdownStream.push() after end(): start a new stream for the next answer');
    const out = this.output();
    const newline = delta.lastIndexOf('\n');
    if (newline < 0) {
      this.tail += delta;
    } else {
      const complete = stripControls(this.tail + delta.slice(0, newline + 1));
      this.tail = delta.slice(newline + 1);
      this.feed(complete, out);
    }
    if (!this.code && this.tail.length > MAX_OPEN_BLOCK_CHARS) this.feed(this.cutTail(), out);
    if (!this.code && this.text.length > MAX_OPEN_BLOCK_CHARS) this.cutOpenBlock(out);
    this.save(out);
    return out.lines;
  }

  /** The lines of the block in progress: what end() would add now, with the blank line that separates it from committed ones. */
  live(): string[] {
    if (this.ended) return [];
    const out = this.output();
    if (this.code) {
      const tail = this.tail.length > MAX_LIVE_LINE_CHARS ? this.tail.slice(-MAX_LIVE_LINE_CHARS) : this.tail;
      this.codeRest(stripControls(tail), { ...this.code }, out);
    } else {
      for (const t of this.tokens()) out.block(renderBlock(t, this.width, this.opts));
    }
    return out.lines;
  }

  /** The rest of the answer's lines; the stream takes no more text after it. */
  end(): string[] {
    if (this.ended) return [];
    const out = this.output();
    if (this.code) {
      this.codeRest(stripControls(this.tail), this.code, out);
      this.code = undefined;
    } else {
      for (const t of this.tokens()) out.block(renderBlock(t, this.width, this.opts));
    }
    this.ended = true;
    this.text = '';
    this.tail = '';
    this.lexed = undefined;
    return out.lines;
  }

  private output(): BlockOutput {
    return new BlockOutput(this.color, this.blocks, this.glued);
  }

  private save(out: BlockOutput): void {
    this.blocks = out.blocks;
    this.glued = out.glued;
  }

  /**
   * Marked's tokens for the text after the last committed block: its complete lines, and with
   * `withTail` the line still arriving (cached for live(), which asks after each push).
   */
  private tokens(withTail = true): Token[] {
    const tail = withTail ? this.tail : '';
    const l = this.lexed;
    if (l && l.text === this.text && l.tail === tail) return l.tokens;
    const tokens = lexMarkdown(this.text + stripControls(tail), this.links);
    this.lexed = { text: this.text, tail, tokens };
    return tokens;
  }

  /** Complete, sanitized lines: into the open code block, or the text, committing what they complete. */
  private feed(lines: string, out: BlockOutput): void {
    let rest = lines;
    while (rest !== '') {
      while (this.code && rest !== '') {
        const end = rest.indexOf('\n');
        this.codeLine(rest.slice(0, end), this.code, out);
        rest = rest.slice(end + 1);
      }
      if (rest === '') return;
      this.text += rest;
      rest = this.commitBlocks(out);
    }
  }

  private codeLine(line: string, code: OpenCode, out: BlockOutput): void {
    if (closesFence(line, code.fence)) {
      this.codeRows(out, code, [...segmentRows(code, this.width, this.opts), ...codeFooter(this.width)]);
      this.code = undefined;
      return;
    }
    code.segment.push(fenceBodyLine(line, code.fence));
    code.chars += line.length + 1;
    if (codeSegmentDone(code.segment, code.chars)) {
      this.codeRows(out, code, segmentRows(code, this.width, this.opts));
      code.segment = [];
      code.chars = 0;
    }
  }

  /** The end of a code block when the text ends: its last line (`tail`, perhaps its closing fence), its last segment, its frame. */
  private codeRest(tail: string, code: OpenCode, out: BlockOutput): void {
    const segment = tail === '' || closesFence(tail, code.fence) ? code.segment : [...code.segment, fenceBodyLine(tail, code.fence)];
    this.codeRows(out, code, [...segmentRows({ ...code, segment }, this.width, this.opts), ...codeFooter(this.width)]);
  }

  private codeRows(out: BlockOutput, code: OpenCode, rows: Row[]): void {
    if (code.started) out.more(rows);
    else if (out.start(rows)) {
      code.started = true;
      out.more(rows);
    }
  }

  /**
   * Commits every block of the complete lines but the last one, which more lines may still change.
   * (The line still arriving is left out: "1" may be a paragraph now and a list's "10." later.)
   * When the last block opens a fenced code block, enters it and returns the text after its opening line.
   */
  private commitBlocks(out: BlockOutput): string {
    const tokens = this.tokens(false);
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last].type === 'space') last--;
    if (last < 0) {
      if (this.text.trim() === '') {
        this.text = ''; // blank lines after a committed block change nothing, but end a block cut in parts
        out.glued = false;
      }
      return '';
    }
    const done = tokens.slice(0, last);
    const raw = done.map((t) => t.raw).join('');
    if (raw.length > this.text.length || !this.text.startsWith(raw)) return ''; // offsets unclear: wait for more
    for (const t of done) {
      out.block(renderBlock(t, this.width, this.opts));
      if (t.type === 'def') this.remember(t as Tokens.Def);
    }
    this.text = this.text.slice(raw.length);
    const open = tokens[last];
    const firstLineEnd = this.text.indexOf('\n');
    if (open.type !== 'code' || (open as Tokens.Code).codeBlockStyle === 'indented' || firstLineEnd < 0) return '';
    const fence = fenceOf(this.text.slice(0, firstLineEnd));
    if (!fence) return '';
    const body = this.text.slice(firstLineEnd + 1);
    this.text = '';
    this.code = { fence, segment: [], chars: 0, started: false };
    this.codeRows(out, this.code, codeHeader(fence.lang, this.width));
    return body;
  }

  private remember(def: Tokens.Def): void {
    if (!(def.tag in this.links)) this.links[def.tag] = { href: def.href, title: def.title };
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
    for (const t of lexMarkdown(text.slice(0, cut), this.links)) out.block(renderBlock(t, this.width, this.opts));
    this.text = text.slice(cut);
    out.glued = true;
  }
}

/** The rows of a code block's segment not committed yet (none when it is empty). */
function segmentRows(code: OpenCode, width: number, opts: MarkdownOptions): Row[] {
  return code.segment.length ? codeSegmentRows(code.segment, code.fence.lang, width, opts) : [];
}
