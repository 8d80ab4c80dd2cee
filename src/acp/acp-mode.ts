// ACP mode (`mini-agent --acp`): mini-agent as an Agent Client Protocol agent on stdin/stdout, for
// editors (Zed, JetBrains, Neovim, Emacs). The official SDK does the JSON-RPC (framing, ids,
// params validation, "method not found"); this file answers its methods with sessions of the app
// layer, several per process, each holding its own session file lock. `runAcp(argv, io)` is the
// whole mode as a function over a FrontEndIo (app/front-end-io.ts): main.ts runs it with the
// process's own, stdout taken over for the protocol; tests run it in process. EOF ends it once
// open runs have settled (exit 0); SIGTERM aborts them and exits 143 (SIGINT: 130).
import { Readable } from 'node:stream';
import { isAbsolute } from 'node:path';
import { agent as acpAgent, ndJsonStream, PROTOCOL_VERSION, RequestError, type AgentConnection, type AnyMessage, type JsonRpcId, type McpServer, type Stream } from '@agentclientprotocol/sdk';
import { EXIT, reportFailure } from '../app/exit-codes.js';
import { stderrLine, type FrontEndIo } from '../app/front-end-io.js';
import type { CreateAgentOptions, SessionChoice } from '../app/types.js';
import { AcpSession, loadApp, type SessionDeps } from './acp-session.js';
import { parseAcpArgs, USAGE } from './args.js';
import { mcpServersConfig, modeState } from './updates.js';
import { configOptions } from './thought-level.js';

/** The exit codes of ACP mode besides a failure's (reportFailure): EOF, and the signals. */
export const EXIT_ACP = { ok: EXIT.completed, sigint: EXIT.sigint, sigterm: EXIT.sigterm } as const;

/** The oldest ACP protocol version we speak (the SDK's PROTOCOL_VERSION is the newest). */
const MIN_PROTOCOL_VERSION = 1;

export interface AcpOptions {
  /** What every session starts from (the shared flags); the client chooses the workspace and session. */
  agent: Omit<CreateAgentOptions, 'session' | 'cwd' | 'onPermissionRequest' | 'fileAccess' | 'mcpServers' | 'branch' | 'fork'>;
  /** --no-session: sessions are kept in memory (session/load cannot find them later). */
  memory?: boolean;
  /** Log each message's method and id (never its params: they can carry keys) and each run's end. */
  verbose?: boolean;
  version: string;
}

export interface AcpIo {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
  /** A diagnostic line for humans (stderr). */
  log(text: string): void;
  /** SIGTERM and SIGINT: subscribed while serving, given back when it ends (a second signal then takes the process's default). */
  onSignal: FrontEndIo['onSignal'];
}

/**
 * `mini-agent --acp ARGV` over `io`: the help to io.stdout, or ACP over io.stdin and io.stdout
 * (nothing else is written to io.stdout), the log on io.stderr, configuration and keys from
 * io.env; resolves with the exit code.
 */
export async function runAcp(argv: string[], io: FrontEndIo): Promise<number> {
  let options;
  try {
    options = parseAcpArgs(argv);
  } catch (err) {
    return reportFailure(err, stderrLine(io), 'Run "mini-agent --acp --help" for usage.');
  }
  if (options === 'help') {
    io.stdout.write(USAGE + '\n');
    return EXIT_ACP.ok;
  }
  const output = new WritableStream<Uint8Array>({
    // The callback comes after an error too (the client went away): runs still settle and sessions stay valid.
    write: (chunk) => new Promise<void>((resolve) => void io.stdout.write(chunk, () => resolve())),
  });
  const input = Readable.toWeb(io.stdin as Readable) as unknown as ReadableStream<Uint8Array>;
  const log = (text: string) => void io.stderr.write(`mini-agent: ${text}\n`);
  return serveAcp({ ...options, agent: { ...options.agent, env: io.env } }, { input, output, log, onSignal: io.onSignal });
}

/** Serves ACP over `io` until the input ends or a signal arrives; resolves with the exit code. */
export function serveAcp(options: AcpOptions, io: AcpIo): Promise<number> {
  const sessions = new Map<string, AcpSession>();
  const opening = new Set<Promise<unknown>>();
  const clientFs = { read: false, write: false };
  let connection: AgentConnection | undefined;
  let finishing = false;
  /** What to send once the answer to a request (by its id) has gone out. */
  const afterAnswer = new Map<JsonRpcId, () => void>();
  const deps: SessionDeps = {
    client: () => connection!.client,
    log: io.log,
    verbose: options.verbose === true,
    clientFs,
  };

  const find = (sessionId: string): AcpSession => {
    const s = sessions.get(sessionId);
    if (!s) throw RequestError.sessionNotFound(sessionId);
    return s;
  };

  const open = async (choice: SessionChoice, cwd: string, mcp: readonly McpServer[]): Promise<AcpSession> => {
    if (finishing) throw new RequestError(-32603, 'mini-agent is shutting down');
    if (!isAbsolute(cwd)) throw new RequestError(-32602, `cwd must be an absolute path, got "${cwd}"`, { cwd });
    const { servers, warnings } = mcpServersConfig(mcp);
    for (const w of warnings) io.log(`warning: ${w}`);
    const pending = AcpSession.open({ ...options.agent, cwd, session: choice, ...(Object.keys(servers).length ? { mcpServers: servers } : {}) }, deps);
    opening.add(pending);
    let session: AcpSession;
    try {
      session = await pending;
    } finally {
      opening.delete(pending);
    }
    if (finishing) {
      await session.close();
      throw new RequestError(-32603, 'mini-agent is shutting down');
    }
    sessions.set(session.id, session);
    if (deps.verbose) io.log(`session ${session.id} open in ${session.cwd}`);
    return session;
  };

  const app = acpAgent({ name: 'mini-agent' })
    .onRequest('initialize', ({ params }) => {
      if (params.protocolVersion < MIN_PROTOCOL_VERSION) throw RequestError.unsupportedProtocolVersion(params.protocolVersion, [PROTOCOL_VERSION]);
      clientFs.read = params.clientCapabilities?.fs?.readTextFile === true;
      clientFs.write = params.clientCapabilities?.fs?.writeTextFile === true;
      // The app layer loads while the client reads this answer (a session needs it next).
      setImmediate(() => void loadApp().catch(() => undefined));
      if (deps.verbose) io.log(`client ${params.clientInfo?.name ?? '(unnamed)'} ${params.clientInfo?.version ?? ''}, protocol ${params.protocolVersion}, fs read ${clientFs.read}, write ${clientFs.write}`);
      return {
        // The newest version both sides speak: ours, or the client's when it is older.
        protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
          sessionCapabilities: { close: {} },
        },
        agentInfo: { name: 'mini-agent', title: 'mini-agent', version: options.version },
        // Keys come from the environment and the config; a missing one fails the first prompt, with a message saying which.
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params, requestId }) => {
      const session = await open(options.memory ? 'memory' : 'new', params.cwd, params.mcpServers);
      // Right after the answer: a client knows the session's id only from it (Zed drops an update for an id it does not know).
      afterAnswer.set(requestId, () => session.advertiseCommands());
      return { sessionId: session.id, modes: modeState(session.mode), configOptions: configOptions(session.thinking) };
    })
    .onRequest('session/load', async ({ params }) => {
      // Already open in this process (the editor reloads its thread): replay that one, no second lock.
      const session = sessions.get(params.sessionId) ?? (await open({ resume: params.sessionId }, params.cwd, params.mcpServers));
      if (session.id !== params.sessionId) sessions.set(params.sessionId, session); // loaded by a prefix or name: answer to it too
      await session.replay();
      session.advertiseCommands(); // the client knows this id already: before the answer, after the history
      return { modes: modeState(session.mode), configOptions: configOptions(session.thinking) };
    })
    .onRequest('session/prompt', async ({ params, signal }) => {
      const stopReason = await find(params.sessionId).prompt(params.prompt, signal, connection!.signal);
      return { stopReason };
    })
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest('session/set_mode', ({ params }) => {
      find(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest('session/set_config_option', ({ params }) => ({ configOptions: find(params.sessionId).setConfigOption(params.configId, params.value) }))
    .onRequest('session/close', async ({ params }) => {
      const session = find(params.sessionId);
      for (const [key, s] of sessions) if (s === session) sessions.delete(key);
      await session.close(); // aborts a run in progress, releases the lock
      return {};
    });

  const raw = answering(ndJsonStream(io.output, io.input), afterAnswer, io.log);
  connection = app.connect(deps.verbose ? tapped(raw, io.log) : raw);

  return new Promise<number>((resolve) => {
    const finish = async (code: number) => {
      if (finishing) return;
      finishing = true;
      unsubscribe();
      const open = () => [...new Set(sessions.values())];
      if (code !== EXIT_ACP.ok) for (const s of open()) s.cancel();
      await Promise.allSettled([...opening]);
      // EOF: the runs in progress settle first (their session files stay valid; the client is gone).
      await Promise.allSettled(open().map((s) => s.agent.idle()));
      await Promise.allSettled(open().map((s) => s.close()));
      sessions.clear();
      connection!.close();
      resolve(code);
    };
    const unsubscribe = io.onSignal((signal) => {
      io.log(`${signal} received, stopping`);
      void finish(signal === 'SIGTERM' ? EXIT_ACP.sigterm : EXIT_ACP.sigint);
    });
    void connection!.closed.then(() => finish(EXIT_ACP.ok));
  });
}

/** The stream, with `after`'s callback for an answer run once that answer is on its way (what must follow it). */
function answering(stream: Stream, after: Map<JsonRpcId, () => void>, log: (text: string) => void): Stream {
  const outgoing = new TransformStream<AnyMessage, AnyMessage>({
    transform(m, controller) {
      controller.enqueue(m);
      const msg = m as { id?: JsonRpcId; method?: string };
      const then = msg.method === undefined && msg.id !== undefined ? after.get(msg.id) : undefined;
      if (then) {
        after.delete(msg.id!);
        try {
          then(); // what it sends is written after this answer
        } catch (err) {
          log(`after the answer #${String(msg.id)}: ${(err as Error)?.message ?? String(err)}`); // never the stream's error
        }
      }
    },
  });
  void outgoing.readable.pipeTo(stream.writable).catch(() => undefined);
  return { readable: stream.readable, writable: outgoing.writable };
}

/** The stream with every message's direction, method and id logged (--verbose); params never are. */
function tapped(stream: Stream, log: (text: string) => void): Stream {
  const describe = (m: unknown): string => {
    const msg = m as { id?: unknown; method?: string; error?: { code: number; message: string } };
    if (msg.method) return `${msg.method}${msg.id !== undefined ? ` #${String(msg.id)}` : ''}`;
    return `response #${String(msg.id)}${msg.error ? ` error ${msg.error.code}: ${msg.error.message}` : ''}`;
  };
  const outgoing = new TransformStream<AnyMessage, AnyMessage>({
    transform(m, controller) {
      const method = (m as { method?: string }).method;
      if (method !== 'session/update') log(`→ ${describe(m)}`); // updates are many: the run's end is logged instead
      controller.enqueue(m);
    },
  });
  void outgoing.readable.pipeTo(stream.writable).catch(() => undefined);
  const incoming = stream.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      transform(m, controller) {
        log(`← ${describe(m)}`);
        controller.enqueue(m);
      },
    }),
  );
  return { readable: incoming, writable: outgoing.writable };
}
