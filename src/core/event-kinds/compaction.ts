// The events of a compaction: it starts (why, and how big the context is) and ends (the summary
// entry and what it stands in for, or why nothing was compacted).
import type { Static } from 'typebox';
import { Type } from '../type-builders.js';
import { Int, lits, Str } from '../message-schema.js';
import { ev } from './parts.js';

/** Why a compaction was made: the context neared the window, the provider said it overflowed, or someone asked. */
export const CompactionReasonSchema = lits('threshold', 'overflow', 'manual');
export type CompactionReason = Static<typeof CompactionReasonSchema>;

export const CompactionStart = ev('compaction_start', { reason: CompactionReasonSchema, tokensBefore: Type.Number() }, 'A compaction starts: why, and the context size in tokens.');
/**
 * A compaction ended. ok: a summary entry (entryId) now stands in for `summarizedEntries` entries.
 * Not ok: nothing was summarized or lost; `error` says why (a side record is in the session).
 */
export const CompactionEnd = ev(
  'compaction_end',
  {
    reason: CompactionReasonSchema,
    ok: Type.Boolean(),
    tokensBefore: Type.Number(),
    tokensAfter: Type.Union([Type.Number(), Type.Null()]),
    summarizedEntries: Int,
    readFiles: Type.Array(Str),
    modifiedFiles: Type.Array(Str),
    error: Type.Union([Str, Type.Null()]),
    entryId: Type.Union([Str, Type.Null()]),
  },
  'A compaction ended: the summary entry and what it stands in for, or (ok: false) why nothing was compacted.',
);
