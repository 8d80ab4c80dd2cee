// write_note: writes or appends text to a file inside the workspace.
// Overwrites are atomic (temp file + rename); writes to one path are serialized.
import { randomBytes } from 'node:crypto';
import { appendFile, lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Type, type Static } from 'typebox';
import { ToolError, type ToolDefinition } from './tool.js';
import { formatBytes } from './truncate.js';
import { displayPath, resolveForWrite } from './workspace.js';

const Params = Type.Object(
  {
    path: Type.String({ description: 'File path, relative to the workspace' }),
    text: Type.String({ description: 'The text to write' }),
    mode: Type.Optional(
      Type.Union([Type.Literal('overwrite'), Type.Literal('append')], {
        description: '"overwrite" (default) replaces the file; "append" adds to its end',
      }),
    ),
  },
  { additionalProperties: false },
);

type Args = Static<typeof Params>;

export const MAX_NOTE_BYTES = 1024 * 1024;

/** Runs tasks with the same key one after another, in the order they were queued. */
class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();
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

export function createWriteNoteTool(maxBytes = MAX_NOTE_BYTES): ToolDefinition<Args> {
  const queue = new KeyedQueue();
  return {
    name: 'write_note',
    description: `Write text to a file in the workspace (mode "overwrite" or "append"); missing folders are created. At most ${formatBytes(maxBytes)} per call.`,
    parameters: Params,
    risk: 'write',
    async execute(args, ctx) {
      const mode = args.mode ?? 'overwrite';
      const bytes = Buffer.byteLength(args.text, 'utf8');
      if (bytes > maxBytes) {
        throw new ToolError(`text is ${formatBytes(bytes)}, over the ${formatBytes(maxBytes)} limit of one write; split it into several appends`);
      }
      const target = resolveForWrite(ctx.cwd, args.path);
      const shown = displayPath(ctx.cwd, target);
      return queue.run(target, async () => {
        if (ctx.signal.aborted) throw new ToolError('aborted before writing; nothing was written');
        const existing = await lstat(target).catch(() => undefined);
        if (existing && !existing.isFile()) throw new ToolError(`${shown} exists and is not a regular file`);
        await mkdir(dirname(target), { recursive: true });
        if (mode === 'append') {
          await appendFile(target, args.text, 'utf8');
        } else {
          await atomicWrite(target, args.text, existing?.mode);
        }
        const verb = mode === 'append' ? 'Appended' : 'Wrote';
        return {
          content: `${verb} ${bytes} bytes to ${shown}.`,
          details: { path: shown, mode, bytes, created: existing === undefined },
        };
      });
    },
  };
}

async function atomicWrite(target: string, text: string, mode?: number): Promise<void> {
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'wx', mode ?? 0o644);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync(); // the new content is on disk before the rename makes it visible
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
