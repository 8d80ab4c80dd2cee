// The providers' transport (src/model/http-transport.ts): a fetch over node:http against local
// servers. What fetch does for the SDKs' requests it must do too (methods, headers, bodies,
// keep-alive, redirects, content codings, aborts, failures), and a connection opened ahead with
// `preconnect` must be the one the next request uses. HTTPS and the preconnect of a real run are
// checked end to end in test/providers-cli.test.ts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpTransport, nodeFetchWanted, ResponseCutError } from '../src/model/http-transport.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Which connection (1, 2, ...) carried it. */
  connection: number;
}

interface Server {
  url: string;
  seen: Seen[];
  /** Connections opened, and when each one's first request arrived (undefined: none yet). */
  connections: Array<{ socket: Socket; firstRequest?: number }>;
  /** Sockets closed by the client before their response ended. */
  clientCloses: number;
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
});

async function serve(handle: (req: Seen, res: ServerResponse) => unknown): Promise<Server> {
  const state: Server = { url: '', seen: [], connections: [], clientCloses: 0, close: async () => undefined };
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const connection = state.connections.findIndex((c) => c.socket === req.socket) + 1;
    state.connections[connection - 1].firstRequest ??= state.seen.length;
    const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts).toString('utf8'), connection };
    state.seen.push(seen);
    res.on('close', () => {
      if (!res.writableFinished) state.clientCloses++;
    });
    await handle(seen, res);
  });
  server.on('connection', (socket: Socket) => state.connections.push({ socket }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      for (const c of state.connections) c.socket.destroy();
      server.close(() => r());
    });
  servers.push(state);
  return state;
}

const until = async (what: () => boolean, ms = 2000) => {
  for (const end = Date.now() + ms; !what() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 5));
  return what();
};

/** A port nothing listens on: a server's, closed. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('requests', () => {
  it('sends the method, the headers and a string body; answers with status, headers and body', async () => {
    const server = await serve((req, res) => {
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-request-id': 'r1' }).end(JSON.stringify({ echo: req.body }));
    });
    const { fetch } = createHttpTransport();
    const headers = new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' });
    const res = await fetch(`${server.url}/v1/chat?x=1`, { method: 'post', headers, body: '{"a":"é"}' });
    expect(res.status).toBe(201);
    expect(res.statusText).toBe('Made');
    expect(res.ok).toBe(true);
    expect(res.headers.get('x-request-id')).toBe('r1');
    expect(await res.json()).toEqual({ echo: '{"a":"é"}' });
    const [seen] = server.seen;
    expect(seen).toMatchObject({ method: 'POST', url: '/v1/chat?x=1', body: '{"a":"é"}' });
    expect(seen.headers).toMatchObject({ authorization: 'Bearer k', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength('{"a":"é"}')) });
  });

  it('byte bodies and plain-object headers; an error status is a response, not a failure', async () => {
    const server = await serve((req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end(`no ${req.body}`));
    const res = await createHttpTransport().fetch(`${server.url}/x`, { method: 'PUT', headers: { 'x-a': '1' }, body: new TextEncoder().encode('bytes') });
    expect(res.status).toBe(404);
    expect(res.ok).toBe(false);
    expect(await res.text()).toBe('no bytes');
    expect(server.seen[0].headers['x-a']).toBe('1');
  });

  it('a streamed body arrives piece by piece, before the response ends', async () => {
    let finish = () => undefined as void;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      finish = () => res.end('data: 2\n\n');
    });
    const res = await createHttpTransport().fetch(`${server.url}/s`, { method: 'POST', body: '{}' });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: 1\n\n');
    finish();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toBe('data: 2\n\n');
  });

  it('keeps the connection: requests one after another use one', async () => {
    const server = await serve((_req, res) => res.end('ok'));
    const { fetch } = createHttpTransport();
    for (let i = 0; i < 4; i++) expect(await (await fetch(`${server.url}/${i}`, { method: 'POST', body: '{}' })).text()).toBe('ok');
    expect(server.connections).toHaveLength(1);
    expect(server.seen.map((s) => s.connection)).toEqual([1, 1, 1, 1]);
  });

  it('204 and HEAD have no body', async () => {
    const server = await serve((req, res) => (req.url === '/none' ? res.writeHead(204).end() : res.writeHead(200, { 'content-length': '5' }).end(req.method === 'HEAD' ? undefined : 'hello')));
    const { fetch } = createHttpTransport();
    const none = await fetch(`${server.url}/none`, { method: 'DELETE' });
    expect(none.status).toBe(204);
    expect(none.body).toBeNull();
    const head = await fetch(`${server.url}/h`, { method: 'HEAD' });
    expect(head.body).toBeNull();
    expect(head.headers.get('content-length')).toBe('5');
  });

  it('gzip, deflate and br bodies are decoded, as fetch does', async () => {
    const text = 'data: {"a":1}\n\n'.repeat(200);
    const coded: Record<string, Buffer> = { gzip: gzipSync(text), deflate: deflateSync(text), br: brotliCompressSync(text) };
    const server = await serve((req, res) => res.writeHead(200, { 'content-encoding': req.url.slice(1) }).end(coded[req.url.slice(1)]));
    const { fetch } = createHttpTransport();
    for (const coding of Object.keys(coded)) expect(await (await fetch(`${server.url}/${coding}`)).text()).toBe(text);
  });
});

describe('redirects', () => {
  it("307 and 308 keep the method and body; 303 and a POST's 302 become a GET without body", async () => {
    const server = await serve((req, res) => {
      const to: Record<string, [number, string]> = { '/a': [307, '/b'], '/b': [308, '/c'], '/p': [302, '/g'], '/s': [303, '/g'] };
      const hop = to[req.url];
      if (hop) res.writeHead(hop[0], { location: hop[1] }).end('moved');
      else res.end(`${req.method} ${req.url} ${req.body}`);
    });
    const { fetch } = createHttpTransport();
    expect(await (await fetch(`${server.url}/a`, { method: 'POST', body: 'x' })).text()).toBe('POST /c x');
    expect(await (await fetch(`${server.url}/p`, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } })).text()).toBe('GET /g ');
    expect(server.seen.at(-1)!.headers['content-type']).toBeUndefined();
    expect(await (await fetch(`${server.url}/s`, { method: 'PUT', body: 'x' })).text()).toBe('GET /g ');
  });

  it('the credentials stay behind when the redirect leaves the origin', async () => {
    const other = await serve((_req, res) => res.end('other'));
    const server = await serve((req, res) => (req.url === '/away' ? res.writeHead(307, { location: `${other.url}/landed` }).end() : res.writeHead(307, { location: '/away' }).end()));
    const res = await createHttpTransport().fetch(`${server.url}/start`, { method: 'POST', body: '{}', headers: { authorization: 'Bearer secret', 'x-api-key': 'sk-ant', 'x-keep': 'yes' } });
    expect(await res.text()).toBe('other');
    expect(server.seen[1].headers.authorization).toBe('Bearer secret'); // same origin: kept
    expect(other.seen[0].headers).not.toHaveProperty('authorization');
    expect(other.seen[0].headers).not.toHaveProperty('x-api-key');
    expect(other.seen[0].headers['x-keep']).toBe('yes');
  });

  it('a loop of redirects fails after 20; redirect "manual" and "error" are honoured', async () => {
    const server = await serve((req, res) => res.writeHead(302, { location: req.url === '/loop' ? '/loop' : '/loop' }).end());
    const { fetch } = createHttpTransport();
    const loop = await fetch(`${server.url}/loop`).catch((e: unknown) => e);
    expect(loop).toBeInstanceOf(TypeError);
    expect(String((loop as TypeError).cause)).toContain('more than 20 redirects');
    expect(server.seen).toHaveLength(21);
    expect((await fetch(`${server.url}/m`, { redirect: 'manual' })).status).toBe(302);
    await expect(fetch(`${server.url}/m`, { redirect: 'error' })).rejects.toThrow(TypeError);
  });
});

describe('failures and aborts', () => {
  it('a refused connection is TypeError("fetch failed") with the system error as its cause', async () => {
    const err = (await createHttpTransport()
      .fetch(`http://127.0.0.1:${await closedPort()}/v1`)
      .catch((e: unknown) => e)) as TypeError;
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('fetch failed');
    expect((err.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('a method or header Node cannot send fails the request, naming the problem, and sends nothing', async () => {
    const server = await serve((_req, res) => res.end('ok'));
    const bad = (await createHttpTransport()
      .fetch(`${server.url}/`, { method: 'BAD METHOD' })
      .catch((e: unknown) => e)) as TypeError;
    expect(bad).toBeInstanceOf(TypeError);
    expect(String(bad.cause)).toMatch(/method/i);
    await expect(createHttpTransport().fetch(`${server.url}/`, { headers: { 'x-a': 'line\nbreak' } })).rejects.toThrow(TypeError);
    expect(server.connections).toHaveLength(0);
  });

  it('a body cut off by the server fails the stream with ResponseCutError', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const res = await createHttpTransport().fetch(`${server.url}/cut`, { method: 'POST', body: '{}' });
    const err = await res.text().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseCutError);
    expect((err as Error).message).toBe('the connection closed before the response ended');
  });

  it("already aborted: nothing is sent, the signal's reason is thrown", async () => {
    const server = await serve((_req, res) => res.end('ok'));
    const controller = new AbortController();
    controller.abort();
    await expect(createHttpTransport().fetch(`${server.url}/`, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.connections).toHaveLength(0);
  });

  it('an abort while waiting for the headers rejects and closes the connection', async () => {
    const server = await serve(() => undefined); // never answers
    const controller = new AbortController();
    const pending = createHttpTransport().fetch(`${server.url}/`, { method: 'POST', body: '{}', signal: controller.signal });
    expect(await until(() => server.seen.length === 1)).toBe(true);
    controller.abort(new Error('stop now'));
    await expect(pending).rejects.toThrow('stop now');
    expect(await until(() => server.clientCloses === 1)).toBe(true);
  });

  it('an abort mid-body errors the stream with the reason and closes the connection', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n'); // and then nothing more
    });
    const controller = new AbortController();
    const res = await createHttpTransport().fetch(`${server.url}/`, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    expect(await until(() => server.clientCloses === 1)).toBe(true);
  });

  it('cancelling the body closes the connection; the next request opens another', async () => {
    const server = await serve((req, res) => {
      res.writeHead(200);
      if (req.url === '/stall') res.write('part');
      else res.end('whole');
    });
    const { fetch } = createHttpTransport();
    const res = await fetch(`${server.url}/stall`);
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(await until(() => server.clientCloses === 1)).toBe(true);
    expect(await (await fetch(`${server.url}/next`)).text()).toBe('whole');
    expect(server.seen.map((s) => s.connection)).toEqual([1, 2]);
  });
});

describe('preconnect', () => {
  it('opens the connection before any request, and the next request uses it', async () => {
    const server = await serve((_req, res) => res.end('ok'));
    const t = createHttpTransport();
    t.preconnect(`${server.url}/v1`);
    t.preconnect(`${server.url}/v1`); // once is enough: a second call opens nothing more
    expect(await until(() => server.connections.length === 1)).toBe(true);
    expect(server.seen).toHaveLength(0); // a connection, no request
    expect(await (await t.fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{}' })).text()).toBe('ok');
    expect(await (await t.fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: '{}' })).text()).toBe('ok');
    expect(server.connections).toHaveLength(1);
    expect(server.seen.map((s) => s.connection)).toEqual([1, 1]);
  });

  it('with a free connection already kept, opens none', async () => {
    const server = await serve((_req, res) => res.end('ok'));
    const t = createHttpTransport();
    await (await t.fetch(`${server.url}/a`)).text();
    await new Promise((r) => setImmediate(r)); // the agent takes the connection back
    t.preconnect(server.url);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.connections).toHaveLength(1);
  });

  it('a connection that fails ahead is forgotten: no crash, and the request reports its own failure', async () => {
    const port = await closedPort();
    const t = createHttpTransport();
    t.preconnect(`http://127.0.0.1:${port}/v1`);
    await new Promise((r) => setTimeout(r, 50)); // the refusal arrives and is swallowed
    const err = (await t.fetch(`http://127.0.0.1:${port}/v1/x`).catch((e: unknown) => e)) as TypeError;
    expect(err.message).toBe('fetch failed');
    expect((err.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('a connection the server closed before the request is not used', async () => {
    const server = await serve((_req, res) => res.end('ok'));
    const t = createHttpTransport();
    t.preconnect(server.url);
    expect(await until(() => server.connections.length === 1)).toBe(true);
    server.connections[0].socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(await (await t.fetch(`${server.url}/x`)).text()).toBe('ok');
    expect(server.connections).toHaveLength(2);
    expect(server.seen[0].connection).toBe(2);
  });

  it('anything but an http(s) URL is ignored', () => {
    const t = createHttpTransport();
    expect(() => t.preconnect('not a url')).not.toThrow();
    expect(() => t.preconnect('ftp://example.com/')).not.toThrow();
  });
});

describe("Node's fetch instead", () => {
  it('when Node is to apply a proxy from the environment, or MINI_AGENT_TRANSPORT=fetch says so', () => {
    expect(nodeFetchWanted({}, [])).toBe(false);
    expect(nodeFetchWanted({ HTTPS_PROXY: 'http://proxy:3128' }, [])).toBe(false); // Node's fetch ignores it too
    expect(nodeFetchWanted({ NODE_USE_ENV_PROXY: '1' }, [])).toBe(true);
    expect(nodeFetchWanted({ NODE_USE_ENV_PROXY: '0' }, [])).toBe(false);
    expect(nodeFetchWanted({}, ['--use-env-proxy'])).toBe(true);
    expect(nodeFetchWanted({ NODE_OPTIONS: '--max-old-space-size=100 --use-env-proxy' }, [])).toBe(true);
    expect(nodeFetchWanted({ MINI_AGENT_TRANSPORT: 'fetch' }, [])).toBe(true);
  });

  it("a stream body is handed to Node's fetch", async () => {
    const server = await serve((req, res) => res.end(`got ${req.body}`));
    const body = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('streamed')), c.close()) });
    const res = await createHttpTransport().fetch(`${server.url}/`, { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(await res.text()).toBe('got streamed');
  });
});

describe('preconnect in a run', () => {
  it('a run opens its connection before its first request is built, and the requests use that one', async () => {
    const { createAgent } = await import('../src/app/agent.js');
    const { createOpenAIAdapter } = await import('../src/model/openai.js');
    const { tempDir } = await import('./support/helpers.js');
    const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end([chunk({ content: 'hi' }), chunk({}, 'stop')].map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n');
    });
    const inner = createOpenAIAdapter({ provider: 'openai-compatible', model: 'm', baseUrl: `${server.url}/v1`, apiKey: 'x', maxOutputTokens: 100, pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } });
    const seenAtFirstStream: number[] = [];
    // The adapter as the loop sees it, except that a request waits (with the event loop free)
    // until the server has a connection: only a connection opened ahead lets it go on at once.
    const model = {
      provider: inner.provider,
      model: inner.model,
      preconnect: () => inner.preconnect!(),
      async *stream(request: Parameters<typeof inner.stream>[0]) {
        await until(() => server.connections.length > 0, 1000);
        seenAtFirstStream.push(server.connections.length);
        yield* inner.stream(request);
      },
    };
    const agent = await createAgent({ cwd: tempDir(), home: tempDir('mini-agent-home-'), env: {}, modelAdapter: model });
    try {
      expect((await agent.prompt('hello')).stopReason).toBe('completed');
      expect((await agent.prompt('again')).stopReason).toBe('completed');
    } finally {
      await agent.close();
    }
    expect(seenAtFirstStream[0]).toBe(1); // open before the first request was handed to the SDK
    expect(server.seen).toHaveLength(2);
    expect(server.connections).toHaveLength(1); // and it is the one both requests used
  });
});
