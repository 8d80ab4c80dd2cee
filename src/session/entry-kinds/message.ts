// The `message` entry: a message of the conversation, a node of the tree.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { Assistant, Image, Str, Text } from '../../core/event-schema.js';
import { base, NodeParent, entryKind } from './parts.js';

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

export const messageKind = entryKind({ type: 'message', schema: MessageEntrySchema, node: true });
