// A test client for `mini-agent --acp`, driven by the official SDK's own client
// (`client({ name })`), a client no one here wrote. It records every session/update, every
// permission question and every fs call, answers them as a test says, and keeps every stdout line
// (a tee in front of the SDK) so a test can check that stdout carried only JSON-RPC. By default
// ACP mode runs in process (runAcp over in-memory streams: stdin a PassThrough the client writes
// to, stdout one the tee reads); `process: true` spawns `node bin/mini-agent --acp` instead, for
// what needs a process boundary: real signals, a real pipe's EOF, the stdout takeover, `child`.
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, Readable, Writable } from 'node:stream';
import { client, ndJsonStream, type ClientContext, type RequestPermissionRequest, type RequestPermissionResponse, type SessionUpdate } from '@agentclientprotocol/sdk';
import { runAcp } from '../../src/acp/acp-mode.js';
import type { FrontEndIo, FrontEndSignal } from '../../src/app/front-end-io.js';
import { BIN, tempDir } from './helpers.js';

export interface AcpClientOptions {
  cwd: string;
  home?: string;
  env?: Record<string, string>;
  /** Answers session/request_permission (default: allow once). */
  permission?: (request: RequestPermissionRequest) => RequestPermissionResponse['outcome'] | Promise<RequestPermissionResponse['outcome']>;
  /** The client's files: with it, fs/read_text_file and fs/write_text_file are answered from and into this map. */
  files?: Map<string, string>;
  /** A real child process (`node bin/mini-agent --acp`) rather than runAcp in process. */
  process?: boolean;
}

export interface Recorded {
  sessionId: string;
  update: SessionUpdate;
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };

export class AcpChild {
  readonly home: string;
  /** Every stdout line as written (before the SDK parses it). */
  readonly stdoutLines: string[] = [];
  stderr = '';
  readonly updates: Recorded[] = [];
  readonly permissions: RequestPermissionRequest[] = [];
  readonly reads: string[] = [];
  readonly writes: Array<{ path: string; content: string }> = [];
  readonly exited: Promise<Exit>;
  private waiters: Array<{ test: (r: Recorded) => boolean; resolve: (r: Recorded) => void }> = [];
  private readonly proc?: ChildProcess;
  private readonly input: Writable;
  private readonly output: Readable;
  /** In process: the listeners runAcp subscribed through io.onSignal, and whether it has returned. */
  private readonly signalListeners = new Set<(sig: FrontEndSignal) => void>();
  private settled = false;

  constructor(
    args: string[],
    private readonly opts: AcpClientOptions,
  ) {
    this.home = opts.home ?? tempDir('mini-agent-home-');
    const env = { PATH: process.env.PATH ?? '', HOME: this.home, MINI_AGENT_HOME: this.home, MINI_AGENT_NO_COMPILE_CACHE: '1', ...opts.env };
    if (opts.process) {
      const child = spawn(process.execPath, [BIN, '--acp', ...args], { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
      this.proc = child;
      this.input = child.stdin!;
      this.output = child.stdout!;
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
      this.exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
      return;
    }
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.on('error', () => undefined);
    this.input = stdin;
    this.output = stdout;
    let exitNow: (code: number) => void = () => undefined;
    const exitedNow = new Promise<number>((resolve) => (exitNow = resolve));
    const io: FrontEndIo = {
      cwd: opts.cwd,
      env,
      stdin,
      stdout,
      stderr: new Writable({
        decodeStrings: false,
        write: (chunk: string | Buffer, _encoding, done) => ((this.stderr += String(chunk)), done()),
      }),
      onSignal: (listener) => {
        this.signalListeners.add(listener);
        return () => void this.signalListeners.delete(listener);
      },
      exitNow,
    };
    this.exited = Promise.race([runAcp(['--acp', ...args], io), exitedNow])
      .catch((err: unknown) => {
        // What main.ts does with an error that has no kind.
        this.stderr += `mini-agent: internal error: ${(err as Error)?.stack ?? String(err)}\n`;
        return 1;
      })
      .then((code) => {
        // The process's stdout closes when it exits.
        this.settled = true;
        if (!stdout.destroyed) stdout.end();
        return { code, signal: null };
      });
  }

  /** The child process (with `process: true` only). */
  get child(): ChildProcess {
    if (!this.proc) throw new Error('ACP mode runs in process here: start it with { process: true } for a child');
    return this.proc;
  }

  /** True once the process exited, or runAcp returned. */
  get done(): boolean {
    return this.proc ? this.proc.exitCode !== null || this.proc.signalCode !== null : this.settled;
  }

  /** In process: delivers `sig` as io.onSignal would deliver the process's. */
  signal(sig: FrontEndSignal): void {
    if (this.proc) throw new Error('a child process: use child.kill()');
    for (const listener of [...this.signalListeners]) listener(sig);
  }

  /** In process: how many listeners runAcp holds through io.onSignal (none once it returned). */
  get signalListenerCount(): number {
    return this.signalListeners.size;
  }

  /** Connects the SDK's client, runs `op`, and leaves the child running (end it with `end()`). */
  async run<T>(op: (ctx: ClientContext) => Promise<T>): Promise<T> {
    const files = this.opts.files;
    let app = client({ name: 'mini-agent-test' })
      .onNotification('session/update', ({ params }) => this.record({ sessionId: params.sessionId, update: params.update }))
      .onRequest('session/request_permission', async ({ params }) => {
        this.permissions.push(params);
        return { outcome: this.opts.permission ? await this.opts.permission(params) : { outcome: 'selected', optionId: 'allow_once' } };
      });
    if (files) {
      app = app
        .onRequest('fs/read_text_file', ({ params }) => {
          this.reads.push(params.path);
          const content = files.get(params.path);
          if (content === undefined) throw new Error(`no such file in the editor: ${params.path}`);
          return { content };
        })
        .onRequest('fs/write_text_file', ({ params }) => {
          this.writes.push({ path: params.path, content: params.content });
          files.set(params.path, params.content);
          return {};
        });
    }
    return app.connectWith(ndJsonStream(Writable.toWeb(this.input), this.stdout()), op);
  }

  /** ACP mode's stdout, each line kept as it passes to the SDK. */
  private stdout(): ReadableStream<Uint8Array> {
    const decoder = new TextDecoder();
    let buffer = '';
    const lines = this.stdoutLines;
    const tee = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          lines.push(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
        }
        controller.enqueue(chunk);
      },
      flush() {
        if (buffer !== '') lines.push(buffer);
      },
    });
    return (Readable.toWeb(this.output) as unknown as ReadableStream<Uint8Array>).pipeThrough(tee);
  }

  private record(r: Recorded): void {
    this.updates.push(r);
    for (const w of [...this.waiters]) {
      if (w.test(r)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(r);
      }
    }
  }

  /** The first update (already received or to come) that passes `test`. */
  waitFor(test: (u: SessionUpdate) => boolean, ms = 15_000): Promise<SessionUpdate> {
    const seen = this.updates.find((r) => test(r.update));
    if (seen) return Promise.resolve(seen.update);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no such update within ${ms} ms; stderr:\n${this.stderr}`)), ms);
      this.waiters.push({ test: (r) => test(r.update), resolve: (r) => (clearTimeout(timer), resolve(r.update)) });
    });
  }

  /** The updates of one session, optionally of one kind. */
  of<K extends SessionUpdate['sessionUpdate']>(sessionId: string, kind?: K): Extract<SessionUpdate, { sessionUpdate: K }>[] {
    return this.updates.filter((r) => r.sessionId === sessionId && (kind === undefined || r.update.sessionUpdate === kind)).map((r) => r.update) as never;
  }

  /** The text of the agent_message_chunk updates of a session. */
  text(sessionId: string): string {
    return this.of(sessionId, 'agent_message_chunk')
      .map((u) => (u.content.type === 'text' ? u.content.text : ''))
      .join('');
  }

  /** Ends stdin (EOF) and resolves with how ACP mode exited (a child still running after 20 s is killed). */
  end(): Promise<Exit> {
    this.input.end();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (this.proc) this.proc.kill('SIGKILL');
        else reject(new Error(`ACP mode did not end within 20 s of EOF; stderr:\n${this.stderr}`));
      }, 20_000);
    });
    return Promise.race([this.exited, late]).finally(() => clearTimeout(timer));
  }

  /** Lines of stdout that are not a JSON-RPC 2.0 message (should be none). */
  impureLines(): string[] {
    return this.stdoutLines.filter((line) => {
      try {
        const m = JSON.parse(line) as { jsonrpc?: unknown };
        return m === null || typeof m !== 'object' || m.jsonrpc !== '2.0';
      } catch {
        return true;
      }
    });
  }
}

/** Starts ACP mode (in process, or a child with `process: true`) in a fresh workspace (or `cwd`) with a fresh home (or `home`). */
export function startAcp(args: string[], opts: Partial<AcpClientOptions> = {}): AcpChild {
  return new AcpChild(args, { cwd: opts.cwd ?? tempDir(), ...opts });
}

export const INIT = { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'mini-agent-test', version: '1.0.0' } } as const;
