// `--branch ENTRY --restore-files` (issue 26 §2): branch to ENTRY and put the files the agent
// changed back as they were there, in one step. It is a rewind of both, files and leaf, asked for
// explicitly, so it does not ask again; but a file changed outside the agent since its last change
// is not overwritten without --force: then nothing is done (the leaf does not move either) and a
// usage error names the files. Without a prompt no agent starts (as --branch alone); with one, the
// agent's session handle does the rewind before the run.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AgentSessionHandle } from '../app/types.js';
import type { AgentFlags } from '../app/flags.js';
import type { FrontEndIo } from '../app/front-end-io.js';
import { shownPath } from '../app/rewind-text.js';
import { openSession } from '../app/session-open.js';
import { UsageError } from '../core/types.js';
import { rewindTo, type RewindOutcome, type RewindPlan } from '../session/file-rewind.js';
import { agentHome, sessionPlace } from '../session/paths.js';
import { resolveEntry } from '../session/resolve.js';

/** --branch needs entries: a named session file that does not exist is an error here, never a new session. */
export function requireSessionFile(flags: AgentFlags, cwd: string): void {
  const s = flags.session;
  if (typeof s === 'object' && 'file' in s && !existsSync(resolve(cwd, s.file))) throw new UsageError(`session file not found: ${s.file}`);
}

/** The refusal when the plan would overwrite files changed outside the agent and --force was not given. */
function refusal(plan: RewindPlan, cwd: string, force: boolean): UsageError | undefined {
  if (plan.changedOutside.length === 0 || force) return undefined;
  const files = plan.changedOutside.map((p) => shownPath(cwd, p));
  return new UsageError(
    `not branched: ${files.join(', ')} ${files.length === 1 ? 'was' : 'were'} changed outside the agent since its last change; give --force to overwrite ${files.length === 1 ? 'it' : 'them'}, or leave out --restore-files`,
  );
}

function report(done: RewindOutcome, cwd: string, io: FrontEndIo): void {
  const restored = done.restored.map((p) => shownPath(cwd, p));
  io.stderr.write(`mini-agent: ${restored.length > 0 ? `restored ${restored.join(', ')} to their state at ${done.entryId}` : `the files are as they were at ${done.entryId}: nothing to restore`}\n`);
  for (const p of done.plan.notKept) io.stderr.write(`mini-agent: left ${shownPath(cwd, p)}: its state at ${done.entryId} was not kept (over the size cap, or not a regular file)\n`);
}

/** Without a prompt: the session opened (the lock taken), the files restored and the leaf moved, no agent. */
export async function branchAndRestore(flags: AgentFlags, force: boolean, io: FrontEndIo): Promise<string> {
  requireSessionFile(flags, io.cwd);
  const opened = openSession({ place: sessionPlace(agentHome(io.env), io.cwd), session: flags.session });
  const { store } = opened;
  try {
    for (const note of opened.notes) io.stderr.write(`mini-agent: ${note}\n`);
    const entryId = resolveEntry(store, flags.branch!);
    const { plan } = await rewindTo(store, entryId, { dryRun: true });
    const refused = refusal(plan, store.header.cwd, force);
    if (refused) throw refused;
    const done = await rewindTo(store, entryId, { force });
    report(done, store.header.cwd, io);
    return `active leaf of session ${store.id} is now ${entryId}\n`;
  } finally {
    store.close();
    opened.lock?.release();
  }
}

/**
 * With an agent (a prompt follows, or --summarize-left): refuses first, before anything moves; then
 * `branch` moves the leaf (a plain branch, or one with a summary of the branch left: false when it
 * failed, and then nothing else is done), and the files are restored.
 */
export async function restoreWithAgent(session: AgentSessionHandle, entry: string, force: boolean, cwd: string, io: FrontEndIo, branch?: () => Promise<boolean>): Promise<boolean> {
  const { plan } = await session.rewind(entry, { dryRun: true });
  const refused = refusal(plan, cwd, force);
  if (refused) throw refused;
  if (branch && !(await branch())) return false;
  report(await session.rewind(entry, { force, filesOnly: branch !== undefined }), cwd, io);
  return true;
}
