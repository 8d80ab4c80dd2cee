// The JSON Schema of session files (header and entries), written with TypeBox.
// docs/session.schema.json is generated from it (`npm run docs:schema`); a test checks the
// file is current and that real session files validate; the assertions at the bottom fail the
// build if this schema and the TypeScript types in entries.ts drift apart.
import { Type } from '../core/type-builders.js';
import type { Static } from 'typebox';
import { Assistant, CompactionReasonSchema, Int, Image, LastRunSchema, RefusalSchema, StatsSchema, Str, Text, type Assert, type ByType, type Equals } from '../core/event-schema.js';
import type { Message } from '../core/types.js';
import type { SessionEntry, SessionHeader } from './entries.js';

const base = { id: Str, timestamp: Type.String({ description: 'ISO 8601' }) };
const Null = Type.Null();

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

export const SessionHeaderSchema = Type.Object(
  {
    type: Type.Literal('session'),
    version: Type.Integer({ minimum: 1 }),
    id: Str,
    cwd: Str,
    timestamp: Str,
    parentSession: Type.Optional(Type.Object({ id: Str, path: Str, entryId: Str })),
  },
  { description: 'Line 1 of a session file.' },
);

const FileListsSchema = Type.Object({ readFiles: Type.Array(Str), modifiedFiles: Type.Array(Str) });

const Snapshot = Type.Object({
  entries: Int,
  branches: Int,
  name: Type.Union([Str, Null]),
  firstUserMessage: Type.Union([Str, Null]),
  stats: Type.Optional(Type.Object({ session: StatsSchema, activePath: StatsSchema })),
});

export const SessionEntrySchema = Type.Union(
  [
    Type.Object(
      { type: Type.Literal('message'), ...base, parentId: Type.Union([Str, Null]), message: MessageSchema },
      { description: 'A message: a node of the tree.' },
    ),
    Type.Object(
      {
        type: Type.Literal('compaction'),
        ...base,
        parentId: Type.Union([Str, Null]),
        summary: Str,
        firstKeptEntryId: Str,
        tokensBefore: Type.Optional(Type.Number()),
        tokensAfter: Type.Optional(Type.Number()),
        summarizedIds: Type.Optional(Type.Array(Str)),
        details: Type.Optional(FileListsSchema),
        reason: Type.Optional(CompactionReasonSchema),
        model: Type.Optional(Str),
        warnings: Type.Optional(Type.Array(Str, { description: 'What was accepted short of the usual checks (a summary without its headings, one asked again shorter); additive in version 6.' })),
      },
      { description: 'A summary standing in for everything before firstKeptEntryId: a node of the tree.' },
    ),
    Type.Object(
      {
        type: Type.Literal('branch_summary'),
        ...base,
        parentId: Type.Union([Str, Null]),
        summary: Str,
        fromId: Str,
        summarizedIds: Type.Array(Str),
        details: FileListsSchema,
        model: Type.Optional(Str),
      },
      { description: 'What was done on a branch that was left (fromId: its leaf): a node of the new branch.' },
    ),
    Type.Object(
      {
        type: Type.Literal('compaction_failed'),
        ...base,
        parentId: Null,
        targetId: Type.Union([Str, Null]),
        reason: Type.Union([CompactionReasonSchema, Type.Literal('branch')]),
        error: Str,
        tokensBefore: Type.Number(),
        model: Type.Optional(Str),
      },
      { description: 'A compaction or branch summary that was tried and failed; nothing was summarized or lost.' },
    ),
    Type.Object(
      { type: Type.Literal('label'), ...base, parentId: Null, targetId: Str, label: Type.Union([Str, Null]) },
      { description: 'A bookmark on an entry; null clears it; the last one wins.' },
    ),
    Type.Object({ type: Type.Literal('leaf'), ...base, parentId: Null, targetId: Type.Union([Str, Null]) }, { description: 'A move of the active leaf.' }),
    Type.Object({ type: Type.Literal('session_info'), ...base, parentId: Null, name: Type.Union([Str, Null]) }, { description: 'The display name.' }),
    Type.Object(
      { type: Type.Literal('model_change'), ...base, parentId: Null, provider: Type.String({ minLength: 1 }), model: Type.String({ minLength: 1 }) },
      { description: 'The session switched to another model; a resume continues with the last one.' },
    ),
    Type.Object(
      {
        type: Type.Literal('model_window'),
        ...base,
        parentId: Null,
        provider: Type.String({ minLength: 1 }),
        model: Type.String({ minLength: 1 }),
        contextWindow: Type.Integer({ minimum: 1 }),
        source: Type.Union([Type.Literal('error'), Type.Literal('server')]),
        detail: Type.Optional(Str),
      },
      { description: 'A context window learned from the provider (an overflow error stated it, or the server reported it); compaction uses the last one for the model. Version 6.' },
    ),
    Type.Object(
      {
        type: Type.Literal('permission_grant'),
        ...base,
        parentId: Null,
        rule: Type.String({ minLength: 1 }),
        seal: Type.Optional(Type.String({ description: 'hmac-sha256:HEX of the session id and the rule, keyed by the user\'s home; a grant without a valid seal is not applied.' })),
      },
      { description: 'An approval given "always, for this session": a permission rule, TOOL or TOOL(PATTERN).' },
    ),
    Type.Object(
      {
        type: Type.Literal('run'),
        ...base,
        parentId: Null,
        ...LastRunSchema.properties,
        error: Type.Optional(Str),
        refusal: Type.Optional(RefusalSchema),
        leafId: Type.Union([Str, Null]),
        snapshot: Snapshot,
      },
      { description: 'The record of one run, appended at its end, with a snapshot of the session for listings.' },
    ),
  ],
  { description: 'Lines 2.. of a session file.' },
);

/** The document written to docs/session.schema.json. */
export function sessionJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://mini-agent.dev/schemas/session.schema.json',
    title: 'mini-agent session file (JSONL): the header, then one entry per line',
    $defs: { header: JSON.parse(JSON.stringify(SessionHeaderSchema)), entry: JSON.parse(JSON.stringify(SessionEntrySchema)) },
  };
}

// ---- compile-time checks: the schema and the TypeScript types must agree ----
export type _MessageMatches = Assert<Equals<Static<typeof MessageSchema>, Message>>;
export type _HeaderMatches = Assert<Equals<Static<typeof SessionHeaderSchema>, SessionHeader>>;
export type _EntriesMatch = Assert<
  Equals<
    { [K in SessionEntry['type']]: Omit<ByType<SessionEntry, K>, never> },
    { [K in Static<typeof SessionEntrySchema>['type']]: Omit<ByType<Static<typeof SessionEntrySchema>, K>, never> }
  >
>;
