// The session file format: a header line, then one entry per line.
// Documented in docs/session-format.md; bump SESSION_FORMAT_VERSION on any
// incompatible change.
import type { CompactionReason } from '../core/events.js';
import { NODE_TYPES, type AnyEntry, type NodeType } from './entry-kinds/index.js';

/**
 * 2: adds the `run` and `session_info` control entries and the header's `parentSession`.
 * 3: adds the `branch_summary` node and the `compaction_failed` control entry, and the
 *    compaction entry's record of what it did (tokens after, summarized ids, file lists, reason, model).
 * 4: adds the `permission_grant` control entry (an approval given "for this session").
 * 5: adds the `model_change` control entry (the model was switched; a resume continues with it).
 *    Additive in 5: `image` content blocks ({type, data (base64), mimeType}) in user messages and tool results.
 * 6: adds the `model_window` control entry (a context window learned from the provider), and the
 *    compaction entry's optional `warnings` (additive).
 * Older files are migrated (a new file is written and renamed into place; the original is kept
 * as a backup), because an older reader would skip the new entries as corrupt, and a skipped
 * `branch_summary` would cut its branch off the tree.
 */
export const SESSION_FORMAT_VERSION = 7;

export type { CompactionReason };
export type { SessionHeader, FileLists } from './entry-kinds/parts.js';
// The entry types are `Static` of the kinds' schemas (src/session/entry-kinds/).
export type { MessageEntry } from './entry-kinds/message.js';
export type { CompactionEntry } from './entry-kinds/compaction.js';
export type { BranchSummaryEntry } from './entry-kinds/branch-summary.js';
export type { LabelEntry } from './entry-kinds/label.js';
export type { LeafEntry } from './entry-kinds/leaf.js';
export type { SessionInfoEntry } from './entry-kinds/session-info.js';
export type { CompactionFailedEntry } from './entry-kinds/compaction-failed.js';
export type { PermissionGrantEntry } from './entry-kinds/permission-grant.js';
export type { ModelChangeEntry } from './entry-kinds/model-change.js';
export type { ModelWindowEntry } from './entry-kinds/model-window.js';
export type { CheckpointEntry, FileChange, FileState } from './entry-kinds/checkpoint.js';
export type { RunEntry, RunRecord, SessionSnapshot } from './entry-kinds/run.js';

/** Any entry of a session file: a content entry (a node of the tree) or a control entry. */
export type SessionEntry = AnyEntry;
/** The nodes of the tree: messages, compactions, branch summaries. */
export type ContentEntry = Extract<SessionEntry, { type: NodeType }>;
/** The entries that record a fact about the session (`parentId: null`), never part of a path. */
export type ControlEntry = Exclude<SessionEntry, ContentEntry>;

/** What the store fills in: id and timestamp, and (for a node, unless given) the parent. */
type Payload<E> = Omit<E, 'id' | 'timestamp' | 'parentId'>;
type NewOf<E> = E extends ContentEntry ? Payload<E> & { parentId?: string | null } : Payload<E>;

/** An entry as handed to `append` (from the kinds' types): the store assigns id, timestamp and (for content entries) parentId. */
export type NewEntry = NewOf<SessionEntry>;

const NODE_SET: ReadonlySet<string> = new Set(NODE_TYPES);

export function isContentEntry(e: SessionEntry): e is ContentEntry {
  return NODE_SET.has(e.type);
}

/** An entry handed to `append` that is a node of the tree (the store gives it a parent). */
export function isContentInput(e: NewEntry): e is Extract<NewEntry, { type: NodeType }> {
  return NODE_SET.has(e.type);
}

export { entryShapeError } from './entry-shape.js';
