// The HTML export page's script (see export-html.ts): reads the session JSON (export-page-data.ts)
// and builds the tree pane and the messages of the selected path. Runs in the browser: esbuild
// bundles it into one ES2017 script (scripts/page-script.mjs, into ../export-page.generated.ts),
// tsc checks it with the DOM's types (tsconfig.page.json). Renders with textContent, text nodes
// and createElement only; assistant text is the Markdown tree built by buildMarkdown.
import type { TextContent, ImageContent, ToolCall, Usage } from '../../core/types.js';
import type { ContentEntry } from '../entries.js';
import type { PageData } from '../export-page-data.js';
import type { HtmlNode } from '../html-tree.js';
import { buildMarkdown } from './markdown-builder.js';

const data = JSON.parse(document.getElementById('session-data')!.textContent!) as PageData;
const byId = new Map<string, ContentEntry>();
const kids = new Map<string, ContentEntry[]>();
const roots: ContentEntry[] = [];
const nodes = new Map<string, HTMLElement>();
data.entries.forEach((e) => byId.set(e.id, e));
data.entries.forEach((e) => {
  const p = e.parentId;
  if (p === null || p === e.id || !byId.has(p)) {
    roots.push(e);
    return;
  }
  if (!kids.has(p)) kids.set(p, []);
  kids.get(p)!.push(e);
});
const active = new Set(data.activePath);
const labels = data.labels;
let selected: string | null = null;
const tree = document.getElementById('tree')!;
const messages = document.getElementById('messages')!;
const bar = document.getElementById('selected-path')!;
const barText = document.getElementById('selected-path-text')!;
// biome-ignore lint/suspicious/noPrototypeBuiltins: the page is ES2017 (tsconfig.page.json), before Object.hasOwn
const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string | null, text?: string | null): HTMLElementTagNameMap[K] {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined && text !== null) n.textContent = text;
  return n;
}
function markdown(md: HtmlNode[]): HTMLElement {
  const d = el('div', 'text markdown');
  buildMarkdown(md, d);
  return d;
}
function textOf(content: readonly { type: string }[]): string {
  return (content.filter((c) => c.type === 'text' || c.type === 'image') as (TextContent | ImageContent)[]).map((c) => (c.type === 'image' ? '[image: ' + c.mimeType + ']' : c.text)).join('');
}
function flat(s: string, max: number): string {
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > max ? s.slice(0, max - 1) + '\u2026' : s;
}
function plural(n: number, one: string, many: string): string {
  return n + ' ' + (n === 1 ? one : many);
}
function describe(e: ContentEntry): [string, string] {
  if (e.type === 'compaction') return ['compaction', e.summary];
  if (e.type === 'branch_summary') return ['branch', e.summary];
  const m = e.message;
  if (m.role === 'user') return ['user', textOf(m.content)];
  if (m.role === 'toolResult') return ['result', (m.isError ? '\u2717 ' : '\u2713 ') + m.toolName + ': ' + textOf(m.content)];
  const calls = m.content.filter((c): c is ToolCall => c.type === 'toolCall').map((c) => '\u2192 ' + c.name);
  let text = [textOf(m.content)].concat(calls).filter(Boolean).join(' ');
  if (m.stopReason === 'error' || m.stopReason === 'aborted') text += ' [' + m.stopReason + ']';
  return ['assistant', text || '(empty)'];
}

// The tree: chains print flat, a fork indents its branches (like "mini-agent tree"). Iterative.
function row(e: ContentEntry, guide: string): HTMLButtonElement {
  const d = describe(e);
  const b = el('button', 'node kind-' + d[0] + (e.type === 'compaction' ? ' compaction' : ''));
  b.type = 'button';
  b.dataset.entryId = e.id;
  b.dataset.kind = d[0];
  b.dataset.active = String(active.has(e.id));
  b.title = e.id + ' \u00b7 ' + e.timestamp;
  b.append(el('span', 'guide', guide), el('span', 'kind', d[0]), el('span', 'preview', flat(d[1], 90)));
  if (e.type === 'compaction') b.append(el('span', 'badge compacted', 'compacted'));
  if (hasOwn(labels, e.id)) {
    b.dataset.label = labels[e.id];
    b.append(el('span', 'badge label', labels[e.id]));
  }
  if (e.id === data.leafId) {
    b.dataset.leaf = 'true';
    b.append(el('span', 'badge leaf', 'leaf'));
  }
  nodes.set(e.id, b);
  return b;
}
const frag = document.createDocumentFragment();
const seen = new Set<string>();
const stack: [ContentEntry, string, string][] = [];
function pushKids(list: ContentEntry[], prefix: string): void {
  for (let i = list.length - 1; i >= 0; i--) {
    const last = i === list.length - 1;
    stack.push([list[i], prefix + (last ? '\u2514\u2500 ' : '\u251c\u2500 '), prefix + (last ? '   ' : '\u2502  ')]);
  }
}
function walk(list: ContentEntry[]): void {
  if (list.length === 1) stack.push([list[0], '', '']);
  else pushKids(list, '');
  while (stack.length) {
    const item = stack.pop()!;
    let e: ContentEntry | undefined = item[0];
    let first = item[1];
    const rest = item[2];
    while (e && !seen.has(e.id)) {
      seen.add(e.id);
      frag.append(row(e, first));
      const k: ContentEntry[] = kids.get(e.id) || [];
      if (k.length !== 1) {
        pushKids(k, rest);
        break;
      }
      e = k[0];
      first = rest;
    }
  }
}
walk(roots);
data.entries.forEach((e) => {
  if (!seen.has(e.id)) walk([e]); // a parent cycle: no root reaches it
});
if (data.entries.length === 0) frag.append(el('p', 'empty', '(no entries yet)'));
tree.append(frag);

function pathTo(id: string): ContentEntry[] {
  const out: ContentEntry[] = [];
  const onPath = new Set<string>();
  let e = byId.get(id);
  while (e && !onPath.has(e.id)) {
    onPath.add(e.id);
    out.push(e);
    e = e.parentId === null ? undefined : byId.get(e.parentId);
  }
  return out.reverse();
}

function head(a: HTMLElement, role: string, e: ContentEntry): void {
  const h = el('div', 'msg-head');
  h.append(el('span', 'role', role), el('span', 'id', e.id));
  if (hasOwn(labels, e.id)) h.append(el('span', 'badge label', labels[e.id]));
  if (e.id === data.leafId) h.append(el('span', 'badge leaf', 'leaf'));
  h.append(el('time', 'time', e.timestamp));
  a.append(h);
}
function toolCall(c: ToolCall): HTMLElement {
  const d = el('div', 'tool-call');
  d.dataset.toolCallId = c.id;
  d.append(el('span', 'tool-name', '\u2192 ' + c.name));
  if (c.argumentsError) {
    d.append(el('span', 'error', 'invalid arguments: ' + c.argumentsError));
    if (c.rawArguments) {
      const raw = el('details', 'tool-args raw-args');
      raw.append(el('summary', null, 'as sent by the model (' + plural(c.rawArguments.length, 'char', 'chars') + ')'), el('pre', 'args-full', c.rawArguments));
      d.append(raw);
    }
    return d;
  }
  const json = JSON.stringify(c.arguments || {});
  if (json.length <= 120) {
    d.append(el('code', 'args', json));
    return d;
  }
  const det = el('details', 'tool-args');
  det.append(el('summary', null, 'arguments (' + plural(json.length, 'char', 'chars') + ')'), el('pre', 'args-full', JSON.stringify(c.arguments, null, 2)));
  d.append(det);
  return d;
}
function message(e: ContentEntry, summarized: boolean): HTMLElement {
  const a = el('article', 'msg');
  a.dataset.msgId = e.id;
  if (summarized) {
    a.classList.add('summarized');
    a.title = 'Summarized by a later compaction: the model no longer sees this entry';
  }
  if (e.type === 'compaction') {
    a.classList.add('compaction');
    a.dataset.role = 'compaction';
    head(a, 'Compaction', e);
    a.append(
      el('p', 'note', 'The model sees this summary instead of the entries before ' + e.firstKeptEntryId + (typeof e.tokensBefore === 'number' ? ' (' + e.tokensBefore + ' tokens before).' : '.')),
      el('div', 'text summary', e.summary),
    );
    return a;
  }
  if (e.type === 'branch_summary') {
    a.classList.add('compaction');
    a.dataset.role = 'branch_summary';
    head(a, 'Branch summary', e);
    a.append(el('p', 'note', 'Summary of a branch that was left (its leaf: ' + e.fromId + ', ' + plural(e.summarizedIds.length, 'entry', 'entries') + ').'), el('div', 'text summary', e.summary));
    return a;
  }
  const m = e.message;
  a.dataset.role = m.role;
  if (m.role === 'user') {
    head(a, 'User', e);
    a.append(el('div', 'text', textOf(m.content)));
    return a;
  }
  if (m.role === 'toolResult') {
    a.classList.add('tool-result');
    if (m.isError) a.classList.add('error');
    head(a, 'Tool result', e);
    const out = textOf(m.content);
    const lines = out === '' ? 0 : out.replace(/\n$/, '').split('\n').length;
    const det = el('details', 'tool-output');
    det.dataset.error = String(!!m.isError);
    det.append(el('summary', null, (m.isError ? '\u2717 ' : '\u2713 ') + m.toolName + ' \u00b7 ' + plural(lines, 'line', 'lines') + (m.isError ? ' \u00b7 failed' : '')), el('pre', 'output', out === '' ? '(no output)' : out));
    a.append(det);
    return a;
  }
  head(a, 'Assistant', e);
  const md = hasOwn(data.markdown, e.id) ? data.markdown[e.id] : [];
  m.content.forEach((c, i) => {
    if (c.type === 'text') {
      if (c.text.trim() !== '') a.append(md[i] ? markdown(md[i]!) : el('div', 'text', c.text));
    } else if (c.type === 'thinking') {
      const t = el('details', 'thinking');
      t.append(el('summary', null, c.thinking ? 'Thinking (' + plural(c.thinking.length, 'char', 'chars') + ')' : 'Thinking (redacted)'), el('div', 'text', c.thinking));
      a.append(t);
    } else if (c.type === 'toolCall') a.append(toolCall(c));
  });
  if (m.stopReason === 'error' || m.stopReason === 'aborted') a.append(el('p', 'error', '\u2717 ' + m.stopReason + (m.errorMessage ? ': ' + m.errorMessage : '')));
  const u: Partial<Usage> = m.usage || {};
  const bits: string[] = [];
  if (m.model) bits.push(m.model + (m.provider ? ' (' + m.provider + ')' : ''));
  bits.push((u.input || 0) + ' in', (u.output || 0) + ' out', u.costUnknown ? 'cost unknown' : '$' + (u.cost || 0).toFixed(4), m.stopReason);
  a.append(el('div', 'usage', bits.join(' \u00b7 ')));
  return a;
}

function select(id: string, scroll: boolean): void {
  if (!byId.has(id)) return;
  if (selected !== null && nodes.has(selected)) {
    nodes.get(selected)!.removeAttribute('data-selected');
    nodes.get(selected)!.removeAttribute('aria-current');
  }
  tree.querySelectorAll('[data-on-path]').forEach((n) => n.removeAttribute('data-on-path'));
  selected = id;
  const path = pathTo(id);
  let kept = 0;
  path.forEach((e) => (nodes.get(e.id)!.dataset.onPath = 'true'));
  const node = nodes.get(id)!;
  node.dataset.selected = 'true';
  node.setAttribute('aria-current', 'true');
  for (let i = path.length - 1; i >= 0; i--) {
    const p = path[i];
    if (p.type !== 'compaction') continue;
    const k = path.findIndex((q) => q.id === p.firstKeptEntryId);
    kept = k >= 0 && k < i ? k : i;
    break;
  }
  const f = document.createDocumentFragment();
  path.forEach((e, j) => f.append(message(e, j < kept)));
  messages.replaceChildren(f);
  const where = id === data.leafId ? 'the active path' : active.has(id) ? 'part of the active path' : 'another branch (not the active path)';
  bar.dataset.selectedId = id;
  bar.dataset.path = path.map((e) => e.id).join(' ');
  bar.dataset.onActive = String(active.has(id));
  barText.textContent = 'Path to ' + id + ' \u00b7 ' + plural(path.length, 'entry', 'entries') + ' \u00b7 ' + where;
  if (scroll) {
    node.scrollIntoView({ block: 'nearest' });
    if (messages.lastElementChild) messages.lastElementChild.scrollIntoView({ block: 'nearest' });
    try {
      history.replaceState(null, '', '#' + encodeURIComponent(id));
    } catch {
      /* file: URLs may refuse */
    }
  }
}

const entryButton = (target: EventTarget | null) => (target instanceof Element ? target.closest<HTMLElement>('[data-entry-id]') : null);
tree.addEventListener('click', (ev) => {
  const b = entryButton(ev.target);
  if (b) select(b.dataset.entryId!, true);
});
tree.addEventListener('keydown', (ev) => {
  if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
  const b = entryButton(document.activeElement);
  const next = b && ((ev.key === 'ArrowDown' ? b.nextElementSibling : b.previousElementSibling) as HTMLElement | null);
  if (next?.dataset.entryId) {
    ev.preventDefault();
    next.focus();
    select(next.dataset.entryId, true);
  }
});
document.getElementById('show-active')!.addEventListener('click', () => {
  if (data.leafId !== null) select(data.leafId, true);
});
function fromHash(): string | null {
  let h = '';
  try {
    h = decodeURIComponent(location.hash.slice(1));
  } catch {
    h = '';
  }
  return byId.has(h) ? h : null;
}
window.addEventListener('hashchange', () => {
  const h = fromHash();
  if (h && h !== selected) select(h, true);
});
const start = fromHash() || data.leafId || (data.entries.length ? data.entries[data.entries.length - 1].id : null);
if (start !== null) select(start, false);
else messages.append(el('p', 'empty', '(no messages yet)'));
