// The files a stretch of conversation read and modified, taken from its tool calls (not from what
// a model wrote about them), as workspace-relative paths. Carried from compaction to compaction
// and kept in the compaction entry, so they survive a summary that forgets them. Which files a
// call touched is its tool's to say (tools/descriptions.ts filesTouched, passed in by the agent
// and the app layer: this block knows no tools).
import { isAbsolute, normalize, relative, sep } from 'node:path';
import type { ContentEntry, FileLists } from './entries.js';
import { branchSummaryKind, messageKind } from './entry-kinds/index.js';

/** The files one call read or modified, as its tool declares them; `result` is undefined for a call without one. */
export type FileTracker = (name: string, args: Record<string, unknown>, result: { isError: boolean; details?: Record<string, unknown> } | undefined) => { read?: readonly unknown[]; modified?: readonly unknown[] };

/** For a caller that knows no tools: the files a result reports it changed (`details.modifiedFiles`), even from a failed call. */
export const reportedFiles: FileTracker = (_name, _args, result) => {
  const changed = result?.details?.modifiedFiles;
  return { modified: Array.isArray(changed) ? changed : [] };
};

export function emptyFileLists(): FileLists {
  return { readFiles: [], modifiedFiles: [] };
}

/** A path as the workspace sees it: relative, normalized, forward slashes; undefined when it leaves the workspace. */
export function workspacePath(path: string, cwd?: string): string | undefined {
  if (typeof path !== 'string' || path.trim() === '') return undefined;
  let p = path.trim();
  if (isAbsolute(p)) {
    if (!cwd) return undefined;
    p = relative(cwd, p);
  }
  p = normalize(p).split(sep).join('/');
  if (p === '.' || p === '..' || p.startsWith('../')) return undefined;
  return p.replace(/^\.\//, '');
}

/**
 * The files of `entries` (tool calls and their results, as `tracker` says each call touched), added
 * to `previous`. A file that was modified is listed as modified only. Both lists are sorted, so the
 * same history gives the same lists.
 */
export function collectFileLists(entries: readonly ContentEntry[], previous: FileLists = emptyFileLists(), cwd?: string, tracker: FileTracker = reportedFiles): FileLists {
  const read = new Set(previous.readFiles);
  const modified = new Set(previous.modifiedFiles);
  const results = new Map<string, { isError: boolean; details?: Record<string, unknown> }>();
  for (const e of entries) if (messageKind.is(e) && e.message.role === 'toolResult') results.set(e.message.toolCallId, e.message);
  const add = (to: Set<string>, files: readonly unknown[] | undefined) => {
    for (const f of files ?? []) {
      const path = typeof f === 'string' ? workspacePath(f, cwd) : undefined;
      if (path !== undefined) to.add(path);
    }
  };
  for (const e of entries) {
    if (branchSummaryKind.is(e)) {
      for (const f of e.details.readFiles) read.add(f);
      for (const f of e.details.modifiedFiles) modified.add(f);
      continue;
    }
    if (!messageKind.is(e) || e.message.role !== 'assistant') continue;
    for (const c of e.message.content) {
      if (c.type !== 'toolCall') continue;
      const files = tracker(c.name, c.arguments, results.get(c.id));
      add(read, files.read);
      add(modified, files.modified);
    }
  }
  for (const f of modified) read.delete(f);
  return { readFiles: [...read].sort(), modifiedFiles: [...modified].sort() };
}

export const FILES_HEADING = '## Files (tracked by mini-agent)';

/** The lists as a Markdown section appended to a summary. */
export function formatFileLists(files: FileLists): string {
  if (files.readFiles.length === 0 && files.modifiedFiles.length === 0) return '';
  const list = (xs: string[]) => (xs.length ? xs.map((f) => `- ${f}`).join('\n') : '- (none)');
  return `${FILES_HEADING}\n\nRead:\n${list(files.readFiles)}\n\nModified:\n${list(files.modifiedFiles)}`;
}

/** A summary without the file section mini-agent appended to it (the lists are passed on separately). */
export function stripFileLists(summary: string): string {
  const at = summary.lastIndexOf(FILES_HEADING);
  return at < 0 ? summary : summary.slice(0, at).trimEnd();
}
