// The export page's inline stylesheet (see export-html.ts). Its script is a TypeScript module of its
// own, export-page/page-script.ts, bundled into export-page.generated.ts.
import { MARKDOWN_CSS } from './markdown-html.js';

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
