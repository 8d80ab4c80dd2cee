// System tools that some tests need (a browser, tmux, git), found on this
// machine or not. A missing tool skips the test with a note that says why and how to get it,
// and the summary line shows that note. Under MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1 (.ci/run sets it)
// a missing tool fails the test instead, and so does an explicit opt-out: CI never skips.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const REQUIRE_ENV = 'MINI_AGENT_REQUIRE_SYSTEM_TOOLS';

export interface SystemTool {
  /** Its name in messages, e.g. "Chromium". */
  name: string;
  /** What the tests need, as in "6 need a browser". */
  need: string;
  /** An env var holding the tool's path. When set, it is the only place looked at. */
  envVar?: string;
  /** Absolute paths, tried first, in order. */
  paths: string[];
  /** Command names then looked up on PATH, in order. */
  commands: string[];
  /** How to get it, e.g. "install one with: apt-get install chromium". */
  install: string;
  /** An env var that, set to 1, skips these tests on purpose (a failure under MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1). */
  skipEnv?: string;
}

export const CHROMIUM: SystemTool = {
  name: 'Chromium',
  need: 'need a browser',
  envVar: 'MINI_AGENT_CHROMIUM',
  paths: ['/usr/bin/chromium'],
  commands: ['chromium', 'chromium-browser', 'google-chrome-stable'],
  install: 'install one with: apt-get install chromium, or set MINI_AGENT_CHROMIUM=/path/to/chrome',
  skipEnv: 'MINI_AGENT_SKIP_BROWSER',
};

/** A real terminal for tests of what mini-agent does on a TTY (a permission prompt). */
export const TMUX: SystemTool = {
  name: 'tmux',
  need: 'need a terminal (tmux)',
  envVar: 'MINI_AGENT_TMUX',
  paths: ['/usr/bin/tmux'],
  commands: ['tmux'],
  install: 'install it with: apt-get install tmux, or set MINI_AGENT_TMUX=/path/to/tmux',
  skipEnv: 'MINI_AGENT_SKIP_TMUX',
};

/** git, for tests that compare with it or need a repository. */
export const GIT: SystemTool = {
  name: 'git',
  need: 'need git',
  envVar: 'MINI_AGENT_GIT',
  paths: ['/usr/bin/git'],
  commands: ['git'],
  install: 'install it with: apt-get install git, or set MINI_AGENT_GIT=/path/to/git',
  skipEnv: 'MINI_AGENT_SKIP_GIT',
};

/** bubblewrap, for the tests of the bash sandbox (Linux). Its tests also check that it can make a sandbox here. */
export const BWRAP: SystemTool = {
  name: 'bubblewrap',
  need: 'need a sandbox (bubblewrap)',
  envVar: 'MINI_AGENT_TEST_BWRAP',
  paths: ['/usr/bin/bwrap'],
  commands: ['bwrap'],
  install: 'install it with: apt-get install bubblewrap (and allow unprivileged user namespaces), or set MINI_AGENT_TEST_BWRAP=/path/to/bwrap',
  skipEnv: 'MINI_AGENT_SKIP_SANDBOX',
};

type Env = Record<string, string | undefined>;

export type Lookup = { path: string } | { path?: undefined; reason: string };

/** Where the tool is, or why it was not found. */
export function findSystemTool(tool: SystemTool, env: Env = process.env): Lookup {
  const fromEnv = tool.envVar ? env[tool.envVar] : undefined;
  if (fromEnv) {
    return isExecutable(fromEnv) ? { path: fromEnv } : { reason: `no ${tool.name} found (${tool.envVar}=${fromEnv} is not an executable file)` };
  }
  for (const p of tool.paths) if (isExecutable(p)) return { path: p };
  const dirs = (env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  for (const cmd of tool.commands) {
    for (const dir of dirs) if (isExecutable(join(dir, cmd))) return { path: join(dir, cmd) };
  }
  const looked = [...tool.paths, ...(tool.commands.length ? [`${tool.commands.join(', ')} on PATH`] : [])];
  return { reason: `no ${tool.name} found (looked at ${looked.join(', then ')})` };
}

export type ToolStatus = { use: string } | { skip: string } | { fail: string };

/** What a test that needs the tool does here: use it at a path, skip with a note, or fail. */
export function systemToolStatus(tool: SystemTool, env: Env = process.env): ToolStatus {
  const required = env[REQUIRE_ENV] === '1';
  if (tool.skipEnv && env[tool.skipEnv] === '1') {
    if (required) return { fail: `${tool.skipEnv}=1 asks to skip the tests that ${tool.need}, but ${REQUIRE_ENV}=1 makes ${tool.name} mandatory` };
    return { skip: `${tool.need}: skipped on request (${tool.skipEnv}=1)` };
  }
  const found = findSystemTool(tool, env);
  if (found.path !== undefined) return { use: found.path };
  if (required) return { fail: `${tool.name} is missing and ${REQUIRE_ENV}=1 makes it mandatory: ${found.reason}; ${tool.install}` };
  return { skip: `${tool.need}: ${found.reason}; ${tool.install}` };
}

/** The tool's path for this machine, or undefined when tests that need it will not run. */
export function systemToolPath(tool: SystemTool, env: Env = process.env): string | undefined {
  const status = systemToolStatus(tool, env);
  return 'use' in status ? status.use : undefined;
}

/**
 * Call first thing inside a test: returns the tool's path, or skips the test with a note
 * (`ctx.skip(note)`, shown on the summary line), or throws under MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1.
 */
export function useSystemTool(ctx: { skip(note?: string): never }, tool: SystemTool, env: Env = process.env): string {
  const status = systemToolStatus(tool, env);
  if ('use' in status) return status.use;
  if ('fail' in status) throw new Error(status.fail);
  return ctx.skip(status.skip);
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
