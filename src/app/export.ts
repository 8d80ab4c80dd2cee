// Exports of a session as text (Markdown, self-contained HTML, JSONL), and writing one to a file
// the user names: atomically (temp file + rename), with the user's umask, never half a file.
import { randomBytes } from 'node:crypto';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { redactSecrets } from '../core/redact.js';
import { UsageError } from '../core/types.js';
import { exportJsonl, exportMarkdown } from '../session/export-text.js';
import type { SessionStore } from '../session/store.js';
import type { ExportFormat } from './export-formats.js';

/** The HTML exporter (with marked, the Markdown lexer) loads only for an HTML export, never at start-up (issue 14). */
export async function exportText(store: SessionStore, format: ExportFormat): Promise<string> {
  // An export is made to be shared: anything shaped like a key (a tool result that read a .env
  // file, an old session's provider error) is hidden, in every format (the HTML exporter hides it
  // in the session data, not in its page script, which its CSP allows by hash). The replacement
  // holds no quote or backslash, so the JSON of a JSONL or HTML export stays valid.
  if (format === 'md') return redactSecrets(exportMarkdown(store));
  if (format === 'html') return (await import('../session/export-html.js')).exportHtml(store);
  if (format === 'jsonl') return redactSecrets(exportJsonl(store));
  throw new UsageError(`the export format must be md, html or jsonl, got "${String(format)}"`);
}

/** Temp file + rename: an error leaves no partial file behind. Throws UsageError naming the problem. */
export function writeExport(file: string, text: string, cwd?: string): void {
  const path = cwd === undefined ? file : resolve(cwd, file); // messages name `file` as given
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, path);
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
