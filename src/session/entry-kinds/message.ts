// The `message` entry: a message of the conversation, a node of the tree.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { MessageSchema } from '../../core/message-schema.js';
import { preview, textOf, type ToolCall } from '../../core/types.js';
import { base, NodeParent, entryKind } from './parts.js';

export const MessageEntrySchema = Type.Object(
  { type: Type.Literal('message'), ...base, parentId: NodeParent, message: MessageSchema },
  { description: 'A message: a node of the tree.' },
);
/** A message of the conversation: a node of the tree. */
export type MessageEntry = Static<typeof MessageEntrySchema>;

export const messageKind = entryKind({
  type: 'message',
  schema: MessageEntrySchema,
  node: true,
  // An empty assistant message (a failed request) is not sent.
  project: (e) => (e.message.role === 'assistant' && e.message.content.length === 0 ? undefined : e.message),
  describe(e) {
    const m = e.message;
    if (m.role === 'user') return { kind: 'user', text: textOf(m.content) };
    if (m.role === 'toolResult') return { kind: `result`, text: `${m.isError ? '✗' : '✓'} ${m.toolName}: ${textOf(m.content)}` };
    // (filter and map, not flatMap: the export page's script, checked against ES2017, sees this module's types)
    const calls = m.content
      .filter((c): c is ToolCall => c.type === 'toolCall')
      .map((c) => (c.argumentsError ? `→ ${c.name}(✗ ${preview(c.rawArguments ?? '', 40)})` : `→ ${c.name}(${preview(JSON.stringify(c.arguments), 40)})`));
    const text = textOf(m.content);
    const failed = m.stopReason === 'error' || m.stopReason === 'aborted' ? ` [${m.stopReason}${m.errorMessage ? `: ${m.errorMessage}` : ''}]` : '';
    return { kind: 'assistant', text: [text, ...calls].filter(Boolean).join(' ') + failed };
  },
});
