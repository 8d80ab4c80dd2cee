// The export page's inline stylesheet and script (see export-html.ts): the script reads the
// session JSON and builds the tree pane and the messages of the selected path.
import { MARKDOWN_BUILDER, MARKDOWN_CSS } from './markdown-html.js';

export const PAGE_CSS = `
:root{--bg:#fff;--fg:#1d1f23;--muted:#6a7078;--line:#d9dde3;--panel:#f6f7f9;--accent:#2563eb;--active:#e8f0fe;--sel:#cfe0ff;--user:#f1f5ff;--ok:#15803d;--err:#b91c1c;--warn:#fff7e0;--badge:#ede9fe;--badge-fg:#5b21b6}
@media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e4e6ea;--muted:#9aa1aa;--line:#30343b;--panel:#1d2026;--accent:#6ea0ff;--active:#1c2a44;--sel:#27406b;--user:#1b2233;--ok:#4ade80;--err:#f87171;--warn:#2e2814;--badge:#2e2447;--badge-fg:#c4b5fd}}
*{box-sizing:border-box}
html,body{margin:0;height:100%;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
body{display:flex;flex-direction:column}
code,pre,.guide,.node,.id,.args{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
#session-header{padding:10px 16px;border-bottom:1px solid var(--line);background:var(--panel)}
#session-header h1{margin:0 0 6px;font-size:18px;overflow-wrap:anywhere}
#stats{display:flex;flex-wrap:wrap;gap:2px 18px;margin:0;font-size:12px}
#stats div{display:flex;gap:5px}#stats dt{color:var(--muted)}#stats dd{margin:0;overflow-wrap:anywhere}
#layout{flex:1;display:flex;min-height:0}
#tree-pane{width:min(42%,460px);min-width:220px;display:flex;flex-direction:column;border-right:1px solid var(--line);resize:horizontal;overflow:hidden}
#tree{flex:1;overflow:auto;padding:4px 0}
.legend{margin:0;padding:6px 8px;font-size:11px;color:var(--muted);border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:4px 8px;align-items:center}
.swatch{display:inline-block;width:10px;height:10px;border-left:3px solid var(--accent);background:var(--active);vertical-align:middle}
.node{display:flex;align-items:baseline;gap:6px;width:100%;border:0;border-left:3px solid transparent;background:none;color:inherit;text-align:left;padding:1px 8px 1px 5px;font-size:12px;white-space:nowrap;cursor:pointer}
.node:hover{background:var(--panel)}
.node[data-active="true"]{background:var(--active);border-left-color:var(--accent)}
.node[data-on-path="true"]{font-weight:600}
.node[data-selected="true"]{background:var(--sel);outline:1px solid var(--accent)}
.node .guide{color:var(--muted);white-space:pre}
.node .kind{color:var(--muted);min-width:6.5em}
.node.kind-user .kind{color:var(--accent)}.node.compaction .kind{color:#b45309}
.node .preview{overflow:hidden;text-overflow:ellipsis}
.node.compaction .preview{font-style:italic}
.badge{display:inline-block;border-radius:8px;padding:0 6px;font-size:11px;font-weight:600;background:var(--badge);color:var(--badge-fg);flex:none}
.badge.leaf{background:var(--accent);color:#fff}
.badge.compacted{background:#fde68a;color:#78350f}
#conversation{flex:1;overflow:auto;padding:0 18px 40px}
#selected-path{position:sticky;top:0;z-index:1;background:var(--bg);border-bottom:1px solid var(--line);padding:8px 0;font-size:12px;color:var(--muted);display:flex;gap:10px;align-items:center}
#selected-path[data-on-active="false"]{color:var(--err)}
button#show-active{font-size:12px}
.msg{margin:12px 0;padding:8px 12px;border:1px solid var(--line);border-radius:8px}
.msg[data-role="user"]{background:var(--user)}
.msg.summarized{opacity:.55}
.msg.compaction{background:var(--warn);border-style:dashed}
.msg-head{display:flex;flex-wrap:wrap;gap:8px;align-items:baseline;font-size:12px;color:var(--muted);margin-bottom:4px}
.msg-head .role{font-weight:700;color:var(--fg);font-size:13px}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.note{margin:2px 0;font-size:12px;color:var(--muted)}
details{margin:4px 0}summary{cursor:pointer;font-size:12px;color:var(--muted)}
details.thinking .text{color:var(--muted);font-style:italic}
.tool-call{margin:4px 0;font-size:13px}.tool-name{font-weight:600;margin-right:6px}
.args{font-size:12px;background:var(--panel);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px;overflow:auto;max-height:480px;font-size:12px;white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.tool-output>summary{color:var(--ok)}.tool-output[data-error="true"]>summary,.error{color:var(--err)}
.usage{font-size:11px;color:var(--muted);margin-top:4px}
.empty,.noscript{color:var(--muted);padding:16px}
${MARKDOWN_CSS}`;

// Plain ES2017 in a string: no `</script`, no `<!--` (the tests check). Renders with textContent,
// text nodes and createElement only; assistant text is the Markdown tree built by mdBuild.
export const PAGE_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('session-data').textContent);
  var byId = new Map(), kids = new Map(), roots = [], nodes = new Map();
  data.entries.forEach(function (e) { byId.set(e.id, e); });
  data.entries.forEach(function (e) {
    var p = e.parentId;
    if (p === null || p === e.id || !byId.has(p)) { roots.push(e); return; }
    if (!kids.has(p)) kids.set(p, []);
    kids.get(p).push(e);
  });
  var active = new Set(data.activePath), labels = data.labels, selected = null;
  var tree = document.getElementById('tree'), messages = document.getElementById('messages');
  var bar = document.getElementById('selected-path'), barText = document.getElementById('selected-path-text');
${MARKDOWN_BUILDER}
  function el(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = text;
    return n;
  }
  function markdown(tree) { var d = el('div', 'text markdown'); mdBuild(tree, d); return d; }
  function textOf(content) { return content.filter(function (c) { return c.type === 'text' || c.type === 'image'; }).map(function (c) { return c.type === 'image' ? '[image: ' + c.mimeType + ']' : c.text; }).join(''); }
  function flat(s, max) { s = s.replace(/\\s+/g, ' ').trim(); return s.length > max ? s.slice(0, max - 1) + '\\u2026' : s; }
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }
  function describe(e) {
    if (e.type === 'compaction') return ['compaction', e.summary];
    if (e.type === 'branch_summary') return ['branch', e.summary];
    var m = e.message;
    if (m.role === 'user') return ['user', textOf(m.content)];
    if (m.role === 'toolResult') return ['result', (m.isError ? '\\u2717 ' : '\\u2713 ') + m.toolName + ': ' + textOf(m.content)];
    var calls = m.content.filter(function (c) { return c.type === 'toolCall'; }).map(function (c) { return '\\u2192 ' + c.name; });
    var text = [textOf(m.content)].concat(calls).filter(Boolean).join(' ');
    if (m.stopReason === 'error' || m.stopReason === 'aborted') text += ' [' + m.stopReason + ']';
    return ['assistant', text || '(empty)'];
  }

  // The tree: chains print flat, a fork indents its branches (like "mini-agent tree"). Iterative.
  function row(e, guide) {
    var d = describe(e), b = el('button', 'node kind-' + d[0] + (e.type === 'compaction' ? ' compaction' : ''));
    b.type = 'button';
    b.dataset.entryId = e.id;
    b.dataset.kind = d[0];
    b.dataset.active = String(active.has(e.id));
    b.title = e.id + ' \\u00b7 ' + e.timestamp;
    b.append(el('span', 'guide', guide), el('span', 'kind', d[0]), el('span', 'preview', flat(d[1], 90)));
    if (e.type === 'compaction') b.append(el('span', 'badge compacted', 'compacted'));
    if (Object.prototype.hasOwnProperty.call(labels, e.id)) {
      b.dataset.label = labels[e.id];
      b.append(el('span', 'badge label', labels[e.id]));
    }
    if (e.id === data.leafId) { b.dataset.leaf = 'true'; b.append(el('span', 'badge leaf', 'leaf')); }
    nodes.set(e.id, b);
    return b;
  }
  var frag = document.createDocumentFragment(), seen = new Set(), stack = [];
  function pushKids(list, prefix) {
    for (var i = list.length - 1; i >= 0; i--) {
      var last = i === list.length - 1;
      stack.push([list[i], prefix + (last ? '\\u2514\\u2500 ' : '\\u251c\\u2500 '), prefix + (last ? '   ' : '\\u2502  ')]);
    }
  }
  function walk(list) {
    if (list.length === 1) stack.push([list[0], '', '']); else pushKids(list, '');
    while (stack.length) {
      var item = stack.pop(), e = item[0], first = item[1], rest = item[2];
      while (e && !seen.has(e.id)) {
        seen.add(e.id);
        frag.append(row(e, first));
        var k = kids.get(e.id) || [];
        if (k.length !== 1) { pushKids(k, rest); break; }
        e = k[0];
        first = rest;
      }
    }
  }
  walk(roots);
  data.entries.forEach(function (e) { if (!seen.has(e.id)) walk([e]); }); // a parent cycle: no root reaches it
  if (data.entries.length === 0) frag.append(el('p', 'empty', '(no entries yet)'));
  tree.append(frag);

  function pathTo(id) {
    var out = [], onPath = new Set(), e = byId.get(id);
    while (e && !onPath.has(e.id)) { onPath.add(e.id); out.push(e); e = e.parentId === null ? undefined : byId.get(e.parentId); }
    return out.reverse();
  }

  function head(a, role, e) {
    var h = el('div', 'msg-head');
    h.append(el('span', 'role', role), el('span', 'id', e.id));
    if (Object.prototype.hasOwnProperty.call(labels, e.id)) h.append(el('span', 'badge label', labels[e.id]));
    if (e.id === data.leafId) h.append(el('span', 'badge leaf', 'leaf'));
    h.append(el('time', 'time', e.timestamp));
    a.append(h);
  }
  function toolCall(c) {
    var d = el('div', 'tool-call');
    d.dataset.toolCallId = c.id;
    d.append(el('span', 'tool-name', '\\u2192 ' + c.name));
    if (c.argumentsError) {
      d.append(el('span', 'error', 'invalid arguments: ' + c.argumentsError));
      if (c.rawArguments) {
        var raw = el('details', 'tool-args raw-args');
        raw.append(el('summary', null, 'as sent by the model (' + plural(c.rawArguments.length, 'char', 'chars') + ')'), el('pre', 'args-full', c.rawArguments));
        d.append(raw);
      }
      return d;
    }
    var json = JSON.stringify(c.arguments || {});
    if (json.length <= 120) { d.append(el('code', 'args', json)); return d; }
    var det = el('details', 'tool-args');
    det.append(el('summary', null, 'arguments (' + plural(json.length, 'char', 'chars') + ')'), el('pre', 'args-full', JSON.stringify(c.arguments, null, 2)));
    d.append(det);
    return d;
  }
  function message(e, summarized) {
    var a = el('article', 'msg');
    a.dataset.msgId = e.id;
    if (summarized) { a.classList.add('summarized'); a.title = 'Summarized by a later compaction: the model no longer sees this entry'; }
    if (e.type === 'compaction') {
      a.classList.add('compaction');
      a.dataset.role = 'compaction';
      head(a, 'Compaction', e);
      a.append(el('p', 'note', 'The model sees this summary instead of the entries before ' + e.firstKeptEntryId +
        (typeof e.tokensBefore === 'number' ? ' (' + e.tokensBefore + ' tokens before).' : '.')), el('div', 'text summary', e.summary));
      return a;
    }
    if (e.type === 'branch_summary') {
      a.classList.add('compaction');
      a.dataset.role = 'branch_summary';
      head(a, 'Branch summary', e);
      a.append(el('p', 'note', 'Summary of a branch that was left (its leaf: ' + e.fromId + ', ' + plural(e.summarizedIds.length, 'entry', 'entries') + ').'), el('div', 'text summary', e.summary));
      return a;
    }
    var m = e.message;
    a.dataset.role = m.role;
    if (m.role === 'user') { head(a, 'User', e); a.append(el('div', 'text', textOf(m.content))); return a; }
    if (m.role === 'toolResult') {
      a.classList.add('tool-result');
      if (m.isError) a.classList.add('error');
      head(a, 'Tool result', e);
      var out = textOf(m.content), lines = out === '' ? 0 : out.replace(/\\n$/, '').split('\\n').length;
      var det = el('details', 'tool-output');
      det.dataset.error = String(!!m.isError);
      det.append(el('summary', null, (m.isError ? '\\u2717 ' : '\\u2713 ') + m.toolName + ' \\u00b7 ' + plural(lines, 'line', 'lines') + (m.isError ? ' \\u00b7 failed' : '')),
        el('pre', 'output', out === '' ? '(no output)' : out));
      a.append(det);
      return a;
    }
    head(a, 'Assistant', e);
    var md = Object.prototype.hasOwnProperty.call(data.markdown, e.id) ? data.markdown[e.id] : [];
    m.content.forEach(function (c, i) {
      if (c.type === 'text') { if (c.text.trim() !== '') a.append(md[i] ? markdown(md[i]) : el('div', 'text', c.text)); }
      else if (c.type === 'thinking') {
        var t = el('details', 'thinking');
        t.append(el('summary', null, c.thinking ? 'Thinking (' + plural(c.thinking.length, 'char', 'chars') + ')' : 'Thinking (redacted)'), el('div', 'text', c.thinking));
        a.append(t);
      } else if (c.type === 'toolCall') a.append(toolCall(c));
    });
    if (m.stopReason === 'error' || m.stopReason === 'aborted') a.append(el('p', 'error', '\\u2717 ' + m.stopReason + (m.errorMessage ? ': ' + m.errorMessage : '')));
    var u = m.usage || {}, bits = [];
    if (m.model) bits.push(m.model + (m.provider ? ' (' + m.provider + ')' : ''));
    bits.push((u.input || 0) + ' in', (u.output || 0) + ' out', u.costUnknown ? 'cost unknown' : '$' + (u.cost || 0).toFixed(4), m.stopReason);
    a.append(el('div', 'usage', bits.join(' \\u00b7 ')));
    return a;
  }

  function select(id, scroll) {
    if (!byId.has(id)) return;
    if (selected !== null && nodes.has(selected)) { nodes.get(selected).removeAttribute('data-selected'); nodes.get(selected).removeAttribute('aria-current'); }
    tree.querySelectorAll('[data-on-path]').forEach(function (n) { n.removeAttribute('data-on-path'); });
    selected = id;
    var path = pathTo(id), kept = 0;
    path.forEach(function (e) { nodes.get(e.id).dataset.onPath = 'true'; });
    var node = nodes.get(id);
    node.dataset.selected = 'true';
    node.setAttribute('aria-current', 'true');
    for (var i = path.length - 1; i >= 0; i--) {
      if (path[i].type !== 'compaction') continue;
      var first = path[i].firstKeptEntryId, k = path.findIndex(function (p) { return p.id === first; });
      kept = k >= 0 && k < i ? k : i;
      break;
    }
    var f = document.createDocumentFragment();
    path.forEach(function (e, j) { f.append(message(e, j < kept)); });
    messages.replaceChildren(f);
    var where = id === data.leafId ? 'the active path' : active.has(id) ? 'part of the active path' : 'another branch (not the active path)';
    bar.dataset.selectedId = id;
    bar.dataset.path = path.map(function (e) { return e.id; }).join(' ');
    bar.dataset.onActive = String(active.has(id));
    barText.textContent = 'Path to ' + id + ' \\u00b7 ' + plural(path.length, 'entry', 'entries') + ' \\u00b7 ' + where;
    if (scroll) {
      node.scrollIntoView({ block: 'nearest' });
      if (messages.lastElementChild) messages.lastElementChild.scrollIntoView({ block: 'nearest' });
      try { history.replaceState(null, '', '#' + encodeURIComponent(id)); } catch (err) { /* file: URLs may refuse */ }
    }
  }

  tree.addEventListener('click', function (ev) {
    var b = ev.target.closest('[data-entry-id]');
    if (b) select(b.dataset.entryId, true);
  });
  tree.addEventListener('keydown', function (ev) {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
    var b = document.activeElement && document.activeElement.closest('[data-entry-id]');
    var next = b && (ev.key === 'ArrowDown' ? b.nextElementSibling : b.previousElementSibling);
    if (next && next.dataset.entryId) { ev.preventDefault(); next.focus(); select(next.dataset.entryId, true); }
  });
  document.getElementById('show-active').addEventListener('click', function () {
    if (data.leafId !== null) select(data.leafId, true);
  });
  function fromHash() {
    var h = '';
    try { h = decodeURIComponent(location.hash.slice(1)); } catch (err) { h = ''; }
    return byId.has(h) ? h : null;
  }
  window.addEventListener('hashchange', function () { var h = fromHash(); if (h && h !== selected) select(h, true); });
  var start = fromHash() || data.leafId || (data.entries.length ? data.entries[data.entries.length - 1].id : null);
  if (start !== null) select(start, false);
  else messages.append(el('p', 'empty', '(no messages yet)'));
})();
`;
