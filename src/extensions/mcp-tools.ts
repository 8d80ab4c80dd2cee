// The pure half of the MCP client: how a server's tools are named, described and priced for the
// model, and how a tools/call result becomes text. No SDK types are imported here (the SDK loads
// lazily, in mcp-client.ts), so the shapes below are the few fields of the protocol we read.
import { createHash } from 'node:crypto';
import { formatOfMime, IMAGE_MIME } from '../core/image.js';
import type { ImageContent, TextContent } from '../core/types.js';
import { isPlainObject } from '../core/types.js';
import { estimateTextTokens } from '../session/tokens.js';
import type { RiskBasis, ToolOutput, ToolRisk } from '../tools/tool.js';
import { formatBytes } from '../tools/truncate.js';
import type { McpServerSpec } from './mcp-config.js';

/** The longest tool name the providers accept (OpenAI: ^[a-zA-Z0-9_-]{1,64}$). */
export const MAX_TOOL_NAME = 64;

/** A tool as tools/list gives it (the fields we use). */
export interface McpListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  execution?: { taskSupport?: string };
  /** Hints from the server about what the tool does (MCP 2025-03-26 on). */
  annotations?: { readOnlyHint?: unknown; destructiveHint?: unknown; [hint: string]: unknown };
}

/** A tools/call result (the fields we use). */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * The registry names of one server's tools, in the order given: `SERVER__TOOL`, with characters
 * outside [A-Za-z0-9_-] turned into "_". A name that had to change and then collides with
 * another, or that is longer than 64, is cut and ends in "_" + 8 hex digits of a hash of the
 * MCP name, so distinct MCP names stay distinct. Names that needed no change are placed first,
 * so a clean name never loses its name to a sanitized one, whatever the list order.
 */
export function mcpToolNames(server: string, tools: readonly string[]): string[] {
  const out: string[] = new Array(tools.length);
  const taken = new Set<string>();
  const candidates = tools.map((t) => {
    const raw = `${server}__${t}`;
    const clean = raw.replace(/[^A-Za-z0-9_-]/g, '_');
    return { clean, exact: clean === raw && clean.length <= MAX_TOOL_NAME };
  });
  candidates.forEach((c, i) => {
    if (c.exact && !taken.has(c.clean)) {
      out[i] = c.clean;
      taken.add(c.clean);
    }
  });
  candidates.forEach((c, i) => {
    if (out[i] !== undefined) return;
    let name = c.clean.length <= MAX_TOOL_NAME && !taken.has(c.clean) ? c.clean : hashed(c.clean, tools[i]);
    for (let n = 1; taken.has(name); n++) name = hashed(c.clean, `${tools[i]}\u0000${n}`);
    out[i] = name;
    taken.add(name);
  });
  return out;
}

function hashed(clean: string, key: string): string {
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return `${clean.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

const RISK_ORDER: readonly ToolRisk[] = ['read', 'write', 'execute'];

/**
 * A server tool's risk and where it came from, first match wins:
 *   1. the user's per-tool setting (`"tools": {"NAME": {"risk": …}}` in the server's config);
 *   2. the tool's annotations: `readOnlyHint: true` is read. A tool with `destructiveHint: true`,
 *      or `readOnlyHint: false` (the spec then takes destructiveHint as true unless it says
 *      false; a non-destructive change is still a change), is write, or the server's risk when
 *      that is higher: the server's own word never makes a call ask less than the user's
 *      per-server risk (`execute`, the default, asks), only readOnlyHint makes a tool read;
 *   3. the server's `risk`, for a tool without those hints.
 * Only 1 and 2 make a tool run under --read-only (see runsReadOnly).
 */
export function mcpToolRisk(tool: Pick<McpListedTool, 'name' | 'annotations'>, server: Pick<McpServerSpec, 'risk'> & { tools?: McpServerSpec['tools'] }): { risk: ToolRisk; basis: RiskBasis } {
  const own = server.tools && Object.hasOwn(server.tools, tool.name) ? server.tools[tool.name].risk : undefined;
  if (own) return { risk: own, basis: 'tool-setting' };
  const a = isPlainObject(tool.annotations) ? tool.annotations : {};
  if (a.readOnlyHint === true) return { risk: 'read', basis: 'annotation' };
  if (a.readOnlyHint === false || typeof a.destructiveHint === 'boolean') {
    return { risk: RISK_ORDER[Math.max(RISK_ORDER.indexOf('write'), RISK_ORDER.indexOf(server.risk))], basis: 'annotation' };
  }
  return { risk: server.risk, basis: 'server-default' };
}

export function mcpToolDescription(server: string, tool: McpListedTool): string {
  const text = (tool.description ?? tool.title ?? '').trim();
  return `[MCP server ${server}] ${text}`.trimEnd();
}

/**
 * The JSON Schema the model sees: the tool's inputSchema when it is an object schema, without
 * its top-level "$schema" (tokens spent on every request for nothing); otherwise an empty object
 * schema, since every provider requires an object.
 */
export function mcpToolParameters(inputSchema: unknown): Record<string, unknown> {
  if (!isPlainObject(inputSchema) || inputSchema.type !== 'object') return { type: 'object', properties: {} };
  const { $schema: _ignored, ...rest } = inputSchema;
  return rest;
}

/** The estimated tokens one tool definition costs in every request. */
export function mcpToolTokens(def: { name: string; description: string; parameters: object }): number {
  return estimateTextTokens(JSON.stringify({ name: def.name, description: def.description, parameters: def.parameters }));
}

/** The transport for listings, secrets hidden: see mcp-display.ts. */
export { describeTransport } from './mcp-display.js';

/**
 * The result of tools/call as blocks the model can read: images (PNG, JPEG, GIF, WebP) as images,
 * everything else as text; isError carried over. The images are made to fit the providers' limits
 * by the caller (image-fit.ts fitOutputImages), which is asynchronous.
 */
export function mcpResultToOutput(result: McpCallResult, details?: Record<string, unknown>): ToolOutput {
  const blocks: (TextContent | ImageContent)[] = [];
  for (const c of Array.isArray(result.content) ? result.content : []) {
    const image = imageOf(c);
    blocks.push(image ?? { type: 'text', text: contentToText(c) });
  }
  if (blocks.length === 0 && result.structuredContent !== undefined) blocks.push({ type: 'text', text: JSON.stringify(result.structuredContent, null, 2) });
  if (blocks.length === 0) blocks.push({ type: 'text', text: '(the tool returned no content)' });
  return { content: blocks, ...(result.isError === true ? { isError: true } : {}), ...(details ? { details } : {}) };
}

/** One content block as text: text as is, media and binary resources as a one-line note (the model cannot see them here). */
export function contentToText(c: unknown): string {
  if (!isPlainObject(c)) return '[unreadable content block]';
  switch (c.type) {
    case 'text':
      return typeof c.text === 'string' ? c.text : '';
    case 'image':
    case 'audio':
      return `[${c.type} ${str(c.mimeType, 'of unknown type')}, ${base64Size(c.data)}, not shown]`;
    case 'resource': {
      const r = isPlainObject(c.resource) ? c.resource : {};
      const uri = str(r.uri, '(no uri)');
      const mime = typeof r.mimeType === 'string' ? ` (${r.mimeType})` : '';
      if (typeof r.text === 'string') return `[resource ${uri}${mime}]\n${r.text}`;
      return `[resource ${uri}${mime}, ${base64Size(r.blob)} of binary data, not shown]`;
    }
    case 'resource_link': {
      const name = typeof c.name === 'string' && c.name !== '' ? ` (${c.name})` : '';
      return `[resource link: ${str(c.uri, '(no uri)')}${name}]`;
    }
    default:
      return `[content of type ${JSON.stringify(c.type)}, not shown]`;
  }
}

/** An MCP image block ({type: "image", data, mimeType}) of a type the providers take, as an image; undefined for anything else. */
function imageOf(c: unknown): ImageContent | undefined {
  if (!isPlainObject(c) || c.type !== 'image' || typeof c.data !== 'string' || c.data === '' || typeof c.mimeType !== 'string') return undefined;
  const format = formatOfMime(c.mimeType);
  return format ? { type: 'image', data: c.data.replace(/\s+/g, ''), mimeType: IMAGE_MIME[format] } : undefined;
}

function str(v: unknown, fallback: string): string {
  return typeof v === 'string' && v !== '' ? v : fallback;
}

/** The decoded size of base64 text, as "1.2 KB". */
export function base64Size(data: unknown): string {
  if (typeof data !== 'string') return 'size unknown';
  const trimmed = data.replace(/\s+/g, '');
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
  return formatBytes(Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding));
}

/** A duration for messages: "0.3 s", "1.5 s", "120 s". */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s < 10 ? s.toFixed(1) : Math.round(s)} s`;
}

/** How a process ended, with the last lines it wrote to stderr: "exit code 1; stderr: …". */
export function describeExit(exit: { code: number | null; signal: string | null } | undefined, stderr: readonly string[]): string {
  const parts: string[] = [];
  if (exit?.signal) parts.push(`killed by ${exit.signal}`);
  else if (exit && exit.code !== null) parts.push(`exit code ${exit.code}`);
  const tail = stderr.filter((l) => l.trim() !== '').slice(-3);
  if (tail.length > 0) parts.push(`stderr: ${tail.join(' | ')}`);
  return parts.join('; ') || 'no exit status or stderr output';
}

/**
 * The variables a stdio server inherits from ours, as in the SDK and Codex: enough to find
 * programs and a home, not our API keys. Anything else goes in the server's "env" (where
 * `${VAR}` takes it from ours).
 */
export const INHERITED_ENV: readonly string[] = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'TMPDIR',
  'TZ',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  // Windows
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
  'PROGRAMFILES',
];

/** A stdio server's environment: the inherited variables of ours (`parentEnv`), then the server's own. */
export function serverEnv(parentEnv: NodeJS.ProcessEnv, own: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of INHERITED_ENV) {
    const v = parentEnv[k];
    // A value starting with "()" is an exported shell function (a known injection vector).
    if (v !== undefined && !v.startsWith('()')) out[k] = v;
  }
  return { ...out, ...own };
}
