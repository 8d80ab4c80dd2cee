// The session file format: a header line, then one entry per line.
// Documented in docs/session-format.md; bump SESSION_FORMAT_VERSION on any
// incompatible change.
import type { Message } from '../core/types.js';

export const SESSION_FORMAT_VERSION = 1;

export interface SessionHeader {
  type: 'session';
  version: number;
  id: string;
  cwd: string;
  timestamp: string;
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

/** A summary of everything before `firstKeptEntryId`: a node of the tree. */
export interface CompactionEntry extends EntryBase {
  type: 'compaction';
  summary: string;
  firstKeptEntryId: string;
  tokensBefore?: number;
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

export type ContentEntry = MessageEntry | CompactionEntry;
export type ControlEntry = LabelEntry | LeafEntry;
export type SessionEntry = ContentEntry | ControlEntry;

/** An entry as handed to `append`: the store assigns id, timestamp and (for content entries) parentId. */
export type NewEntry =
  | { type: 'message'; message: Message; parentId?: string | null }
  | { type: 'compaction'; summary: string; firstKeptEntryId: string; tokensBefore?: number; parentId?: string | null }
  | { type: 'label'; targetId: string; label: string | null }
  | { type: 'leaf'; targetId: string | null };

export function isContentEntry(e: SessionEntry): e is ContentEntry {
  return e.type === 'message' || e.type === 'compaction';
}

const ENTRY_TYPES = new Set(['message', 'compaction', 'label', 'leaf']);

/** Checks the shape every entry must have; returns a reason when it is wrong. */
export function entryShapeError(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const e = value as Record<string, unknown>;
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
    case 'label':
      if (typeof e.targetId !== 'string' || (e.label !== null && typeof e.label !== 'string')) return 'label without "targetId"/"label"';
      return undefined;
    case 'leaf':
      if (e.targetId !== null && typeof e.targetId !== 'string') return 'leaf without "targetId"';
      return undefined;
  }
  return undefined;
}
