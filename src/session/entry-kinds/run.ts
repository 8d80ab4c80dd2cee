// The `run` control entry: the record of one run, appended at its end, with a snapshot of the
// session's shape so listings read only the tail.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { LastRunSchema, StatsSchema } from '../../core/event-kinds/run.js';
import { Int, RefusalSchema, Str } from '../../core/message-schema.js';
import { base, Null, entryKind } from './parts.js';
import { anything, indexable, type Relaxation } from './reading.js';

const RunRecordSchema = Type.Object({
  ...LastRunSchema.properties,
  error: Type.Optional(Str),
  /** Set when the run was refused (stopReason `refused`). */
  refusal: Type.Optional(RefusalSchema),
  /** The active leaf when the run ended. */
  leafId: Type.Union([Str, Null]),
});
/** What one run did. */
export type RunRecord = Static<typeof RunRecordSchema>;

const SnapshotSchema = Type.Object({
  /** Entries in the file before this one (content and control). */
  entries: Int,
  /** Tips of the tree (content entries without children). */
  branches: Int,
  name: Type.Union([Str, Null]),
  firstUserMessage: Type.Union([Str, Null]),
  /** Totals for the session and its active path at the time of the snapshot. */
  stats: Type.Optional(Type.Object({ session: StatsSchema, activePath: StatsSchema })),
});
export type SessionSnapshot = Static<typeof SnapshotSchema>;

export const RunEntrySchema = Type.Object(
  { type: Type.Literal('run'), ...base, parentId: Null, ...RunRecordSchema.properties, snapshot: SnapshotSchema },
  { description: 'The record of one run, appended at its end, with a snapshot of the session for listings.' },
);
/** Appended at the end of every run (control entry). */
export type RunEntry = Static<typeof RunEntrySchema>;

export const runKind = entryKind({
  type: 'run',
  schema: RunEntrySchema,
  node: false,
  // Older readers needed only the run's id and a snapshot (the rest is filled in when read).
  reading: runReading(),
});

/** Every field of a run but its id may be anything; the snapshot must be an object (a loop, not Object.fromEntries: the export page's script, checked against ES2017, sees this module). */
function runReading(): Record<string, Relaxation> {
  const reading: Record<string, Relaxation> = {};
  for (const k of Object.keys(RunRecordSchema.properties)) if (k !== 'runId') reading[k] = anything;
  reading.snapshot = indexable;
  return reading;
}
