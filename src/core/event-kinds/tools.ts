// The events of tool calls: a call starts, reports its latest output, ends; and the permission
// asked for a call and the decision on it.
import type { Static } from 'typebox';
import { Type } from '../type-builders.js';
import { Image, Int, lits, Str, Text } from '../message-schema.js';
import { ev } from './parts.js';

/** A tool's result as the events carry it. */
export const ToolResultSummarySchema = Type.Object({
  content: Type.Array(Type.Union([Text, Image])),
  isError: Type.Boolean(),
  details: Type.Optional(Type.UnknownRecord()),
});
export type ToolResultSummary = Static<typeof ToolResultSummarySchema>;

export const ToolStart = ev(
  'tool_start',
  {
    turn: Int,
    toolCallId: Str,
    name: Str,
    arguments: Type.UnknownRecord(),
    /** The arguments as the model sent them, when they could not be parsed (the call is answered with an error). */
    rawArguments: Type.Optional(Str),
  },
  'A tool starts (a call with unparseable arguments is answered with an error; rawArguments holds what the model sent).',
);
/** A running tool's latest output (bash: the last lines so far), at most a few times a second; additive in 3. */
export const ToolUpdate = ev('tool_update', { toolCallId: Str, name: Str, tail: Str }, "A running tool's latest output (bash: the last lines so far), at most a few times a second (additive in 3).");
export const ToolEnd = ev(
  'tool_end',
  {
    turn: Int,
    toolCallId: Str,
    name: Str,
    result: ToolResultSummarySchema,
    /** The session entry that holds the result. */
    entryId: Str,
    durationMs: Type.Number(),
  },
  'A tool finished; its result is stored as entryId.',
);

/**
 * A call needs the user's approval: the front end (a terminal prompt, an RPC client's
 * `permission_response`, the SDK's onPermissionRequest) answers; an abort cancels the wait.
 */
export const PermissionRequest = ev(
  'permission_request',
  {
    requestId: Str,
    toolCallId: Str,
    tool: Str,
    arguments: Type.UnknownRecord(),
    risk: lits('read', 'write', 'execute'),
    /** Why it asks: the rule or default that said "ask". */
    reason: Str,
    /** The rule an "always" answer would grant for the rest of the session. */
    suggestedRule: Str,
  },
  'A call needs approval; the front end answers (RPC: the permission_response command). An abort cancels the wait.',
);
/** Whether a call may run, and what decided it (a rule with its source, a default, an approval, the user). */
export const PermissionDecision = ev(
  'permission_decision',
  {
    toolCallId: Str,
    tool: Str,
    decision: lits('allow', 'deny'),
    /** The rule that decided, or null for a default. */
    rule: Type.Union([Str, Type.Null()]),
    /** Where the decision came from: default, config, flag, session, user, hook, read-only, … */
    source: Str,
    /** True when someone was asked. */
    asked: Type.Boolean(),
    reason: Str,
  },
  'Whether a call may run, and the rule (or default, approval, answer) that decided.',
);
