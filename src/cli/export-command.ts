// `mini-agent export SESSION --format md|html|jsonl [-o FILE]` (read-only: no lock).
import { randomBytes } from 'node:crypto';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { UsageError } from '../core/types.js';
import { exportHtml } from '../session/export-html.js';
import { exportJsonl, exportMarkdown } from '../session/export-text.js';
import { SessionStore } from '../session/store.js';
import { EXIT } from './exit-codes.js';
import { resolveSession } from '../session/resolve.js';

export function exportCommand(args: { session: string; format: 'md' | 'html' | 'jsonl'; output?: string }): number {
  const store = SessionStore.open(resolveSession(args.session, process.cwd()));
  for (const w of store.warnings) process.stderr.write(`warning: ${w}\n`);
  const text = args.format === 'md' ? exportMarkdown(store) : args.format === 'html' ? exportHtml(store) : exportJsonl(store);
  if (!args.output) {
    process.stdout.write(text);
    return EXIT.completed;
  }
  writeAtomically(args.output, text);
  process.stderr.write(`wrote ${args.output}\n`);
  return EXIT.completed;
}

/** Temp file + rename: an error leaves no partial file behind. */
function writeAtomically(file: string, text: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* never created */
    }
    throw new UsageError(`cannot write ${file}: ${writeProblem(err as NodeJS.ErrnoException)}`);
  }
}

function writeProblem(err: NodeJS.ErrnoException): string {
  const why: Record<string, string> = {
    ENOENT: 'its directory does not exist',
    ENOTDIR: 'a part of the path is not a directory',
    EISDIR: 'it is a directory',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on the device',
  };
  return err.code ? `${why[err.code] ?? err.message} (${err.code})` : err.message;
}
