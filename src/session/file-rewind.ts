// Rewinding the files to an entry of the tree (issue 26 §2). The plan is worked out first and
// shown: each file the agent changed whose state at the entry differs from what the agent last
// left on disk. A file that no longer holds what the agent left (changed outside the agent, seen by
// hash) is refused unless `force`. Applying restores the planned files and records the rewind as a
// `checkpoint` entry naming the entry (each file before and after), so the files' latest state is
// known and a rewind back to the entry that was left undoes it. A forced rewind first records what
// was changed outside the agent at the entry being left, so rewinding back there brings that back too.
import { checkpointDirOf, CheckpointStore, MissingCheckpointError } from './checkpoint-store.js';
import type { FileChange, FileState } from './entries.js';
import { fileHistory, sameFileState } from './file-history.js';
import type { SessionStore } from './store.js';
import { UsageError } from '../core/types.js';

export interface RewindPlan {
  /** The files to restore: each from what the agent last left (`before`) to its state at the entry (`after`). */
  restore: FileChange[];
  /** Files that no longer hold what the agent last left: changed outside the agent since. Restored only with `force`. */
  changedOutside: string[];
  /** Files whose state at the entry was not kept (over the size cap, not a regular file): left as they are. */
  notKept: string[];
}

/** What a rewind of the files to `entryId` would do. A session in memory has no checkpoints: an error. */
export async function planRewind(store: SessionStore, entryId: string): Promise<RewindPlan> {
  const objects = checkpointsOf(store);
  const history = fileHistory(store.entries());
  const target = history.statesAt(store.pathTo(entryId));
  const latest = history.latest();
  const plan: RewindPlan = { restore: [], changedOutside: [], notKept: [] };
  for (const path of history.files) {
    const now = latest.get(path) as FileState;
    const want = target.get(path) as FileState;
    if (sameFileState(now, want)) continue;
    if (want.kind === 'too_big' || want.kind === 'other') {
      plan.notKept.push(path);
      continue;
    }
    // Every object the restore needs is there before anything is written (gc may have removed them).
    if (want.kind === 'file' && !(await objects.has(want.blob))) throw new MissingCheckpointError(want.blob, objects.dir, path);
    if (!(await objects.matches(path, now))) plan.changedOutside.push(path);
    plan.restore.push({ path, before: now, after: want });
  }
  return plan;
}

/**
 * Restores the planned files (those changed outside the agent only with `force`) and records the
 * rewind. Returns the files restored. Nothing is written when a file changed outside the agent
 * and `force` is not given: an error names them.
 */
export async function applyRewind(store: SessionStore, entryId: string, plan: RewindPlan, force: boolean): Promise<FileChange[]> {
  if (plan.changedOutside.length > 0 && !force) {
    throw new RewindRefused(
      `changed outside the agent since its last change, so not overwritten: ${plan.changedOutside.join(', ')} (give --force to overwrite them; what was changed outside the agent is kept at the entry left, so a rewind back there brings it back)`,
    );
  }
  const objects = checkpointsOf(store);
  // What was changed outside the agent and is about to be overwritten (force) joins the tree first,
  // at the entry being left: a rewind back there brings it back, as any rewind is undone.
  const now = new Map<string, FileState>();
  for (const change of plan.restore) now.set(change.path, await objects.capture(change.path));
  const adopted = plan.restore.filter((c) => plan.changedOutside.includes(c.path) && !sameFileState(now.get(c.path)!, c.before)).map((c) => ({ path: c.path, before: c.before, after: now.get(c.path)! }));
  if (adopted.length > 0 && store.leafId !== null) {
    store.append({ type: 'checkpoint', entryId: store.leafId, files: adopted });
    store.sync();
  }
  const done: FileChange[] = [];
  for (const change of plan.restore) {
    await objects.restore(change.path, change.after);
    done.push({ path: change.path, before: now.get(change.path)!, after: change.after });
  }
  if (done.length > 0) {
    store.append({ type: 'checkpoint', entryId, files: done });
    store.sync();
  }
  return done;
}

/** A rewind that would overwrite changes made outside the agent, or has no checkpoints: a usage error (exit 2). */
export class RewindRefused extends UsageError {
  override name = 'RewindRefused';
}

/** What a rewind did, or (dryRun) would do. */
export interface RewindOptions {
  /** Restore the files only; the leaf stays. */
  filesOnly?: boolean;
  /** Move the leaf only; the files stay. */
  conversationOnly?: boolean;
  /** Overwrite files changed outside the agent. */
  force?: boolean;
  /** Work out the plan; change nothing. */
  dryRun?: boolean;
}

export interface RewindOutcome {
  entryId: string;
  plan: RewindPlan;
  /** The files restored (none for a dry run or conversationOnly). */
  restored: string[];
  /** Whether the leaf moved to the entry. */
  moved: boolean;
}

/** Rewinds the files and (unless filesOnly) the leaf to `entryId`, as the options say. */
export async function rewindTo(store: SessionStore, entryId: string, opts: RewindOptions = {}): Promise<RewindOutcome> {
  if (opts.filesOnly && opts.conversationOnly) throw new UsageError('--files-only and --conversation-only cannot be combined: give one, or neither for both');
  const plan = opts.conversationOnly ? { restore: [], changedOutside: [], notKept: [] } : await planRewind(store, entryId);
  if (opts.dryRun) return { entryId, plan, restored: [], moved: false };
  const restored = (await applyRewind(store, entryId, plan, opts.force === true)).map((c) => c.path);
  if (!opts.filesOnly) {
    store.checkout(entryId);
    store.sync();
  }
  return { entryId, plan, restored, moved: !opts.filesOnly };
}

function checkpointsOf(store: SessionStore): CheckpointStore {
  if (!store.file) throw new RewindRefused('this session is kept in memory: it has no file checkpoints to rewind to');
  return new CheckpointStore(checkpointDirOf(store.file));
}
