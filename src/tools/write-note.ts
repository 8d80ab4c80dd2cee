// write_note: writes or appends text to a file inside the workspace.
// Overwrites are atomic (temp file + rename); writes to one path are serialized (file-io.ts).
import { appendFile, lstat, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Type } from '../core/type-builders.js';
import type { Static } from 'typebox';
import { atomicWrite, PathQueue } from './file-io.js';
import { ToolError, type ToolDefinition, type ToolDescriber } from './tool.js';
import { argumentSubject, nonEmpty, pathTouched } from './tool-describe.js';
import { formatBytes } from './truncate.js';
import { displayPath, resolveForWrite } from './workspace.js';

const Params = Type.Object(
  {
    path: Type.String(),
    text: Type.String({ description: 'Text to write' }),
    mode: Type.Optional(
      Type.Union([Type.Literal('overwrite'), Type.Literal('append')], {
        description: 'Default "overwrite"; "append" adds to the end',
      }),
    ),
  },
  { additionalProperties: false },
);

type Args = Static<typeof Params>;

export const MAX_NOTE_BYTES = 1024 * 1024;

/** A write_note call: the file it writes or appends to. */
/** The `details` of a write_note result. */
export type WriteNoteDetails = { path: string; mode: 'overwrite' | 'append'; bytes: number; created: boolean };

export const writeNoteDescriber: ToolDescriber<Args, WriteNoteDetails> = {
  describe: (a) => ({ title: `Note in ${nonEmpty(a.path) ?? 'a file'}`, kind: 'edit', locations: nonEmpty(a.path) ? [{ path: a.path }] : [], subject: nonEmpty(a.path) ?? argumentSubject(a) }),
  files: (a, result) => pathTouched('modified', a.path, result),
};

/** `queue`: shared with the other tools that write files, so that writes to one path never interleave. */
export function createWriteNoteTool(maxBytes = MAX_NOTE_BYTES, queue = new PathQueue()): ToolDefinition<Args, WriteNoteDetails> {
  return {
    name: 'write_note',
    ...writeNoteDescriber,
    description: `Write or append text to a file; missing folders are created. At most ${formatBytes(maxBytes)} per call.`,
    parameters: Params,
    risk: 'write',
    paths: (args, ctx) => [resolveForWrite(ctx, args.path)],
    async execute(args, ctx) {
      const mode = args.mode ?? 'overwrite';
      const bytes = Buffer.byteLength(args.text, 'utf8');
      if (bytes > maxBytes) {
        throw new ToolError(`text is ${formatBytes(bytes)}, over the ${formatBytes(maxBytes)} limit of one write; split it into several appends`);
      }
      const target = resolveForWrite(ctx, args.path);
      const shown = displayPath(ctx, target);
      return queue.run(target, async () => {
        if (ctx.signal.aborted) throw new ToolError('aborted before writing; nothing was written');
        await ctx.checkpoint?.(target);
        const existing = await lstat(target).catch(() => undefined);
        if (existing && !existing.isFile()) throw new ToolError(`${shown} exists and is not a regular file`);
        await mkdir(dirname(target), { recursive: true });
        if (mode === 'append') {
          await appendFile(target, args.text, 'utf8');
        } else {
          await atomicWrite(target, args.text, existing?.mode, queue.journal);
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
