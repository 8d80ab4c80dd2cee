// What the HTML export hands its page: the JSON in the page's <script type="application/json">
// element, made by export-html.ts and read by the page's script (export-page/page-script.ts).
// Types only, so both sides are checked against the same shape.
import type { ContentEntry, SessionHeader } from './entries.js';
import type { HtmlNode } from './html-tree.js';

export interface PageData {
  session: { id: string; name: string | null; cwd: string; created: string; parentSession: NonNullable<SessionHeader['parentSession']> | null };
  leafId: string | null;
  /** The ids of the active path, root first. */
  activePath: string[];
  /** Entry id → label. */
  labels: Record<string, string>;
  entries: ContentEntry[];
  /** Each assistant message's text blocks as Markdown trees: by entry id, one slot per content block (null for thinking and tool calls). */
  markdown: Record<string, (HtmlNode[] | null)[]>;
}
