// `mini-agent sessions | tree | diff | label | name`: listing and navigating sessions (`sessions`
// shows what each session's file checkpoints take).
// Listing, tree and diff only read (no lock); label and name append, so they take the lock.
import { dirname } from 'node:path';
import { UsageError } from '../core/types.js';
import { listAllSessionFiles, listSessionFiles, summarizeAll, type SessionSummary } from '../session/catalog.js';
import { sessionStats } from '../session/stats.js';
import { SessionStore } from '../session/store.js';
import { EXIT } from '../app/exit-codes.js';
import { formatBytes } from '../app/checkpoints-text.js';
import { checkpointDirOf, CheckpointStore, type StoreUsage } from '../session/checkpoint-store.js';
import { agentHome, allSessionsDir, sessionPlace } from '../session/paths.js';
import { findExposed } from '../session/private-fs.js';
import { preview } from './render.js';
import { continueSession, resolveEntry, resolveSession } from '../session/resolve.js';
import { openForWrite } from '../app/session-open.js';
import { formatStats, formatTree } from '../session/tree-text.js';
import { treeJson } from '../session/tree-json.js';
import { sessionDiff } from '../session/file-diff.js';
import type { FrontEndIo } from '../app/front-end-io.js';

export async function sessionsCommand(args: { all: boolean; json: boolean }, io: FrontEndIo): Promise<number> {
  const out = stdoutOf(io);
  const { cwd, home, sessions } = here(io);
  const files = args.all ? listAllSessionFiles(allSessionsDir(home)) : listSessionFiles(sessions);
  const folders = [home, allSessionsDir(home), ...new Set(args.all ? files.map((f) => dirname(f)) : [sessions])];
  const exposed = exposureWarning(home, findExposed(folders), findExposed(files));
  if (exposed) io.stderr.write(`warning: ${exposed}\n`);
  const rows = await withCheckpoints(summarizeAll(files));
  if (args.json) {
    out(JSON.stringify(rows, null, 2) + '\n');
    return EXIT.completed;
  }
  if (rows.length === 0) {
    io.stderr.write(args.all ? 'no sessions yet\n' : `no sessions in this workspace (${cwd}); try --all\n`);
    return EXIT.completed;
  }
  out(formatSessionTable(rows, args.all));
  return EXIT.completed;
}

/**
 * One line naming what other users can read, and the chmod that fixes it. Existing files are
 * never re-permissioned silently: mini-agent creates private ones, and says so about the rest.
 */
export function exposureWarning(home: string, folders: readonly string[], files: readonly string[]): string | undefined {
  const all = [...folders, ...files];
  if (all.length === 0) return undefined;
  const what = [files.length > 0 ? `${files.length} session ${files.length === 1 ? 'file' : 'files'}` : '', folders.length > 0 ? `${folders.length} ${folders.length === 1 ? 'folder' : 'folders'}` : ''].filter(Boolean);
  const named = all.slice(0, 3).join(', ') + (all.length > 3 ? `, and ${all.length - 3} more` : '');
  return `${what.join(' and ')} can be read by other users (${named}); fix with: chmod -R go-rwx ${home}`;
}

/** A listed session, with what its file checkpoints take (`sessions --json`: `checkpoints`). */
export type ListedSession = SessionSummary & { checkpoints: StoreUsage };

async function withCheckpoints(rows: readonly SessionSummary[]): Promise<ListedSession[]> {
  return Promise.all(rows.map(async (r) => ({ ...r, checkpoints: await new CheckpointStore(checkpointDirOf(r.file)).usage() })));
}

export function formatSessionTable(rows: readonly ListedSession[], withCwd: boolean): string {
  const head = ['ID', 'NAME', 'LAST USED', 'ENTRIES', 'BRANCHES', 'CHECKPOINTS', ...(withCwd ? ['WORKSPACE'] : []), 'FIRST MESSAGE'];
  const table = rows.map((r) => [
    r.id.slice(0, 8),
    r.name ?? '',
    r.lastUsed.slice(0, 16).replace('T', ' '),
    String(r.entries),
    String(r.branches),
    r.checkpoints.objects === 0 ? '-' : formatBytes(r.checkpoints.bytes),
    ...(withCwd ? [r.cwd] : []),
    JSON.stringify(preview(r.firstUserMessage ?? '', 60)),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  const numeric = new Set([3, 4, 5]);
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ') + '\n';
  return line(head) + table.map(line).join('');
}

/** The workspace and its sessions folders: the environment is read here, at the edge. */
function here(io: FrontEndIo) {
  return sessionPlace(agentHome(io.env), io.cwd);
}

function stdoutOf(io: FrontEndIo): (s: string) => void {
  return (s) => void io.stdout.write(s);
}

function openForReading(spec: string | undefined, io: FrontEndIo): SessionStore {
  const file = spec === undefined ? continueSession(here(io)) : resolveSession(spec, here(io));
  return SessionStore.open(file);
}

export function treeCommand(args: { session?: string; json: boolean }, io: FrontEndIo): number {
  const out = stdoutOf(io);
  const store = openForReading(args.session, io);
  for (const w of store.warnings) io.stderr.write(`warning: ${w}\n`);
  const stats = sessionStats(store);
  if (args.json) out(JSON.stringify(treeJson(store, stats), null, 2) + '\n');
  else out(formatStats(store, stats) + formatTree(store));
  return EXIT.completed;
}

/** `diff [SESSION] [ENTRY]`: the files' changes on the session's active branch since ENTRY (default: since it began). */
export async function diffCommand(args: { session?: string; entry?: string }, io: FrontEndIo): Promise<number> {
  const store = openForReading(args.session, io);
  try {
    for (const w of store.warnings) io.stderr.write(`warning: ${w}\n`);
    const entryId = args.entry === undefined ? undefined : resolveEntry(store, args.entry);
    const patch = await sessionDiff(store, entryId);
    if (patch === '') io.stderr.write(`no file changes ${entryId === undefined ? 'in this session' : `since ${entryId}`} on its active branch\n`);
    else io.stdout.write(patch);
    return EXIT.completed;
  } finally {
    store.close();
  }
}

export function labelCommand(args: { session: string; entry: string; label: string | null }, io: FrontEndIo): number {
  const file = resolveSession(args.session, here(io));
  const { store, lock } = openForWrite(file, io.cwd);
  try {
    const entryId = resolveEntry(store, args.entry);
    if (args.label !== null && args.label.trim() === '') throw new UsageError('a label must not be empty; use --clear to remove one');
    store.append({ type: 'label', targetId: entryId, label: args.label });
    store.sync();
    io.stdout.write(args.label === null ? `cleared the label of ${entryId}\n` : `labelled ${entryId} "${args.label}"\n`);
    return EXIT.completed;
  } finally {
    store.close();
    lock.release();
  }
}

export function nameCommand(args: { session: string; name: string }, io: FrontEndIo): number {
  const file = resolveSession(args.session, here(io));
  const { store, lock } = openForWrite(file, io.cwd);
  try {
    const name = args.name.trim();
    store.append({ type: 'session_info', name: name === '' ? null : name });
    store.sync();
    io.stdout.write(name === '' ? `cleared the name of session ${store.id}\n` : `session ${store.id} is now named "${name}"\n`);
    return EXIT.completed;
  } finally {
    store.close();
    lock.release();
  }
}
