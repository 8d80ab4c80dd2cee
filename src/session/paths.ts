// Where mini-agent keeps its state: MINI_AGENT_HOME (default ~/.mini-agent), and where each workspace's sessions live.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function agentHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.MINI_AGENT_HOME;
  return home !== undefined && home !== '' ? resolve(home) : join(homedir(), '.mini-agent');
}

/** The sessions folder of one workspace: readable name plus a hash, so different paths never collide. */
export function sessionsDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const slug = cwd.replace(/^[/\\]+|[/\\]+$/g, '').replace(/[^A-Za-z0-9._-]+/g, '-').slice(-60) || 'root';
  const hash = createHash('sha256').update(cwd).digest('hex').slice(0, 8);
  return join(agentHome(env), 'sessions', `${slug}-${hash}`);
}

/** A new session file name: sortable by creation time. */
export function newSessionFile(cwd: string, id: string, now: Date, env: NodeJS.ProcessEnv = process.env): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return join(sessionsDir(cwd, env), `${stamp}_${id}.jsonl`);
}
