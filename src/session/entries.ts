// The session file format: a header line, then one entry per line.
// Documented in docs/session-format.md; bump SESSION_FORMAT_VERSION on any
// incompatible change.
import type { CompactionReason, LastRun, Stats } from '../core/events.js';
import { isPlainObject, type Message, type Refusal } from '../core/types.js';

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
export const SESSION_FORMAT_VERSION = 6;

export interface SessionHeader {
  type: 'session';
  version: number;
  id: string;
  cwd: string;
  timestamp: string;
  /** Set on a fork: the session and entry it was forked from. */
  parentSession?: { id: string; path: string; entryId: string };
}

interface EntryBase {
  id: string;
  /** The entry this one follows in the tree; null for a root. Control entries always have null. */
  parentId: string | null;
  timestamp: string;
}

/** A message of the conversation: a node of the tree. */
export interface MessageEntry extends EntryBase {
  type: 'message';
  message: Message;
}

export type { CompactionReason };

/** The files the summarized part of the conversation touched (workspace-relative), carried from compaction to compaction. */
export interface FileLists {
  readFiles: string[];
  modifiedFiles: string[];
}

/** A summary of everything before `firstKeptEntryId`: a node of the tree. */
export interface CompactionEntry extends EntryBase {
  type: 'compaction';
  summary: string;
  firstKeptEntryId: string;
  /** The context size (tokens) before and after: the projection with the originals, and with the summary. */
  tokensBefore?: number;
  tokensAfter?: number;
  /** The entries the summary stands in for (since the previous compaction), oldest first. */
  summarizedIds?: string[];
  details?: FileLists;
  reason?: CompactionReason;
  /** The summarizer, as provider/model. */
  model?: string;
  /** What was accepted short of the usual checks (a summary without its headings; one asked again, shorter). */
  warnings?: string[];
}

/** What was done on a branch that was left (`--branch ENTRY --summarize-left`): a node of the new branch. */
export interface BranchSummaryEntry extends EntryBase {
  type: 'branch_summary';
  summary: string;
  /** The leaf of the branch that was left. */
  fromId: string;
  /** The entries of the left branch (after the common ancestor) that the summary stands in for. */
  summarizedIds: string[];
  details: FileLists;
  model?: string;
}

/** A bookmark on an entry (control entry: not a tree node). `label: null` clears it. */
export interface LabelEntry extends EntryBase {
  type: 'label';
  parentId: null;
  targetId: string;
  label: string | null;
}

/** A move of the active leaf (control entry). `targetId: null` means "before the first entry". */
export interface LeafEntry extends EntryBase {
  type: 'leaf';
  parentId: null;
  targetId: string | null;
}

/** The display name of the session (control entry); the last one wins, `null` clears it. */
export interface SessionInfoEntry extends EntryBase {
  type: 'session_info';
  parentId: null;
  name: string | null;
}

/** A compaction (or branch summary) that was tried and failed: nothing was summarized, nothing lost (control entry). */
export interface CompactionFailedEntry extends EntryBase {
  type: 'compaction_failed';
  parentId: null;
  /** The active leaf when it was tried. */
  targetId: string | null;
  reason: CompactionReason | 'branch';
  error: string;
  tokensBefore: number;
  model?: string;
}

/** An approval the user gave "always, for this session" (control entry): a permission rule such as `bash(npm test)`. */
export interface PermissionGrantEntry extends EntryBase {
  type: 'permission_grant';
  parentId: null;
  rule: string;
  /** `hmac-sha256:HEX` over the session id and the rule, keyed by the user's home (app/grant-seal.ts); a grant without a valid seal is not applied. */
  seal?: string;
}

/** The session switched to another model (control entry); the last one is the session's model on resume. */
export interface ModelChangeEntry extends EntryBase {
  type: 'model_change';
  parentId: null;
  provider: string;
  model: string;
}

/** A context window learned from the provider (control entry); compaction uses the last one for its provider and model. Never sent to the model. */
export interface ModelWindowEntry extends EntryBase {
  type: 'model_window';
  parentId: null;
  provider: string;
  model: string;
  contextWindow: number;
  /** `error`: stated by an overflow error; `server`: reported by the server (`detail` says where). */
  source: 'error' | 'server';
  /** Where exactly, e.g. `vLLM /v1/models`. */
  detail?: string;
}

/** What one run did; stored with a snapshot of the session's shape, so listings read only the tail. */
export interface RunRecord extends LastRun {
  error?: string;
  /** Set when the run was refused (stopReason `refused`). */
  refusal?: Refusal;
  /** The active leaf when the run ended. */
  leafId: string | null;
}

export interface SessionSnapshot {
  /** Entries in the file before this one (content and control). */
  entries: number;
  /** Tips of the tree (content entries without children). */
  branches: number;
  name: string | null;
  firstUserMessage: string | null;
  /** Totals for the session and its active path at the time of the snapshot. */
  stats?: { session: Stats; activePath: Stats };
}


/** Appended at the end of every run (control entry). */
export interface RunEntry extends EntryBase, RunRecord {
  type: 'run';
  parentId: null;
  snapshot: SessionSnapshot;
}

export type ContentEntry = MessageEntry | CompactionEntry | BranchSummaryEntry;
export type ControlEntry = LabelEntry | LeafEntry | SessionInfoEntry | RunEntry | CompactionFailedEntry | PermissionGrantEntry | ModelChangeEntry | ModelWindowEntry;
export type SessionEntry = ContentEntry | ControlEntry;

/** An entry as handed to `append`: the store assigns id, timestamp and (for content entries) parentId. */
export type NewEntry =
  | { type: 'message'; message: Message; parentId?: string | null }
  | ({ type: 'compaction'; summary: string; firstKeptEntryId: string; parentId?: string | null } & Omit<CompactionEntry, keyof EntryBase | 'type' | 'summary' | 'firstKeptEntryId'>)
  | ({ type: 'branch_summary'; parentId?: string | null } & Omit<BranchSummaryEntry, keyof EntryBase | 'type'>)
  | Omit<CompactionFailedEntry, keyof EntryBase>
  | { type: 'permission_grant'; rule: string; seal?: string }
  | { type: 'model_change'; provider: string; model: string }
  | Omit<ModelWindowEntry, keyof EntryBase>
  | { type: 'label'; targetId: string; label: string | null }
  | { type: 'leaf'; targetId: string | null }
  | { type: 'session_info'; name: string | null }
  | ({ type: 'run'; snapshot: SessionSnapshot } & RunRecord);

export function isContentEntry(e: SessionEntry): e is ContentEntry {
  return e.type === 'message' || e.type === 'compaction' || e.type === 'branch_summary';
}

const ENTRY_TYPES = new Set(['message', 'compaction', 'branch_summary', 'label', 'leaf', 'session_info', 'run', 'compaction_failed', 'permission_grant', 'model_change', 'model_window']);

/** Checks the shape every entry must have; returns a reason when it is wrong. */
export function entryShapeError(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'not a JSON object';
  const e = value;
  if (typeof e.id !== 'string' || e.id === '') return 'missing "id"';
  if (e.parentId !== null && typeof e.parentId !== 'string') return 'missing "parentId"';
  if (typeof e.type !== 'string') return 'missing "type"';
  if (!ENTRY_TYPES.has(e.type)) return `unknown entry type "${e.type}"`;
  if (typeof e.timestamp !== 'string') return 'missing "timestamp"';
  switch (e.type) {
    case 'message': {
      const m = e.message as Record<string, unknown> | undefined;
      if (typeof m !== 'object' || m === null) return 'message entry without "message"';
      if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'toolResult') return `unknown message role "${String(m.role)}"`;
      if (!Array.isArray(m.content)) return 'message without a "content" array';
      for (const c of m.content as unknown[]) {
        const block = c as Record<string, unknown> | null;
        if (typeof block !== 'object' || block === null || typeof block.type !== 'string') return 'message content item without a "type"';
        if (block.type === 'text' && typeof block.text !== 'string') return 'text content without "text"';
        if (block.type === 'toolCall' && (typeof block.id !== 'string' || typeof block.name !== 'string')) return 'tool call without "id"/"name"';
      }
      if (m.role === 'toolResult' && typeof m.toolCallId !== 'string') return 'tool result without "toolCallId"';
      if (m.role === 'assistant' && (typeof m.usage !== 'object' || m.usage === null || typeof m.stopReason !== 'string')) {
        return 'assistant message without "usage"/"stopReason"';
      }
      return undefined;
    }
    case 'compaction':
      if (typeof e.summary !== 'string' || typeof e.firstKeptEntryId !== 'string') return 'compaction without "summary"/"firstKeptEntryId"';
      return undefined;
    case 'branch_summary':
      if (typeof e.summary !== 'string' || typeof e.fromId !== 'string') return 'branch_summary without "summary"/"fromId"';
      return undefined;
    case 'compaction_failed':
      if (typeof e.error !== 'string' || typeof e.reason !== 'string') return 'compaction_failed without "reason"/"error"';
      return undefined;
    case 'model_change':
      if (typeof e.provider !== 'string' || typeof e.model !== 'string') return 'model_change without "provider"/"model"';
      return undefined;
    case 'model_window':
      if (typeof e.provider !== 'string' || typeof e.model !== 'string') return 'model_window without "provider"/"model"';
      if (typeof e.contextWindow !== 'number' || !(e.contextWindow > 0) || (e.source !== 'error' && e.source !== 'server')) return 'model_window without a positive "contextWindow" and a "source" (error or server)';
      return undefined;
    case 'permission_grant':
      if (typeof e.rule !== 'string' || e.rule === '') return 'permission_grant without "rule"';
      return undefined;
    case 'label':
      if (typeof e.targetId !== 'string' || (e.label !== null && typeof e.label !== 'string')) return 'label without "targetId"/"label"';
      return undefined;
    case 'leaf':
      if (e.targetId !== null && typeof e.targetId !== 'string') return 'leaf without "targetId"';
      return undefined;
    case 'session_info':
      if (e.name !== null && typeof e.name !== 'string') return 'session_info without "name"';
      return undefined;
    case 'run':
      if (typeof e.runId !== 'string' || typeof e.snapshot !== 'object' || e.snapshot === null) return 'run without "runId"/"snapshot"';
      return undefined;
  }
  return undefined;
}
