// The tree of safe elements that Markdown becomes for the HTML export (markdown-html.ts makes it,
// the page's script builds it, export-page/markdown-builder.ts): which tags and attributes it may
// hold. No imports, so the page's script can take it into its bundle.

/** The elements the tree may hold, and (below) their attributes. */
export const HTML_TAGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'span', 'div'] as const;
export const HTML_ATTRIBUTES = ['href', 'title', 'rel', 'class', 'start'] as const;

export type HtmlTag = (typeof HTML_TAGS)[number];
export interface HtmlElement {
  tag: HtmlTag;
  attrs?: Record<string, string>;
  children?: HtmlNode[];
}
/** A text node (a plain string: never markup) or an element. */
export type HtmlNode = string | HtmlElement;
