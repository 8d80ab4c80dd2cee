// The MCP client: configured servers are started (in parallel, stdio or streamable HTTP), their
// tools become registry tools named SERVER__TOOL, and they are stopped with no orphans.
//
// The SDK is loaded on the first start() (a dynamic import), never when this module loads, so
// commands that run no model (`--version`, `sessions`) pay nothing for configured servers.
// Every failure is a state and a message, never a hang: start() waits at most each server's
// startupTimeoutMs (the server keeps connecting in the background), a call waits at most its
// toolTimeoutMs (reset by progress notifications), an abort cancels the request
// (notifications/cancelled), and a server that exits mid-call fails that call at once with its
// exit status and last stderr lines, and is restarted by the next start().
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { prepareNodeFetch } from '../core/node-fetch.js';
import type { RiskBasis, ToolContext, ToolDefinition, ToolOutput, ToolRisk } from '../tools/tool.js';
import { describeGeneric } from '../tools/tool-describe.js';
import type { McpServerSpec } from './mcp-config.js';
import { ChildStdioTransport } from './mcp-stdio.js';
import { fitOutputImages } from '../tools/image-fit.js';
import { describeExit, describeTransport, formatSeconds, mcpResultToOutput, mcpToolDescription, mcpToolNames, mcpToolParameters, mcpToolRisk, mcpToolTokens, serverEnv, type McpCallResult, type McpListedTool } from './mcp-tools.js';
import { callAsTask, CONNECTION_CLOSED, errorText, listAll, REQUEST_TIMEOUT, startFailure } from './mcp-requests.js';

export type McpServerState = 'idle' | 'starting' | 'ready' | 'failed' | 'exited' | 'untrusted' | 'disabled';

export interface McpToolInfo {
  /** The registry name, SERVER__TOOL. */
  name: string;
  /** The name on the server. */
  mcpName: string;
  description: string;
  /** Estimated tokens of its definition as sent to the model. */
  tokens: number;
  /** Its risk, and whether that came from its annotations, the user's per-tool setting or the server's default (see mcpToolRisk). */
  risk: ToolRisk;
  riskBasis: RiskBasis;
}

export interface McpServerStatus {
  name: string;
  scope: McpServerSpec['scope'];
  source: string;
  /** "stdio: node x.js" or "http: https://host/mcp". */
  transport: string;
  state: McpServerState;
  error?: string;
  /** The server process, while a stdio server's process runs. */
  pid?: number;
  tools: McpToolInfo[];
  /** Estimated tokens of all its tool definitions, sent with every request. */
  toolTokens: number;
}

/** A registry tool backed by an MCP server; `source` is "mcp:SERVER". */
export type McpToolDefinition = ToolDefinition<Record<string, unknown>> & { source: string };

export interface McpManagerOptions {
  servers: readonly McpServerSpec[];
  /** The workspace is trusted: project-scope servers may start. */
  trusted: boolean;
  /** The workspace: the default cwd of stdio servers, and named in the untrusted message. */
  cwd: string;
  /** Our environment: stdio servers inherit a few variables of it (see serverEnv). */
  env: NodeJS.ProcessEnv;
  clientName?: string;
  clientVersion?: string;
  /** Tools or status changed (a server became ready, exited, or changed its tool list). */
  onChange?: () => void;
}

/** How long a server may take, in the background, for the handshake and its tool list (npx may be downloading it). */
const HANDSHAKE_DEADLINE_MS = 60_000;
/** list_changed notifications coming in a burst (a server registering tools one by one) give one re-listing. */
const LIST_DEBOUNCE_MS = 100;

interface Sdk {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  framing: typeof import('@modelcontextprotocol/sdk/shared/stdio.js');
}

let sdkLoading: Promise<Sdk> | undefined;
function loadSdk(): Promise<Sdk> {
  if (!sdkLoading) {
    sdkLoading = Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js'), import('@modelcontextprotocol/sdk/shared/stdio.js')]).then(([c, h, framing]) => ({
      Client: c.Client,
      StreamableHTTPClientTransport: h.StreamableHTTPClientTransport,
      framing,
    }));
    sdkLoading.catch(() => (sdkLoading = undefined));
  }
  return sdkLoading;
}

interface ServerTool {
  def: McpToolDefinition;
  info: McpToolInfo;
  taskRequired: boolean;
}

interface Entry {
  spec: McpServerSpec;
  state: McpServerState;
  error?: string;
  /** Bumped by every connect and every deliberate close: callbacks of an older connection are ignored. */
  gen: number;
  client?: Client;
  stdio?: ChildStdioTransport;
  connecting?: Promise<void>;
  /** Bumped by every tool listing: only the latest listing's result is applied. */
  listSeq: number;
  /** The listing whose tools are applied (listSeq at its start): an older one that lands later is dropped. */
  appliedSeq: number;
  tools: ServerTool[];
  /** The last error the connection reported out of band (a bad line on stdout…), for messages. */
  lastError?: string;
}

export class McpManager {
  private readonly entries: Entry[];
  private trusted: boolean;
  private closing?: Promise<void>;
  private closed = false;

  constructor(private readonly opts: McpManagerOptions) {
    this.trusted = opts.trusted;
    this.entries = opts.servers.map((spec) => ({ spec, state: this.initialState(spec), gen: 0, listSeq: 0, appliedSeq: 0, tools: [] }));
  }

  /** The workspace became trusted (or not); untrusted project servers may then start on the next start(). */
  setTrusted(trusted: boolean): void {
    this.trusted = trusted;
    for (const e of this.entries) if (e.state === 'untrusted' || e.state === 'idle') e.state = this.initialState(e.spec);
  }

  /**
   * Starts the servers not running yet (idle, or failed or exited earlier) in parallel, and
   * resolves when each is ready or its startupTimeoutMs has passed; one still starting keeps
   * connecting in the background and its tools appear when it is ready. Never rejects. Returns one
   * line per problem, in the config's order.
   */
  async start(options: { only?: (name: string) => boolean; signal?: AbortSignal } = {}): Promise<string[]> {
    if (this.closed) return [];
    const lines = await Promise.all(
      this.entries.map(async (e): Promise<string | undefined> => {
        if (options.only && !options.only(e.spec.name)) return undefined;
        if (!e.spec.enabled) return undefined;
        if (e.spec.scope === 'project' && !this.trusted) {
          e.state = 'untrusted';
          return `MCP server ${e.spec.name} (from ${e.spec.source}) not started because ${this.opts.cwd} is not trusted; run \`mini-agent trust\` there (or pass --trust-workspace) to start it`;
        }
        if (e.state === 'ready') return undefined;
        if (e.state !== 'starting') this.connect(e);
        return this.waitReady(e, options.signal);
      }),
    );
    return lines.filter((l): l is string => l !== undefined);
  }

  status(): McpServerStatus[] {
    return this.entries.map((e) => {
      const tools = e.tools.map((t) => t.info);
      const pid = e.stdio && !e.stdio.exit ? e.stdio.pid : undefined;
      return {
        name: e.spec.name,
        scope: e.spec.scope,
        source: e.spec.source,
        transport: describeTransport(e.spec.transport, e.spec.shown),
        state: e.state,
        ...(e.error ? { error: e.error } : {}),
        ...(pid !== undefined ? { pid } : {}),
        tools,
        toolTokens: tools.reduce((sum, t) => sum + t.tokens, 0),
      };
    });
  }

  /** The tools of the ready servers, as registry tools. */
  tools(): McpToolDefinition[] {
    return this.entries.filter((e) => e.state === 'ready').flatMap((e) => e.tools.map((t) => t.def));
  }

  /**
   * Calls a tool by its name on the server, as the tools' execute does (for diagnostics and the
   * benchmark against the SDK's own call; the model's calls go through tools() and the registry).
   */
  callTool(server: string, tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
    const e = this.entries.find((x) => x.spec.name === server);
    if (!e) return Promise.resolve({ content: `There is no MCP server named ${server}.`, isError: true, details: { reason: 'unknown_server' } });
    return this.call(e, tool, e.tools.find((t) => t.info.mcpName === tool)?.taskRequired ?? false, args, ctx);
  }

  /** Closes every connection; stdio servers get SIGTERM, then SIGKILL after 2 s. Idempotent; the manager starts nothing afterwards. */
  close(): Promise<void> {
    this.closed = true;
    this.closing ??= Promise.all(this.entries.map((e) => this.dispose(e))).then(() => undefined);
    return this.closing;
  }

  private initialState(spec: McpServerSpec): McpServerState {
    if (!spec.enabled) return 'disabled';
    return spec.scope === 'project' && !this.trusted ? 'untrusted' : 'idle';
  }

  private changed(): void {
    try {
      this.opts.onChange?.();
    } catch {
      /* a listener's failure is not ours to report */
    }
  }

  private connect(e: Entry): void {
    const gen = ++e.gen;
    e.state = 'starting';
    e.error = undefined;
    e.lastError = undefined;
    e.tools = [];
    e.stdio = undefined;
    e.connecting = this.open(e, gen).catch((err: unknown) => {
      if (gen !== e.gen) return;
      e.state = 'failed';
      e.error = startFailure(err, e.stdio, Math.max(e.spec.startupTimeoutMs, HANDSHAKE_DEADLINE_MS));
      void this.dispose(e);
      this.changed();
    });
    this.changed();
  }

  private async open(e: Entry, gen: number): Promise<void> {
    const sdk = await loadSdk();
    if (gen !== e.gen) return;
    const spec = e.spec;
    const client = new sdk.Client(
      { name: this.opts.clientName ?? 'mini-agent', version: this.opts.clientVersion ?? '0.0.0' },
      { capabilities: {}, listChanged: { tools: { autoRefresh: false, debounceMs: LIST_DEBOUNCE_MS, onChanged: () => void this.relist(e, gen) } } },
    );
    let transport: Transport;
    if (spec.transport.type === 'stdio') {
      const t = spec.transport;
      e.stdio = new ChildStdioTransport({ command: t.command, args: t.args, env: serverEnv(this.opts.env, t.env), cwd: t.cwd ?? this.opts.cwd }, sdk.framing);
      transport = e.stdio;
    } else {
      e.stdio = undefined;
      prepareNodeFetch(); // the SDK's HTTP transport uses Node's fetch
      transport = new sdk.StreamableHTTPClientTransport(new URL(spec.transport.url), { requestInit: { headers: spec.transport.headers } });
    }
    e.client = client;
    client.onerror = (err) => (e.lastError = err.message);
    client.onclose = () => this.lost(e, gen);
    const timeout = Math.max(spec.startupTimeoutMs, HANDSHAKE_DEADLINE_MS);
    await client.connect(transport, { timeout });
    const seq = ++e.listSeq;
    const tools = await listAll(client, timeout);
    if (gen !== e.gen) return;
    // A list_changed re-listing that started meanwhile is newer: its result stands if it landed
    // first; until it lands this one is applied (a server ready with no tools listed would be wrong).
    if (seq > e.appliedSeq) this.apply(e, tools, seq);
    e.state = 'ready';
    this.changed();
  }

  private async relist(e: Entry, gen: number): Promise<void> {
    const client = e.client;
    if (gen !== e.gen || !client) return;
    const seq = ++e.listSeq;
    try {
      const tools = await listAll(client, Math.max(e.spec.startupTimeoutMs, HANDSHAKE_DEADLINE_MS));
      if (gen !== e.gen || seq <= e.appliedSeq) return;
      this.apply(e, tools, seq);
      if (e.state === 'ready') this.changed();
    } catch (err) {
      e.lastError = `re-listing its tools failed: ${errorText(err)}`;
    }
  }

  private apply(e: Entry, listed: McpListedTool[], seq: number): void {
    e.appliedSeq = seq;
    const names = mcpToolNames(
      e.spec.name,
      listed.map((t) => t.name),
    );
    e.tools = listed.map((tool, i) => {
      const taskRequired = tool.execution?.taskSupport === 'required';
      const { risk, basis } = mcpToolRisk(tool, e.spec);
      const def: McpToolDefinition = {
        name: names[i],
        description: mcpToolDescription(e.spec.name, tool),
        parameters: mcpToolParameters(tool.inputSchema),
        risk,
        riskBasis: basis,
        source: `mcp:${e.spec.name}`,
        describe: (args) => describeGeneric(names[i], args), // its arguments mean what its server says
        execute: (args, ctx) => this.call(e, tool.name, taskRequired, args, ctx),
      };
      const info = { name: def.name, mcpName: tool.name, description: def.description, tokens: mcpToolTokens(def), risk, riskBasis: basis };
      return { def, info, taskRequired };
    });
  }

  /** The connection closed by itself (a deliberate close bumps gen first). */
  private lost(e: Entry, gen: number): void {
    if (gen !== e.gen || e.state !== 'ready') return; // while starting, open() fails and says why
    e.state = 'exited';
    e.error = e.stdio ? describeExit(e.stdio.exit, e.stdio.stderrTail()) : `the connection closed${e.lastError ? ` (${e.lastError})` : ''}`;
    e.tools = [];
    e.client = undefined;
    this.changed();
  }

  private async waitReady(e: Entry, signal?: AbortSignal): Promise<string | undefined> {
    const ms = e.spec.startupTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const outcome = await Promise.race([
      e.connecting!.then(() => 'settled' as const),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms))),
      new Promise<'aborted'>((resolve) => {
        if (!signal) return;
        onAbort = () => resolve('aborted');
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal!.removeEventListener('abort', onAbort);
    if (outcome === 'aborted' || this.closed) return undefined;
    const { name, source } = e.spec;
    if (e.state === 'starting') {
      return `MCP server ${name} (${source}) is not ready after ${formatSeconds(ms)}; it keeps starting in the background and its tools are added when it is ready`;
    }
    if (e.state === 'failed' || e.state === 'exited') return `MCP server ${name} (${source}) failed to start: ${e.error}`;
    return undefined;
  }

  private async call(e: Entry, tool: string, taskRequired: boolean, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
    const { name, toolTimeoutMs } = e.spec;
    const client = e.client;
    const details = { reason: '', mcpServer: name, mcpTool: tool };
    const fail = (text: string, reason: string): ToolOutput => ({ content: text, isError: true, details: { ...details, reason } });
    if (e.state !== 'ready' || !client) {
      return fail(`MCP server ${name} is not running (${e.state}${e.error ? `: ${e.error}` : ''}), so ${tool} cannot be called now.`, 'not_ready');
    }
    if (ctx.signal.aborted) throw new Error(`the call of ${tool} on MCP server ${name} was not sent: the run was aborted`);
    // A controller per call: the SDK adds an abort listener to the signal it is given and never
    // removes it, which on the run's own signal would pile up one listener per call.
    const controller = new AbortController();
    const onAbort = () => controller.abort('the run was aborted');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const stdio = e.stdio;
    const timedOut = { value: false };
    try {
      const result = taskRequired
        ? await callAsTask(client, tool, args, toolTimeoutMs, controller, timedOut)
        : ((await client.callTool({ name: tool, arguments: args }, undefined, {
            signal: controller.signal,
            timeout: toolTimeoutMs,
            resetTimeoutOnProgress: true,
            // Progress notifications are only sent for a request that asks for them; they keep a long call alive.
            onprogress: () => {},
          })) as McpCallResult);
      return await fitOutputImages(mcpResultToOutput(result, { mcpServer: name, mcpTool: tool }));
    } catch (err) {
      // Thrown, so the registry reports the standard "aborted before it finished" result.
      if (ctx.signal.aborted) throw new Error(`the call of ${tool} on MCP server ${name} was cancelled: the run was aborted`);
      const code = (err as { code?: unknown })?.code;
      if (code === CONNECTION_CLOSED || stdio?.exit) {
        const how = stdio ? describeExit(stdio.exit, stdio.stderrTail()) : 'the connection closed';
        return fail(`MCP server ${name} exited during the call of ${tool} (${how}). It is restarted at the next run.`, 'server_exited');
      }
      if (code === REQUEST_TIMEOUT || timedOut.value) {
        return fail(`MCP server ${name} did not answer ${tool} within ${formatSeconds(toolTimeoutMs)}; the call was cancelled.`, 'timeout');
      }
      return fail(`MCP server ${name} could not run ${tool}: ${errorText(err)}`, 'mcp_error');
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  private async dispose(e: Entry): Promise<void> {
    e.gen++;
    const client = e.client;
    e.client = undefined;
    if (this.closed) {
      e.tools = [];
      if (e.state !== 'disabled' && e.state !== 'untrusted') e.state = 'idle';
    }
    try {
      if (client) await client.close();
      else await e.stdio?.close();
    } catch {
      /* closing anyway */
    }
  }
}
