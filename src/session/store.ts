// SessionStore: the append-only entry tree. It knows nothing of models or tools.
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, existsSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Message } from '../core/types.js';
import { isContentEntry, isContentInput, SESSION_FORMAT_VERSION, type ContentEntry, type MessageEntry, type NewEntry, type RunEntry, type RunRecord, type SessionEntry, type SessionHeader } from './entries.js';
import { makePrivateDir, openPrivateFile } from './private-fs.js';
import { FileSink, MemorySink, parseSessionText, SessionFileError, type EntrySink } from './session-file.js';
import { snapshotOf } from './stats.js';
import { checkpointKind, compactionFailedKind, compactionKind, labelKind, leafKind, modelChangeKind, modelWindowKind, permissionGrantKind, runKind, sessionInfoKind } from './entry-kinds/index.js';

export interface CreateOptions {
  cwd: string;
  id?: string;
  now?: () => Date;
  /** Use this header as is (forks, migrations). */
  header?: SessionHeader;
}

export class SessionStore {
  private readonly byId = new Map<string, SessionEntry>();
  /** Built on first use: loading and the active path do not need it. */
  private childIndex: Map<string | null, ContentEntry[]> | undefined;
  private readonly labelIndex = new Map<string, string>();
  private readonly all: SessionEntry[] = [];
  private leaf: string | null = null;
  private sessionName: string | null = null;
  private readonly now: () => Date;

  private constructor(
    readonly header: SessionHeader,
    /** The file behind this store, or null when it lives in memory only. */
    readonly file: string | null,
    private readonly sink: EntrySink,
    /** Problems found while loading (corrupt lines, torn tail), with line numbers. */
    readonly warnings: readonly string[] = [],
    now?: () => Date,
  ) {
    this.now = now ?? (() => new Date());
  }

  /** A session that lives in memory only (`--no-session`, tests). */
  static inMemory(opts: CreateOptions): SessionStore {
    if (opts.header) return new SessionStore(opts.header, null, new MemorySink(), [], opts.now);
    return new SessionStore(newHeader(opts), null, new MemorySink(), [], opts.now);
  }

  /** Creates a new session file. Refuses to touch a file that already exists. */
  static create(file: string, opts: CreateOptions): SessionStore {
    const header = opts.header ?? newHeader(opts);
    makePrivateDir(dirname(file));
    let fd: number;
    try {
      fd = openPrivateFile(file, 'wx'); // 0600: a conversation is its owner's only
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new SessionFileError(`${file}: already exists; refusing to overwrite it`);
      }
      throw err;
    }
    try {
      writeSync(fd, JSON.stringify(header) + '\n');
    } finally {
      closeSync(fd);
    }
    return new SessionStore(header, file, new FileSink(file), [], opts.now);
  }

  /** Loads an existing session file. Corrupt lines are skipped with a warning; the file is never rewritten. */
  static open(file: string, opts: { now?: () => Date } = {}): SessionStore {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'EISDIR' ? 'is a directory, not a session file' : code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (err as Error).message})`;
      throw new SessionFileError(`${file} ${why}`);
    }
    const parsed = parseSessionText(bytes, file);
    const store = new SessionStore(parsed.header, file, new FileSink(file, parsed.needsNewline), parsed.warnings, opts.now);
    const warnings = store.warnings as string[];
    for (const entry of parsed.entries) store.index(entry, warnings);
    return store;
  }

  /** Opens FILE when it exists (an empty file counts as new), otherwise creates it. */
  static openOrCreate(file: string, opts: CreateOptions): SessionStore {
    if (!existsSync(file)) return SessionStore.create(file, opts);
    if (statSync(file).size === 0) {
      const header = newHeader(opts);
      const store = new SessionStore(header, file, new FileSink(file), [], opts.now);
      (store.sink as FileSink).appendLine(JSON.stringify(header));
      return store;
    }
    return SessionStore.open(file, opts);
  }

  get id(): string {
    return this.header.id;
  }

  /** The id of the active leaf, or null before the first entry. */
  get leafId(): string | null {
    return this.leaf;
  }

  /** Every entry in file order (content and control entries). */
  entries(): readonly SessionEntry[] {
    return this.all;
  }

  get(id: string): SessionEntry | undefined {
    return this.byId.get(id);
  }

  /** The tree children (message and compaction entries) of an entry, or the roots for null, in append order. */
  children(id: string | null): readonly ContentEntry[] {
    if (!this.childIndex) {
      this.childIndex = new Map();
      for (const e of this.all) if (isContentEntry(e)) this.addChild(e);
    }
    return this.childIndex.get(id) ?? [];
  }

  /** The label currently set on an entry (the last label entry wins). */
  labelOf(id: string): string | undefined {
    return this.labelIndex.get(id);
  }

  labels(): ReadonlyMap<string, string> {
    return this.labelIndex;
  }

  /** The content entries from the root to the active leaf. */
  activePath(): ContentEntry[] {
    return this.pathTo(this.leaf);
  }

  /** The content entries from the root to `id`. */
  pathTo(id: string | null): ContentEntry[] {
    const path: ContentEntry[] = [];
    let cur = id === null ? undefined : this.byId.get(id);
    while (cur && isContentEntry(cur)) {
      path.push(cur);
      // More steps than entries means a parent cycle (only a hand-edited file can hold one).
      if (path.length > this.byId.size) return this.pathWithoutCycle(id);
      cur = cur.parentId === null ? undefined : this.byId.get(cur.parentId);
    }
    return path.reverse();
  }

  private pathWithoutCycle(id: string | null): ContentEntry[] {
    const path: ContentEntry[] = [];
    const seen = new Set<string>();
    let cur = id === null ? undefined : this.byId.get(id);
    while (cur && isContentEntry(cur) && !seen.has(cur.id)) {
      seen.add(cur.id);
      path.push(cur);
      cur = cur.parentId === null ? undefined : this.byId.get(cur.parentId);
    }
    return path.reverse();
  }

  /**
   * Appends one entry as one line. Content entries become children of the active leaf
   * (unless parentId is given) and the new leaf.
   */
  append(input: NewEntry): SessionEntry {
    // Key order puts the tree fields first, so a line reads well and starts the same way every time.
    const id = this.newId();
    const timestamp = this.now().toISOString();
    let entry: SessionEntry;
    if (isContentInput(input)) {
      const parentId = input.parentId === undefined ? this.leaf : input.parentId;
      if (parentId !== null) this.requireContent(parentId);
      const { parentId: _ignored, type, ...payload } = input;
      entry = { type, id, parentId, timestamp, ...payload } as ContentEntry;
      if (compactionKind.is(entry) && !this.byId.has(entry.firstKeptEntryId)) {
        throw new Error(`compaction: firstKeptEntryId "${entry.firstKeptEntryId}" is not in this session`);
      }
    } else if (labelKind.is(input)) {
      this.requireContent(input.targetId);
      entry = { type: 'label', id, parentId: null, timestamp, targetId: input.targetId, label: input.label };
    } else if (sessionInfoKind.is(input)) {
      entry = { type: 'session_info', id, parentId: null, timestamp, name: input.name };
    } else if (runKind.is(input)) {
      entry = { ...input, id, parentId: null, timestamp, type: 'run' };
    } else if (compactionFailedKind.is(input)) {
      entry = { ...input, id, parentId: null, timestamp, type: 'compaction_failed' };
    } else if (permissionGrantKind.is(input)) {
      entry = { type: 'permission_grant', id, parentId: null, timestamp, rule: input.rule, ...(input.seal !== undefined ? { seal: input.seal } : {}) };
    } else if (modelChangeKind.is(input)) {
      entry = { type: 'model_change', id, parentId: null, timestamp, provider: input.provider, model: input.model };
    } else if (modelWindowKind.is(input)) {
      entry = { ...input, id, parentId: null, timestamp, type: 'model_window' };
    } else if (checkpointKind.is(input)) {
      this.requireContent(input.entryId);
      entry = { type: 'checkpoint', id, parentId: null, timestamp, entryId: input.entryId, files: input.files };
    } else {
      if (input.targetId !== null) this.requireContent(input.targetId);
      entry = { type: 'leaf', id, parentId: null, timestamp, targetId: input.targetId };
    }
    this.sink.appendLine(JSON.stringify(entry));
    this.index(entry);
    return entry;
  }

  /**
   * Appends the record of a run with a snapshot of the session's shape just before it (counts,
   * name, first message, stats), so a listing can summarize the file from its tail, then fsyncs.
   */
  recordRun(record: RunRecord): RunEntry {
    const entry = this.append({ type: 'run', ...record, snapshot: snapshotOf(this) }) as RunEntry;
    this.sync();
    return entry;
  }

  appendMessage(message: Message): MessageEntry {
    return this.append({ type: 'message', message }) as MessageEntry;
  }

  /** The display name (the last session_info entry), or null. */
  get name(): string | null {
    return this.sessionName;
  }

  /** Tips of the tree: content entries without children. */
  branchCount(): number {
    const parents = new Set<string>();
    let content = 0;
    for (const e of this.all) {
      if (!isContentEntry(e)) continue;
      content++;
      if (e.parentId !== null) parents.add(e.parentId);
    }
    let tips = content;
    for (const id of parents) if (this.byId.has(id) && isContentEntry(this.byId.get(id)!)) tips--;
    return tips;
  }

  /** Moves the active leaf to `id` (null: before the first entry) and persists the move. */
  checkout(id: string | null): void {
    if (id === this.leaf) return;
    this.append({ type: 'leaf', targetId: id });
  }

  /** Flushes appended entries to disk (fsync). */
  sync(): void {
    this.sink.sync();
  }

  close(): void {
    this.sink.close();
  }

  private requireContent(id: string): void {
    const e = this.byId.get(id);
    if (!e) throw new Error(`entry "${id}" is not in session ${this.header.id}`);
    if (!isContentEntry(e)) throw new Error(`entry "${id}" is a ${e.type} entry, not a message or compaction`);
  }

  private addChild(entry: ContentEntry): void {
    const list = this.childIndex!.get(entry.parentId);
    if (list) list.push(entry);
    else this.childIndex!.set(entry.parentId, [entry]);
  }

  private newId(): string {
    for (;;) {
      const id = randomBytes(4).toString('hex');
      if (!this.byId.has(id)) return id;
    }
  }

  private index(entry: SessionEntry, warnings?: string[]): void {
    this.all.push(entry);
    this.byId.set(entry.id, entry);
    if (isContentEntry(entry)) {
      if (this.childIndex) this.addChild(entry);
      if (warnings && entry.parentId === entry.id) {
        warnings.push(`${this.file}: entry ${entry.id} names itself as its parent; its branch starts there`);
      } else if (warnings && entry.parentId !== null && !this.byId.has(entry.parentId)) {
        warnings.push(`${this.file}: entry ${entry.id} follows ${entry.parentId}, which is missing (or only later in the file)`);
      }
      this.leaf = entry.id;
    } else if (labelKind.is(entry)) {
      if (!this.byId.has(entry.targetId)) warnings?.push(`${this.file}: label on missing entry ${entry.targetId}; ignored`);
      else if (entry.label === null) this.labelIndex.delete(entry.targetId);
      else this.labelIndex.set(entry.targetId, entry.label);
    } else if (leafKind.is(entry)) {
      if (entry.targetId === null || this.byId.has(entry.targetId)) this.leaf = entry.targetId;
      else warnings?.push(`${this.file}: leaf move to missing entry ${entry.targetId}; ignored`);
    } else if (sessionInfoKind.is(entry)) {
      this.sessionName = entry.name;
    }
    // The other control entries are records the store keeps and does not act on.
  }
}

function newHeader(opts: CreateOptions): SessionHeader {
  return {
    type: 'session',
    version: SESSION_FORMAT_VERSION,
    id: opts.id ?? randomUUID(),
    cwd: opts.cwd,
    timestamp: (opts.now ?? (() => new Date()))().toISOString(),
  };
}
