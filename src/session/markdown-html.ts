// Markdown for the HTML export, as a tree of safe elements rather than an HTML string: marked's
// lexer, then a renderer that knows a fixed set of elements and attributes. Text stays text (raw
// HTML in the Markdown shows as its source), links keep only http(s) and mailto targets, images
// become links (the page loads nothing). The page builds the tree with createElement and
// textContent (export-page/markdown-builder.ts, which checks the tags, attributes and targets
// again), so no message text is ever parsed as HTML. Also the entity decoding the terminal renderer shares.
import { decodeHTMLStrict } from 'entities/decode';
import { Lexer, getDefaults, type Token, type Tokens } from 'marked';
import type { HtmlElement, HtmlNode, HtmlTag } from './html-tree.js';

export { HTML_ATTRIBUTES, HTML_TAGS, type HtmlElement, type HtmlNode, type HtmlTag } from './html-tree.js';

/** A link target the export keeps: http(s) or mailto only (anything else, `javascript:` and relative paths included, is dropped). */
export function safeHref(href: string): string | undefined {
  const h = href.trim();
  return /^(?:https?:\/\/|mailto:)[^\s\x00-\x1f\x7f]+$/i.test(h) ? h : undefined;
}

/** HTML character references in Markdown text (`&amp;`, `&#169;`, `&#x1F600;`, every named one HTML knows, by the `entities` package) as characters; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#(\d{1,7})|#[xX]([\da-fA-F]{1,6})|([a-zA-Z][a-zA-Z\d]{1,31}));/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return decodeHTMLStrict(whole);
    const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code);
  });
}

/** Markdown lexed with marked's defaults (GFM), on a lexer of its own. */
export function lexMarkdown(markdown: string, links?: Record<string, { href: string | null; title: string | null }>): Token[] {
  const lexer = new Lexer(getDefaults());
  if (links) Object.assign(lexer.tokens.links, links);
  return lexer.lex(markdown);
}

/** How deep the tree may nest; deeper content is kept as its plain text (the page builds the tree recursively). */
export const MAX_DEPTH = 64;

/**
 * `markdown` as a tree of safe elements (see the file header). Never throws: Markdown that marked
 * cannot lex (it recurses, so thousands of nested `>` overflow the stack) comes back as one
 * block of plain text.
 */
export function markdownToNodes(markdown: string): HtmlNode[] {
  try {
    return capDepth(blocks(lexMarkdown(markdown)), 1);
  } catch {
    return [el('div', [markdown], { class: 'plain' })];
  }
}

function capDepth(nodes: HtmlNode[], depth: number): HtmlNode[] {
  return nodes.map((n) => (typeof n === 'string' ? n : depth > MAX_DEPTH ? textOf(n) : { ...n, children: capDepth(n.children ?? [], depth + 1) }));
}

/** The text of a node, without recursion (an element's text in document order). */
export function textOf(node: HtmlNode): string {
  let out = '';
  const stack: HtmlNode[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (typeof n === 'string') out += n;
    else for (let i = (n.children ?? []).length - 1; i >= 0; i--) stack.push(n.children![i]);
  }
  return out;
}

/** Inline tokens as plain text (an image's description, like CommonMark's alt text). */
function plainText(tokens: Token[] | undefined): string {
  return textOf(el('span', inline(tokens)));
}

const el = (tag: HtmlTag, children: HtmlNode[] = [], attrs?: Record<string, string>): HtmlElement => (attrs ? { tag, attrs, children } : { tag, children });

function blocks(tokens: Token[]): HtmlNode[] {
  return tokens.flatMap((t) => block(t));
}

function block(t: Token): HtmlNode[] {
  switch (t.type) {
    case 'space':
    case 'def':
    case 'checkbox':
      return [];
    case 'heading':
      return [el(`h${Math.min(6, Math.max(1, (t as Tokens.Heading).depth))}` as HtmlTag, inline(t.tokens))];
    case 'paragraph':
      return [el('p', inline(t.tokens))];
    case 'text':
      return t.tokens ? inline(t.tokens) : [decodeEntities(t.text)];
    case 'code': {
      const lang = ((t as Tokens.Code).lang ?? '')
        .trim()
        .split(/\s+/)[0]
        .toLowerCase()
        .replace(/[^a-z0-9+#_-]/g, '');
      return [el('pre', [el('code', [t.text], lang ? { class: `language-${lang}` } : undefined)])];
    }
    case 'blockquote':
      return [el('blockquote', blocks(t.tokens ?? []))];
    case 'list':
      return [list(t as Tokens.List)];
    case 'table':
      return [table(t as Tokens.Table)];
    case 'hr':
      return [el('hr')];
    case 'html':
      return [el('div', [t.text.replace(/\n+$/, '')], { class: 'raw-html' })];
    default:
      return typeof t.raw === 'string' && t.raw.trim() !== '' ? [el('p', [t.raw])] : [];
  }
}

function list(t: Tokens.List): HtmlElement {
  const items = t.items.map((item) => {
    const body = blocks(item.tokens);
    if (item.task) body.unshift(el('span', [item.checked ? '☑ ' : '☐ '], { class: item.checked ? 'task done' : 'task' }));
    return el('li', body);
  });
  const start = typeof t.start === 'number' && t.start !== 1 ? { start: String(t.start) } : undefined;
  return el(t.ordered ? 'ol' : 'ul', items, t.ordered ? start : undefined);
}

function table(t: Tokens.Table): HtmlElement {
  const cell = (tag: 'th' | 'td', c: Tokens.TableCell) => el(tag, inline(c.tokens), c.align ? { class: `align-${c.align}` } : undefined);
  return el('table', [
    el('thead', [
      el(
        'tr',
        t.header.map((c) => cell('th', c)),
      ),
    ]),
    el(
      'tbody',
      t.rows.map((r) =>
        el(
          'tr',
          r.map((c) => cell('td', c)),
        ),
      ),
    ),
  ]);
}

function inline(tokens: Token[] | undefined): HtmlNode[] {
  return (tokens ?? []).flatMap((t) => span(t));
}

function span(t: Token): HtmlNode[] {
  switch (t.type) {
    case 'text':
      return t.tokens ? inline(t.tokens) : [decodeEntities(t.text)];
    case 'escape':
      return [t.text];
    case 'strong':
      return [el('strong', inline(t.tokens))];
    case 'em':
      return [el('em', inline(t.tokens))];
    case 'del':
      return [el('del', inline(t.tokens))];
    case 'codespan':
      return [el('code', [t.text])];
    case 'br':
      return [el('br')];
    case 'link': {
      // Entities in a target count (CommonMark), so decode first and check what the page would use.
      const href = safeHref(decodeEntities((t as Tokens.Link).href));
      const children = inline(t.tokens);
      if (href === undefined) return children;
      const title = (t as Tokens.Link).title;
      return [el('a', children, { href, rel: 'noopener noreferrer nofollow', ...(title ? { title: decodeEntities(title) } : {}) })];
    }
    case 'image': {
      const label = `image: ${t.tokens ? plainText(t.tokens) : decodeEntities((t as Tokens.Image).text)}`;
      const href = safeHref(decodeEntities((t as Tokens.Image).href));
      return href === undefined ? [label] : [el('a', [label], { href, rel: 'noopener noreferrer nofollow', class: 'image' })];
    }
    case 'html':
      return [t.text];
    case 'checkbox':
      return [];
    default:
      return typeof t.raw === 'string' ? [t.raw] : [];
  }
}

/** Styles of the rendered Markdown (inside `.markdown`), for the export's inline stylesheet. */
export const MARKDOWN_CSS = `
.text.markdown{white-space:normal}
.markdown>:first-child{margin-top:0}.markdown>:last-child{margin-bottom:0}
.markdown p,.markdown ul,.markdown ol,.markdown blockquote,.markdown table{margin:6px 0}
.markdown h1,.markdown h2,.markdown h3,.markdown h4,.markdown h5,.markdown h6{margin:10px 0 4px;line-height:1.25}
.markdown h1{font-size:1.4em}.markdown h2{font-size:1.25em}.markdown h3{font-size:1.1em}.markdown h4,.markdown h5,.markdown h6{font-size:1em}
.markdown ul,.markdown ol{padding-left:24px}
.markdown code{background:var(--panel);border:1px solid var(--line);border-radius:4px;padding:0 3px;font-size:.92em}
.markdown pre code{background:none;border:0;padding:0;font-size:inherit}
.markdown blockquote{margin-left:0;padding:0 10px;border-left:3px solid var(--line);color:var(--muted)}
.markdown table{border-collapse:collapse;display:block;overflow:auto}
.markdown th,.markdown td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
.markdown th{background:var(--panel)}
.markdown .align-center{text-align:center}.markdown .align-right{text-align:right}
.markdown hr{border:0;border-top:1px solid var(--line);margin:10px 0}
.markdown a{color:var(--accent)}
.markdown .task.done{color:var(--ok)}
.markdown .plain{white-space:pre-wrap}
.markdown .raw-html,.markdown .plain{margin:6px 0}
.markdown .raw-html{white-space:pre-wrap;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;color:var(--muted)}
`;
