// Resume and fork replay the tool calls of the last messages as the live run showed them (issue
// 24 §6): each call's line and the first lines of its result, from the assistant message's calls
// and the tool results that answer them. The session keeps no per-call duration: none is shown.
import { describeToolCall, type DescribeCall } from '../tools/descriptions.js';
import type { AgentEvent } from '../core/events.js';
import type { AssistantMessage, Message, ToolResultMessage } from '../core/types.js';
import { toolBlock } from './tool-block.js';
import { formatDuration, type Paint } from './view.js';

/** The finished-tool lines of an assistant message's calls, answered by `messages`' tool results (a call without one is left out). */
export function replayedToolLines(message: AssistantMessage, messages: readonly Message[], width: number, p: Paint, describe: DescribeCall = describeToolCall): string[] {
  const out: string[] = [];
  for (const c of message.content) {
    if (c.type !== 'toolCall') continue;
    const r = messages.find((m): m is ToolResultMessage => m.role === 'toolResult' && m.toolCallId === c.id);
    if (!r) continue;
    const event: Extract<AgentEvent, { type: 'tool_end' }> = {
      type: 'tool_end',
      turn: 0,
      toolCallId: c.id,
      name: c.name,
      result: { content: r.content, isError: r.isError, ...(r.details ? { details: r.details } : {}) },
      entryId: '',
      durationMs: 0,
    } as Extract<AgentEvent, { type: 'tool_end' }>;
    const lines = toolBlock(event, c.arguments, width, p, 'preview', describe);
    const time = p.dim(` ${formatDuration(0)}`);
    if (lines[0]?.endsWith(time)) lines[0] = lines[0].slice(0, -time.length);
    out.push(...lines);
  }
  return out;
}
