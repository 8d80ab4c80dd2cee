// A test client for `mini-agent --acp`: a real child process driven by the official SDK's own
// client (`client({ name })`), a client no one here wrote. It records every session/update, every
// permission question and every fs call, answers them as a test says, and keeps every stdout line
// (a tee in front of the SDK) so a test can check that stdout carried only JSON-RPC.
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client, ndJsonStream, type ClientContext, type RequestPermissionRequest, type RequestPermissionResponse, type SessionUpdate } from '@agentclientprotocol/sdk';
import { BIN, tempDir } from './helpers.js';

export interface AcpClientOptions {
  cwd: string;
  home?: string;
  env?: Record<string, string>;
  /** Answers session/request_permission (default: allow once). */
  permission?: (request: RequestPermissionRequest) => RequestPermissionResponse['outcome'] | Promise<RequestPermissionResponse['outcome']>;
  /** The client's files: with it, fs/read_text_file and fs/write_text_file are answered from and into this map. */
  files?: Map<string, string>;
}

export interface Recorded {
  sessionId: string;
  update: SessionUpdate;
}

export class AcpChild {
  readonly child: ChildProcess;
  readonly home: string;
  /** Every stdout line as written (before the SDK parses it). */
  readonly stdoutLines: string[] = [];
  stderr = '';
  readonly updates: Recorded[] = [];
  readonly permissions: RequestPermissionRequest[] = [];
  readonly reads: string[] = [];
  readonly writes: Array<{ path: string; content: string }> = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: Array<{ test: (r: Recorded) => boolean; resolve: (r: Recorded) => void }> = [];

  constructor(
    args: string[],
    private readonly opts: AcpClientOptions,
  ) {
    this.home = opts.home ?? tempDir('mini-agent-home-');
    this.child = spawn(process.execPath, [BIN, '--acp', ...args], {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: this.home, MINI_AGENT_HOME: this.home, MINI_AGENT_NO_COMPILE_CACHE: '1', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on('close', (code, signal) => resolve({ code, signal })));
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
    return app.connectWith(ndJsonStream(Writable.toWeb(this.child.stdin!), this.stdout()), op);
  }

  /** The child's stdout, each line kept as it passes to the SDK. */
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
    return (Readable.toWeb(this.child.stdout!) as unknown as ReadableStream<Uint8Array>).pipeThrough(tee);
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

  /** Ends stdin (EOF) and resolves with how the process exited. */
  end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    return this.exited.finally(() => clearTimeout(timer));
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

/** Starts a child in a fresh workspace (or `cwd`) with a fresh home (or `home`). */
export function startAcp(args: string[], opts: Partial<AcpClientOptions> = {}): AcpChild {
  return new AcpChild(args, { cwd: opts.cwd ?? tempDir(), ...opts });
}

export const INIT = { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'mini-agent-test', version: '1.0.0' } } as const;
