// The page's builder of the Markdown tree (html-tree.ts; made by markdown-html.ts): appends the
// nodes with createElement and text nodes, skipping any tag or attribute not listed and any link
// target that is not http(s) or mailto. Runs in the browser (bundled into the page's script).
import { HTML_ATTRIBUTES, HTML_TAGS, type HtmlNode } from '../html-tree.js';

const TAGS = new Set<string>(HTML_TAGS);
const ATTRIBUTES = new Set<string>(HTML_ATTRIBUTES);

export function buildMarkdown(nodes: readonly HtmlNode[] | undefined, parent: Node): void {
  for (const n of nodes ?? []) {
    if (typeof n === 'string') {
      parent.appendChild(document.createTextNode(n));
      continue;
    }
    if (!n || !TAGS.has(n.tag)) continue;
    const e = document.createElement(n.tag);
    const attrs = n.attrs ?? {};
    for (const k of Object.keys(attrs)) {
      if (!ATTRIBUTES.has(k)) continue;
      if (k === 'href' && !/^(?:https?:\/\/|mailto:)/i.test(attrs[k])) continue;
      e.setAttribute(k, String(attrs[k]));
    }
    buildMarkdown(n.children, e);
    parent.appendChild(e);
  }
}
