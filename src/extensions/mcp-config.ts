// The `mcpServers` block of a config file, checked and turned into server specs. Pure: nothing
// here touches the filesystem, the environment (it is passed in) or the network.
//
// The accepted shape is the one other agents use, so a user can paste theirs:
//   { "name": { "command": "npx", "args": [...], "env": {...}, "cwd": "..." } }   a stdio server
//   { "name": { "url": "https://host/mcp", "headers": {...} } }                    a streamable HTTP server
// plus "type" ("stdio", "http", "streamable-http"; "sse" is refused with a hint), and our own keys
// "risk", "tools", "startupTimeoutMs", "toolTimeoutMs", "disabled". A few spellings from other agents are
// taken too, because people paste them: "enabled": false (Codex, opencode), "serverUrl"
// (Windsurf), "httpUrl" (Gemini CLI). Other keys are ignored, not errors: a pasted block often
// carries keys meant for another agent ("autoApprove", "alwaysAllow", "timeout"…).
import { isAbsolute, resolve } from 'node:path';
import { isPlainObject, UsageError } from '../core/types.js';
import type { ToolRisk } from '../tools/tool.js';

export type McpTransportSpec = { type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string } | { type: 'http'; url: string; headers: Record<string, string> };

/**
 * The transport's text as the config file wrote it, `${VAR}` references unexpanded: what listings
 * show (`mcp list`, `--show-config`), so a key read from the environment is never printed. The
 * expanded values of the transport are only for starting the server.
 */
export interface McpShownText {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
}

export interface McpServerSpec {
  /** The key in mcpServers: /^[A-Za-z0-9_-]+$/ without "__" (the separator in tool names). */
  name: string;
  /** user config, the workspace's .mini-agent/config.json, or --mcp-config FILE. */
  scope: 'user' | 'project' | 'flag';
  /** Where it was configured, for messages: e.g. "user config /x/config.json". */
  source: string;
  transport: McpTransportSpec;
  /** The transport as written, for listings (see McpShownText). */
  shown?: McpShownText;
  /** The risk of this server's tools that have no annotations (readOnlyHint, destructiveHint). */
  risk: ToolRisk;
  /** The user's per-tool settings, by the tool's name on the server: `"tools": {"NAME": {"risk": …}}`; wins over annotations. */
  tools?: Record<string, McpToolSettings>;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  enabled: boolean;
}

export interface McpToolSettings {
  risk?: ToolRisk;
}

export interface ParseOptions {
  source: string;
  scope: McpServerSpec['scope'];
  /** Our environment: what `${VAR}` in the servers' settings expands from. */
  env: NodeJS.ProcessEnv;
  /** Where a relative cwd is resolved from (the folder of the config file, or the workspace). */
  baseDir: string;
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

const RISKS: readonly ToolRisk[] = ['read', 'write', 'execute'];

/** Checks `data` (the value of "mcpServers") and returns one spec per server, in the file's order. */
export function parseMcpServers(data: unknown, opts: ParseOptions): McpServerSpec[] {
  if (data === undefined || data === null) return [];
  if (!isPlainObject(data)) {
    throw new UsageError(`${opts.source}: mcpServers must be an object mapping server names to {"command", "args", "env"} or {"url", "headers"}`);
  }
  return Object.entries(data).map(([name, entry]) => parseServer(name, entry, opts));
}

/** Later layers replace same-named servers of earlier ones (the server keeps its first place in the order). */
export function mergeMcpServers(layers: readonly (readonly McpServerSpec[])[]): McpServerSpec[] {
  const byName = new Map<string, McpServerSpec>();
  for (const layer of layers) for (const spec of layer) byName.set(spec.name, spec);
  return [...byName.values()];
}

function parseServer(name: string, entry: unknown, opts: ParseOptions): McpServerSpec {
  const where = `${opts.source}: mcpServers.${name}`;
  if (!SERVER_NAME_PATTERN.test(name) || name.includes('__')) {
    throw new UsageError(`${opts.source}: mcpServers has a server named ${JSON.stringify(name)}; a name may use only letters, digits, "_" and "-", and not "__" (it separates the server from the tool in tool names)`);
  }
  if (!isPlainObject(entry)) throw new UsageError(`${where} must be an object: {"command", "args", "env"} or {"url", "headers"}`);
  const key = (k: string) => `${where}.${k}`;
  const expand = (text: string, k: string) => expandVars(text, opts.env, key(k));

  const type = entry.type;
  if (type !== undefined && typeof type !== 'string') throw new UsageError(`${key('type')} must be "stdio" or "http"`);
  const kind = type?.toLowerCase();
  if (kind === 'sse') {
    throw new UsageError(`${key('type')} is "sse": SSE servers are not supported; use the server's streamable HTTP endpoint (often the same URL ending in /mcp instead of /sse) with "type": "http"`);
  }
  if (kind !== undefined && !['stdio', 'http', 'streamable-http', 'streamable_http', 'streamablehttp'].includes(kind)) {
    throw new UsageError(`${key('type')} is ${JSON.stringify(type)}; use "stdio" (with "command") or "http" (with "url")`);
  }
  const urlKey = ['url', 'serverUrl', 'httpUrl'].find((k) => entry[k] !== undefined);
  if (entry.command !== undefined && urlKey) throw new UsageError(`${where} has both "command" and "${urlKey}"; a server is either a command (stdio) or a URL (HTTP)`);
  if (entry.command === undefined && !urlKey) {
    throw new UsageError(`${where} needs "command" (a stdio server) or "url" (a streamable HTTP server)`);
  }

  let transport: McpTransportSpec;
  let shown: McpShownText;
  if (entry.command !== undefined) {
    if (kind !== undefined && kind !== 'stdio') throw new UsageError(`${key('type')} is ${JSON.stringify(type)} but the server has a "command"; an HTTP server needs "url"`);
    if (typeof entry.command !== 'string' || entry.command.trim() === '') throw new UsageError(`${key('command')} must be a non-empty string`);
    const args = stringArray(entry.args, key('args'));
    const env = stringRecord(entry.env, key('env'));
    let cwd: string | undefined;
    if (entry.cwd !== undefined) {
      if (typeof entry.cwd !== 'string' || entry.cwd === '') throw new UsageError(`${key('cwd')} must be a non-empty string`);
      const dir = expand(entry.cwd, 'cwd');
      cwd = isAbsolute(dir) ? dir : resolve(opts.baseDir, dir);
    }
    transport = {
      type: 'stdio',
      command: expand(entry.command, 'command'),
      args: args.map((a, i) => expand(a, `args[${i}]`)),
      env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, expand(v, `env.${k}`)])),
      ...(cwd !== undefined ? { cwd } : {}),
    };
    shown = { command: entry.command, args: [...args], env: { ...env } };
  } else {
    if (kind === 'stdio') throw new UsageError(`${key('type')} is "stdio" but the server has no "command"`);
    const raw = entry[urlKey!];
    if (typeof raw !== 'string' || raw === '') throw new UsageError(`${key(urlKey!)} must be a non-empty string`);
    const url = expand(raw, urlKey!);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`${key(urlKey!)} is not a valid URL: ${JSON.stringify(url)}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`${key(urlKey!)} must be an http:// or https:// URL, not ${parsed.protocol}`);
    const headersKey = entry.headers === undefined && entry.http_headers !== undefined ? 'http_headers' : 'headers';
    const headers = stringRecord(entry[headersKey], key(headersKey));
    transport = {
      type: 'http',
      url,
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, expand(v, `${headersKey}.${k}`)])),
    };
    shown = { url: raw, headers: { ...headers } };
  }

  const risk = entry.risk ?? 'execute';
  if (typeof risk !== 'string' || !RISKS.includes(risk as ToolRisk)) throw new UsageError(`${key('risk')} must be "read", "write" or "execute"`);
  let enabled = true;
  if (entry.disabled !== undefined) {
    if (typeof entry.disabled !== 'boolean') throw new UsageError(`${key('disabled')} must be true or false`);
    enabled = !entry.disabled;
  } else if (entry.enabled !== undefined) {
    if (typeof entry.enabled !== 'boolean') throw new UsageError(`${key('enabled')} must be true or false`);
    enabled = entry.enabled;
  }
  return {
    name,
    scope: opts.scope,
    source: opts.source,
    transport,
    shown,
    risk: risk as ToolRisk,
    ...(entry.tools !== undefined ? { tools: toolSettings(entry.tools, key('tools')) } : {}),
    startupTimeoutMs: positiveMs(entry.startupTimeoutMs, key('startupTimeoutMs'), DEFAULT_STARTUP_TIMEOUT_MS),
    toolTimeoutMs: positiveMs(entry.toolTimeoutMs, key('toolTimeoutMs'), DEFAULT_TOOL_TIMEOUT_MS),
    enabled,
  };
}

/**
 * `${VAR}` and `${VAR:-default}` replaced from `vars` (our environment). As in a shell, the default applies when the
 * variable is unset or empty; `${VAR}` of an empty variable is "". A variable that is not set and
 * has no default is an error naming `where` (a config key) and the variable: starting a server
 * with a half-filled token would fail later with a worse message. Text that is not a reference
 * (`$HOME`, `${` alone, `${not a name}`) is kept as written.
 */
export function expandVars(text: string, vars: NodeJS.ProcessEnv, where: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}/g, (_m, name: string, hasDefault: string | undefined, fallback: string | undefined) => {
    const value = vars[name];
    if (hasDefault !== undefined) return value === undefined || value === '' ? fallback! : value;
    if (value === undefined) throw new UsageError(`${where} uses \${${name}}, which is not set; set it, or write \${${name}:-default}`);
    return value;
  });
}

function stringArray(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new UsageError(`${where} must be an array of strings`);
  return value;
}

function stringRecord(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw new UsageError(`${where} must be an object of strings`);
  for (const [k, v] of Object.entries(value)) if (typeof v !== 'string') throw new UsageError(`${where}.${k} must be a string`);
  return value as Record<string, string>;
}

/**
 * `"tools": {"NAME": {"risk": "read" | "write" | "execute"}}`: per tool, by its name on the server
 * (as `mcp list` shows it). Other keys of a tool's entry are ignored, as for a server (Codex puts
 * "approval_mode" there); a risk that is not one of the three is an error.
 */
function toolSettings(value: unknown, where: string): Record<string, McpToolSettings> {
  if (!isPlainObject(value)) throw new UsageError(`${where} must be an object of tool name (as the server names it) → {"risk": "read" | "write" | "execute"}`);
  const out: Record<string, McpToolSettings> = {};
  for (const [name, settings] of Object.entries(value)) {
    if (!isPlainObject(settings)) throw new UsageError(`${where}.${name} must be an object such as {"risk": "read"}`);
    const risk = settings.risk;
    if (risk !== undefined && (typeof risk !== 'string' || !RISKS.includes(risk as ToolRisk))) throw new UsageError(`${where}.${name}.risk must be "read", "write" or "execute"`);
    out[name] = risk === undefined ? {} : { risk: risk as ToolRisk };
  }
  return out;
}

function positiveMs(value: unknown, where: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new UsageError(`${where} must be a positive number of milliseconds`);
  return value;
}
