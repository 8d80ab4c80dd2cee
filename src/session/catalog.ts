// Finding and summarizing session files without reading them whole: the header from the
// head, the latest `run` entry (with its snapshot) from the tail. Read-only: no lock.
import { closeSync, fstatSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Stats } from '../core/events.js';
import { readAt } from '../core/read-at.js';
import { isContentEntry, type RunEntry, type SessionEntry, type SessionHeader } from './entries.js';
import { readHeaderAt } from './session-file.js';
import { sessionStats, snapshotOf } from './stats.js';
import { SessionStore } from './store.js';
import { leafKind, runKind, sessionInfoKind } from './entry-kinds/index.js';

export interface SessionSummary {
  id: string;
  file: string;
  cwd: string;
  name: string | null;
  created: string;
  /** Last write (file mtime). */
  lastUsed: string;
  entries: number;
  branches: number;
  firstUserMessage: string | null;
  parentSession: SessionHeader['parentSession'] | null;
  stats: { session: Stats; activePath: Stats } | null;
  lastRun: Omit<RunEntry, 'type' | 'id' | 'parentId' | 'snapshot'> | null;
}

const TAIL = 64 * 1024;

/** Session files (`*.jsonl`) of one folder, or of every workspace folder under `sessionsRoot`. */
export function listSessionFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

export function listAllSessionFiles(sessionsRoot: string): string[] {
  let dirs: string[];
  try {
    dirs = readdirSync(sessionsRoot, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(sessionsRoot, d.name));
  } catch {
    return [];
  }
  return dirs.flatMap(listSessionFiles);
}

/** Summarizes one session file; undefined when it is not a readable session. */
export function summarizeSession(file: string): SessionSummary | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const header = readHeaderAt(fd) as SessionHeader | undefined;
    if (header?.type !== 'session' || typeof header.id !== 'string') return undefined;
    const base = {
      id: header.id,
      file,
      cwd: header.cwd,
      created: header.timestamp,
      lastUsed: stat.mtime.toISOString(),
      parentSession: header.parentSession ?? null,
    };
    const tailStart = Math.max(0, stat.size - TAIL);
    const tail = readAt(fd, tailStart, stat.size - tailStart).toString('utf8');
    const fromTail = fromTailRun(tail, tailStart === 0);
    if (fromTail) return { ...base, ...fromTail };
    return { ...base, ...fullScan(file) };
  } catch {
    return undefined; // not readable as a session (a folder, a newer format, an I/O error): skipped
  } finally {
    closeSync(fd);
  }
}

/** Uses the last `run` entry in the tail plus what was appended after it. */
function fromTailRun(tail: string, isWholeFile: boolean): Omit<SessionSummary, 'id' | 'file' | 'cwd' | 'created' | 'lastUsed' | 'parentSession'> | undefined {
  const lines = tail.split('\n');
  if (!isWholeFile) lines.shift(); // maybe a partial line
  let after = 0;
  let contentAfter = false;
  let name: string | null | undefined;
  for (let i = lines.length - 1; i >= (isWholeFile ? 1 : 0); i--) {
    const line = lines[i];
    if (line.trim() === '') continue;
    let e: SessionEntry;
    try {
      e = JSON.parse(line) as SessionEntry;
    } catch {
      continue; // torn or corrupt: not an entry
    }
    if (runKind.is(e) && e.snapshot) {
      if (contentAfter) return undefined; // the shape changed since: count properly
      const { type: _t, id: _i, parentId: _p, snapshot, ...lastRun } = e;
      const stats = snapshot.stats ? addRun(snapshot.stats, e) : null;
      return {
        name: name !== undefined ? name : snapshot.name,
        entries: snapshot.entries + 1 + after,
        branches: snapshot.branches,
        firstUserMessage: snapshot.firstUserMessage,
        stats,
        lastRun: { ...lastRun, timestamp: e.timestamp } as SessionSummary['lastRun'],
      };
    }
    after++;
    // New content changes the counts; a leaf move changes the active path (and its stats).
    if (isContentEntry(e) || leafKind.is(e)) contentAfter = true;
    if (sessionInfoKind.is(e) && name === undefined) name = e.name;
  }
  return undefined;
}

/** The snapshot predates its own run record: add the run's wall time. */
function addRun(stats: { session: Stats; activePath: Stats }, run: RunEntry) {
  return {
    session: { ...stats.session, wallTimeMs: stats.session.wallTimeMs + run.durationMs },
    activePath: { ...stats.activePath, wallTimeMs: stats.activePath.wallTimeMs + run.durationMs },
  };
}

function fullScan(file: string): Omit<SessionSummary, 'id' | 'file' | 'cwd' | 'created' | 'lastUsed' | 'parentSession'> {
  const store = SessionStore.open(file);
  const stats = sessionStats(store);
  const snap = snapshotOf(store, stats);
  const last = [...store.entries()].reverse().find((e): e is RunEntry => runKind.is(e));
  let lastRun: SessionSummary['lastRun'] = null;
  if (last) {
    const { type: _t, id: _i, parentId: _p, snapshot: _s, ...rest } = last;
    lastRun = rest;
  }
  return {
    name: snap.name,
    entries: snap.entries,
    branches: snap.branches,
    firstUserMessage: snap.firstUserMessage,
    stats: { session: stats.session, activePath: stats.activePath },
    lastRun,
  };
}

/** Summaries, most recently used first. Unreadable files are skipped. */
export function summarizeAll(files: readonly string[]): SessionSummary[] {
  return files
    .map(summarizeSession)
    .filter((s): s is SessionSummary => s !== undefined)
    .sort((a, b) => (a.lastUsed < b.lastUsed ? 1 : a.lastUsed > b.lastUsed ? -1 : 0));
}

/** The most recently written session file among `files` (by mtime), cheaply. */
export function mostRecent(files: readonly string[]): string | undefined {
  let best: { file: string; mtime: number } | undefined;
  for (const file of files) {
    try {
      const m = statSync(file).mtimeMs;
      if (!best || m > best.mtime) best = { file, mtime: m };
    } catch {
      /* vanished */
    }
  }
  return best?.file;
}
