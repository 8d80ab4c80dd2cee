// The system prompt: small on purpose. It states the tools, the workspace and how
// truncated output continues; project instructions come from extensions later.
import type { ToolSpec } from '../core/types.js';

export function buildSystemPrompt(opts: { cwd: string; tools: readonly ToolSpec[]; date?: Date }): string {
  const tools = opts.tools.map((t) => `- ${t.name}: ${t.description}`).join('\n');
  const date = (opts.date ?? new Date()).toISOString().slice(0, 10);
  return [
    'You are mini-agent, a careful coding assistant working in a local workspace.',
    `Workspace: ${opts.cwd} (all paths are relative to it; nothing outside it can be touched).`,
    `Today: ${date}.`,
    '',
    'Tools:',
    tools || '(none)',
    '',
    'Guidelines:',
    '- Read before you write; do not guess file contents.',
    '- Tool output may be truncated; its last line then says how to continue (for read_file, make the next call exactly as its notice gives it).',
    '- A tool error tells you what went wrong: fix the call rather than repeating it.',
    '- When the task is done, answer briefly and say what you changed.',
  ].join('\n');
}
