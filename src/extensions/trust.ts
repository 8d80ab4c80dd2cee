// Trusted workspaces. A workspace's own `.mini-agent/config.json` came with the repository, so
// until the user trusts the workspace it may only narrow what the user allowed (app/project-config.ts):
// its widening keys (allow rules, allowPaths, hooks, MCP servers, provider/baseUrl/apiKey, …)
// are ignored. Trust is given for one version of the project config: the list records, with
// each folder's real path, a hash of the config file and of the hook modules it names. When
// they change (a `git pull`), the trust no longer holds until the user trusts the folder again.
// The list lives in $MINI_AGENT_HOME/trusted-workspaces.json (0600), written atomically.
// Version 1 of the file (a list of paths, no hashes) is read: its folders count as "changed".
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isPlainObject, UsageError } from '../core/types.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../session/private-fs.js';

/** One trusted folder, as stored. */
export interface TrustRecord {
  /** The folder's real path. */
  path: string;
  /** `sha256:HEX` of the project config and its hook modules when trust was given; null: a version-1 entry (no hash recorded). */
  configHash: string | null;
  /** When trust was given (ISO 8601), or null for a version-1 entry. */
  trustedAt: string | null;
}

/**
 * Where a workspace stands: `trusted` (the config is the one trusted), `changed` (trusted for
 * another version of its config, or before hashes were recorded), `untrusted` (never trusted),
 * `flag` (--trust-workspace: trusted for this run, whatever its config).
 */
export type TrustStatus = 'trusted' | 'changed' | 'untrusted' | 'flag';

export interface TrustState {
  status: TrustStatus;
  /** The project config's widening keys apply, its hooks load and its MCP servers may start. */
  trusted: boolean;
  /** The record that matched the folder, if any. */
  record?: TrustRecord;
}

/** HOME: the agent's home folder (session/paths.ts's agentHome, read at the edge). */
export function trustFile(home: string): string {
  return join(home, 'trusted-workspaces.json');
}

export function projectConfigFile(dir: string): string {
  return join(dir, '.mini-agent', 'config.json');
}

/** `dir` as given (relative to `cwd`), in messages as given. */
function realDir(dir: string, cwd: string, verb: string): string {
  try {
    return realpathSync(resolve(cwd, dir));
  } catch (err) {
    throw new UsageError(`cannot ${verb} ${dir}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (err as Error).message}`);
  }
}

/**
 * The hash trust is given for: the project config's bytes, then each hook module it lists
 * (relative paths start at `.mini-agent/`), by path and bytes. A missing file hashes as missing,
 * so creating one later changes the hash too.
 */
export function projectConfigHash(dir: string): string {
  const hash = createHash('sha256');
  const file = projectConfigFile(dir);
  const bytes = readOrNull(file);
  hash.update(bytes === null ? 'no config\0' : Buffer.concat([Buffer.from(`config ${bytes.length}\0`), bytes]));
  for (const hook of hookPaths(bytes)) {
    const path = resolve(dir, '.mini-agent', hook);
    const content = readOrNull(path);
    hash.update(`\0hook ${path}\0`);
    hash.update(content === null ? 'missing' : Buffer.concat([Buffer.from(`${content.length}\0`), content]));
  }
  return `sha256:${hash.digest('hex')}`;
}

function readOrNull(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

/** The `hooks` list of a config file's bytes (none when the file is not valid JSON: its bytes are hashed anyway). */
function hookPaths(bytes: Buffer | null): string[] {
  if (bytes === null) return [];
  try {
    const data: unknown = JSON.parse(bytes.toString('utf8'));
    const hooks = isPlainObject(data) ? data.hooks : undefined;
    return Array.isArray(hooks) ? hooks.filter((h): h is string => typeof h === 'string') : [];
  } catch {
    return [];
  }
}

/** The trusted folders. A missing file is an empty list; a broken one is a usage error naming it. */
export function trustRecords(home: string): TrustRecord[] {
  const file = trustFile(home);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  const shape = `${file}: must be {"version": 2, "workspaces": [{"path", "configHash", "trustedAt"}, ...]}`;
  if (!isPlainObject(data) || !Array.isArray(data.workspaces)) throw new UsageError(shape);
  return data.workspaces.map((w): TrustRecord => {
    if (typeof w === 'string') return { path: w, configHash: null, trustedAt: null }; // version 1
    if (!isPlainObject(w) || typeof w.path !== 'string' || (w.configHash !== null && typeof w.configHash !== 'string')) throw new UsageError(shape);
    return { path: w.path, configHash: (w.configHash as string | null) ?? null, trustedAt: typeof w.trustedAt === 'string' ? w.trustedAt : null };
  });
}

/** Where `dir` stands; `flag` is --trust-workspace. */
export function trustState(dir: string, home: string, flag = false): TrustState {
  if (flag) return { status: 'flag', trusted: true };
  let real: string;
  try {
    real = realpathSync(resolve(dir));
  } catch {
    return { status: 'untrusted', trusted: false };
  }
  const record = trustRecords(home).find((r) => r.path === real);
  if (!record) return { status: 'untrusted', trusted: false };
  if (record.configHash === null || record.configHash !== projectConfigHash(real)) return { status: 'changed', trusted: false, record };
  return { status: 'trusted', trusted: true, record };
}

/**
 * Trusts a folder for its current project config (written atomically, 0600); returns its real
 * path, the hash and whether it was new or renewed ('added', 'renewed', 'unchanged').
 */
export function trustWorkspace(dir: string, cwd: string, home: string, now: () => Date = () => new Date()): { path: string; configHash: string; change: 'added' | 'renewed' | 'unchanged' } {
  const real = realDir(dir, cwd, 'trust');
  const configHash = projectConfigHash(real);
  const list = trustRecords(home);
  const old = list.find((r) => r.path === real);
  if (old?.configHash === configHash) return { path: real, configHash, change: 'unchanged' };
  const record: TrustRecord = { path: real, configHash, trustedAt: now().toISOString() };
  writeRecords(home, [...list.filter((r) => r.path !== real), record]);
  return { path: real, configHash, change: old ? 'renewed' : 'added' };
}

/** Takes a folder off the list (a folder that no longer exists is matched by its path as given). */
export function untrustWorkspace(dir: string, cwd: string, home: string): { path: string; removed: boolean } {
  let real: string;
  try {
    real = realpathSync(resolve(cwd, dir));
  } catch {
    real = resolve(cwd, dir);
  }
  const list = trustRecords(home);
  if (!list.some((r) => r.path === real)) return { path: real, removed: false };
  writeRecords(
    home,
    list.filter((r) => r.path !== real),
  );
  return { path: real, removed: true };
}

function writeRecords(home: string, records: TrustRecord[]): void {
  const file = trustFile(home);
  makePrivateDir(home);
  const tmp = `${file}.${process.pid}.tmp`;
  const sorted = [...records].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  writeFileSync(tmp, JSON.stringify({ version: 2, workspaces: sorted }, null, 2) + '\n', { mode: PRIVATE_FILE_MODE });
  renameSync(tmp, file);
}
