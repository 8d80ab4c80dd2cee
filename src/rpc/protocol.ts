// The RPC protocol (`mini-agent --rpc`): one JSON object per line each way. Commands come in on
// stdin; every command gets exactly one `response`; the agent's events (the same versioned events
// as `--json`) go out interleaved with the responses. Written with TypeBox: the command
// parameters and results below are the types the handlers use, docs/rpc.schema.json is generated
// from them, and a test validates every line of real sessions against it.
import { EXPORT_FORMATS } from '../app/export-formats.js';
import { Type } from '../core/type-builders.js';
import type { Static, TObject, TProperties, TSchema } from 'typebox';
import { SessionStatsSchema } from '../core/event-kinds/run.js';
import { Int, lits, MessageSchema, QueueItemSchema, Str } from '../core/message-schema.js';
import { EVENT_SCHEMA_VERSION } from '../core/events.js';
import { ERROR_KINDS } from '../core/types.js';
import { TreeSchema } from '../session/tree-schema.js';

/** Bump on an incompatible change to commands or responses. Additive within version 1: set_thinking (issue 23). */
export const RPC_PROTOCOL_VERSION = 1;

const Null = Type.Null();
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Null]);

const SessionInfo = Type.Object({ id: Str, file: Nullable(Str), name: Nullable(Str) });
const ModelInfo = Type.Object({ provider: Str, id: Str });

const message = { message: Type.String({ minLength: 1, description: 'the text' }) };
const images = Type.Optional(
  Type.Array(Type.Object({ data: Type.String({ minLength: 1, description: 'the bytes, base64' }), mimeType: lits('image/png', 'image/jpeg', 'image/gif', 'image/webp') }), {
    description: "images attached after the text (scaled down when over the providers' limits)",
  }),
);
const entry = { entry: Type.String({ minLength: 1, description: 'an entry id, a unique id prefix, or a label' }) };

/** Every command: its parameters (besides `type` and `id`) and the result of a successful response. */
export const COMMANDS = {
  prompt: {
    doc: 'Start a run on a prompt (refused with kind "busy" while a run is in progress: use steer, follow_up or abort). Answered when the run starts; its events follow, run_settled last.',
    params: { ...message, images },
    result: Type.Object({ started: Type.Literal(true) }),
  },
  steer: {
    doc: "Deliver a message after the current tool batch, before the next model request; with no run in progress it starts one. Images and the @path files its text names are attached as a prompt's, read when it is queued.",
    params: { ...message, images },
    result: Type.Object({ item: QueueItemSchema, started: Type.Boolean({ description: 'true when it started a run of its own' }) }),
  },
  follow_up: {
    doc: "Deliver a message when the run would otherwise end (a new turn of the same run); with no run in progress it starts one. Attachments as steer's.",
    params: { ...message, images },
    result: Type.Object({ item: QueueItemSchema, started: Type.Boolean() }),
  },
  cancel: {
    doc: 'Cancel a steer or follow-up that has not been delivered.',
    params: { item: Type.String({ minLength: 1, description: 'the queue item id' }) },
    result: Type.Object({ cancelled: Type.Boolean() }),
  },
  abort: {
    doc: 'Abort the run in progress; hands back the steers and follow-ups it had not delivered.',
    params: {},
    result: Type.Object({ aborted: Type.Boolean({ description: 'false when no run was in progress' }), undelivered: Type.Array(QueueItemSchema) }),
  },
  get_state: {
    doc: 'The session, the model, whether a run is in progress, the queue and how full the context is.',
    params: {},
    result: Type.Object({
      protocolVersion: Type.Literal(RPC_PROTOCOL_VERSION),
      eventSchemaVersion: Type.Literal(EVENT_SCHEMA_VERSION),
      session: SessionInfo,
      model: ModelInfo,
      running: Type.Boolean(),
      queue: Type.Array(QueueItemSchema),
      context: Type.Object({ tokens: Nullable(Type.Number()), contextWindow: Type.Number(), fraction: Nullable(Type.Number()) }),
    }),
  },
  get_messages: {
    doc: 'What the model would see now: the projection of the active path.',
    params: {},
    result: Type.Object({ messages: Type.Array(MessageSchema) }),
  },
  get_tree: { doc: 'The entry tree of the session, as `mini-agent tree --json` prints it.', params: {}, result: TreeSchema },
  diff: {
    doc: 'What the agent changed in the files on the active branch since an entry (id, prefix or label; absent: since the session began), as a unified diff from the checkpoints, as `mini-agent diff` prints it; "" when nothing changed.',
    params: { entry: Type.Optional(Type.String({ minLength: 1 })) },
    result: Type.Object({ diff: Type.String() }),
  },
  rewind: {
    doc: 'Restore the files the agent changed to their state at an entry and move the leaf there (filesOnly, conversationOnly: one of the two; dryRun: only the plan, `restored` then naming the files it would restore). A file changed outside the agent since its last change is refused (invalid_argument) unless force. Refused while a run is in progress.',
    params: { ...entry, filesOnly: Type.Optional(Type.Boolean()), conversationOnly: Type.Optional(Type.Boolean()), force: Type.Optional(Type.Boolean()), dryRun: Type.Optional(Type.Boolean()) },
    result: Type.Object({ entryId: Str, restored: Type.Array(Str), changedOutside: Type.Array(Str), notKept: Type.Array(Str), moved: Type.Boolean() }),
  },
  get_stats: { doc: 'Tokens, cost, turns, tool calls and wall time: session, active path, last run.', params: {}, result: SessionStatsSchema },
  new_session: { doc: 'Start a new session (refused while a run is in progress).', params: {}, result: Type.Object({ session: SessionInfo }) },
  switch_session: {
    doc: 'Work in another session: a path, an id, a unique id prefix or a name (refused while a run is in progress).',
    params: { session: Type.String({ minLength: 1 }) },
    result: Type.Object({ session: SessionInfo }),
  },
  branch: { doc: 'Move the active leaf to an entry: the next prompt starts a branch there.', params: entry, result: Type.Object({ entryId: Str }) },
  fork: { doc: 'Copy root → entry into a new session and work there.', params: entry, result: Type.Object({ session: SessionInfo }) },
  label: {
    doc: 'Set a label on an entry, or clear it with null.',
    params: { ...entry, label: Nullable(Type.String({ minLength: 1 })) },
    result: Type.Object({ entryId: Str }),
  },
  name: { doc: 'Set the session display name, or clear it with null.', params: { name: Nullable(Str) }, result: Type.Object({ session: SessionInfo }) },
  set_model: {
    doc: 'Use another provider or model from the next run on (refused while a run is in progress).',
    params: { provider: Type.Optional(Str), model: Type.Optional(Str), baseUrl: Type.Optional(Str), apiKey: Type.Optional(Str) },
    result: Type.Object({ model: ModelInfo }),
  },
  set_thinking: {
    doc: 'Set how much the model reasons, from the next model request on (a tool-use loop in progress keeps its level until it ends). `note` says when the model cannot take the level (it has no reasoning control, or always reasons): nothing is sent for it.',
    params: { level: lits('off', 'low', 'medium', 'high') },
    result: Type.Object({ level: lits('off', 'low', 'medium', 'high'), note: Nullable(Str) }),
  },
  compact: {
    doc: 'Compact the session now (after a run in progress): a summary stands in for the older messages, the originals stay in the file. A failed compaction is an error response of kind "compaction_failed" (nothing was summarized). Its compaction_start/compaction_end events come first.',
    params: { focus: Type.Optional(Type.String({ minLength: 1, description: 'what the summary should dwell on' })) },
    result: Type.Object({
      entryId: Str,
      tokensBefore: Type.Number(),
      tokensAfter: Type.Number(),
      summarizedEntries: Int,
      readFiles: Type.Array(Str),
      modifiedFiles: Type.Array(Str),
    }),
  },
  permission_response: {
    doc: 'Answer a permission_request event: "allow" this call, "deny" it, or "always" (allow it, and calls that `rule` covers for the rest of the session; default: the request\'s suggestedRule). An abort withdraws waiting requests.',
    params: {
      requestId: Type.String({ minLength: 1, description: 'the requestId of the permission_request event' }),
      decision: lits('allow', 'deny', 'always'),
      rule: Type.Optional(Type.String({ minLength: 1, description: 'with "always": the rule to grant, TOOL or TOOL(PATTERN)' })),
      reason: Type.Optional(Type.String({ description: 'with "deny": told to the model' })),
    },
    result: Type.Object({ answered: Type.Literal(true) }),
  },
  export: {
    doc: 'Write the session as Markdown, HTML or JSONL to a path (relative to the workspace).',
    params: { format: lits(...EXPORT_FORMATS), path: Type.String({ minLength: 1 }) },
    result: Type.Object({ path: Str, bytes: Int }),
  },
} satisfies Record<string, { doc: string; params: Record<string, TSchema>; result: TSchema }>;

export type CommandType = keyof typeof COMMANDS;
export type CommandParams<K extends CommandType> = Static<TObject<(typeof COMMANDS)[K]['params']>>;
export type CommandResult<K extends CommandType> = Static<(typeof COMMANDS)[K]['result']>;

/** The kinds an error response can carry: the protocol's own two, then every command's (ERROR_KINDS). */
export const RPC_ERROR_KINDS = [
  'parse_error', // the line is not a JSON object (or is too long)
  'unknown_command',
  ...ERROR_KINDS,
] as const;
export type RpcErrorKind = (typeof RPC_ERROR_KINDS)[number];

/** One command line: `{"type": <command>, "id"?: string, ...params}`. */
export function commandSchema(type: CommandType): TSchema {
  const spec = COMMANDS[type];
  const properties: TProperties = { type: Type.Literal(type), id: Type.Optional(Type.String({ description: 'echoed in the response' })), ...spec.params };
  return Type.Object(properties, { additionalProperties: false, description: spec.doc });
}

const ResponseBase = { type: Type.Literal('response'), id: Nullable(Str) };

export const ErrorResponseSchema = Type.Object(
  {
    ...ResponseBase,
    command: Nullable(Str),
    ok: Type.Literal(false),
    error: Type.Object({ kind: lits(...RPC_ERROR_KINDS), message: Str }),
  },
  { additionalProperties: false, description: 'A command that failed; id and command are null when the line could not be read' },
);

export function okResponseSchema(type: CommandType): TSchema {
  return Type.Object({ ...ResponseBase, command: Type.Literal(type), ok: Type.Literal(true), result: COMMANDS[type].result }, { additionalProperties: false });
}

const types = Object.keys(COMMANDS) as CommandType[];
export const CommandSchema = Type.Union(types.map((t) => commandSchema(t)));
export const ResponseSchema = Type.Union([...types.map((t) => okResponseSchema(t)), ErrorResponseSchema]);

/** The document written to docs/rpc.schema.json. Events are in docs/events.schema.json. */
export function rpcJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://mini-agent.dev/schemas/rpc.schema.json',
    title: `mini-agent RPC protocol, version ${RPC_PROTOCOL_VERSION}`,
    description: 'mini-agent --rpc reads one command per line on stdin and writes one JSON object per line on stdout: a response to each command, and the agent events (docs/events.schema.json) in between.',
    protocolVersion: RPC_PROTOCOL_VERSION,
    $defs: { command: JSON.parse(JSON.stringify(CommandSchema)), response: JSON.parse(JSON.stringify(ResponseSchema)) },
  };
}
