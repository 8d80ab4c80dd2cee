// The system prompt: small on purpose. It states the workspace, names the tools and says how
// truncated output continues. The extensions' sections (context files, skills) are appended by the
// app layer at each run. Tools are named, never described: their definitions (name, description,
// parameters) reach the model anyway, and repeating the descriptions here doubled their cost
// (issue 23: the first request went from 13.7 KB to under 8 KB). Tools from elsewhere (MCP
// servers) are named by their server only. Nothing in it changes from one request of a session to
// the next (the prompt cache needs a byte-stable prefix): the date is the day the session started.
import type { ToolSpec } from '../core/types.js';

/** `date`: the day the session started (see sessionStartDate); default: today. */
export function buildSystemPrompt(opts: { cwd: string; tools: readonly ToolSpec[]; date?: Date }): string {
  const own = opts.tools.filter((t) => !t.source);
  const bySource = new Map<string, number>();
  for (const t of opts.tools) if (t.source) bySource.set(t.source, (bySource.get(t.source) ?? 0) + 1);
  const tools = own.length ? `- ${own.map((t) => t.name).join(', ')}` : '';
  const external = [...bySource].map(([source, n]) => `- ${n} tool${n === 1 ? '' : 's'} from ${source.replace(/^mcp:/, 'the MCP server ')} (named ${source.replace(/^mcp:/, '')}__TOOL)`);
  const date = (opts.date ?? new Date()).toISOString().slice(0, 10);
  return [
    'You are mini-agent, a careful coding assistant working in a local workspace.',
    `Workspace: ${opts.cwd} (all paths are relative to it; nothing outside it can be touched).`,
    `Session started: ${date}.`,
    '',
    'Tools:',
    tools || (external.length ? '' : '(none)'),
    ...external,
    '',
    'Guidelines:',
    '- Read before you write; do not guess file contents.',
    '- Tool output may be truncated; its last line then says how to continue (for read_file, make the next call exactly as its notice gives it).',
    '- A tool error tells you what went wrong: fix the call rather than repeating it.',
    '- When the task is done, answer briefly and say what you changed.',
  ]
    .filter((line, i, all) => !(line === '' && all[i - 1] === 'Tools:'))
    .join('\n');
}

/** The session header's timestamp as a date; undefined when it is not a valid time (then today is used). */
export function sessionStartDate(timestamp: string | undefined): Date | undefined {
  if (timestamp === undefined) return undefined;
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
