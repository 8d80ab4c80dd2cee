// `!cmd` (issue 24 §4): a shell command the user runs from the prompt. It goes through the agent's
// bash tool, so the permission gate, the sandbox and the hooks apply as for the model's calls;
// its command and output are added to the conversation as one user message, which the model sees
// with the next prompt. An aborted or refused command adds nothing.
import { randomUUID } from 'node:crypto';
import { textOf, userMessage, type ToolCall } from '../core/types.js';
import type { SessionStore } from '../session/store.js';
import type { ToolResult } from '../tools/tool.js';

export interface ShellCommandResult {
  /** The tool's output as the model would have seen it (exit code and error notes included). */
  output: string;
  isError: boolean;
  /** The user message added to the session; null when nothing was added (aborted, refused). */
  entryId: string | null;
}

export interface ShellCommandHost {
  store(): SessionStore;
  /** Runs a call through the agent's tools (permission gate, sandbox, hooks). */
  runTool(call: ToolCall, signal: AbortSignal): Promise<ToolResult>;
}

/** The user message a command and its output become. */
export function shellMessageText(command: string, output: string): string {
  const fence = output.includes('```') ? '~~~~' : '```';
  return `I ran this shell command (\`!${command}\`); its output:\n\n${fence}\n${output.replace(/\n+$/, '')}\n${fence}`;
}

export async function runShellCommand(host: ShellCommandHost, command: string, signal?: AbortSignal): Promise<ShellCommandResult> {
  const call: ToolCall = { type: 'toolCall', id: `user_shell_${randomUUID().slice(0, 8)}`, name: 'bash', arguments: { command } };
  const result = await host.runTool(call, signal ?? new AbortController().signal);
  const output = textOf(result.content);
  const notRun = result.isError && ['denied', 'aborted', 'blocked_by_hook'].includes(String(result.details?.reason));
  if (signal?.aborted || notRun) return { output, isError: true, entryId: null };
  const store = host.store();
  const entry = store.appendMessage(userMessage(shellMessageText(command, output)));
  store.sync();
  return { output, isError: result.isError, entryId: entry.id };
}
