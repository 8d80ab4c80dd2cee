// How an MCP server's transport is shown in listings (`mcp list`, `--show-config`, `/status`):
// the text its config file wrote, `${VAR}` references unexpanded, and no secret typed literally
// (core/redact.ts decides what is one). Pure.
import { redactConfigValue, redactSecrets } from '../core/redact.js';
import type { McpShownText, McpTransportSpec } from './mcp-config.js';

/**
 * "stdio: node x.js --flag ${VAR} · env: K=${V}" or "http: https://host/mcp · headers: Authorization: Bearer ${T}".
 * `shown` is the text as written (McpServerSpec.shown); without it the transport's own values are
 * shown, redacted by shape. A URL loses its user info and its query string (which may hold a key).
 */
export function describeTransport(t: McpTransportSpec, shown: McpShownText = {}): string {
  if (t.type === 'stdio') {
    const line = `stdio: ${shownArgs([shown.command ?? t.command, ...(shown.args ?? t.args)])
      .map(quoteArg)
      .join(' ')}`;
    return line + shownPairs('env', shown.env ?? t.env, '=');
  }
  return `http: ${shownUrl(shown.url ?? t.url)}${shownPairs('headers', shown.headers ?? t.headers, ': ')}`;
}

/** Arguments with secrets hidden: by shape, after a flag that names a secret (`--token X`), and in `--token=X`. */
export function shownArgs(args: readonly string[]): string[] {
  return args.map((arg, i) => {
    const eq = /^(-{1,2}[A-Za-z0-9_.-]+)=(.*)$/s.exec(arg);
    if (eq) return `${eq[1]}=${redactConfigValue(eq[1], eq[2])}`;
    const previous = i > 0 ? args[i - 1] : '';
    if (/^-{1,2}[A-Za-z]/.test(previous) && !previous.includes('=') && !arg.startsWith('-')) return redactConfigValue(previous, arg);
    return redactSecrets(arg);
  });
}

function shownPairs(label: string, pairs: Readonly<Record<string, string>>, sep: string): string {
  const entries = Object.entries(pairs);
  if (entries.length === 0) return '';
  return ` · ${label}: ${entries.map(([k, v]) => `${k}${sep}${redactConfigValue(k, v)}`).join(', ')}`;
}

function shownUrl(url: string): string {
  const noUser = url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1');
  const noQuery = noUser.replace(/[?#].*$/s, (rest) => (rest.startsWith('?') ? '?…' : ''));
  return redactSecrets(noQuery);
}

function quoteArg(a: string): string {
  return a === '' || /[\s"'\\$`]/.test(a) ? JSON.stringify(a) : a;
}
