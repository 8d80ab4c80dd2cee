// The provider SDKs' transport: a WHATWG `fetch` over node:http and node:https (issue 14).
//
// Why not Node's own fetch (undici)? Measured in `npm run bench` §12, on every Node we support:
// - a request over node:http costs less, at the first request (undici's fetch builds its own
//   machinery and compiles its WebAssembly HTTP parser there) and at every turn after it;
// - it lets a run open its connection ahead of the request (`preconnect`): the DNS lookup and the
//   TCP and TLS handshakes with a real provider (one to three round trips) then overlap with the
//   agent's own start-up (the session, the SDK's import, the request's building) instead of
//   following it. Node's fetch has no public way to open a connection before a request.
//
// What it does, as fetch does for the requests the SDKs make: the method, headers and a string or
// byte body; keep-alive connections; redirects followed (at most 20; a 303, or a 301/302 of a POST,
// becomes a GET without body; credentials are dropped when the origin changes); gzip, deflate and
// br bodies decoded; the signal aborting the request or its body with the signal's reason; network
// failures as `TypeError('fetch failed', { cause })`. What it does not do is handed to Node's fetch,
// unchanged: a body that is a stream or a form, and every request when the user asks Node to use a
// proxy from the environment (NODE_USE_ENV_PROXY, --use-env-proxy) or sets MINI_AGENT_TRANSPORT=fetch.
//
// The SDKs still build their headers with the global `Headers`, which loads undici's code; only
// its HTTP client stays unused. node:http and node:https load at the first request or preconnect.
import type { Agent, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { prepareNodeFetch } from '../core/node-fetch.js';

export interface HttpTransport {
  /** For the SDK's `fetch` option. */
  readonly fetch: typeof fetch;
  /**
   * Opens a connection to the origin of `url` for the next request, unless one is open or opening.
   * Never throws and never sends a byte of HTTP: a connection that fails is forgotten, and the
   * request then connects itself and reports the failure.
   */
  preconnect(url: string): void;
}

/** A body cut off by the connection closing before the response ended. */
export class ResponseCutError extends Error {
  override name = 'ResponseCutError';
  readonly code: string | undefined;
  constructor(cause: unknown) {
    super('the connection closed before the response ended', { cause });
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
  }
}

type Protocol = 'http:' | 'https:';
type NodeHttp = typeof import('node:http');
type NodeNet = typeof import('node:net');

const MAX_REDIRECTS = 20;
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
/** Headers that carry the caller's credentials: never sent to another origin after a redirect. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'api-key', 'cookie', 'proxy-authorization'];

/** Whether requests go to Node's fetch: a proxy from the environment is Node's to apply, or the user asked (the app layer refuses other values of MINI_AGENT_TRANSPORT than "fetch" and "http"). */
export function nodeFetchWanted(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): boolean {
  if (env.MINI_AGENT_TRANSPORT === 'fetch') return true;
  if (env.NODE_USE_ENV_PROXY !== undefined && env.NODE_USE_ENV_PROXY !== '' && env.NODE_USE_ENV_PROXY !== '0') return true;
  return execArgv.includes('--use-env-proxy') || /(^|\s)--use-env-proxy(\s|=|$)/.test(env.NODE_OPTIONS ?? '');
}

/** A TCP connection opened ahead, not yet given to its agent (nor, for https, wrapped in TLS). */
interface Pending {
  protocol: Protocol;
  host: string;
  port: number;
  tcp: Socket;
}

export function createHttpTransport(): HttpTransport {
  if (nodeFetchWanted()) return { fetch: nodeFetch, preconnect: () => undefined };
  const agents = new Map<Protocol, PreconnectingAgent>();
  const agentFor = (protocol: Protocol): PreconnectingAgent => {
    let agent = agents.get(protocol);
    if (!agent) agents.set(protocol, (agent = createAgent(protocol)));
    return agent;
  };
  let pending: Pending | undefined;
  const adopt = () => {
    if (!pending) return;
    const { protocol, host, port, tcp } = pending;
    pending = undefined;
    agentFor(protocol).adopt(host, port, tcp);
  };
  return {
    fetch: (input, init) => {
      adopt();
      return httpFetch(input, init ?? {}, agentFor);
    },
    preconnect(url) {
      try {
        const u = new URL(url);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') return;
        const [host, port] = [hostOf(u), portOf(u)];
        if (pending || agents.get(u.protocol)?.holds(host, port)) return;
        // The TCP connection first (node:net is loaded already): its handshake runs while the next
        // event-loop turn loads node:https and wraps it in TLS, and while the agent goes on starting.
        // Until a request takes it, it holds no reference on the event loop: an unused one never
        // keeps the process alive.
        const tcp = builtin<NodeNet>('node:net').connect({ host, port, noDelay: true, keepAlive: true });
        tcp.unref().on('error', () => undefined); // its agent forgets it (adopt); a request then connects itself
        pending = { protocol: u.protocol, host, port, tcp };
        setImmediate(adopt);
      } catch {
        // Not a URL we can connect to: the request will say so.
      }
    },
  };
}

/** Node's own fetch, for what this transport leaves to it. */
function nodeFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  prepareNodeFetch();
  return globalThis.fetch(input, init);
}

function builtin<T>(name: string): T {
  return process.getBuiltinModule(name) as T;
}

/** The URL's host as node:http's options take it (an IPv6 address without its brackets). */
function hostOf(u: URL): string {
  return u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
}

function portOf(u: URL): number {
  return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
}

interface PreconnectingAgent extends Agent {
  /** Takes a TCP connection opened ahead to `host`:`port` (wrapping it in TLS for https) for the next request there. */
  adopt(host: string, port: number, tcp: Socket): void;
  /** Whether a connection to `host`:`port` is kept or opened ahead. */
  holds(host: string, port: number): boolean;
}

/**
 * A keep-alive agent that can be given a connection before it is asked for one. Node's agent makes
 * each new connection through `createConnection` (documented to be overridden): a connection
 * adopted ahead is handed to the first request for its host and port, and from then on the agent
 * keeps and reuses it like any other.
 */
function createAgent(protocol: Protocol): PreconnectingAgent {
  const Base = protocol === 'https:' ? builtin<typeof import('node:https')>('node:https').Agent : builtin<NodeHttp>('node:http').Agent;
  const isIP = builtin<NodeNet>('node:net').isIP;
  class Preconnecting extends Base implements PreconnectingAgent {
    /** Connections opened ahead, by host and port, with the listener that forgets each one if it fails first. */
    private readonly opened = new Map<string, { socket: Socket; forget: () => void }>();

    holds(host: string, port: number): boolean {
      const key = `${host}:${port}`;
      return this.opened.has(key) || Object.keys(this.freeSockets).some((name) => name.startsWith(key + ':'));
    }

    adopt(host: string, port: number, tcp: Socket): void {
      const key = `${host}:${port}`;
      if (this.opened.has(key) || tcp.destroyed) return void tcp.destroy();
      const servername = isIP(host) ? undefined : host;
      // The options the agent itself would pass (its own, then the request's), over the TCP connection.
      const options = { ...(this as unknown as { options: object }).options, host, port, ...(servername ? { servername } : {}), socket: tcp };
      const socket = protocol === 'https:' ? (super.createConnection as (o: object) => Socket)(options).unref() : tcp;
      const forget = () => {
        if (this.opened.get(key)?.socket === socket) this.opened.delete(key);
        socket.destroy();
      };
      socket.once('error', forget).once('close', forget);
      this.opened.set(key, { socket, forget });
    }

    override createConnection(options: { host?: string | null; port?: number | string | null }, callback?: (err: Error | null, socket: Socket) => void): Socket {
      const key = `${options.host}:${options.port}`;
      const ahead = this.opened.get(key);
      if (ahead) {
        this.opened.delete(key);
        ahead.socket.off('error', ahead.forget).off('close', ahead.forget);
        if (!ahead.socket.destroyed) return ahead.socket.ref();
      }
      return (super.createConnection as (o: object, cb?: unknown) => Socket)(options, callback);
    }
  }
  return new Preconnecting({ keepAlive: true });
}

/** A fetch Request's parts that this transport sends itself; undefined when it leaves the request to Node's fetch. */
interface Outgoing {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

function outgoing(input: Parameters<typeof fetch>[0], init: RequestInit): Outgoing | undefined {
  if (typeof input !== 'string' && !(input instanceof URL)) return undefined; // a Request object
  const raw = init.body;
  let body: string | Uint8Array | undefined;
  if (raw === undefined || raw === null) body = undefined;
  else if (typeof raw === 'string') body = raw;
  else if (raw instanceof Uint8Array) body = raw;
  else if (raw instanceof ArrayBuffer) body = new Uint8Array(raw);
  else return undefined; // a stream, a form, a blob: Node's fetch knows how to send those
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  return { url: new URL(input), method: (init.method ?? 'GET').toUpperCase(), headers, body };
}

async function httpFetch(input: Parameters<typeof fetch>[0], init: RequestInit, agentFor: (p: Protocol) => Agent): Promise<Response> {
  const request = outgoing(input, init);
  if (!request || (request.url.protocol !== 'http:' && request.url.protocol !== 'https:')) return nodeFetch(input, init);
  const signal = init.signal ?? undefined;
  for (let redirects = 0; ; redirects++) {
    const res = await send(request, signal, agentFor(request.url.protocol as Protocol));
    const location = res.headers.location;
    if (![301, 302, 303, 307, 308].includes(res.statusCode ?? 0) || location === undefined || init.redirect === 'manual') return toResponse(res, request, signal);
    res.resume(); // the redirect's own body is not read
    if (init.redirect === 'error') throw new TypeError('fetch failed', { cause: new Error(`redirected (${res.statusCode}) to ${location}`) });
    if (redirects === MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error(`more than ${MAX_REDIRECTS} redirects`) });
    redirect(request, res.statusCode ?? 0, location);
  }
}

/** Turns `request` into the one the redirect asks for, as fetch does. */
function redirect(request: Outgoing, status: number, location: string): void {
  let next: URL;
  try {
    next = new URL(location, request.url);
  } catch {
    throw new TypeError('fetch failed', { cause: new Error(`a redirect to an invalid URL: ${location}`) });
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new TypeError('fetch failed', { cause: new Error(`a redirect to a URL that is not http(s): ${location}`) });
  if (status === 303 ? request.method !== 'HEAD' : (status === 301 || status === 302) && request.method === 'POST') {
    request.method = 'GET';
    request.body = undefined;
    for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) delete request.headers[name];
  }
  if (next.origin !== request.url.origin) for (const name of CREDENTIAL_HEADERS) delete request.headers[name];
  request.url = next;
}

function send(request: Outgoing, signal: AbortSignal | undefined, agent: Agent): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const http = builtin<NodeHttp>(request.url.protocol === 'https:' ? 'node:https' : 'node:http');
    const onAbort = () => {
      reject(signal?.reason);
      req.destroy();
    };
    let req: ReturnType<NodeHttp['request']>;
    try {
      req = http.request(request.url, { method: request.method, headers: request.headers as OutgoingHttpHeaders, agent });
    } catch (err) {
      return reject(new TypeError('fetch failed', { cause: err })); // an invalid header value, say
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    req.once('response', (res) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(res);
    });
    req.once('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: err }));
    });
    req.end(request.body);
  });
}

function toResponse(res: IncomingMessage, request: Outgoing, signal: AbortSignal | undefined): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  if (status < 200 || status > 599) {
    res.destroy();
    throw new TypeError('fetch failed', { cause: new Error(`the server answered with status ${status}`) });
  }
  const init = { status, statusText: validStatusText(res.statusMessage), headers };
  if (NULL_BODY_STATUS.has(status) || request.method === 'HEAD') {
    res.resume();
    return new Response(null, init);
  }
  return new Response(bodyStream(res, decoded(res), signal), init);
}

/** A reason phrase the Response constructor takes (tab, space and visible characters), or none. */
function validStatusText(text: string | undefined): string {
  return text !== undefined && /^[\t\x20-\x7e\x80-\xff]*$/.test(text) ? text : '';
}

/** The body as its content-encoding says (gzip, deflate, br), or as it came. */
function decoded(res: IncomingMessage): Readable {
  const codings = (res.headers['content-encoding'] ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return res;
  const zlib = builtin<typeof import('node:zlib')>('node:zlib');
  const make: Record<string, (() => NodeJS.ReadWriteStream) | undefined> = {
    gzip: () => zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
    'x-gzip': () => zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
    deflate: () => zlib.createInflate(),
    br: () => zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }),
  };
  if (codings.some((c) => make[c] === undefined)) return res; // an unknown coding: passed on as it came, as fetch does
  const { pipeline } = builtin<typeof import('node:stream')>('node:stream');
  const stages = codings.reverse().map((c) => make[c]!());
  const out = stages[stages.length - 1] as unknown as Readable;
  (pipeline as (...streams: unknown[]) => unknown)(res, ...stages, () => undefined); // a failure reaches `out` as its 'error'
  return out;
}

/**
 * The response body as a web stream, read as the consumer pulls. It ends with the response; it
 * fails with the signal's reason on an abort and with ResponseCutError when the connection closes
 * first; cancelling it closes the connection (the request stops on the server's side too).
 */
function bodyStream(res: IncomingMessage, source: Readable, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let settled = false;
  let onAbort = () => undefined as void;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const settle = (fail?: unknown) => {
          if (settled) return;
          settled = true;
          signal?.removeEventListener('abort', onAbort);
          if (fail === undefined) controller.close();
          else {
            controller.error(fail);
            res.destroy();
          }
        };
        onAbort = () => settle(signal?.reason);
        if (signal?.aborted) return settle(signal.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        source.on('data', (chunk: Buffer) => {
          if (settled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) source.pause();
        });
        source.once('end', () => settle());
        source.once('error', (err) => settle(new ResponseCutError(err)));
        res.once('close', () => {
          if (!res.complete) settle(new ResponseCutError(undefined));
        });
      },
      pull() {
        source.resume();
      },
      cancel() {
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        res.destroy();
      },
    },
    { highWaterMark: 1 },
  );
}
