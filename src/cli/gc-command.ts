// `mini-agent gc [--dry-run] [--max-age-days N]`: removes the file checkpoints that can go, in every
// workspace's sessions folder under the home (session/checkpoint-gc.ts decides and removes): those
// of deleted sessions, and those of sessions not written for N days (the config key
// checkpoints.maxAgeDays unless the flag gives N; 0: never by age). Session files are never touched;
// a session a live process has open is skipped. Prints each store removed (or, with --dry-run, that
// would be) and the bytes freed. Exit 0, or 1 when a store could not be removed.
import { relative } from 'node:path';
import { formatBytes } from '../app/checkpoints-text.js';
import { loadConfig } from '../app/config.js';
import { EXIT } from '../app/exit-codes.js';
import type { FrontEndIo } from '../app/front-end-io.js';
import { collectCheckpoints, type GcRemoval, type GcReport } from '../session/checkpoint-gc.js';
import { agentHome, allSessionsDir } from '../session/paths.js';

/** A store without its session file is left this long after its last write: a fork links its objects before it writes its session file. */
const ORPHAN_GRACE_MS = 60_000;

export function gcCommand(args: { dryRun: boolean; maxAgeDays?: number }, io: FrontEndIo): number {
  const home = agentHome(io.env);
  const resolved = loadConfig(io.cwd, io.env, {}, home);
  for (const w of resolved.warnings ?? []) io.stderr.write(`warning: ${w}\n`);
  const maxAgeDays = args.maxAgeDays ?? resolved.config.checkpoints.maxAgeDays;
  const root = allSessionsDir(home);
  const report = collectCheckpoints({ sessionsRoot: root, maxAgeDays, now: Date.now(), graceMs: ORPHAN_GRACE_MS, dryRun: args.dryRun });
  io.stdout.write(reportText(report, { root, maxAgeDays, dryRun: args.dryRun }));
  for (const f of report.failed) io.stderr.write(`mini-agent: could not remove ${relative(root, f.dir)}: ${f.error}\n`);
  return report.failed.length > 0 ? EXIT.error : EXIT.completed;
}

function reportText(report: GcReport, o: { root: string; maxAgeDays: number; dryRun: boolean }): string {
  const shown = (dir: string) => relative(o.root, dir);
  const lines = report.removed.map((r) => `${o.dryRun ? 'would remove' : 'removed'} ${removalText(r, shown(r.dir), o.maxAgeDays)}`);
  for (const s of report.skipped) lines.push(`skipped ${shown(s.dir)}: ${s.why}`);
  const age = o.maxAgeDays > 0 ? `of sessions written in the last ${o.maxAgeDays} ${o.maxAgeDays === 1 ? 'day' : 'days'}` : '(maxAgeDays 0: none is removed by age)';
  const kept = `kept ${report.kept.stores} checkpoint ${report.kept.stores === 1 ? 'store' : 'stores'} (${formatBytes(report.kept.bytes)}) ${age}`;
  if (report.removed.length === 0) lines.push(`nothing to remove; ${kept}`);
  else lines.push(`${o.dryRun ? 'would free' : 'freed'} ${formatBytes(report.freed)}; ${kept}${o.dryRun ? ' (a dry run: nothing was removed)' : ''}`);
  return lines.map((l) => `${l}\n`).join('');
}

function removalText(r: GcRemoval, dir: string, maxAgeDays: number): string {
  const freed = r.freed === r.bytes ? '' : ` (${formatBytes(r.freed)} freed: the rest is hard-linked from another session's store)`;
  switch (r.reason.kind) {
    case 'deleted':
      return `${dir} (its session was deleted): ${count(r.files, 'object')}, ${formatBytes(r.bytes)}${freed}`;
    case 'aged':
      return `${dir} (its session was last written ${r.reason.lastUsed.slice(0, 10)}, over ${maxAgeDays} ${maxAgeDays === 1 ? 'day' : 'days'} ago): ${count(r.files, 'object')}, ${formatBytes(r.bytes)}${freed}`;
    case 'temp':
      return `${count(r.files, 'temp file')} left by an interrupted write in ${dir}: ${formatBytes(r.bytes)}`;
  }
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
