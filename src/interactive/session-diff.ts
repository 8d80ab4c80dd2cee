// /diff: what the agent changed in this session, file by file, pure. A session with a file has
// checkpoints (issue 26): its diff is the app's session.diff() text, painted here (checkpointDiffLines).
// A session kept in memory has none: its view is built from the results of the calls that rewrite a file (as their tools declare: edit_file, write_file) on the session's
// active branch, root to leaf (those before a compaction too: the handle's branchMessages, not the
// messages the model sees): an edit_file result carries its hunks (tools/diff.ts), written here as
// a plain unified diff (`--- a/PATH`, `+++ b/PATH`, the hunks with their line numbers dropped), in
// the order the edits were made; write_file over a file carries its diff in details.diff, and a
// whole new text without one (a new file) is named with its size. Failed calls changed nothing and are left out.
import type { Message } from '../core/types.js';
import { textWithImages } from '../core/image.js';
import { clean, type Paint } from './view.js';
import { bodyLines, fit } from './tool-block.js';
import { describeToolCall, type DescribeCall } from '../tools/descriptions.js';

interface FileChanges {
  path: string;
  lines: string[];
}

const ROW = /^([ +-])\s*\d+│(.*)$/;

/** The changes, file by file, in the order each file was first changed. */
export function sessionChanges(messages: readonly Message[], describe: DescribeCall = describeToolCall): FileChanges[] {
  const files = new Map<string, FileChanges>();
  const of = (path: string) => files.get(path) ?? files.set(path, { path, lines: [] }).get(path)!;
  const args = new Map<string, Record<string, unknown>>();
  for (const m of messages) if (m.role === 'assistant') for (const c of m.content) if (c.type === 'toolCall') args.set(c.id, c.arguments);
  for (const m of messages) {
    if (m.role !== 'toolResult' || m.isError || typeof m.details?.path !== 'string') continue;
    const rewrites = describe(m.toolName, args.get(m.toolCallId) ?? {}).rewrites;
    if (!rewrites) continue;
    const path = m.details.path;
    const text = bodyLines(textWithImages(m.content));
    const at = text.findIndex((l) => l.startsWith('@@ '));
    if (typeof m.details.diff === 'string') {
      of(path).lines.push(...bodyLines(m.details.diff).map((l) => (ROW.test(l) ? l.replace(ROW, '$1$2') : l)));
    } else if (at >= 0) {
      of(path).lines.push(...text.slice(at).map((l) => (ROW.test(l) ? l.replace(ROW, '$1$2') : l)));
    } else if (rewrites.newText !== undefined) {
      const bytes = typeof m.details.bytes === 'number' ? `, ${m.details.bytes} bytes` : '';
      of(path).lines.push(m.details.created ? `# created with ${m.toolName}${bytes}` : `# overwritten with ${m.toolName}${bytes} (its earlier text was not kept)`);
    }
  }
  return [...files.values()];
}

/** /diff's lines: a header per file, then its diff; coloured when the paint is. */
export function sessionDiffLines(messages: readonly Message[], width: number, p: Paint, describe: DescribeCall = describeToolCall): string[] {
  const files = sessionChanges(messages, describe);
  if (files.length === 0) return [p.dim('no files changed in this session yet (edit_file and write_file results on this branch)')];
  const out: string[] = [p.dim(`${files.length} file${files.length === 1 ? '' : 's'} changed in this session:`)];
  for (const f of files) {
    out.push(p.bold(fit(clean(`--- a/${f.path}`), width)), p.bold(fit(clean(`+++ b/${f.path}`), width)));
    for (const l of f.lines.map((x) => fit(clean(x), width))) out.push(l.startsWith('@@') ? p.cyan(l) : l.startsWith('#') ? p.dim(l) : paintRow(l, p));
  }
  return out;
}

/** A hunk's row: removed red, added green, context plain. */
const paintRow = (l: string, p: Paint) => (l.startsWith('-') ? p.red(l) : l.startsWith('+') ? p.green(l) : l);

/**
 * /diff's lines from the checkpoints: the unified diff `text` (session.diff(), since `since` or
 * the session's start) under a count of the files, painted as above: the file headers bold, hunk
 * heads cyan, removed lines red, added green, the rest (modes, binary files) dim. The hunk heads'
 * counts say where a hunk ends, so a removed line "-- x" is never taken for a file header.
 */
export function checkpointDiffLines(text: string, since: string | undefined, width: number, p: Paint): string[] {
  const when = since === undefined ? 'in this session' : `since ${since} on this branch`;
  if (text === '') return [p.dim(`no files changed ${since === undefined ? 'in this session yet' : when} (from the file checkpoints)`)];
  const out: string[] = [];
  let files = 0;
  let [oldLeft, newLeft] = [0, 0]; // the rows left in the current hunk
  for (const raw of text.replace(/\n$/, '').split('\n')) {
    const l = fit(clean(raw), width);
    if (oldLeft + newLeft > 0 && !raw.startsWith('\\')) {
      if (!raw.startsWith('+')) oldLeft--;
      if (!raw.startsWith('-')) newLeft--;
      out.push(paintRow(l, p));
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(raw);
    if (hunk) [oldLeft, newLeft] = [Number(hunk[1] ?? 1), Number(hunk[2] ?? 1)];
    if (raw.startsWith('--- ')) files++;
    // Hunk heads cyan, file headers bold, the rest ("\ No newline at end of file", modes, binary files) dim.
    out.push(hunk ? p.cyan(l) : raw.startsWith('--- ') || raw.startsWith('+++ ') ? p.bold(l) : p.dim(l));
  }
  return [p.dim(`${files} file${files === 1 ? '' : 's'} changed ${when}:`), ...out];
}
