// The OS sandbox bash commands run in (bash.sandbox): on Linux, bubblewrap (`bwrap`), called
// directly. The whole filesystem is mounted read-only; the workspace, the --allow-path folders,
// the bash output folder and a private /tmp are writable; the protected paths inside them are
// mounted read-only again on top; the network is a new, empty namespace (loopback only, nothing
// listening) unless allowed; a new PID namespace, so /proc shows only the sandbox's own processes;
// and bwrap dies with mini-agent (--die-with-parent). The environment is the scrubbed one, given
// to bwrap as its own (not inherited from mini-agent, and never on its command line).
//
// Whether bwrap works here is found out once per process, by running `true` in the same kind of
// sandbox (a probe): bwrap may be missing, or unprivileged user namespaces switched off.
// MINI_AGENT_BWRAP names the program to use instead of looking for it (tests set it to a path
// that does not exist, to see what happens without a sandbox).
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join, sep } from 'node:path';
import { inside } from './workspace.js';
import type { SandboxMode } from '../core/config-choices.js';

export { SANDBOX_MODES, type SandboxMode } from '../core/config-choices.js';

/** The env var that names the bwrap program (else /usr/bin/bwrap, /bin/bwrap, then PATH). */
export const BWRAP_ENV = 'MINI_AGENT_BWRAP';

export type SandboxStatus = { available: true; program: string } | { available: false; why: string };

/** The per-process probe cache: program (or '' when not found) → its status. */
const probes = new Map<string, SandboxStatus>();

/** Where bwrap is: MINI_AGENT_BWRAP when set (only there), else the usual places, then PATH. */
export function findBwrap(env: Readonly<Record<string, string | undefined>>): { program: string } | { why: string } {
  const named = env[BWRAP_ENV];
  if (named) return executable(named) ? { program: named } : { why: `${BWRAP_ENV}=${named} is not an executable file` };
  if (process.platform !== 'linux') return { why: `no sandbox for ${process.platform} yet (bubblewrap is Linux only)` };
  const dirs = ['/usr/bin', '/bin', ...(env.PATH ?? '').split(delimiter).filter((d) => d.startsWith('/'))];
  for (const dir of dirs) if (executable(join(dir, 'bwrap'))) return { program: join(dir, 'bwrap') };
  return { why: 'bubblewrap (bwrap) is not installed; install it with: apt-get install bubblewrap' };
}

/** Whether bwrap works here: found, and able to start a sandbox. Probed once per process per program. */
export function sandboxStatus(env: Readonly<Record<string, string | undefined>>): SandboxStatus {
  const found = findBwrap(env);
  if ('why' in found) return { available: false, why: found.why };
  const cached = probes.get(found.program);
  if (cached) return cached;
  const status = probe(found.program);
  probes.set(found.program, status);
  return status;
}

function probe(program: string): SandboxStatus {
  // node:child_process loads at the first use, not at start-up (issue 14).
  const { spawnSync } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const shell = executable('/bin/sh') ? '/bin/sh' : 'sh';
  const args = bwrapArgs({ cwd: '/', binds: [], network: false }, [shell, '-c', 'true']);
  const run = spawnSync(program, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, env: { PATH: '/usr/bin:/bin' } });
  if (run.error) return { available: false, why: `${program} could not be started: ${run.error.message}` };
  if (run.status === 0) return { available: true, program };
  const said =
    String(run.stderr ?? '')
      .trim()
      .split('\n')[0] || `exit code ${run.status ?? run.signal}`;
  return { available: false, why: `${program} cannot make a sandbox here (${said}); unprivileged user namespaces may be switched off` };
}

/** One mount on top of the read-only root: a folder or file made writable again, or read-only again inside a writable one. */
export interface Bind {
  path: string;
  writable: boolean;
}

export interface SandboxLayout {
  /** The folder the command starts in. */
  cwd: string;
  /** Mounts over the read-only root, in order (a folder before what is inside it). */
  binds: readonly Bind[];
  /** Share the host's network (bash.network, or an approved `network: true`). */
  network: boolean;
}

/** bwrap's arguments for a command (`command` is the program and its arguments). */
export function bwrapArgs(layout: SandboxLayout, command: readonly string[]): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  for (const b of layout.binds) args.push(b.writable ? '--bind' : '--ro-bind', b.path, b.path);
  args.push('--unshare-all', ...(layout.network ? ['--share-net'] : []), '--die-with-parent', '--chdir', layout.cwd, '--', ...command);
  return args;
}

/**
 * The mounts for a call: each writable folder (that exists), then the protected paths inside them
 * read-only again (those that exist). Inside each writable root, `.git` is mounted (writable) on
 * itself, so that it cannot be renamed away and replaced (a mount point cannot be moved), and
 * `.git/hooks`, `.git/config` and `.mini-agent` read-only. Sorted so a folder comes before what
 * is inside it; a path given twice keeps its last kind (read-only wins, it comes later).
 * `protect` false: the writable folders only (the user's --approve of the exact command opened
 * the protected paths for it).
 */
export function sandboxBinds(writable: readonly string[], protectedPaths: readonly string[], protect = true): Bind[] {
  const roots = [...new Set(writable.filter(isDir))];
  const binds = new Map<string, Bind>();
  for (const root of roots) binds.set(root, { path: root, writable: true });
  if (!protect) return roots.map((path) => ({ path, writable: true })).sort((a, b) => depth(a.path) - depth(b.path));
  for (const root of roots) {
    const git = join(root, '.git');
    if (existsSync(git) && isDir(git)) binds.set(git, { path: git, writable: true });
  }
  const within = (p: string) => roots.some((r) => inside(r, p));
  const extra = roots.flatMap((r) => [join(r, '.git'), join(r, '.git', 'hooks'), join(r, '.git', 'config'), join(r, '.mini-agent')]);
  for (const p of [...extra, ...protectedPaths]) {
    if (p === '/' || !within(p) || !existsSync(p)) continue;
    if (extra.includes(p) && p.endsWith(`${sep}.git`) && isDir(p)) continue; // the writable self-mount above
    binds.set(p, { path: p, writable: false });
  }
  return [...binds.values()].sort((a, b) => depth(a.path) - depth(b.path));
}

function depth(p: string): number {
  return p.split(sep).filter((s) => s !== '').length;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function executable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Words in a failed command's output that point at the sandbox, and which part of it. */
const FILESYSTEM_SIGNS = /Read-only file system|EROFS|Device or resource busy/i;
const NETWORK_SIGNS =
  /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|Name or service not known|getaddrinfo|EAI_AGAIN|ENOTFOUND|Connection refused|ECONNREFUSED|No address associated|unable to access/i;

/**
 * Why a failed sandboxed command may have failed because of the sandbox, from its output:
 * `filesystem` (a write outside the writable folders, or to a protected path), `network`
 * (the network is off), or undefined.
 */
export function sandboxCause(output: string, network: boolean): 'filesystem' | 'network' | undefined {
  if (FILESYSTEM_SIGNS.test(output)) return 'filesystem';
  if (!network && NETWORK_SIGNS.test(output)) return 'network';
  return undefined;
}

/** The note added to a result the sandbox may have caused: what was refused, and how to run it outside. */
export function sandboxNote(cause: 'filesystem' | 'network'): string {
  const what =
    cause === 'filesystem'
      ? 'This looks like the sandbox refusing a write: only the workspace, the --allow-path folders and /tmp are writable, and .git/hooks, .git/config and .mini-agent are read-only.'
      : 'This looks like the sandbox: the network is off (bash.network is false).';
  const how =
    cause === 'network'
      ? 'If the command needs the network, call bash again with the same command and "network": true (the user is always asked), or "sandbox": false to run it outside the sandbox (asked too).'
      : 'If the command must write there, call bash again with the same command and "sandbox": false: it then runs outside the sandbox, and the user is always asked first.';
  return `[Sandbox: ${what} ${how} Do not work around the sandbox otherwise.]`;
}

/** The sandbox in words, for --show-config and /status: "auto: bubblewrap (/usr/bin/bwrap)", "auto: none available (why)". */
export function describeSandbox(mode: SandboxMode, status: () => SandboxStatus): string {
  if (mode === 'off') return 'off: commands run without a sandbox';
  const s = status();
  if (s.available) return `${mode}: bubblewrap (${s.program})`;
  return mode === 'required' ? `required: none available (${s.why}); bash refuses to run` : `auto: none available (${s.why}); commands run without a sandbox`;
}
