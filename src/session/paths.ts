// Where mini-agent keeps its state: MINI_AGENT_HOME (default ~/.mini-agent), and where each workspace's sessions live.
// Only the edge reads the environment (agentHome: the app layer and the CLI's entry points, once); the rest
// of the code is given the folders as a SessionPlace and works them out from there.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The home folder the environment names: MINI_AGENT_HOME, else ~/.mini-agent. The edge's one read of it. */
export function agentHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.MINI_AGENT_HOME;
  return home !== undefined && home !== '' ? resolve(home) : join(homedir(), '.mini-agent');
}

/** Where one agent keeps its sessions: the home folder, the workspace, and that workspace's sessions folder. */
export interface SessionPlace {
  home: string;
  cwd: string;
  sessions: string;
}

export function sessionPlace(home: string, cwd: string): SessionPlace {
  return { home, cwd, sessions: workspaceSessionsDir(home, cwd) };
}

/** Every workspace's sessions folders live under this one. */
export function allSessionsDir(home: string): string {
  return join(home, 'sessions');
}

/** The sessions folder of one workspace under HOME: readable name plus a hash, so different paths never collide. */
export function workspaceSessionsDir(home: string, cwd: string): string {
  const slug =
    cwd
      .replace(/^[/\\]+|[/\\]+$/g, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .slice(-60) || 'root';
  const hash = createHash('sha256').update(cwd).digest('hex').slice(0, 8);
  return join(allSessionsDir(home), `${slug}-${hash}`);
}

/** A new session file name in FOLDER: sortable by creation time. */
export function sessionFileIn(folder: string, id: string, now: Date): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return join(folder, `${stamp}_${id}.jsonl`);
}

/** The SDK's entry point (src/index.ts): a workspace's sessions folder, the home read from ENV. */
export function sessionsDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return workspaceSessionsDir(agentHome(env), cwd);
}

/** A new session file of a workspace, the home read from ENV (for callers at the edge; src/ uses sessionFileIn). */
export function newSessionFile(cwd: string, id: string, now: Date, env: NodeJS.ProcessEnv = process.env): string {
  return sessionFileIn(sessionsDir(cwd, env), id, now);
}
