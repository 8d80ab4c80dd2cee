// File writing shared by the tools that change files (write_note, write_file, edit_file): one
// queue per resolved path, so writes and edits to a file never interleave, and the atomic write
// (a temp file beside the target, fsync, rename), which keeps the file's mode. And the file access
// of a client (an editor over ACP), whose failures become ToolErrors naming the file. The temp
// file carries the writer's pid and is journaled while it exists (leftovers.ts), so a run killed
// mid-write leaves nothing the next start does not remove.
import { open, rename, unlink } from 'node:fs/promises';
import { tempFileFor, type LeftoverJournal } from './leftovers.js';
import { ToolError, type FileAccess } from './tool.js';

/**
 * Runs tasks with the same key one after another, in the order they were queued. Shared by the
 * tools that write files, it also carries their journal of temp files (`journal`, for atomicWrite).
 */
export class PathQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(readonly journal?: LeftoverJournal) {}

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}

/**
 * Replaces `target` with `data` atomically: readers see the old file or the new one, never a
 * part. The new file gets `mode` (the old file's, so an executable script stays executable).
 * The temp file (`.NAME.PID.RANDOM.tmp`, beside the target) is recorded in `journal` before it is
 * created and forgotten once it is renamed or removed.
 */
export async function atomicWrite(target: string, data: string | Uint8Array, mode?: number, journal?: LeftoverJournal): Promise<void> {
  const tmp = tempFileFor(target);
  const forget = journal?.record(tmp);
  try {
    const handle = await open(tmp, 'wx', mode ?? 0o644);
    try {
      if (mode !== undefined) await handle.chmod(mode & 0o7777); // open() applies the umask; keep the exact mode
      await handle.writeFile(data);
      await handle.sync(); // the new content is on disk before the rename makes it visible
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  } finally {
    forget?.();
  }
}

/** The client's message for a failure, whatever it threw (an ACP error is an object with a message). */
function reason(err: unknown): string {
  const message = err instanceof Error || (typeof err === 'object' && err !== null && 'message' in err) ? String((err as { message: unknown }).message) : String(err);
  return message.length > 1000 ? `${message.slice(0, 1000)}…` : message;
}

/** The whole text the client holds for `real` (`shown`: the path as the model sees it). */
export async function clientRead(files: FileAccess, real: string, shown: string): Promise<string> {
  let text: unknown;
  try {
    text = await files.readTextFile(real);
  } catch (err) {
    throw new ToolError(`cannot read ${shown} through the client: ${reason(err)}`);
  }
  if (typeof text !== 'string') throw new ToolError(`cannot read ${shown} through the client: it returned no text`);
  return text;
}

/** Replaces the client's text of `real` with `content`: no temp file, since the client owns the buffer and how it is saved. */
export async function clientWrite(files: FileAccess, real: string, shown: string, content: string): Promise<void> {
  try {
    await files.writeTextFile(real, content);
  } catch (err) {
    throw new ToolError(`cannot write ${shown} through the client: ${reason(err)}`);
  }
}
