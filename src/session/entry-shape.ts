// The check of a parsed line of a session file: the shape every entry must have.
import { isPlainObject } from '../core/types.js';
import { ENTRY_KINDS } from './entry-kinds/index.js';

const ENTRY_TYPES: ReadonlySet<string> = new Set(ENTRY_KINDS.map((k) => k.type));

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
