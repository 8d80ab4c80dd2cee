// Running a shell command in a process group of its own, and ending that group. The command runs
// as `SHELL -c COMMAND` with `detached: true` (a new session, so a new group whose id is the
// shell's pid, and no controlling terminal: a program that opens /dev/tty to prompt fails instead
// of waiting), stdin from /dev/null, and one file descriptor given as both stdout and stderr: one
// open file description, one offset, so the kernel writes the output to it in the order it was
// written and Node never reads it. The call ends when the shell exits: whatever is left of the
// group (a background child) is stopped at once. A timeout, an abort, or the caller's limit check
// (polled while the command runs) stops the group: SIGTERM, then SIGKILL after a grace period.
// Known limit: a process that leaves the group (setsid, a daemon) is not seen.
import { accessSync, constants, readFileSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** How often the group is looked at while waiting for it to end. */
const POLL_MS = 20;
/** After SIGKILL, how long to wait for the group to be gone before reporting survivors. */
const AFTER_KILL_MS = 2000;

/** bash (from /bin, /usr/bin or the PATH given), else /bin/sh. */
export function findShell(path = process.env.PATH ?? ''): string {
  const dirs = ['/bin', '/usr/bin', ...path.split(delimiter).filter((d) => d.startsWith('/'))];
  for (const dir of dirs) {
    const candidate = join(dir, 'bash');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* next */
    }
  }
  return '/bin/sh';
}

/**
 * The pids of the group's processes that are still running (zombies waiting to be reaped are not
 * counted: where pid 1 does not reap orphans, they stay forever). From /proc where there is one;
 * elsewhere, [pgid] while any process of the group exists.
 */
export function groupMembers(pgid: number): number[] {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? [pgid] : [];
  }
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [pgid];
  }
  const members: number[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // gone meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // state, ppid, pgrp, …
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') members.push(Number(name));
  }
  return members;
}

/** Sends `signal` to every process of the group (with `asGroup` false, where there are no groups: to the process `pgid` itself); false when none is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals, asGroup = true): boolean {
  try {
    process.kill(asGroup ? -pgid : pgid, signal);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pgid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; ; await sleep(POLL_MS)) {
    if (groupMembers(pgid).length === 0) return true;
    if (Date.now() >= until) return false;
  }
}

/** SIGTERM to the group (and SIGCONT, so a stopped process gets it), SIGKILL to what is left after `graceMs`; true when nothing is left running. */
export async function stopGroup(pgid: number, graceMs: number): Promise<boolean> {
  if (!signalGroup(pgid, 'SIGTERM')) return true;
  signalGroup(pgid, 'SIGCONT');
  if (await waitGone(pgid, graceMs)) return true;
  signalGroup(pgid, 'SIGKILL');
  return waitGone(pgid, AFTER_KILL_MS);
}

/**
 * The groups one tool instance (or the MCP servers, extensions/mcp-stdio.ts) has running, killed
 * with SIGKILL if mini-agent exits meanwhile (exit handlers are synchronous: there is no time for
 * SIGTERM first). The exit hook is there only while a group is. With `asGroups` false (a platform
 * without process groups), the ids are processes, killed one by one.
 */
export class LiveGroups {
  private readonly live = new Set<number>();
  private readonly onExit = () => this.killAll();

  constructor(private readonly asGroups = true) {}

  add(pgid: number): void {
    if (this.live.size === 0) process.on('exit', this.onExit);
    this.live.add(pgid);
  }

  delete(pgid: number): void {
    if (!this.live.delete(pgid)) return;
    if (this.live.size === 0) process.off('exit', this.onExit);
  }

  get size(): number {
    return this.live.size;
  }

  /** The group ids held, in the order they were added. */
  ids(): number[] {
    return [...this.live];
  }

  /** Whether the exit hook is installed now. */
  get exitHooked(): boolean {
    return process.listeners('exit').includes(this.onExit);
  }

  killAll(): void {
    for (const pgid of this.live) signalGroup(pgid, 'SIGKILL', this.asGroups);
  }
}

export interface RunOptions {
  shell: string;
  command: string;
  /** A program and its arguments that run the shell (the sandbox: `bwrap …`); none: the shell itself. */
  prefix?: readonly string[];
  /** The program ends everything it started when it exits (bwrap: the kernel kills a PID namespace with its init): no stray processes to look for. */
  endsItsOwn?: boolean;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** SIGTERM → SIGKILL. */
  killGraceMs: number;
  /** The file descriptor the command's stdout and stderr both go to (the caller keeps and closes its own). */
  outputFd: number;
  /** Looked at every `everyMs` while the command runs; when `exceeded()` is true the group is stopped (a check that throws counts as false). */
  limit?: { everyMs: number; exceeded: () => boolean };
  groups: LiveGroups;
}

/** How a command run in its own process group ended. */
export interface GroupRunOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The limit check said so, and the group was stopped. */
  overLimit: boolean;
  /** Processes of the group were still running after the shell exited, and were stopped. */
  strayStopped: boolean;
  /** Processes of the group still ran after SIGKILL (stuck in the kernel); their pids. */
  survivors: number[];
  durationMs: number;
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };
type StopReason = 'timeout' | 'abort' | 'limit';

/** Starts the shell; rejects with the spawn error (a missing cwd, no such shell, too many processes). */
async function start(o: RunOptions): Promise<{ pid: number; exited: Promise<Exit> }> {
  // node:child_process (with net and dgram under it, ~5 ms) loads at the first command, not at start-up (issue 14).
  const { spawn } = await import('node:child_process');
  const argv = [...(o.prefix ?? []), o.shell, '-c', o.command];
  const child = spawn(argv[0], argv.slice(1), {
    cwd: o.cwd,
    env: o.env,
    detached: true,
    stdio: ['ignore', o.outputFd, o.outputFd],
  });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      child.off('error', reject);
      child.on('error', () => undefined); // a later kill error is handled by the group functions
      resolve({ pid: child.pid!, exited });
    });
  });
}

/** Runs the command to its end (exit, timeout, abort or limit), then stops what is left of its group. */
export async function runInGroup(o: RunOptions): Promise<GroupRunOutcome> {
  const started = performance.now();
  const child = await start(o);
  const pgid = child.pid;
  o.groups.add(pgid);
  try {
    let reason: StopReason | undefined;
    let stopping: Promise<boolean> | undefined;
    let giveUp: (value: null) => void = () => undefined;
    const givenUp = new Promise<null>((resolve) => (giveUp = resolve));
    const stop = (why: StopReason) => {
      if (reason) return;
      reason = why;
      stopping = stopGroup(pgid, o.killGraceMs);
      // If even SIGKILL does not end the shell (stuck in the kernel), stop waiting for it.
      void stopping.then(() => sleep(AFTER_KILL_MS, null, { ref: false })).then(giveUp);
    };
    const timer = setTimeout(() => stop('timeout'), o.timeoutMs);
    const limit = o.limit;
    const overLimit = () => {
      try {
        return limit?.exceeded() === true;
      } catch {
        return false; // a check that fails is not a reason to stop the command
      }
    };
    const poll = limit ? setInterval(() => overLimit() && stop('limit'), limit.everyMs) : undefined;
    const onAbort = () => stop('abort');
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
    let exit: Exit | null;
    try {
      exit = await Promise.race([child.exited, givenUp]);
    } finally {
      clearTimeout(timer);
      clearInterval(poll);
      o.signal.removeEventListener('abort', onAbort);
    }
    // The shell is gone: a background child it left is stopped now (its output would only grow the file).
    let strayStopped = false;
    if (!stopping && !o.endsItsOwn && groupMembers(pgid).length > 0) {
      strayStopped = true;
      stopping = stopGroup(pgid, o.killGraceMs);
    }
    const allStopped = stopping ? await stopping : true;
    return {
      exitCode: exit?.code ?? null,
      signal: exit?.signal ?? null,
      timedOut: reason === 'timeout',
      aborted: reason === 'abort',
      overLimit: reason === 'limit',
      strayStopped,
      survivors: allStopped ? [] : groupMembers(pgid),
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    o.groups.delete(pgid);
  }
}
