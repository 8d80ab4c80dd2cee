// The parts every entry kind's schema is built from (src/session/entry-kinds/*.ts), and the
// header's schema. An entry kind is one module: its TypeBox schema (the TypeScript type is
// `Static` of it) and what the consumers need to know about it; index.ts lists the kinds.
import type { Static, TObject } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { Str } from '../../core/message-schema.js';
import type { Message } from '../../core/types.js';
import type { Relaxation } from './reading.js';

/** The fields every entry has (with `type` first and `parentId` after them). */
export const base = { id: Str, timestamp: Type.String({ description: 'ISO 8601' }) };
export const Null = Type.Null();
/** A node's parent: the entry it follows in the tree, null for a root. */
export const NodeParent = Type.Union([Str, Null]);

/** The files the summarized part of the conversation touched (workspace-relative), carried from compaction to compaction. */
export const FileListsSchema = Type.Object({ readFiles: Type.Array(Str), modifiedFiles: Type.Array(Str) });
export type FileLists = Static<typeof FileListsSchema>;

export const SessionHeaderSchema = Type.Object(
  {
    type: Type.Literal('session'),
    version: Type.Integer({ minimum: 1 }),
    id: Str,
    cwd: Str,
    timestamp: Str,
    /** Set on a fork: the session and entry it was forked from. */
    parentSession: Type.Optional(Type.Object({ id: Str, path: Str, entryId: Str })),
  },
  { description: 'Line 1 of a session file.' },
);
export type SessionHeader = Static<typeof SessionHeaderSchema>;

/** A node's line in `tree` (text and JSON): a short kind name and its text. */
export interface TreeLine {
  kind: string;
  text: string;
}

/** A control entry shown beside a node in `tree`: the node it belongs under (`at`) and the note. */
export interface TreeNote {
  at: string | null;
  text: string;
}

/** A node's block in the Markdown export: its heading (export-text.ts adds the id, label and marks) and the blocks under it. */
export interface MarkdownBlock {
  level: '##' | '###';
  title: string;
  body: string[];
}

/**
 * What the session code knows of an entry kind. `node`: a content entry, a node of the tree
 * (it has a parent and may have children); otherwise a control entry (`parentId: null`), which
 * records a fact about the session and is never part of a path. The hooks are methods so that
 * a list of kinds can hold each with its own entry type.
 */
export interface EntryKind<T extends string = string, S extends TObject = TObject, N extends boolean = boolean> {
  readonly type: T;
  readonly schema: S;
  readonly node: N;
  /** Whether an entry (or an entry handed to `append`) is of this kind: the one place a kind's `type` is compared. */
  is<E extends { type: string }>(entry: E): entry is Extract<E, { type: T }>;
  /** What a reader accepts beyond the schema, by field path (`a.b`, `a[].b`): the fields its readers do not need (reading.ts). */
  readonly reading?: Readonly<Record<string, Relaxation>>;
  /** Nodes: the message the model sees for the entry on the active path, or none (a compaction is the projector's own case: it cuts the path). */
  project?(entry: Static<S>): Message | undefined;
  /** Nodes: the line that describes the entry in `tree` (text and JSON). */
  describe?(entry: Static<S>): TreeLine;
  /** Control entries shown in `tree` under the node they concern (`width`: the preview width). */
  treeNote?(entry: Static<S>, width: number): TreeNote;
  /** Nodes: the entry's block in the Markdown export (`contentText`: blocks as text, images as their summaries: core/image.ts, which the export page's script cannot load). */
  markdown?(entry: Static<S>, contentText: (content: Message['content']) => string): MarkdownBlock;
  /** Control entries shown in the Markdown export under the node they concern. */
  markdownNote?(entry: Static<S>): TreeNote;
}

/** Declares an entry kind (the type parameters are inferred: the hooks get the kind's entry type). */
export function entryKind<const T extends string, S extends TObject, const N extends boolean>(kind: Omit<EntryKind<T, S, N>, 'is'>): EntryKind<T, S, N> {
  return { ...kind, is: <E extends { type: string }>(entry: E): entry is Extract<E, { type: T }> => entry.type === kind.type };
}
