// A session handle of the SDK: tree, stats, the branch's messages, branch, fork, label, name,
// export, branch summaries and uncompact, tied to one session. After the agent switches sessions (new, switch, fork) an old
// handle refuses to act (stale_session); while a run is in progress, the changing ones refuse (busy).
import { resolve } from 'node:path';
import { summarizeBranch, type CompactionConfig } from '../agent/compactor.js';
import { uncompact } from '../session/compaction-plan.js';
import { resolveEntry } from '../session/resolve.js';
import { checkpointDirOf, CheckpointStore } from '../session/checkpoint-store.js';
import { sessionDiff } from '../session/file-diff.js';
import { rewindTo } from '../session/file-rewind.js';
import { sessionStats } from '../session/stats.js';
import type { SessionStore } from '../session/store.js';
import { treeJson } from '../session/tree-json.js';
import { formatTree } from '../session/tree-text.js';
import { collectFileLists, emptyFileLists, type FileTracker } from '../session/file-lists.js';
import { AgentError } from './errors.js';
import { runShellCommand, type ShellCommandHost } from './shell-command.js';
import type { AgentSessionHandle } from './types.js';
import { compactionKind, messageKind } from '../session/entry-kinds/index.js';

/** What a handle needs from its agent. */
export interface HandleHost {
  readonly cwd: string;
  store(): SessionStore;
  /** Bumped whenever the agent switches sessions. */
  generation(): number;
  check(): void;
  idleOnly(what: string): void;
  /** Forks root → entry into a new session, switches to it, and returns its handle. */
  fork(store: SessionStore, entryId: string): AgentSessionHandle;
  /** Runs a task in the queue of runs (after the run in progress). */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  compactionConfig(): CompactionConfig;
  /** The files each call touched, as the agent's tools say. */
  files: FileTracker;
  /** Runs a call through the agent's tools (permission gate, sandbox, hooks). */
  runTool: ShellCommandHost['runTool'];
}

export function sessionHandle(host: HandleHost, generation: number): AgentSessionHandle {
  const store = host.store();
  const live = (what: string) => {
    host.check();
    if (generation !== host.generation()) {
      throw new AgentError('stale_session', `this handle is for session ${store.id}, but the agent has switched to session ${host.store().id}; use agent.session`);
    }
    if (what !== 'read') host.idleOnly(what);
  };
  return {
    id: store.id,
    file: store.file,
    get name() {
      return store.name;
    },
    warnings: store.warnings,
    tree() {
      live('read');
      return treeJson(store, sessionStats(store));
    },
    treeText(width = 72) {
      live('read');
      return formatTree(store, width);
    },
    filesTouched() {
      live('read');
      // The latest compaction's lists, plus what its kept entries and everything after it touched.
      const path = store.activePath();
      for (let i = path.length - 1; i >= 0; i--) {
        const e = path[i];
        if (!compactionKind.is(e)) continue;
        const kept = path.findIndex((x) => x.id === e.firstKeptEntryId);
        return collectFileLists(path.slice(kept >= 0 ? kept : i + 1), e.details ?? emptyFileLists(), host.cwd, host.files);
      }
      return collectFileLists(path, emptyFileLists(), host.cwd, host.files);
    },
    branchMessages() {
      live('read');
      return store.activePath().flatMap((e) => (messageKind.is(e) ? [e.message] : []));
    },
    stats() {
      live('read');
      return sessionStats(store);
    },
    diff(entry) {
      live('read');
      return sessionDiff(store, entry === undefined ? undefined : resolveEntry(store, entry));
    },
    checkpointsSize() {
      live('read');
      return store.file ? new CheckpointStore(checkpointDirOf(store.file)).usage() : Promise.resolve(null);
    },
    rewind(entry, opts) {
      live(opts?.dryRun ? 'read' : 'rewind');
      return rewindTo(store, resolveEntry(store, entry), opts);
    },
    branch(entry) {
      live('branch');
      const id = resolveEntry(store, entry);
      store.checkout(id);
      store.sync();
      return id;
    },
    fork(entry) {
      live('fork');
      const id = resolveEntry(store, entry);
      return host.fork(store, id);
    },
    label(entry, label) {
      live('label');
      if (label !== null && label.trim() === '') throw new AgentError('invalid_argument', 'a label must not be empty; pass null to clear it');
      const id = resolveEntry(store, entry);
      store.append({ type: 'label', targetId: id, label });
      store.sync();
      return id;
    },
    setName(name) {
      live('rename the session');
      const clean = name === null ? null : name.trim() || null;
      store.append({ type: 'session_info', name: clean });
      store.sync();
    },
    async branchWithSummary(entry) {
      live('branch');
      const id = resolveEntry(store, entry);
      return host.exclusive(() => summarizeBranch({ store, config: host.compactionConfig(), targetId: id, cwd: host.cwd, signal: new AbortController().signal }));
    },
    uncompact() {
      live('uncompact');
      const undone = uncompact(store);
      if (!undone) throw new AgentError('invalid_argument', `session ${store.id} has no compaction on its active path`);
      return undone.leafId ?? '(before the first entry)';
    },
    async shell(command, opts = {}) {
      live('run a shell command');
      if (typeof command !== 'string' || command.trim() === '') throw new AgentError('invalid_argument', 'the shell command is empty');
      return host.exclusive(() => runShellCommand({ store: () => store, runTool: host.runTool }, command, opts.signal));
    },
    async export(format, file) {
      live('read');
      // Loaded here, not at start-up: a run never exports (issue 14).
      const { exportText, writeExport } = await import('./export.js');
      const text = await exportText(store, format);
      if (file === undefined) return text;
      const target = resolve(host.cwd, file);
      writeExport(target, text);
      return target;
    },
  };
}
