// Best effort: which files a command changed, when the workspace is in a git repository. bash
// takes a snapshot of `git status` (with each listed file's size and mtime) before and after the
// command; the paths whose entry appeared, disappeared or changed are the files it modified.
// Compaction's file lists read them from the result's details. A file changed and then restored,
// or one git ignores, is not seen; without git, outside a repository, or when git takes too long,
// there is no snapshot and nothing is reported.
import { lstat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/** Workspace-relative path → what git and the filesystem say about it. */
export type GitSnapshot = Map<string, string>;

const GIT_TIMEOUT_MS = 2000;

async function git(cwd: string, args: string[]): Promise<string | undefined> {
  const { execFile } = await import('node:child_process'); // not at start-up (issue 14)
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      // GIT_OPTIONAL_LOCKS=0: status must not take the index lock (the user may be running git too).
      { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' } },
      (err, stdout) => resolve(err ? undefined : stdout),
    );
  });
}

/** The changed and untracked files git lists, under the workspace; undefined when git cannot tell. */
export async function gitSnapshot(cwd: string): Promise<GitSnapshot | undefined> {
  const root = (await git(cwd, ['rev-parse', '--show-toplevel']))?.trim();
  if (!root) return undefined;
  const out = await git(cwd, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames']);
  if (out === undefined) return undefined;
  const snapshot: GitSnapshot = new Map();
  const stats: Promise<void>[] = [];
  for (const record of out.split('\0')) {
    if (record.length < 4) continue;
    const status = record.slice(0, 2);
    const rel = relative(cwd, join(root, record.slice(3)));
    if (rel === '' || rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel)) continue; // outside the workspace
    const path = rel.split(sep).join('/');
    stats.push(
      lstat(join(cwd, rel)).then(
        (s) => void snapshot.set(path, `${status} ${s.size} ${s.mtimeMs}`),
        () => void snapshot.set(path, `${status} gone`),
      ),
    );
  }
  await Promise.all(stats);
  return snapshot;
}

/** The paths whose entry appeared, disappeared or changed between two snapshots, sorted. */
export function changedFiles(before: GitSnapshot, after: GitSnapshot): string[] {
  const changed = new Set<string>();
  for (const [path, sig] of after) if (before.get(path) !== sig) changed.add(path);
  for (const path of before.keys()) if (!after.has(path)) changed.add(path);
  return [...changed].sort();
}
