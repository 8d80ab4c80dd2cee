// A test client for RPC mode, JSON lines both ways. Every stdout line is kept (to check it parses
// and matches the schemas), responses are matched by id. By default RPC mode runs in process
// (runRpc in src/rpc/run-rpc.ts, over in-memory streams); `process: true` (or `command`) runs
// `mini-agent --rpc` as a real child process, for what needs the process boundary: signals,
// stdout kept for the protocol alone, the built bundle.
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { FrontEndIo } from '../../src/app/front-end-io.js';
import type { AgentEvent } from '../../src/core/events.js';
import { runRpc } from '../../src/rpc/run-rpc.js';
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

export interface RpcClientOptions {
  cwd: string;
  home?: string;
  env?: Record<string, string>;
  /** Runs this command instead of `node bin/mini-agent --rpc ARGS` (a child process). */
  command?: string[];
  /** A real `mini-agent --rpc` process instead of RPC mode in process. */
  process?: boolean;
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };

export class RpcClient {
  /** The child process (with `process: true` or `command`); undefined in process. */
  readonly child: ChildProcess | undefined;
  /** Every stdout line, parsed (a line that does not parse is kept as a string: a test failure). */
  readonly lines: (RpcLine | string)[] = [];
  stderr = '';
  private buffer = '';
  private nextId = 1;
  private waiters: Array<{ test: (l: RpcLine) => boolean; resolve: (l: RpcLine) => void }> = [];
  private readonly stdin: NodeJS.WritableStream;
  readonly exited: Promise<Exit>;

  constructor(args: string[], opts: RpcClientOptions) {
    const home = opts.home ?? tempDir('mini-agent-home-');
    const env = { PATH: process.env.PATH ?? '', HOME: home, MINI_AGENT_HOME: home, MINI_AGENT_NO_COMPILE_CACHE: '1', ...opts.env };
    if (opts.process || opts.command) {
      const command = opts.command ?? [process.execPath, BIN, '--rpc', ...args];
      const child = spawn(command[0], command.slice(1), { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdout!.setEncoding('utf8').on('data', (d: string) => this.onStdout(d));
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
      this.child = child;
      this.stdin = child.stdin!;
      this.exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
      return;
    }
    this.child = undefined;
    const stdin = new PassThrough();
    this.stdin = stdin;
    const io: FrontEndIo = {
      cwd: opts.cwd,
      env,
      stdin,
      stdout: textSink((text) => this.onStdout(text)),
      stderr: textSink((text) => (this.stderr += text)),
      onSignal: () => () => {}, // signals are tested with a real process (`process: true`)
      exitNow: () => {
        throw new Error('RPC mode does not exit on its own');
      },
    };
    this.exited = runRpc(['--rpc', ...args], io).then(
      (code) => ({ code, signal: null }),
      (err: unknown) => {
        // What main.ts does with an error that has no kind.
        this.stderr += `mini-agent: internal error: ${(err as Error)?.stack ?? String(err)}\n`;
        return { code: 1, signal: null };
      },
    );
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
    // In process, as through a pipe: the line reaches RPC mode in a later turn of the event loop,
    // not inside the test's own (a command sent on seeing run_settled meets a run that has ended).
    if (this.child) this.stdin.write(text);
    else setImmediate(() => this.stdin.write(text));
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

  /** Closes stdin (EOF) and waits for RPC mode to end. */
  async end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child) this.stdin.end();
    else setImmediate(() => this.stdin.end()); // after the lines written before it
    return this.exited;
  }
}

/** A stream that hands each write, decoded as UTF-8, to `onText`. */
function textSink(onText: (text: string) => void): Writable {
  const decoder = new StringDecoder('utf8');
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      onText(typeof chunk === 'string' ? chunk : decoder.write(chunk));
      done();
    },
  });
}
