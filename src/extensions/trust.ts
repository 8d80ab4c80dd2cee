// Trusted workspaces: project-local hooks are code that came with the repository, so they run
// only in a workspace the user trusted explicitly (`mini-agent trust [DIR]`, or
// --trust-workspace for one run). The list lives in $MINI_AGENT_HOME/trusted-workspaces.json
// (0600), as real paths: a symlink to a trusted folder is the same folder.
import { readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isPlainObject, UsageError } from '../core/types.js';
import { agentHome } from '../session/paths.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../session/private-fs.js';

export function trustFile(env: NodeJS.ProcessEnv): string {
  return join(agentHome(env), 'trusted-workspaces.json');
}

function realDir(dir: string): string {
  try {
    return realpathSync(resolve(dir));
  } catch (err) {
    throw new UsageError(`cannot trust ${dir}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : (err as Error).message}`);
  }
}

/** The trusted workspaces (real paths). A missing file is an empty list; a broken one is a usage error naming it. */
export function trustedWorkspaces(env: NodeJS.ProcessEnv): string[] {
  const file = trustFile(env);
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
  if (!isPlainObject(data) || !Array.isArray(data.workspaces) || !data.workspaces.every((w) => typeof w === 'string')) {
    throw new UsageError(`${file}: must be {"workspaces": ["/path", ...]}`);
  }
  return data.workspaces as string[];
}

export function isTrusted(dir: string, env: NodeJS.ProcessEnv): boolean {
  let real: string;
  try {
    real = realpathSync(resolve(dir));
  } catch {
    return false;
  }
  return trustedWorkspaces(env).includes(real);
}

/** Adds a folder to the trusted list (written atomically, 0600); returns its real path and whether it was new. */
export function trustWorkspace(dir: string, env: NodeJS.ProcessEnv): { path: string; added: boolean } {
  const real = realDir(dir);
  const list = trustedWorkspaces(env);
  if (list.includes(real)) return { path: real, added: false };
  const file = trustFile(env);
  makePrivateDir(agentHome(env));
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ workspaces: [...list, real].sort() }, null, 2) + '\n', { mode: PRIVATE_FILE_MODE });
  renameSync(tmp, file);
  return { path: real, added: true };
}
