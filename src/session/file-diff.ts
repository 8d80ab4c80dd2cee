// What the agent changed between two points of the tree, as a unified diff (issue 26 §2): the
// files' states at each point (file-history.ts), their contents from the checkpoint store. A text
// file gets its hunks (jsdiff); a binary file, a file over the cap, a symlink or a folder gets one
// line that says what changed. Paths are shown relative to the workspace when inside it.
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { isAbsolute, relative } from 'node:path';
import type { FileState } from './entries.js';
import { checkpointDirOf, CheckpointStore } from './checkpoint-store.js';
import { fileHistory, sameFileState } from './file-history.js';
import type { SessionStore } from './store.js';

/** Reads an object of the checkpoint store (CheckpointStore.get). */
export type LoadObject = (blob: string) => Promise<Buffer>;

/** The unified diff from the states `from` to `to` (paths in `files`' order); '' when nothing differs. */
export async function filesDiff(files: readonly string[], from: ReadonlyMap<string, FileState>, to: ReadonlyMap<string, FileState>, load: LoadObject, cwd: string): Promise<string> {
  const parts: string[] = [];
  for (const path of files) {
    const a = from.get(path) ?? { kind: 'absent' };
    const b = to.get(path) ?? { kind: 'absent' };
    if (sameFileState(a, b)) continue;
    parts.push(await fileDiff(shown(path, cwd), a, b, load));
  }
  return parts.join('');
}

function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

async function fileDiff(name: string, a: FileState, b: FileState, load: LoadObject): Promise<string> {
  const [oldText, newText] = [await textOf(a, load), await textOf(b, load)];
  // a/ and b/ before a workspace path, as git writes them; a path outside the workspace is written whole.
  const side = (prefix: string, s: FileState) => (s.kind === 'absent' ? '/dev/null' : isAbsolute(name) ? name : `${prefix}/${name}`);
  const [oldName, newName] = [side('a', a), side('b', b)];
  if (oldText === undefined || newText === undefined) return `--- ${oldName}\n+++ ${newName}\n${describeChange(name, a, b)}\n`;
  const patch = createTwoFilesPatch(oldName, newName, oldText, newText, '', '', { headerOptions: FILE_HEADERS_ONLY });
  const modes = a.kind === 'file' && b.kind === 'file' && a.mode !== b.mode ? `old mode ${a.mode.toString(8)}\nnew mode ${b.mode.toString(8)}\n` : '';
  return modes + patch.replace(/\t\n/g, '\n');
}

/** A state's text: '' for absence; undefined when it has none to compare (binary, over the cap, a symlink, a folder). */
async function textOf(state: FileState, load: LoadObject): Promise<string | undefined> {
  if (state.kind === 'absent') return '';
  if (state.kind !== 'file') return undefined;
  const bytes = await load(state.blob);
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}

function describeChange(name: string, a: FileState, b: FileState): string {
  const what = (s: FileState) =>
    s.kind === 'absent' ? 'absent' : s.kind === 'file' ? `${s.size} bytes` : s.kind === 'symlink' ? `a symlink to ${s.target}` : s.kind === 'too_big' ? `${s.size} bytes (over the checkpoint cap, not kept)` : 'not a regular file';
  const binary = a.kind === 'file' || b.kind === 'file' ? 'Binary files differ: ' : '';
  return `${binary}${name}: ${what(a)} → ${what(b)}`;
}

/**
 * What the agent changed in the files on the active branch since `entryId` (undefined: since the
 * session began), as a unified diff: the files' states at that entry against those at the leaf.
 * A session in memory keeps no checkpoints: ''.
 */
export async function sessionDiff(store: SessionStore, entryId: string | undefined): Promise<string> {
  if (!store.file) return '';
  const objects = new CheckpointStore(checkpointDirOf(store.file));
  const history = fileHistory(store.entries());
  const from = history.statesAt(entryId === undefined ? [] : store.pathTo(entryId));
  return filesDiff(history.files, from, history.statesAt(store.activePath()), (blob) => objects.get(blob), store.header.cwd);
}
