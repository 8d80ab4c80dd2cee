// A stdio transport for MCP servers, in place of the SDK's StdioClientTransport, for what a
// coding agent needs and that one does not give:
// - the server runs in a process group of its own (POSIX), so `npx some-server` (npm, then node)
//   is stopped as a whole, and a Ctrl-C at the terminal (SIGINT to the foreground group) does not
//   kill the servers while mini-agent itself stays up to handle it;
// - how the process ended (exit code or signal) and the last lines of its stderr are kept for
//   messages, and stderr is never passed through to ours (it would break the terminal and --json);
// - close() is SIGTERM to the group, then SIGKILL after a grace period;
// - while any server process is alive, one process 'exit' listener kills the remaining groups
//   synchronously, so no server outlives mini-agent even when it exits without close() (the
//   bash tool's LiveGroups and signalGroup, tools/process-group.ts).
// The JSON-RPC framing (one message a line) is the SDK's ReadBuffer and serializeMessage, passed
// in by the caller: this module is loaded with the SDK, lazily.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isSecretName, redactSecrets } from '../core/redact.js';
import { LiveGroups, signalGroup } from '../tools/process-group.js';

type Framing = typeof import('@modelcontextprotocol/sdk/shared/stdio.js');

export interface StdioParams {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How long close() waits after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 2000;
/** stderr lines kept for messages, and the longest line kept. */
const STDERR_LINES = 20;
const STDERR_LINE_MAX = 500;
const GROUPS = process.platform !== 'win32';

/** The server processes alive in this process (each leads a group where there are groups), killed by one exit hook (tools/process-group.ts). */
const liveServers = new LiveGroups(GROUPS);

/** The pids of the server processes still alive, and whether the exit hook is installed (for tests and `mcp list`). */
export function liveServerProcesses(): { pids: number[]; exitHook: boolean } {
  return { pids: liveServers.ids(), exitHook: liveServers.exitHooked };
}

export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly buffer: InstanceType<Framing['ReadBuffer']>;
  private readonly lines: string[] = [];
  private partial = '';
  private exited?: ExitInfo;
  private closeNotified = false;
  private readonly closeWaiters: Array<() => void> = [];
  private readonly exitWaiters: Array<() => void> = [];

  constructor(
    private readonly params: StdioParams,
    private readonly framing: Framing,
  ) {
    this.buffer = new framing.ReadBuffer();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the process ended; undefined while it runs (or if it never started). */
  get exit(): ExitInfo | undefined {
    return this.exited;
  }

  /** The last lines the server wrote to stderr (at most 20), without the secrets it was given or anything shaped like a key. */
  stderrTail(): string[] {
    const lines = this.partial ? [...this.lines, this.partial].slice(-STDERR_LINES) : [...this.lines];
    const given = Object.entries(this.params.env)
      .filter(([name]) => isSecretName(name))
      .map(([, value]) => value);
    return lines.map((line) => redactSecrets(line, given));
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('the server process was already started'));
    return new Promise((resolve, reject) => {
      let spawned = false;
      const child = spawn(this.params.command, [...this.params.args], {
        cwd: this.params.cwd,
        env: this.params.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: GROUPS,
        windowsHide: true,
      });
      this.child = child;
      child.once('spawn', () => {
        spawned = true;
        if (child.pid !== undefined) liveServers.add(child.pid);
        resolve();
      });
      child.on('error', (err) => {
        if (!spawned) {
          // spawn says ENOENT for a missing working folder too, naming the command.
          const why = !existsSync(this.params.cwd) ? `its working folder ${this.params.cwd} does not exist` : err.message;
          reject(new Error(`cannot run ${JSON.stringify(this.params.command)}: ${why}`));
          this.notifyClose();
        } else this.onerror?.(err);
      });
      child.once('exit', (code, sig) => {
        this.exited = { code, signal: sig };
        if (child.pid !== undefined) {
          liveServers.delete(child.pid);
          // What the server left behind in its group (a wrapper's child) goes with it.
          if (GROUPS) signalGroup(child.pid, 'SIGKILL');
        }
        for (const w of this.exitWaiters.splice(0)) w();
      });
      // 'close' comes after 'exit' and after stdout and stderr are drained: the last stderr
      // lines are in by then, for the message about the exit.
      child.once('close', () => this.notifyClose());
      child.stdin!.on('error', (err) => this.onerror?.(err));
      child.stdout!.on('data', (chunk: Buffer) => this.read(chunk));
      child.stdout!.on('error', (err) => this.onerror?.(err));
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (text: string) => this.keepStderr(text));
      child.stderr!.on('error', () => {});
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin?.writable || this.exited) return Promise.reject(new Error('the server process is not running'));
    return new Promise((resolve, reject) => {
      const ok = stdin.write(this.framing.serializeMessage(message), (err) => {
        // EPIPE: the process is going away. Fail once its exit status and stderr are in, so the
        // caller can say how it ended rather than "write EPIPE".
        if (err) void this.whenClosed(KILL_GRACE_MS).then(() => reject(err));
      });
      if (ok) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the process: stdin closed and SIGTERM to its group, SIGKILL after KILL_GRACE_MS. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) {
      this.notifyClose();
      return;
    }
    if (!this.exited) {
      try {
        child.stdin?.end();
      } catch {
        /* closed already */
      }
      signalGroup(child.pid, 'SIGTERM', GROUPS);
      if (!(await this.waitExit(KILL_GRACE_MS))) {
        signalGroup(child.pid, 'SIGKILL', GROUPS);
        await this.waitExit(KILL_GRACE_MS);
      }
    }
    this.buffer.clear();
  }

  private waitExit(ms: number): Promise<boolean> {
    if (this.exited) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.exitWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (err) {
      // A message past the buffer's limit: the stream cannot be followed any more.
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (err) {
        // A line that is not JSON-RPC (a server logging to stdout): reported, skipped.
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private keepStderr(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop()!.slice(0, STDERR_LINE_MAX);
    for (const line of parts) this.lines.push(line.slice(0, STDERR_LINE_MAX));
    if (this.lines.length > STDERR_LINES) this.lines.splice(0, this.lines.length - STDERR_LINES);
  }

  private notifyClose(): void {
    if (this.closeNotified) return;
    this.closeNotified = true;
    for (const w of this.closeWaiters.splice(0)) w();
    this.onclose?.();
  }

  /** Resolves when the process has exited and its output is drained, or after `ms`. */
  private whenClosed(ms: number): Promise<void> {
    if (this.closeNotified) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.closeWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
