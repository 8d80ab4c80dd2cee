// Migrations of older session files. A file is never rewritten in place: the migrated
// content goes to a new file, the original is kept as a backup (a hard link, so its bytes
// are untouched), and the new file is renamed over the old name.
import { closeSync, existsSync, fchmodSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { SESSION_FORMAT_VERSION, type SessionEntry, type SessionHeader } from './entries.js';
import { parseSessionText, readHeader } from './session-file.js';

/** One step: entries of version `from` → entries of version `from + 1`. */
type Migration = (header: SessionHeader, entries: SessionEntry[]) => { header: SessionHeader; entries: SessionEntry[] };

const MIGRATIONS: Record<number, Migration> = {
  // 1 → 2: version 2 adds entry types (`run`, `session_info`) that a version-1 reader would
  // skip as corrupt, so the file must say it is version 2 before they are appended. The
  // version-1 entries are valid version-2 entries.
  1: (header, entries) => ({ header: { ...header, version: 2 }, entries }),
  // 2 → 3: version 3 adds `branch_summary` (a tree node) and `compaction_failed`; the version-2
  // entries are valid version-3 entries.
  2: (header, entries) => ({ header: { ...header, version: 3 }, entries }),
  // 3 → 4: version 4 adds `permission_grant` (an approval for the rest of the session); a
  // version-3 reader would skip it as corrupt and warn. The version-3 entries are valid.
  3: (header, entries) => ({ header: { ...header, version: 4 }, entries }),
  // 4 → 5: version 5 adds `model_change`; the version-4 entries are valid.
  4: (header, entries) => ({ header: { ...header, version: 5 }, entries }),
  // 5 → 6: version 6 adds `model_window` (a window learned from the provider); the version-5 entries are valid.
  5: (header, entries) => ({ header: { ...header, version: 6 }, entries }),
  // 6 → 7: version 7 adds `checkpoint` (the files a tool call changed, before and after); the version-6 entries are valid.
  6: (header, entries) => ({ header: { ...header, version: 7 }, entries }),
};

export interface MigrationResult {
  from: number;
  to: number;
  backup: string;
}

export function readHeaderVersion(file: string): number | undefined {
  const v = readHeader(file)?.version;
  return typeof v === 'number' ? v : undefined;
}

/**
 * Migrates `file` to the current format if it is older. Corrupt lines are dropped from the
 * migrated copy (they stay in the backup). Returns undefined when nothing had to be done.
 */
export function migrateIfNeeded(file: string, now: Date = new Date()): MigrationResult | undefined {
  const version = readHeaderVersion(file);
  if (version === undefined || version >= SESSION_FORMAT_VERSION) return undefined;
  const parsed = parseSessionText(readFileSync(file), file);
  let header = parsed.header;
  let entries = parsed.entries;
  for (let v = header.version; v < SESSION_FORMAT_VERSION; v++) {
    const step = MIGRATIONS[v];
    if (!step) throw new Error(`${file}: no migration from session format version ${v}`);
    ({ header, entries } = step(header, entries));
  }
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  let backup = `${file}.v${version}.bak`;
  if (existsSync(backup)) backup = `${file}.v${version}.${stamp}.bak`;
  const tmp = `${file}.migrating-${process.pid}`;
  // The migrated file keeps the original's mode: an existing file is never re-permissioned.
  const mode = statSync(file).mode & 0o777;
  const fd = openSync(tmp, 'wx', mode);
  try {
    fchmodSync(fd, mode);
    const text = [header, ...entries].map((e) => JSON.stringify(e)).join('\n') + '\n';
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  linkSync(file, backup); // the original bytes, under a new name
  renameSync(tmp, file); // atomic: readers see the old file or the new one, never half
  return { from: version, to: SESSION_FORMAT_VERSION, backup };
}
