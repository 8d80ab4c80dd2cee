// The checkpoints of one tool call (issue 26): the state of each file the call is about to change
// (taken by the tool through ToolContext.checkpoint, before it writes) and again when the call has
// ended. A call that declares no files (risk `execute`: bash) has the workspace scanned before
// and after it instead (workspace-checkpoints.ts). The files whose state changed become the
// `checkpoint` entry after the call's result. A state that cannot be taken never fails the call:
// the file is left out and a warning says why.
import type { CheckpointStore } from '../session/checkpoint-store.js';
import type { FileChange, FileState } from '../session/entries.js';
import { sameFileState } from '../session/file-history.js';
import type { BeforeScan, WorkspaceCheckpoints } from './workspace-checkpoints.js';

export class CallCheckpoints {
  private readonly before = new Map<string, FileState>();
  private scan: BeforeScan | undefined;
  readonly warnings: string[] = [];

  constructor(
    private readonly store: CheckpointStore,
    private readonly workspace?: WorkspaceCheckpoints,
  ) {}

  /** The state of `path` before the call changes it (the first time only: a call may write a file twice). */
  readonly capture = async (path: string): Promise<void> => {
    if (this.before.has(path)) return;
    try {
      this.before.set(path, await this.store.capture(path));
    } catch (err) {
      this.warnings.push(`no checkpoint of ${path}: ${(err as Error).message}`);
    }
  };

  /** Scans the workspace before a call that declares no files (once per call); `hidden` paths are left out. */
  readonly captureWorkspace = async (hidden?: (path: string) => boolean): Promise<void> => {
    if (!this.workspace || this.scan) return;
    try {
      this.scan = await this.workspace.before(hidden, (m) => this.warnings.push(m));
    } catch (err) {
      this.warnings.push(`no checkpoint of the workspace: ${(err as Error).message}`);
    }
  };

  /** The files whose state the call changed, before and after. */
  async changes(): Promise<FileChange[]> {
    const changed: FileChange[] = [];
    for (const [path, before] of this.before) {
      try {
        const after = await this.store.capture(path);
        if (!sameFileState(before, after)) changed.push({ path, before, after });
      } catch (err) {
        this.warnings.push(`no checkpoint of ${path} after the call: ${(err as Error).message}`);
      }
    }
    if (this.scan) {
      try {
        for (const change of await this.workspace!.after(this.scan)) if (!this.before.has(change.path)) changed.push(change);
      } catch (err) {
        this.warnings.push(`no checkpoint of the workspace after the call: ${(err as Error).message}`);
      }
    }
    return changed;
  }
}
