// Turning the argument text a model streamed for a tool call into a ToolCall. Shared by every
// adapter (and the scripted model), so a bad call looks the same whoever produced it.
import { isPlainObject, type ToolCall } from '../core/types.js';

/** Parses a finished call's arguments once. Never throws; a bad call gets `argumentsError` and `{}`. */
export function parseToolCall(id: string, name: string, raw: string): ToolCall {
  if (name === '') return { type: 'toolCall', id, name, arguments: {}, argumentsError: 'the tool call has no name' };
  if (raw.trim() === '') return { type: 'toolCall', id, name, arguments: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { type: 'toolCall', id, name, arguments: {}, argumentsError: `the arguments are not valid JSON (${(err as Error).message})` };
  }
  if (isPlainObject(value)) {
    return { type: 'toolCall', id, name, arguments: value };
  }
  return { type: 'toolCall', id, name, arguments: {}, argumentsError: 'the arguments are not a JSON object' };
}
