// The `compaction` entry: a summary standing in for everything before `firstKeptEntryId`, a node of the tree.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { CompactionReasonSchema } from '../../core/event-kinds/compaction.js';
import { Str } from '../../core/message-schema.js';
import { codeSpan, quote } from '../markdown-text.js';
import { base, FileListsSchema, NodeParent, entryKind } from './parts.js';

export const CompactionEntrySchema = Type.Object(
  {
    type: Type.Literal('compaction'),
    ...base,
    parentId: NodeParent,
    summary: Str,
    firstKeptEntryId: Str,
    /** The context size (tokens) before and after: the projection with the originals, and with the summary. */
    tokensBefore: Type.Optional(Type.Number()),
    tokensAfter: Type.Optional(Type.Number()),
    /** The entries the summary stands in for (since the previous compaction), oldest first. */
    summarizedIds: Type.Optional(Type.Array(Str)),
    details: Type.Optional(FileListsSchema),
    reason: Type.Optional(CompactionReasonSchema),
    /** The summarizer, as provider/model. */
    model: Type.Optional(Str),
    /** What was accepted short of the usual checks (a summary without its headings; one asked again, shorter). */
    warnings: Type.Optional(Type.Array(Str, { description: 'What was accepted short of the usual checks (a summary without its headings, one asked again shorter); additive in version 6.' })),
  },
  { description: 'A summary standing in for everything before firstKeptEntryId: a node of the tree.' },
);
/** A summary of everything before `firstKeptEntryId`: a node of the tree. */
export type CompactionEntry = Static<typeof CompactionEntrySchema>;

export const compactionKind = entryKind({
  type: 'compaction',
  schema: CompactionEntrySchema,
  node: true,
  describe(e) {
    const n = e.summarizedIds?.length;
    return { kind: 'compaction', text: `[summary${n !== undefined ? ` of ${n} ${n === 1 ? 'entry' : 'entries'}` : ''}${e.reason ? `, ${e.reason}` : ''}] ${e.summary}` };
  },
  markdown(e) {
    const tokens = e.tokensBefore !== undefined ? ` (${e.tokensBefore} tokens before${e.tokensAfter !== undefined ? `, ${e.tokensAfter} after` : ''})` : '';
    const what = e.summarizedIds ? ` (${e.summarizedIds.length} entries${e.reason ? `, ${e.reason}` : ''})` : '';
    const head = `**Compacted${what}:** the model sees this summary instead of the entries before ${codeSpan(e.firstKeptEntryId)}${tokens}.`;
    return { level: '##', title: 'Compaction', body: [quote(head, e.summary)] };
  },
});
