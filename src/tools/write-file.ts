// write_file: creates a file inside the workspace, or replaces one whole, atomically (a temp file
// beside it, then a rename, keeping an existing file's mode). Missing parent folders are created;
// the workspace boundary has already checked that they are inside. Writes to one path wait for
// each other in the queue shared by every tool that writes files (file-io.ts).
// With a client file access (an editor over ACP), the content goes to the client's buffer instead
// (no temp file, no folders created: the client owns the file and how it is saved).
// Over an existing file on disk, details.diff holds the unified diff from the old text (line-spans.ts
// finds the changed lines; it and jsdiff load at the first overwrite), for the front ends; the
// model's result stays one line.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Type } from '../core/type-builders.js';
import type { Static } from 'typebox';
import { atomicWrite, clientWrite, PathQueue } from './file-io.js';
import { ToolError, type ToolDefinition, type ToolDescriber } from './tool.js';
import { argumentSubject, nonEmpty, pathTouched } from './tool-describe.js';
import { formatBytes } from './truncate.js';
import { spanDiff } from './diff.js';
import { displayPath, resolveForWrite } from './workspace.js';

const Params = Type.Object(
  {
    path: Type.String(),
    content: Type.String({ description: 'The whole new content' }),
  },
  { additionalProperties: false },
);

type Args = Static<typeof Params>;

export const MAX_WRITE_BYTES = 20 * 1024 * 1024;

/** The `details` of a write_file result: the diff over an existing file is for the front ends (the model is not sent it). */
export type WriteFileDetails = {
  path: string;
  bytes: number;
  created: boolean;
  via?: 'client';
  diff?: string;
  linesAdded?: number;
  linesRemoved?: number;
};

/** A write_file call: the file it rewrites, with its whole new text (the content). */
export const writeFileDescriber: ToolDescriber<Args, WriteFileDetails> = {
  describe: (a) => ({
    title: `Write ${nonEmpty(a.path) ?? 'a file'}`,
    kind: 'edit',
    locations: nonEmpty(a.path) ? [{ path: a.path }] : [],
    subject: nonEmpty(a.path) ?? argumentSubject(a),
    ...(typeof a.path === 'string' ? { rewrites: { path: a.path, ...(typeof a.content === 'string' ? { newText: a.content } : {}) } } : {}),
  }),
  files: (a, result) => pathTouched('modified', a.path, result),
};

/** `queue`: the per-path queue shared by every tool that writes files; `maxBytes`: the largest content written. */
export function createWriteFileTool(opts: { queue?: PathQueue; maxBytes?: number } = {}): ToolDefinition<Args, WriteFileDetails> {
  const queue = opts.queue ?? new PathQueue();
  const maxBytes = opts.maxBytes ?? MAX_WRITE_BYTES;
  return {
    name: 'write_file',
    ...writeFileDescriber,
    description: `Create a file or replace a whole file (at most ${formatBytes(maxBytes)}); missing folders are created. To change part of a file, use edit_file.`,
    parameters: Params,
    risk: 'write',
    paths: (args, ctx) => [resolveForWrite(ctx, args.path)],
    async execute(args, ctx) {
      const bytes = Buffer.byteLength(args.content, 'utf8');
      if (bytes > maxBytes) {
        throw new ToolError(`content is ${formatBytes(bytes)} (${bytes} bytes), over write_file's limit of ${formatBytes(maxBytes)}; nothing was written`);
      }
      const target = resolveForWrite(ctx, args.path);
      const shown = displayPath(ctx, target);
      return queue.run(target, async () => {
        if (ctx.signal.aborted) throw new ToolError(`aborted before writing; ${shown} was not written`);
        await ctx.checkpoint?.(target);
        const existing = await stat(target).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return undefined;
          if (err.code === 'ENOTDIR') throw new ToolError(`path "${args.path}" goes through a file as if it were a folder`);
          throw new ToolError(`cannot write ${shown}: ${err.message}`);
        });
        if (existing?.isDirectory()) throw new ToolError(`${shown} is a folder; give the path of a file inside it`);
        if (existing && !existing.isFile()) throw new ToolError(`${shown} exists and is not a regular file (a special file); it was not replaced`);
        const size = `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
        if (ctx.files) {
          // The disk's size would not be the buffer's, so the result does not give the old size.
          await clientWrite(ctx.files, target, shown, args.content);
          return {
            content: `${existing ? 'Overwrote' : 'Created'} ${shown} (${size}; through the client).`,
            details: { path: shown, bytes, created: existing === undefined, via: 'client' },
          };
        }
        await mkdir(dirname(target), { recursive: true }).catch((err: NodeJS.ErrnoException) => {
          throw new ToolError(`cannot create the folders for ${shown}: ${err.code === 'EEXIST' || err.code === 'ENOTDIR' ? 'a file is in the way' : err.message}`);
        });
        // The old text, for the diff a front end shows (details.diff; the model is not sent it).
        const before = existing && existing.size <= maxBytes ? await readFile(target, 'utf8').catch(() => undefined) : undefined;
        await atomicWrite(target, args.content, existing?.mode, queue.journal);
        const diff = before === undefined || before.includes('\uFFFD') ? undefined : spanDiff(before, (await import('./line-spans.js')).lineSpans(before, args.content));
        return {
          content: existing ? `Overwrote ${shown} (${size}; it had ${existing.size}).` : `Created ${shown} (${size}).`,
          details: { path: shown, bytes, created: existing === undefined, ...(diff ? { diff: diff.text, linesAdded: diff.added, linesRemoved: diff.removed } : {}) },
        };
      });
    },
  };
}
