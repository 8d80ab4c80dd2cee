// A rewind's plan in words, one line a file, for the front ends that show it before asking
// (`mini-agent rewind`, `--branch ENTRY --restore-files`, the interactive /rewind): what is
// restored, recreated or removed, which of those were changed outside the agent, and what is left
// because its state at the entry was not kept. Paths are shown relative to the workspace when inside it.
import { isAbsolute, relative } from 'node:path';
import type { RewindPlan } from '../session/file-rewind.js';

/** A path as the plan shows it: relative to `cwd` when inside it, else whole. */
export function shownPath(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** The plan's file lines (none when the files are already as they were at `entryId`: one line says so). */
export function rewindPlanLines(plan: RewindPlan, entryId: string, cwd: string): string[] {
  const lines: string[] = [];
  if (plan.restore.length === 0) lines.push(`the files are as they were at ${entryId}: nothing to restore`);
  for (const c of plan.restore) {
    const how = c.after.kind === 'absent' ? 'remove (the agent created it)' : c.before.kind === 'absent' ? 'recreate' : 'restore';
    lines.push(`${how} ${shownPath(cwd, c.path)}${plan.changedOutside.includes(c.path) ? ' (changed outside the agent since)' : ''}`);
  }
  for (const path of plan.notKept) lines.push(`leave ${shownPath(cwd, path)}: its state at ${entryId} was not kept (over the size cap, or not a regular file)`);
  return lines;
}
