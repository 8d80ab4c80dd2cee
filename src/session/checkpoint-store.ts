// File checkpoints (issue 26): what a file was before the agent changed it, kept in a private,
// content-addressed store beside the session file (`SESSION.checkpoints/objects/ab/cdef…`, folders
// 0700, objects 0600). An object is named by the SHA-256 of its bytes, so the same content is
// stored once however often it is checkpointed, and a damaged object is seen when it is read.
// A FileState says what was at a path: nothing, a file (its object, size and mode), a symlink
// (its target), a file over the size cap (noted, not stored), or something else (a folder, a
// special file), which is never restored. Capturing and restoring are I/O at the edge; this module
// knows nothing of tools, models or entries.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, link, lstat, mkdir, open, readFile, readlink, readdir, rename, rm, rmdir, stat, symlink, unlink } from 'node:fs/promises';
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KindedError } from '../core/types.js';
import type { FileState } from './entry-kinds/checkpoint.js';

/** Files larger than this are noted (size, mode) but their content is not stored. */
export const CHECKPOINT_MAX_FILE_BYTES = 10 * 1024 * 1024;

export type { FileState };

/** The folder of a session file's checkpoints: beside it, named after it. */
export function checkpointDirOf(sessionFile: string): string {
  return sessionFile.replace(/\.jsonl$/, '') + '.checkpoints';
}

/** The session file a checkpoint folder belongs to (`checkpointDirOf` backwards); undefined for a folder not named so. */
export function sessionFileOfCheckpoints(dir: string): string | undefined {
  return dir.endsWith('.checkpoints') ? `${dir.slice(0, -'.checkpoints'.length)}.jsonl` : undefined;
}

const HASH = /^[0-9a-f]{64}$/;
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export class CheckpointStore {
  /** The store of the latest other session beside this one, whose objects a put links instead of writing (null: none; undefined: not looked for yet). */
  private donor: string | null | undefined;

  constructor(
    readonly dir: string,
    readonly maxFileBytes: number = CHECKPOINT_MAX_FILE_BYTES,
  ) {}

  private objectPath(hash: string): string {
    if (!HASH.test(hash)) throw new Error(`not a checkpoint object name: ${JSON.stringify(hash)}`);
    return join(this.dir, 'objects', hash.slice(0, 2), hash.slice(2));
  }

  /**
   * Stores `bytes` once (an object that exists already is kept) and returns its name, the SHA-256
   * of the bytes. `durable: false` skips the flush to disk (for the many states a workspace scan
   * keeps in case it needs them: `flush` those a checkpoint entry names before appending it).
   */
  async put(bytes: Uint8Array, durable = true): Promise<string> {
    const hash = sha256(bytes);
    const path = this.objectPath(hash);
    if (await exists(path)) return hash;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    if (await this.linkFromDonor(hash, path)) return hash;
    // Written whole under a temp name, then renamed: a kill leaves a temp file or the whole object, never a part of one.
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeSynced(tmp, bytes, durable);
    await rename(tmp, path);
    return hash;
  }

  /**
   * Sessions of one workspace hold mostly the same files: an object the workspace's latest other
   * session stored already is hard-linked from its store rather than written again (its bytes are
   * checked against the name when read, as any object's).
   */
  private async linkFromDonor(hash: string, path: string): Promise<boolean> {
    if (this.donor === undefined) this.donor = await latestSibling(this.dir);
    if (this.donor === null) return false;
    return link(new CheckpointStore(this.donor).objectPath(hash), path).then(
      () => true,
      () => false,
    );
  }

  /** Flushes a stored object to disk (one put with `durable: false`). */
  async flush(hash: string): Promise<void> {
    const handle = await open(this.objectPath(hash), 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** The bytes of an object; an error when it is missing or its bytes are not the ones it was named for. */
  async get(hash: string): Promise<Buffer> {
    const bytes = await readFile(this.objectPath(hash)).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new MissingCheckpointError(hash, this.dir) : new Error(`cannot read checkpoint object ${hash.slice(0, 12)}: ${err.message}`);
    });
    if (sha256(bytes) !== hash) throw new Error(`checkpoint object ${hash.slice(0, 12)} in ${this.dir} is damaged (its bytes do not match its name)`);
    return bytes;
  }

  /** What is at `path` now, its content stored (see `put` for `durable`) when it is a file within the cap. */
  async capture(path: string, durable = true): Promise<FileState> {
    const st = await lstat(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
      throw err;
    });
    if (!st) {
      const missingFrom = await highestMissingFolder(path);
      return missingFrom === undefined ? { kind: 'absent' } : { kind: 'absent', missingFrom };
    }
    if (st.isSymbolicLink()) return { kind: 'symlink', target: await readlink(path) };
    if (!st.isFile()) return { kind: 'other' };
    const mode = st.mode & 0o7777;
    if (st.size > this.maxFileBytes) return { kind: 'too_big', size: st.size, mode };
    const bytes = await readFile(path);
    return { kind: 'file', blob: await this.put(bytes, durable), size: bytes.length, mode };
  }

  /** Whether `path` holds what `state` says (a file by the hash of its bytes). A file over the cap, or something else, is never taken to match. */
  async matches(path: string, state: FileState): Promise<boolean> {
    const st = await lstat(path).catch(() => undefined);
    switch (state.kind) {
      case 'absent':
        return st === undefined;
      case 'symlink':
        return st?.isSymbolicLink() === true && (await readlink(path)) === state.target;
      case 'file':
        return st?.isFile() === true && !st.isSymbolicLink() && st.size === state.size && sha256(await readFile(path)) === state.blob;
      default:
        return false;
    }
  }

  /**
   * Puts `state` back at `path`: a file's bytes and mode (written whole, then renamed into place),
   * a symlink, or nothing (the file is removed). A state that was not stored (over the cap, a
   * folder or special file) cannot be restored: an error says so and nothing is changed.
   */
  async restore(path: string, state: FileState): Promise<void> {
    if (state.kind === 'too_big') throw new Error(`${path} was over the checkpoint size cap (${state.size} bytes), so its earlier content was not kept`);
    if (state.kind === 'other') throw new Error(`${path} was not a regular file or a symlink, so it was not checkpointed`);
    const now = await lstat(path).catch(() => undefined);
    if (now?.isDirectory()) throw new Error(`${path} is a folder now; it was not replaced`);
    if (state.kind === 'absent') {
      if (now) await unlink(path);
      if (state.missingFrom !== undefined) await removeEmptyFolders(dirname(path), state.missingFrom);
      return;
    }
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${dirname(path)}/.${path.split('/').pop()}.${process.pid}.${randomBytes(4).toString('hex')}.restore`;
    try {
      if (state.kind === 'symlink') {
        await symlink(state.target, tmp);
      } else {
        await writeSynced(tmp, await this.get(state.blob));
        await chmod(tmp, state.mode); // open() applies the umask: set the exact mode afterwards
      }
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /**
   * Makes these objects part of the store in `dir` too (a fork's): hard links, or copies where a
   * link cannot be made; an object already there is kept. Synchronous: a fork is written at once.
   */
  linkInto(dir: string, blobs: readonly string[]): void {
    const into = new CheckpointStore(dir, this.maxFileBytes);
    for (const blob of new Set(blobs)) {
      const from = this.objectPath(blob);
      const to = into.objectPath(blob);
      if (existsSync(to) || !existsSync(from)) continue;
      mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to);
        chmodSync(to, 0o600);
      }
    }
  }

  /** Whether the object is in the store (not checked against its name: `get` does that). */
  async has(hash: string): Promise<boolean> {
    return exists(this.objectPath(hash));
  }

  /** How many objects the store holds and the bytes they take (for `sessions` and `/status`); a fork's hard-linked objects count in its store too. */
  async usage(): Promise<StoreUsage> {
    const root = join(this.dir, 'objects');
    const usage = { bytes: 0, objects: 0 };
    for (const sub of await readdir(root).catch(() => [] as string[])) {
      for (const name of await readdir(join(root, sub)).catch(() => [] as string[])) {
        if (!HASH.test(sub + name)) continue; // a temp file a kill left: gc's to remove
        const st = await stat(join(root, sub, name)).catch(() => undefined);
        if (!st) continue;
        usage.bytes += st.size;
        usage.objects++;
      }
    }
    return usage;
  }
}

/** What a checkpoint store holds: its objects and their bytes. */
export interface StoreUsage {
  bytes: number;
  objects: number;
}

/** An object a checkpoint entry names is not in the store (removed by `mini-agent gc`, or by hand): the state it held cannot be shown or restored. */
export class MissingCheckpointError extends KindedError {
  override name = 'MissingCheckpointError';
  constructor(
    readonly blob: string,
    readonly dir: string,
    readonly path?: string,
  ) {
    super('not_found', `checkpoint object ${blob.slice(0, 12)}${path === undefined ? '' : ` (${path})`} is missing from ${dir} (removed by \`mini-agent gc\` or by hand): the file state it held cannot be shown or restored`);
  }
}

/** The checkpoint store beside `dir` (another session's of the same workspace) written last, or null. */
async function latestSibling(dir: string): Promise<string | null> {
  const parent = dirname(dir);
  let best: { dir: string; at: number } | null = null;
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const other = join(parent, name);
    if (!name.endsWith('.checkpoints') || other === dir) continue;
    const at = (await stat(join(other, 'objects')).catch(() => undefined))?.mtimeMs;
    if (at !== undefined && (best === null || at > best.at)) best = { dir: other, at };
  }
  return best?.dir ?? null;
}

/** The highest folder above `path` that does not exist (undefined when its folder exists). */
async function highestMissingFolder(path: string): Promise<string | undefined> {
  let missing: string | undefined;
  for (let dir = dirname(path); dir !== dirname(dir) && !(await exists(dir)); dir = dirname(dir)) missing = dir;
  return missing;
}

/** Removes `from` and the folders above it up to `top`, while they are empty (a folder with anything in it stays, and so do those above it). */
async function removeEmptyFolders(from: string, top: string): Promise<void> {
  if (from !== top && !from.startsWith(`${top}/`)) return;
  for (let dir = from; ; dir = dirname(dir)) {
    if (
      !(await rmdir(dir).then(
        () => true,
        () => false,
      ))
    )
      return;
    if (dir === top) return;
  }
}

/** Writes `bytes` to `tmp`, a new private file, and (unless not `durable`) flushes it to disk; the caller renames it into place. */
async function writeSynced(tmp: string, bytes: Uint8Array, durable = true): Promise<void> {
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(bytes);
    if (durable) await handle.sync();
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}
