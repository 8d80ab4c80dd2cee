// A local HTTP server for provider tests: it serves recorded or synthetic responses so the
// real SDKs parse them. Bodies can be split at chosen byte positions, delayed, or cut off.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** The whole body; `chunks` says where to split it (byte offsets, ascending). */
  body: string | Buffer;
  chunks?: number[];
  /** Wait before each chunk. */
  delayMs?: number;
  /** Destroy the socket after sending the body instead of ending the response cleanly. */
  cut?: boolean;
  /** Send only this many bytes of the body, then keep the connection open (until the client gives up). */
  stallAfter?: number;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface TestServer {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  requests: RecordedRequest[];
  /** Requests whose connection the client closed before the response ended. */
  clientAborts: number;
  /** TCP connections the clients opened. */
  connections: number;
  /** Of those, the ones whose TLS handshake completed (an HTTPS server). */
  secureConnections: number;
  close(): Promise<void>;
}

export type Handler = (req: RecordedRequest, index: number) => Reply | Promise<Reply>;

/**
 * The test certificate (test/fixtures/tls: self-signed, for localhost, 127.0.0.1 and ::1, valid
 * for a century): a client trusts it through NODE_EXTRA_CA_CERTS=TEST_CERT_FILE.
 */
export const TEST_CERT_FILE = new URL('../fixtures/tls/localhost.crt', import.meta.url).pathname;
const testTls = () => ({ cert: readFileSync(TEST_CERT_FILE), key: readFileSync(new URL('../fixtures/tls/localhost.key', import.meta.url)) });

/**
 * Serves `handler`'s replies; an array of replies is served in order (the last one repeats).
 * With `tls`, over HTTPS with the test certificate (the URL is then https://127.0.0.1:PORT).
 */
export async function startServer(handler: Handler | Reply[], opts: { tls?: boolean } = {}): Promise<TestServer> {
  const handle: Handler = Array.isArray(handler) ? (_r, i) => handler[Math.min(i, handler.length - 1)] : handler;
  const state: TestServer = { url: '', requests: [], clientAborts: 0, connections: 0, secureConnections: 0, close: async () => undefined };
  const sockets = new Set<import('node:net').Socket>();
  const onRequest = async (req: import('node:http').IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    let body: any = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* keep the text */
    }
    const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
    const index = state.requests.push(recorded) - 1;
    let finished = false;
    res.on('close', () => {
      if (!finished) state.clientAborts++;
    });
    const reply = await handle(recorded, index);
    await send(res, reply);
    finished = !reply.cut && reply.stallAfter === undefined;
  };
  const server = opts.tls ? createTlsServer(testTls(), onRequest) : createServer(onRequest);
  server.on('secureConnection', () => state.secureConnections++);
  server.on('connection', (s) => {
    state.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  state.url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  state.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return state;
}

async function send(res: ServerResponse, reply: Reply): Promise<void> {
  const body = Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(reply.body, 'utf8');
  res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
  const limit = reply.stallAfter ?? body.length;
  const cuts = [...(reply.chunks ?? []).filter((c) => c > 0 && c < limit), limit];
  let prev = 0;
  for (const cut of cuts) {
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    res.write(body.subarray(prev, cut));
    prev = cut;
  }
  if (reply.stallAfter !== undefined) return; // keep the connection open
  if (reply.cut) {
    await new Promise((r) => setTimeout(r, 5));
    res.socket?.destroy();
    return;
  }
  res.end();
}

/** SSE body from events: OpenAI style (`data:` lines) or Anthropic style (`event:` + `data:`). */
export function sse(events: Array<object | string>, opts: { named?: boolean; done?: boolean } = {}): string {
  let out = '';
  for (const e of events) {
    if (typeof e === 'string') {
      out += `data: ${e}\n\n`;
      continue;
    }
    if (opts.named) out += `event: ${(e as { type: string }).type}\n`;
    out += `data: ${JSON.stringify(e)}\n\n`;
  }
  if (opts.done) out += 'data: [DONE]\n\n';
  return out;
}

/** `serve(replies)` for a test file: every server it starts is closed after each test. */
export function servePerTest(): (handler: Handler | Reply[], opts?: { tls?: boolean }) => Promise<TestServer> {
  const servers: TestServer[] = [];
  afterEach(async () => {
    while (servers.length) await servers.pop()!.close();
  });
  return async (handler, opts) => {
    const server = await startServer(handler, opts);
    servers.push(server);
    return server;
  };
}
