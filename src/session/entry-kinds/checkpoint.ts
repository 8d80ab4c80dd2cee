// The `checkpoint` control entry (version 7): the files a tool call changed, each with its state
// before and after, their contents kept in the session's checkpoint store (checkpoint-store.ts).
// It names the tool result entry of the call. Never sent to the model: checkpoints change nothing
// the model sees.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { Str } from '../../core/message-schema.js';
import { base, Null, entryKind } from './parts.js';

/** What was at a path: nothing, a file (its object in the store, size, mode), a symlink, a file over the size cap (not kept), something else (not kept). */
export const FileStateSchema = Type.Union(
  [
    Type.Object({
      kind: Type.Literal('absent'),
      /** The highest folder above the path that did not exist either: a restore to this state removes the folders down from it again, when they are empty. */
      missingFrom: Type.Optional(Type.String({ description: 'The highest folder above the path that did not exist either; a restore removes the folders from there down when they are empty.' })),
    }),
    Type.Object({
      kind: Type.Literal('file'),
      blob: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the bytes: the object in SESSION.checkpoints/objects/' }),
      size: Type.Integer({ minimum: 0 }),
      mode: Type.Integer({ minimum: 0 }),
    }),
    Type.Object({ kind: Type.Literal('symlink'), target: Type.String() }),
    Type.Object({ kind: Type.Literal('too_big'), size: Type.Integer({ minimum: 0 }), mode: Type.Integer({ minimum: 0 }) }),
    Type.Object({ kind: Type.Literal('other') }),
  ],
  { description: 'What was at a path.' },
);
export type FileState = Static<typeof FileStateSchema>;

export const FileChangeSchema = Type.Object({
  /** The file's real, absolute path. */
  path: Str,
  before: FileStateSchema,
  after: FileStateSchema,
});
export type FileChange = Static<typeof FileChangeSchema>;

export const CheckpointEntrySchema = Type.Object(
  {
    type: Type.Literal('checkpoint'),
    ...base,
    parentId: Null,
    /** The tool result entry of the call that changed the files, or the entry a rewind restored them to. */
    entryId: Str,
    files: Type.Array(FileChangeSchema, { minItems: 1 }),
  },
  { description: 'The files a tool call changed, or a rewind restored, each before and after (contents in the checkpoint store beside the session file); never sent to the model. Version 7.' },
);
/** The files a tool call changed, before and after (control entry); never sent to the model. */
export type CheckpointEntry = Static<typeof CheckpointEntrySchema>;

export const checkpointKind = entryKind({ type: 'checkpoint', schema: CheckpointEntrySchema, node: false });
