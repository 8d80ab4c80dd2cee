// What createAgent works out once from its options, before anything else: the workspace, the home
// folder and the workspace's sessions folder, and the environment that configuration and keys are
// read from. The layers below are given the plain values they use (a folder, a flag), never the
// options or the environment; the effective configuration is resolved from this (agent-start.ts).
import { resolve } from 'node:path';
import { agentHome, sessionPlace, type SessionPlace } from '../session/paths.js';
import type { CreateAgentOptions } from './types.js';

export interface AgentContext {
  /** The workspace, the home folder and the workspace's sessions folder: what the session code is given. */
  place: SessionPlace;
  /** options.env (default process.env), with MINI_AGENT_HOME set to options.home when given; read by the app layer only. */
  env: NodeJS.ProcessEnv;
}

export function agentContext(options: CreateAgentOptions): AgentContext {
  const cwd = resolve(options.cwd ?? process.cwd());
  const given = options.env ?? process.env;
  const env = options.home !== undefined ? { ...given, MINI_AGENT_HOME: options.home } : given;
  return { place: sessionPlace(agentHome(env), cwd), env };
}
