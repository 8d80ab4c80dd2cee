// The events of a turn's model response: a turn starts, text and reasoning stream in, tool calls
// begin, the message ends (and is stored).
import { Type } from '../type-builders.js';
import { Assistant, Int, Str } from '../message-schema.js';
import { ev } from './parts.js';

export const TurnStart = ev(
  'turn_start',
  {
    turn: Int,
    /** What the model is about to see: how many messages, and how many of each role. */
    messageCount: Int,
    roles: Type.Object({ user: Int, assistant: Int, toolResult: Int }),
    compacted: Type.Boolean(),
  },
  'A model request is about to be sent; counts describe the projected messages.',
);
export const TextDelta = ev('text_delta', { turn: Int, delta: Str }, 'An increment of answer text (never the whole text so far).');
export const ThinkingDelta = ev('thinking_delta', { turn: Int, delta: Str }, 'An increment of reasoning text, kept apart from the answer.');
export const ToolcallStart = ev('toolcall_start', { turn: Int, index: Int, toolCallId: Str, name: Str }, 'The model began a tool call.');
export const MessageEnd = ev('message_end', { turn: Int, entryId: Str, message: Assistant }, 'The assistant message is complete and stored.');
export const TurnEnd = ev('turn_end', { turn: Int, toolCalls: Int }, 'A turn finished.');
