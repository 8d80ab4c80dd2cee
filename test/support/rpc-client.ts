// A test client for `mini-agent --rpc`: a real child process, JSON lines both ways. Every stdout
// line is kept (to check it parses and matches the schemas), responses are matched by id.
import { spawn, type ChildProcess } from 'node:child_process';
import type { AgentEvent } from '../../src/core/events.js';
import { BIN, tempDir } from './helpers.js';

export interface RpcResponse {
  type: 'response';
  id: string | null;
  command: string | null;
  ok: boolean;
  result?: any;
  error?: { kind: string; message: string };
}

export type RpcLine = RpcResponse | AgentEvent;

export class RpcClient {
  readonly child: ChildProcess;
  /** Every stdout line, parsed (a line that does not parse is kept as a string: a test failure). */
  readonly lines: (RpcLine | string)[] = [];
  stderr = '';
  private buffer = '';
  private nextId = 1;
  private waiters: Array<{ test: (l: RpcLine) => boolean; resolve: (l: RpcLine) => void }> = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], opts: { cwd: string; home?: string; env?: Record<string, string>; command?: string[] }) {
    const home = opts.home ?? tempDir('mini-agent-home-');
    const command = opts.command ?? [process.execPath, BIN, '--rpc', ...args];
    this.child = spawn(command[0], command.slice(1), {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: home, MINI_AGENT_HOME: home, MINI_AGENT_NO_COMPILE_CACHE: '1', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => this.onStdout(d));
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on('close', (code, signal) => resolve({ code, signal })));
  }

  private onStdout(data: string): void {
    this.buffer += data;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const text = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      let line: RpcLine | string;
      try {
        line = JSON.parse(text) as RpcLine;
      } catch {
        line = text;
      }
      this.lines.push(line);
      if (typeof line === 'string') continue;
      for (const w of [...this.waiters]) {
        if (w.test(line)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  }

  /** Writes a raw line (or several) to stdin. */
  writeRaw(text: string): void {
    this.child.stdin!.write(text);
  }

  /** Sends a command and waits for its response. */
  send(command: Record<string, unknown>, timeoutMs = 15_000): Promise<RpcResponse> {
    const id = String(command.id ?? `c${this.nextId++}`);
    const response = this.waitFor((l) => l.type === 'response' && (l as RpcResponse).id === id, timeoutMs) as Promise<RpcResponse>;
    this.writeRaw(JSON.stringify({ ...command, id }) + '\n');
    return response;
  }

  /** The first line (already seen or still to come) that passes `test`. */
  waitFor(test: (l: RpcLine) => boolean, timeoutMs = 15_000): Promise<RpcLine> {
    const seen = this.lines.find((l): l is RpcLine => typeof l !== 'string' && test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for a line; stderr: ${this.stderr}\nlines: ${this.lines.map((l) => JSON.stringify(l).slice(0, 200)).join('\n')}`)), timeoutMs);
      this.waiters.push({ test, resolve: (l) => (clearTimeout(timer), resolve(l)) });
    });
  }

  /** Waits for the next line that passes `test`, ignoring those already seen. */
  next(test: (l: RpcLine) => boolean, timeoutMs = 15_000): Promise<RpcLine> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out; stderr: ${this.stderr}`)), timeoutMs);
      this.waiters.push({ test, resolve: (l) => (clearTimeout(timer), resolve(l)) });
    });
  }

  events(): AgentEvent[] {
    return this.lines.filter((l): l is AgentEvent => typeof l !== 'string' && l.type !== 'response');
  }

  responses(): RpcResponse[] {
    return this.lines.filter((l): l is RpcResponse => typeof l !== 'string' && l.type === 'response');
  }

  /** Closes stdin (EOF) and waits for the process to end. */
  async end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin!.end();
    return this.exited;
  }
}
