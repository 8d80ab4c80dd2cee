// The `branch_summary` entry: what was done on a branch that was left, a node of the new branch.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { Str } from '../../core/message-schema.js';
import type { UserMessage } from '../../core/types.js';
import { codeSpan, quote } from '../markdown-text.js';
import { base, FileListsSchema, NodeParent, entryKind } from './parts.js';
import { anything } from './reading.js';

export const BRANCH_SUMMARY_PREFIX = 'Before this point, another branch of this conversation was explored and then left. Summary of what was done there:\n\n';

/** The message that stands in for a branch that was left, on the new branch. */
export function branchSummaryMessage(summary: string): UserMessage {
  return { role: 'user', content: [{ type: 'text', text: `${BRANCH_SUMMARY_PREFIX}<summary>\n${summary}\n</summary>` }] };
}

export const BranchSummaryEntrySchema = Type.Object(
  {
    type: Type.Literal('branch_summary'),
    ...base,
    parentId: NodeParent,
    summary: Str,
    /** The leaf of the branch that was left. */
    fromId: Str,
    /** The entries of the left branch (after the common ancestor) that the summary stands in for. */
    summarizedIds: Type.Array(Str),
    details: FileListsSchema,
    model: Type.Optional(Str),
  },
  { description: 'What was done on a branch that was left (fromId: its leaf): a node of the new branch.' },
);
/** What was done on a branch that was left (`--branch ENTRY --summarize-left`): a node of the new branch. */
export type BranchSummaryEntry = Static<typeof BranchSummaryEntrySchema>;

export const branchSummaryKind = entryKind({
  type: 'branch_summary',
  schema: BranchSummaryEntrySchema,
  node: true,
  reading: { summarizedIds: anything, details: anything },
  project: (e) => branchSummaryMessage(e.summary),
  describe: (e) => ({ kind: 'branch', text: `[summary of a left branch: ${e.summarizedIds.length} entries] ${e.summary}` }),
  markdown: (e) => ({
    level: '##',
    title: 'Branch summary',
    body: [quote(`**Left branch** (leaf ${codeSpan(e.fromId)}, ${e.summarizedIds.length} entries): the model sees this summary of the work done there.`, e.summary)],
  }),
});
