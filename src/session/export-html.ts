// Export as one self-contained HTML file (pure: a store in, a string out). It works offline and
// makes no request: inline CSS and JS only, and a Content-Security-Policy that allows nothing
// else (the script is allowed by its hash; no image of any origin). The session travels as JSON
// in a <script type="application/json"> tag with every `<` escaped (its shape: export-page-data.ts),
// and the inline script (export-page/page-script.ts, bundled into export-page.generated.ts)
// renders it with textContent and createElement only: no message text is ever parsed as HTML. Assistant text travels as a Markdown tree made here (markdown-html.ts),
// which the page builds element by element; everything else stays preformatted text.
import { createHash } from 'node:crypto';
import type { Stats } from '../core/events.js';
import { redactSecrets } from '../core/redact.js';
import { isContentEntry, type CompactionFailedEntry, type ContentEntry } from './entries.js';
import { failedCompactionsOf } from './entry-kinds/compaction-failed.js';
import { PAGE_CSS } from './export-html-page.js';
import type { PageData } from './export-page-data.js';
import { PAGE_SCRIPT } from './export-page.generated.js';
import { modelsOf } from './export-text.js';
import { markdownToNodes, type HtmlNode } from './markdown-html.js';
import { sessionStats } from './stats.js';
import type { SessionStore } from './store.js';
import { costText } from '../core/cost-text.js';
import { messageKind } from './entry-kinds/index.js';

/** The Content-Security-Policy of every export: the page's own script (by its hash) and inline styles, nothing else. */
export const EXPORT_CSP = `default-src 'none'; script-src 'sha256-${createHash('sha256').update(PAGE_SCRIPT).digest('base64')}'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'`;

export function exportHtml(store: SessionStore): string {
  const entries = store.entries().filter(isContentEntry);
  const path = store.activePath();
  const stats = sessionStats(store);
  const h = store.header;
  const data: PageData = {
    session: { id: h.id, name: store.name, cwd: h.cwd, created: h.timestamp, parentSession: h.parentSession ?? null },
    leafId: store.leafId,
    activePath: path.map((e) => e.id),
    labels: Object.fromEntries(store.labels()),
    entries,
    markdown: markdownOf(entries),
  };
  const title = redactSecrets(store.name ?? `Session ${store.id}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">
<meta name="generator" content="mini-agent export">
<title>${esc(title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<header id="session-header">
<h1 id="session-title">${esc(title)}</h1>
${headerMeta(store, entries, path, stats.session, stats.activePath)}
</header>
<div id="layout">
<aside id="tree-pane">
<p class="legend"><span class="swatch active"></span>active path <span><b>bold</b>: shown path</span> <span class="badge leaf">leaf</span> <span class="badge compacted">compacted</span> <span class="badge label">label</span></p>
<nav id="tree" aria-label="Session tree"></nav>
</aside>
<main id="conversation">
<div id="selected-path" role="status"><span id="selected-path-text">(no entries yet)</span> <button type="button" id="show-active">Show active path</button></div>
<div id="messages"></div>
</main>
</div>
<noscript><p class="noscript">This export needs JavaScript to show the conversation.</p></noscript>
<script type="application/json" id="session-data">${redactSecrets(scriptSafeJson(data))}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/**
 * Each assistant message's text blocks as Markdown trees: by entry id, one slot per content
 * block (null for thinking and tool calls). Object.fromEntries, so no id can set a prototype.
 */
export function markdownOf(entries: ContentEntry[]): Record<string, (HtmlNode[] | null)[]> {
  return Object.fromEntries(
    entries.flatMap((e) => (messageKind.is(e) && e.message.role === 'assistant' && e.message.content.some((c) => c.type === 'text') ? [[e.id, e.message.content.map((c) => (c.type === 'text' ? markdownToNodes(c.text) : null))]] : [])),
  );
}

/** JSON that cannot end its <script> element or open a comment: `<`, `>`, `&` and line separators are escaped. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function failedCompactions(store: SessionStore): CompactionFailedEntry[] {
  return failedCompactionsOf(store.entries());
}

function headerMeta(store: SessionStore, entries: ContentEntry[], path: ContentEntry[], session: Stats, active: Stats): string {
  const h = store.header;
  const branches = store.branchCount();
  const item = (k: string, v: string, id: string) => `<div data-stat="${id}"><dt>${esc(k)}</dt><dd>${esc(v)}</dd></div>`;
  const models = modelsOf(entries);
  const rows = [
    item('Session', h.id, 'id'),
    item('Created', h.timestamp, 'created'),
    item('Workspace', h.cwd, 'cwd'),
    ...(h.parentSession ? [item('Forked from', `${h.parentSession.id} at ${h.parentSession.entryId}`, 'parent')] : []),
    ...(models.length ? [item('Model', models.join(', '), 'model')] : []),
    item('Entries', `${entries.length} · ${branches} ${branches === 1 ? 'branch' : 'branches'} · active path ${path.length}`, 'entries'),
    item('Tokens', `${session.usage.input} in · ${session.usage.output} out · ${session.usage.cacheRead} cache read · ${session.usage.cacheWrite} cache write`, 'tokens'),
    item('Cost', costText(session.usage), 'cost'),
    item('Turns', String(session.turns), 'turns'),
    item('Tool calls', `${session.toolCalls} (${session.toolErrors} failed)`, 'tools'),
    item('Compactions', String(session.compactions), 'compactions'),
    ...failedCompactions(store).map((f, i) => item(i === 0 ? 'Failed compactions' : '', `${f.reason} at ${f.targetId ?? '(start)'}, ${f.tokensBefore} tokens: ${f.error}`, 'compaction-failed')),
    ...(session.wallTimeMs > 0 ? [item('Run time', `${(session.wallTimeMs / 1000).toFixed(1)} s`, 'time')] : []),
  ];
  if (branches > 1) {
    rows.push(item('Active path', `${active.turns} turns · ${active.toolCalls} tool calls · ${active.usage.input} in / ${active.usage.output} out · ${costText(active.usage)}`, 'active'));
  }
  return `<dl id="stats">${rows.join('')}</dl>`;
}
