// The entry tree as data, declared once as a TypeBox schema: what `tree --json`, the SDK's
// session.tree() and RPC's get_tree return. `TreeJson` is `Static` of it (tree-json.ts builds
// one), and docs/rpc.schema.json's get_tree result is generated from it.
import { Unsafe, type Static, type TSchema } from 'typebox';
import { Type } from '../core/type-builders.js';
import { SessionStatsSchema } from '../core/event-kinds/run.js';
import { Int, lits, Str } from '../core/message-schema.js';
import { NODE_TYPES, type NodeType } from './entry-kinds/index.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const TreeSchema = Type.Object({
  session: Type.Object({
    id: Str,
    file: Nullable(Str),
    name: Nullable(Str),
    cwd: Str,
    parentSession: Nullable(Type.Object({ id: Str, path: Str, entryId: Str })),
  }),
  leafId: Nullable(Str),
  branches: Int,
  stats: SessionStatsSchema,
  entries: Type.Array(
    Type.Object({
      id: Str,
      parentId: Nullable(Str),
      type: Unsafe<NodeType>(lits(...NODE_TYPES)),
      kind: Str,
      preview: Str,
      timestamp: Str,
      label: Nullable(Str),
      active: Type.Boolean(),
      children: Type.Array(Str),
    }),
  ),
  /** Compactions that were tried and failed (nothing was summarized), with the leaf they were tried at. */
  failedCompactions: Type.Array(Type.Object({ id: Str, targetId: Nullable(Str), reason: lits('threshold', 'overflow', 'manual', 'branch'), error: Str, tokensBefore: Type.Number(), timestamp: Str })),
});

/** What `tree --json`, session.tree() and RPC get_tree return. */
export type TreeJson = Static<typeof TreeSchema>;
