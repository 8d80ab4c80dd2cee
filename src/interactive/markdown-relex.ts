// Lexing the block still open again and again (a stream draws it after every delta) without
// redoing all the work: marked's inline runs remembered by their source and link state, the
// items of a tight list lexed one by one and remembered, list items' rows remembered. Each
// result is what lexMarkdown (session/markdown-html.ts) would give; see OpenLexer.lex.
// This reads marked's internals (Lexer.inlineQueue, Lexer.state: inLink, inRawBlock, linkEmitted),
// which no semver range protects: marked is pinned to exactly 18.2.1 in package.json. Before
// raising the pin, run the property tests (test/markdown-stream.test.ts: streamed = whole render),
// which guard the upgrade.
import { getDefaults, Lexer, type Token, type Tokens } from 'marked';
import { lexMarkdown } from '../session/markdown-html.js';
import type { BlockOptions, ItemRows } from './markdown-blocks.js';
import { RULE, type Links } from './markdown-open.js';

/** An inline run's tokens and the lexer's link state after it, for its source and that state before it: what marked would make of them again. */
export interface InlineRun {
  inLinkBefore: boolean;
  linkEmittedBefore: boolean;
  tokens: Token[];
  inLink: boolean;
  inRawBlock: boolean;
  linkEmitted: boolean;
}

/**
 * Work remembered from one drawing of the open block to the next (a list's items, a table's
 * cells do not change while the block grows). Kept only while used: rotate() forgets what was
 * not used since the rotate() before.
 */
export class RecentMap<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  get(key: string): V | undefined {
    let v = this.current.get(key);
    if (v === undefined) {
      v = this.previous.get(key);
      if (v !== undefined) this.current.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    this.current.set(key, value);
  }

  rotate(): void {
    this.previous = this.current;
    this.current = new Map();
  }

  clear(): void {
    this.current = new Map();
    this.previous = new Map();
  }
}

/**
 * What lexMarkdown(text, links) returns, with the inline runs found in `cache` taken from it.
 * marked lexes the blocks, then each queued inline run in order; a run's tokens depend on its
 * source, the definitions and the lexer's link state before it, which is what the cache keys on.
 * Undefined when the text defines references of its own (they would change what runs mean).
 */
export function lexCached(text: string, links: Links, cache: RecentMap<InlineRun>): Token[] | undefined {
  const lexer = new Lexer(getDefaults());
  Object.assign(lexer.tokens.links, links);
  const tokens = lexer.blockTokens(text, lexer.tokens);
  if (Object.keys(lexer.tokens.links).length !== Object.keys(links).length) return undefined;
  const state = lexer.state;
  const queue = lexer.inlineQueue;
  for (let i = 0; i < queue.length; i++) {
    const run = queue[i];
    state.inRawBlock = false; // as Lexer.lex does before each run
    if (i === queue.length - 1) {
      lexer.inlineTokens(run.src, run.tokens); // the last run is the one still growing: not worth keeping
      break;
    }
    const key = run.src;
    const known = cache.get(key);
    if (known && known.inLinkBefore === state.inLink && known.linkEmittedBefore === state.linkEmitted) {
      for (const t of known.tokens) run.tokens.push(t);
      state.inLink = known.inLink;
      state.inRawBlock = known.inRawBlock;
      state.linkEmitted = known.linkEmitted;
      continue;
    }
    const before = run.tokens.length;
    const inLinkBefore = state.inLink;
    const linkEmittedBefore = state.linkEmitted;
    lexer.inlineTokens(run.src, run.tokens);
    cache.set(key, { inLinkBefore, linkEmittedBefore, tokens: run.tokens.slice(before), inLink: state.inLink, inRawBlock: state.inRawBlock, linkEmitted: state.linkEmitted });
  }
  lexer.inlineQueue = [];
  return tokens;
}

const ITEM_START = /^( {0,3})(?:([-*+])|\d{1,9}([.)])) (?=\S)/;

/**
 * `text` cut into the blank lines it starts with and the top-level items of one tight list, when
 * it clearly is one: every line an item with the same indentation and marker and one space before
 * its text, or a line of the item before it indented at least as far as that text; no blank line,
 * no rule. Each such item, lexed alone, gives the item marked gives in the whole list (nothing
 * carries from one to the next but the link state of an `<a` tag and definitions, which the
 * caller rules out). Undefined otherwise.
 */
export function tightListItems(whole: string): { lead: string; items: string[] } | undefined {
  const lead = /^(?:[ \t]*\n)*/.exec(whole)![0];
  // A last line of spaces still arriving changes nothing yet (marked ends the list before it).
  const lastBreak = whole.lastIndexOf('\n');
  const text = lastBreak >= lead.length && whole.slice(lastBreak + 1).trim() === '' ? whole.slice(lead.length, lastBreak + 1) : whole.slice(lead.length);
  const items: string[] = [];
  let marker: string | undefined;
  let margin = '';
  let indent = 0;
  let start = 0;
  for (let pos = 0; pos < text.length; ) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    const line = text.slice(pos, end);
    const item = RULE.test(line) ? null : ITEM_START.exec(line);
    if (item && (marker === undefined || item[1] === margin)) {
      const m = item[2] ?? item[3];
      if (marker !== undefined && m !== marker) return undefined;
      marker = m;
      margin = item[1];
      if (pos > 0) items.push(text.slice(start, pos));
      start = pos;
      indent = item[0].length;
    } else if (marker === undefined || line.trim() === '' || !line.startsWith(' '.repeat(indent))) {
      return undefined;
    }
    pos = end + 1;
  }
  if (marker === undefined) return undefined;
  items.push(text.slice(start));
  return { lead, items };
}

/** An `<a` tag: marked's link state after it carries from one inline run to the next. */
const LINK_TAG = /<a/i;

/** Tokens, with `reusable` set when they hold no definition of their own (then what was drawn of them may be reused). */
export type OpenTokens = Token[] & { reusable?: boolean };

/**
 * A stream's lexer for the text after its last committed block: lex() is lexMarkdown(), with
 * work remembered from the lexes before (while the definitions stay those of `links`: clear()
 * when they change), and options() the block options that let list items' rows be reused.
 */
export class OpenLexer {
  private readonly inline = new RecentMap<InlineRun>();
  private readonly items = new RecentMap<ItemRows>();
  private readonly lists = new RecentMap<Tokens.List>();
  private readonly plain: BlockOptions;
  private readonly reusing: BlockOptions;

  constructor(
    private readonly links: Links,
    color: boolean,
  ) {
    this.plain = { color };
    this.reusing = { color, items: this.items };
  }

  /**
   * lexMarkdown(text, links). With the stream's own definitions (`links` is the object given to
   * the constructor) and none in `text`, it reuses the inline runs and tight list items of the
   * lexes before, and sets `reusable`.
   */
  lex(text: string, links: Links): OpenTokens {
    if (links !== this.links) return lexMarkdown(text, links);
    const split = LINK_TAG.test(text) ? undefined : tightListItems(text);
    const list = split && split.items.length > 1 ? this.tightList(text.slice(split.lead.length), split.items) : undefined;
    const tokens = list ? (split!.lead ? [{ type: 'space', raw: split!.lead } as Token, list] : [list]) : lexCached(text, links, this.inline);
    return tokens ? Object.assign(tokens, { reusable: true }) : lexMarkdown(text, links);
  }

  /** The options to draw `text`'s tokens with: list items' rows reused unless an `<a` tag may carry its link state into them. */
  options(text: string): BlockOptions {
    return LINK_TAG.test(text) ? this.plain : this.reusing;
  }

  /** Forgets what the lexes since the rotate() before did not use. */
  rotate(): void {
    this.inline.rotate();
    this.items.rotate();
    this.lists.rotate();
  }

  clear(): void {
    this.inline.clear();
    this.items.clear();
    this.lists.clear();
  }

  /** The list token marked makes of `text`, a tight list of `items` (see tightListItems), from its items lexed alone (and remembered). */
  private tightList(text: string, items: string[]): Tokens.List | undefined {
    const lists: Tokens.List[] = [];
    for (const item of items) {
      let list = this.lists.get(item);
      if (list === undefined) {
        const tokens = lexCached(item, this.links, this.inline)?.filter((t) => t.type !== 'space');
        if (tokens?.length !== 1 || tokens[0].type !== 'list') return undefined;
        list = tokens[0] as Tokens.List;
        if (list.items.length !== 1 || list.loose) return undefined;
        this.lists.set(item, list);
      }
      lists.push(list);
    }
    const first = lists[0];
    // `raw` is the whole text (as the tokens' sources add up to it), marked's own would end trimmed.
    return { type: 'list', raw: text, ordered: first.ordered, start: first.start, loose: false, items: lists.map((l) => l.items[0]) };
  }
}
