// The `message` entry: a message of the conversation, a node of the tree.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { Assistant, Image, Str, Text } from '../../core/event-schema.js';
import { preview, textOf, type ToolCall } from '../../core/types.js';
import { base, NodeParent, entryKind } from './parts.js';
import { anyString, anything, indexable } from './reading.js';

const UserMessage = Type.Object({ role: Type.Literal('user'), content: Type.Array(Type.Union([Text, Image])) });
const ToolResultMessage = Type.Object({
  role: Type.Literal('toolResult'),
  toolCallId: Str,
  toolName: Str,
  content: Type.Array(Type.Union([Text, Image])),
  isError: Type.Boolean(),
  details: Type.Optional(Type.UnknownRecord()),
});

/** A message of the conversation, as stored and as projected for the model. */
export const MessageSchema = Type.Union([UserMessage, Assistant, ToolResultMessage]);

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
  // What older versions' readers did not need (and so accepted): the tool result's name and error
  // flag, the usage's fields, any stop reason, a block's fields other than a text's text and a
  // tool call's id and name.
  reading: {
    'message.toolName': anything,
    'message.isError': anything,
    'message.usage': indexable,
    'message.stopReason': anyString,
    'message.content[].thinking': anything,
    'message.content[].data': anything,
    'message.content[].mimeType': anything,
    'message.content[].arguments': anything,
  },
  // An empty assistant message (a failed request) is not sent.
  project: (e) => (e.message.role === 'assistant' && e.message.content.length === 0 ? undefined : e.message),
  describe(e) {
    const m = e.message;
    if (m.role === 'user') return { kind: 'user', text: textOf(m.content) };
    if (m.role === 'toolResult') return { kind: `result`, text: `${m.isError ? '✗' : '✓'} ${m.toolName}: ${textOf(m.content)}` };
    // (filter and map, not flatMap: the export page's script, checked against ES2017, sees this module's types)
    const calls = m.content
      .filter((c): c is ToolCall => c.type === 'toolCall')
      .map((c) => (c.argumentsError ? `→ ${c.name}(✗ ${preview(c.rawArguments ?? '', 40)})` : `→ ${c.name}(${preview(JSON.stringify(c.arguments) ?? '', 40)})`));
    const text = textOf(m.content);
    const failed = m.stopReason === 'error' || m.stopReason === 'aborted' ? ` [${m.stopReason}${m.errorMessage ? `: ${m.errorMessage}` : ''}]` : '';
    return { kind: 'assistant', text: [text, ...calls].filter(Boolean).join(' ') + failed };
  },
});
