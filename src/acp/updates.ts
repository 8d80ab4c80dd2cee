// The pure half of the ACP front end: how our events, tools, prompts, stop reasons and MCP
// servers look in ACP's terms. Nothing here does I/O, so the mapping can be tested and benchmarked
// alone; acp-session.ts does the sending (and the one impure part of a diff: reading the file).
import { isAbsolute, resolve } from 'node:path';
import type { ContentBlock, McpServer, PermissionOption, PermissionOptionKind, SessionModeState, SessionUpdate, StopReason, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { AgentEvent, RunStopReason } from '../core/events.js';
import type { ImageContent, TextContent } from '../core/types.js';
import { describeToolCall, type DescribeCall } from '../tools/descriptions.js';
import type { ToolLocation } from '../tools/tool.js';
import { ruleInBrief } from '../tools/permissions.js';

// Each function below takes how calls are described: the agent's (Agent.toolDescriptions, its own
// tools first), or by default the built-in tools by name and the generic description.

/** The ACP kind of a tool, as the tool declares it: MCP tools (SERVER__TOOL) and anything unknown are `other`. */
export function toolKind(name: string, describe: DescribeCall = describeToolCall): ToolKind {
  return describe(name, {}).kind;
}

/** A short human title for a call, as its tool declares it, e.g. "Read src/a.ts", "Run `npm test`", "everything: echo". */
export function toolTitle(name: string, args: Record<string, unknown>, describe: DescribeCall = describeToolCall): string {
  return describe(name, args).title;
}

/**
 * The files and folders a call touches, as its tool declares them, absolute (ACP wants absolute
 * paths): resolved against the workspace, `.` being the workspace itself. MCP tools name none.
 */
export function toolLocations(name: string, args: Record<string, unknown>, cwd: string, describe: DescribeCall = describeToolCall): ToolCallLocation[] {
  return locationsIn(describe(name, args).locations, cwd);
}

function locationsIn(locations: readonly ToolLocation[], cwd: string): ToolCallLocation[] {
  return locations.map((l) => ({ ...l, path: l.path === '.' ? cwd : absolutePath(l.path, cwd) }));
}

/** A call's title, kind and locations, as its tool declares them (in the order ACP messages carry them). */
export function toolCallFields(name: string, args: Record<string, unknown>, cwd: string, describe: DescribeCall = describeToolCall): { title: string; kind: ToolKind; locations: ToolCallLocation[] } {
  const d = describe(name, args);
  return { title: d.title, kind: d.kind, locations: locationsIn(d.locations, cwd) };
}

/** The file a call rewrites, absolute, with its new text when the arguments hold it: the session shows its diff. */
export function rewrittenFile(name: string, args: Record<string, unknown>, cwd: string, describe: DescribeCall = describeToolCall): { path: string; newText?: string } | undefined {
  const r = describe(name, args).rewrites;
  return r && { ...r, path: absolutePath(r.path, cwd) };
}

export function absolutePath(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

const textOf = (content: ReadonlyArray<TextContent | ImageContent>): string => content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** A tool's text result as ACP tool-call content. */
export function resultContent(content: ReadonlyArray<TextContent | ImageContent>): ToolCallContent[] {
  const text = textOf(content);
  const images: ToolCallContent[] = content.flatMap((c) => (c.type === 'image' ? [{ type: 'content' as const, content: { type: 'image' as const, data: c.data, mimeType: c.mimeType } }] : []));
  return text === '' ? images : [{ type: 'content', content: { type: 'text', text } }, ...images];
}

/** The `tool_call` update that opens a call (pending until the permission check lets it run). */
export function toolCallUpdate(toolCallId: string, name: string, args: Record<string, unknown>, cwd: string, describe: DescribeCall = describeToolCall): SessionUpdate {
  const { title, kind, locations } = toolCallFields(name, args, cwd, describe);
  return { sessionUpdate: 'tool_call', toolCallId, title, kind, status: 'pending', locations, rawInput: args };
}

/**
 * The session/update for one of our events, or null for the events ACP has no place for (turns,
 * usage, queues, compaction: the RPC mode shows those). tool_update (a running bash's tail) is an
 * in_progress update whose content is that tail. tool_end is mapped without its diff; the session
 * adds one for a call that rewrites a file (rewrittenFile).
 */
export function eventToUpdate(event: AgentEvent, cwd: string, describe: DescribeCall = describeToolCall): SessionUpdate | null {
  switch (event.type) {
    case 'text_delta':
      return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.delta } };
    case 'thinking_delta':
      return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.delta } };
    case 'tool_start':
      return toolCallUpdate(event.toolCallId, event.name, event.arguments, cwd, describe);
    case 'permission_decision':
      // Allowed: it runs now. Denied: tool_end follows at once with the refusal as a failure.
      return event.decision === 'allow' ? { sessionUpdate: 'tool_call_update', toolCallId: event.toolCallId, status: 'in_progress' } : null;
    case 'tool_update':
      // A running call's latest output (bash's last lines): the call's content so far, replaced by each update and then by the result.
      return { sessionUpdate: 'tool_call_update', toolCallId: event.toolCallId, status: 'in_progress', content: [{ type: 'content', content: { type: 'text', text: event.tail } }] };
    case 'tool_end':
      return { sessionUpdate: 'tool_call_update', toolCallId: event.toolCallId, status: event.result.isError ? 'failed' : 'completed', content: resultContent(event.result.content) };
    default:
      return null;
  }
}

/** A diff entry for a file a tool changed; `oldText` null: the file did not exist before. */
export function diffContent(path: string, oldText: string | null, newText: string): ToolCallContent {
  return { type: 'diff', path, oldText, newText };
}

/** How our run ended in ACP's words, or 'error' (a failed run answers the prompt with an error). */
export function stopReasonOf(reason: RunStopReason): StopReason | 'error' {
  switch (reason) {
    case 'completed':
      return 'end_turn';
    case 'max_turns':
    case 'loop_detected':
    case 'budget':
      return 'max_turn_requests';
    case 'refused':
      return 'refusal';
    case 'aborted':
      return 'cancelled';
    case 'error':
      return 'error';
  }
}

/**
 * The prompt's content blocks as one user message: text as is, an embedded resource as its text
 * fenced under its URI, a resource link as a line naming it (the model can read it with its
 * tools). Images go with the prompt (promptImages). Audio is not advertised, so a client does not
 * send it; if one does, a line says what was left out rather than dropping it silently.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'resource': {
        const r = block.resource;
        if ('text' in r) parts.push(`Context from ${r.uri}:\n${fence(r.text)}`);
        else parts.push(`[binary resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''} left out: only text is supported]`);
        break;
      }
      case 'resource_link':
        parts.push(`[${block.title ?? block.name}](${block.uri})${block.description ? `: ${block.description}` : ''}`);
        break;
      case 'image':
        break; // sent as an image block (promptImages)
      default:
        parts.push(`[${block.type} content left out: only text and images are supported]`);
    }
  }
  return parts.join('\n\n');
}

/** The prompt's image blocks (their base64 data and media type), in order; one with a URI but no data is refused by the agent's check. */
export function promptImages(blocks: readonly ContentBlock[]): { data: string; mimeType: string }[] {
  return blocks.flatMap((b) => (b.type === 'image' ? [{ data: b.data, mimeType: b.mimeType }] : []));
}

/** `text` in a Markdown fence longer than any backtick run in it (so the text cannot close it), after an optional info string (a language). */
export function fence(text: string, info = ''): string {
  let longest = 2;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const f = '`'.repeat(longest + 1);
  return `${f}${info}\n${text}${text.endsWith('\n') ? '' : '\n'}${f}`;
}

/**
 * The client's MCP servers in the config's `mcpServers` shape. Names become valid server names
 * (letters, digits, _ and -, no "__", which separates server and tool in tool names), unique in
 * the list. SSE servers are not supported by our MCP client: they are left out, each with a
 * warning (we do not advertise SSE, so a client should not send them).
 */
export function mcpServersConfig(servers: readonly McpServer[]): { servers: Record<string, unknown>; warnings: string[] } {
  const out: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const server of servers) {
    if ('type' in server && server.type === 'sse') {
      warnings.push(`MCP server "${server.name}" uses SSE, which mini-agent does not support; it was left out (use its streamable HTTP endpoint)`);
      continue;
    }
    let name = serverName(server.name);
    for (let n = 2; Object.hasOwn(out, name); n++) name = `${serverName(server.name)}-${n}`;
    out[name] = 'type' in server && server.type === 'http' ? { type: 'http', url: server.url, headers: pairs(server.headers) } : { command: server.command, args: server.args, env: pairs(server.env) };
  }
  return { servers: out, warnings };
}

/** A server name as our config accepts it: /^[A-Za-z0-9_-]+$/ without "__". */
export function serverName(name: string): string {
  const clean = name
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/_{2,}/g, '_')
    .replace(/^-+|-+$/g, '');
  return clean === '' ? 'mcp' : clean;
}

function pairs(list: readonly { name: string; value: string }[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, value } of list ?? []) out[name] = value;
  return out;
}

/** What session/request_permission offers, in ACP's four kinds (the option id is the kind). */
export const PERMISSION_OPTIONS: readonly PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Allow always (this session)', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Reject always (this session)', kind: 'reject_always' },
];

/** The options for one request: "allow always" names the rule it stores (for a command, the exact line). */
export function permissionOptions(suggestedRule: string): PermissionOption[] {
  return PERMISSION_OPTIONS.map((o) => (o.kind === 'allow_always' ? { ...o, name: `Allow always (this session): ${ruleInBrief(suggestedRule, 60)}` } : { ...o }));
}

/** The client's choice as our answer; `rejectAlways` tells the session to remember the refusal. */
export function permissionAnswer(outcome: { outcome: 'cancelled' } | { outcome: 'selected'; optionId: string }): { decision: 'allow' | 'always' | 'deny'; rejectAlways: boolean } {
  if (outcome.outcome !== 'selected') return { decision: 'deny', rejectAlways: false };
  const kind = outcome.optionId as PermissionOptionKind;
  if (kind === 'allow_once') return { decision: 'allow', rejectAlways: false };
  if (kind === 'allow_always') return { decision: 'always', rejectAlways: false };
  return { decision: 'deny', rejectAlways: kind === 'reject_always' };
}

/** Our permission presets as ACP session modes (the ids are a contract: see the issue's names). */
export const MODE_IDS = ['default', 'accept-edits', 'read-only'] as const;
export type ModeId = (typeof MODE_IDS)[number];

export function isModeId(id: string): id is ModeId {
  return (MODE_IDS as readonly string[]).includes(id);
}

export function modeState(current: ModeId): SessionModeState {
  return {
    currentModeId: current,
    availableModes: [
      { id: 'default', name: 'Default', description: 'The permission policy as configured: commands ask, edits inside the workspace run' },
      { id: 'accept-edits', name: 'Accept edits', description: 'File changes the policy would ask about (in --allow-path folders) are approved too; commands still ask' },
      { id: 'read-only', name: 'Read only', description: 'Only tools that read run; edits and commands are refused' },
    ],
  };
}
