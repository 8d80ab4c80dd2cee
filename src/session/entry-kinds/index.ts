// The list of entry kinds: each kind is one module of this folder (its schema, whether it is a
// node of the tree, and how the consumers show it). Adding a kind: write its module, add it here,
// bump SESSION_FORMAT_VERSION (entries.ts) and regenerate the derived files (`npm run docs:schema`,
// `npm run gen:entry-checks`). The order is the order of docs/session.schema.json.
import type { Static, TSchema } from 'typebox';
import { Type } from '../../core/type-builders.js';
import type { EntryKind } from './parts.js';
import { branchSummaryKind } from './branch-summary.js';
import { compactionFailedKind } from './compaction-failed.js';
import { compactionKind } from './compaction.js';
import { labelKind } from './label.js';
import { leafKind } from './leaf.js';
import { messageKind } from './message.js';
import { modelChangeKind } from './model-change.js';
import { modelWindowKind } from './model-window.js';
import { checkpointKind } from './checkpoint.js';
import { permissionGrantKind } from './permission-grant.js';
import { runKind } from './run.js';
import { sessionInfoKind } from './session-info.js';

export { branchSummaryKind, checkpointKind, compactionFailedKind, compactionKind, labelKind, leafKind, messageKind, modelChangeKind, modelWindowKind, permissionGrantKind, runKind, sessionInfoKind };

export const ENTRY_KINDS = [messageKind, compactionKind, branchSummaryKind, compactionFailedKind, labelKind, leafKind, sessionInfoKind, modelChangeKind, modelWindowKind, permissionGrantKind, runKind, checkpointKind] as const;

type Kind = (typeof ENTRY_KINDS)[number];
type SchemasOf<T extends readonly unknown[]> = { -readonly [K in keyof T]: T[K] extends { schema: infer S extends TSchema } ? S : never };
type EntryOf<K> = K extends { schema: infer S extends TSchema } ? Static<S> : never;

/** Any entry of a session file (lines 2..). */
export type AnyEntry = EntryOf<Kind>;
/** The kinds that are nodes of the tree. */
export type NodeType = Extract<Kind, { node: true }>['type'];

/** The types of the kinds that are nodes of the tree, in the list's order. */
export const NODE_TYPES = ENTRY_KINDS.filter((k) => k.node).map((k) => k.type) as NodeType[];

const BY_TYPE: ReadonlyMap<string, EntryKind> = new Map(ENTRY_KINDS.map((k): [string, EntryKind] => [k.type, k]));

/** The kind of an entry (of a known type: entries are checked when read). */
export function kindOf(entry: { type: string }): EntryKind {
  const kind = BY_TYPE.get(entry.type);
  if (!kind) throw new Error(`unknown entry type "${entry.type}"`);
  return kind;
}

export const SessionEntrySchema = Type.Union(ENTRY_KINDS.map((k) => k.schema) as unknown as SchemasOf<typeof ENTRY_KINDS>, { description: 'Lines 2.. of a session file.' });
