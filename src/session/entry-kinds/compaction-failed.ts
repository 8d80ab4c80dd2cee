// The `compaction_failed` control entry: a compaction or branch summary that was tried and failed.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { CompactionReasonSchema } from '../../core/event-kinds/compaction.js';
import { Str } from '../../core/message-schema.js';
import { preview } from '../../core/types.js';
import { escapeInline } from '../markdown-text.js';
import { base, Null, entryKind } from './parts.js';
import { anyString, anything } from './reading.js';

export const CompactionFailedEntrySchema = Type.Object(
  {
    type: Type.Literal('compaction_failed'),
    ...base,
    parentId: Null,
    /** The active leaf when it was tried. */
    targetId: Type.Union([Str, Null]),
    reason: Type.Union([CompactionReasonSchema, Type.Literal('branch')]),
    error: Str,
    tokensBefore: Type.Number(),
    model: Type.Optional(Str),
  },
  { description: 'A compaction or branch summary that was tried and failed; nothing was summarized or lost.' },
);
/** A compaction (or branch summary) that was tried and failed: nothing was summarized, nothing lost (control entry). */
export type CompactionFailedEntry = Static<typeof CompactionFailedEntrySchema>;

export const compactionFailedKind = entryKind({
  type: 'compaction_failed',
  schema: CompactionFailedEntrySchema,
  node: false,
  reading: { targetId: anything, reason: anyString, tokensBefore: anything },
  // A side record: shown under the entry that was the leaf when it was tried.
  treeNote: (e, width) => ({ at: e.targetId, text: `! compaction failed (${e.reason}, ${e.tokensBefore} tokens): ${preview(e.error, width)}` }),
  markdownNote: (e) => ({ at: e.targetId, text: `> ⚠ **Compaction failed** (${escapeInline(e.reason)}, ${e.tokensBefore} tokens): ${escapeInline(e.error)}; nothing was summarized.` }),
});

/** The failed compactions among `entries`, in file order (`tree` and the exports show each under the leaf it was tried at). */
export function failedCompactionsOf(entries: readonly { type: string }[]): CompactionFailedEntry[] {
  return entries.filter((e): e is CompactionFailedEntry => e.type === compactionFailedKind.type);
}
