// The files a stretch of conversation read and modified, taken from its tool calls (not from what
// a model wrote about them), as workspace-relative paths. Carried from compaction to compaction
// and kept in the compaction entry, so they survive a summary that forgets them.
import { isAbsolute, normalize, relative, sep } from 'node:path';
import type { ToolCall } from '../core/types.js';
import type { ContentEntry, FileLists } from './entries.js';

/**
 * Tools whose `path` argument is a file read, or a file written. The search tools (list_dir, grep,
 * find) are left out: their path is usually a folder, and what they found is in their results.
 * bash reports no files (what a command touched cannot be read off its text).
 */
const READS = new Set(['read_file']);
const WRITES = new Set(['write_note', 'write_file', 'edit_file']);

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
 * The files of `entries` (tool calls and their results), added to `previous`. A file that was
 * modified is listed as modified only. Both lists are sorted, so the same history gives the same lists.
 */
export function collectFileLists(entries: readonly ContentEntry[], previous: FileLists = emptyFileLists(), cwd?: string): FileLists {
  const read = new Set(previous.readFiles);
  const modified = new Set(previous.modifiedFiles);
  // The path a tool reported (normalized by the tool itself) wins over the argument as written.
  const reported = new Map<string, string>();
  for (const e of entries) {
    if (e.type !== 'message' || e.message.role !== 'toolResult' || e.message.isError) continue;
    const p = e.message.details?.path;
    if (typeof p === 'string') reported.set(e.message.toolCallId, p);
  }
  const failed = new Set<string>();
  for (const e of entries) {
    if (e.type !== 'message' || e.message.role !== 'toolResult') continue;
    if (e.message.isError) failed.add(e.message.toolCallId);
    // A tool that reports the files it changed (bash, from git status before and after), even if it then failed.
    const changed = e.message.details?.modifiedFiles;
    if (Array.isArray(changed)) {
      for (const f of changed) {
        const path = typeof f === 'string' ? workspacePath(f, cwd) : undefined;
        if (path !== undefined) modified.add(path);
      }
    }
  }
  for (const e of entries) {
    if (e.type === 'branch_summary') {
      for (const f of e.details.readFiles) read.add(f);
      for (const f of e.details.modifiedFiles) modified.add(f);
      continue;
    }
    if (e.type !== 'message' || e.message.role !== 'assistant') continue;
    for (const c of e.message.content) {
      if (c.type !== 'toolCall' || failed.has(c.id)) continue;
      const path = pathOf(c, reported, cwd);
      if (path === undefined) continue;
      if (WRITES.has(c.name)) modified.add(path);
      else if (READS.has(c.name)) read.add(path);
    }
  }
  for (const f of modified) read.delete(f);
  return { readFiles: [...read].sort(), modifiedFiles: [...modified].sort() };
}

function pathOf(call: ToolCall, reported: ReadonlyMap<string, string>, cwd: string | undefined): string | undefined {
  const fromResult = reported.get(call.id);
  if (fromResult !== undefined) return workspacePath(fromResult, cwd);
  const arg = call.arguments.path;
  return typeof arg === 'string' ? workspacePath(arg, cwd) : undefined;
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
