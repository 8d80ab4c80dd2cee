// session/load: the active path of a session as the session/update notifications a client would
// have seen live. Pure: messages in (the agent's projection), updates out. A tool call is sent
// once, with its final status and result (the client never saw it run); a call with no result
// (a run killed mid-call, not yet repaired) is shown as failed. Diffs are not rebuilt: the old
// text of a file is not in the session.
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { Message, ToolResultMessage } from '../core/types.js';
import { describeToolCall, type DescribeCall } from '../tools/descriptions.js';
import { resultContent, toolKind, toolLocations, toolTitle } from './updates.js';

export function replayUpdates(messages: readonly Message[], cwd: string, describe: DescribeCall = describeToolCall): SessionUpdate[] {
  const results = new Map<string, ToolResultMessage>();
  for (const m of messages) if (m.role === 'toolResult') results.set(m.toolCallId, m);
  const out: SessionUpdate[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      for (const c of m.content) {
        if (c.type === 'image') out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'image', data: c.data, mimeType: c.mimeType } });
        else if (c.text !== '') out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: c.text } });
      }
    } else if (m.role === 'assistant') {
      for (const c of m.content) {
        if (c.type === 'thinking') {
          if (c.thinking !== '') out.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: c.thinking } });
        } else if (c.type === 'text') {
          if (c.text !== '') out.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: c.text } });
        } else {
          const result = results.get(c.id);
          out.push({
            sessionUpdate: 'tool_call',
            toolCallId: c.id,
            title: toolTitle(c.name, c.arguments, describe),
            kind: toolKind(c.name, describe),
            status: result && !result.isError ? 'completed' : 'failed',
            locations: toolLocations(c.name, c.arguments, cwd, describe),
            rawInput: c.arguments,
            content: result ? resultContent(result.content) : [{ type: 'content', content: { type: 'text', text: 'This call has no result in the session (its run stopped before it finished).' } }],
          });
        }
      }
    }
  }
  return out;
}
