// `mini-agent export SESSION --format md|html|jsonl [-o FILE]` (read-only: no lock).
import { exportText, writeExport } from '../app/export.js';
import type { ExportFormat } from '../app/export-formats.js';
import { agentHome, sessionPlace } from '../session/paths.js';
import { resolveSession } from '../session/resolve.js';
import { SessionStore } from '../session/store.js';
import { EXIT } from '../app/exit-codes.js';
import type { FrontEndIo } from '../app/front-end-io.js';

export async function exportCommand(args: { session: string; format: ExportFormat; output?: string }, io: FrontEndIo): Promise<number> {
  const store = SessionStore.open(resolveSession(args.session, sessionPlace(agentHome(io.env), io.cwd)));
  for (const w of store.warnings) io.stderr.write(`warning: ${w}\n`);
  const text = await exportText(store, args.format);
  if (!args.output) {
    io.stdout.write(text);
    return EXIT.completed;
  }
  writeExport(args.output, text, io.cwd);
  io.stderr.write(`wrote ${args.output}\n`);
  return EXIT.completed;
}
