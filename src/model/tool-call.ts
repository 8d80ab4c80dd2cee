// Turning the argument text a model streamed for a tool call into a ToolCall. Shared by every
// adapter (and the scripted model), so a bad call looks the same whoever produced it.
import { isPlainObject, type ToolCall } from '../core/types.js';

/** The text of the result sent for a tool call that has no result in the history (e.g. the run was killed). */
export const INTERRUPTED_RESULT = 'No result: the call was interrupted.';

/** The argumentsError of a call cut off by the output token limit before its JSON was complete. */
export const CUT_OFF_ARGUMENTS = 'incomplete: the response was cut off by the output token limit';

/**
 * Parses a finished call's arguments once. Never throws. A bad call gets `argumentsError`, `{}`
 * as its arguments (it is never run) and `rawArguments`: the text exactly as the model sent it,
 * so the session, traces and exports can show it. `cutOff`: the response ended at the output
 * limit, so unparseable arguments are reported as cut off rather than as invalid JSON.
 */
export function parseToolCall(id: string, name: string, raw: string, opts: { cutOff?: boolean } = {}): ToolCall {
  const bad = (argumentsError: string): ToolCall => ({
    type: 'toolCall',
    id,
    name,
    arguments: {},
    argumentsError,
    ...(raw !== '' ? { rawArguments: raw } : {}),
  });
  if (name === '') return bad('the tool call has no name');
  if (raw.trim() === '') return { type: 'toolCall', id, name, arguments: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return bad(opts.cutOff ? CUT_OFF_ARGUMENTS : `the arguments are not valid JSON (${(err as Error).message})`);
  }
  if (isPlainObject(value)) return { type: 'toolCall', id, name, arguments: value };
  return bad('the arguments are not a JSON object');
}
