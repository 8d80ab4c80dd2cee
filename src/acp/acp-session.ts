// One ACP session: an agent of the app layer (its own session file and lock) and what ties it to
// the client: the session/update notifications made from its events (in order, even when one
// needs a file read for its diff), the permission questions, and the client's file system when
// the client offers one.
import { readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RequestError, type AgentContext, type ContentBlock, type SessionConfigOption, type SessionUpdate, type StopReason } from '@agentclientprotocol/sdk';
import { AgentError, errorKindOf } from '../app/errors.js';
import type { PermissionReply, PermissionRequest } from '../app/permission-gate.js';
import type { Agent, CreateAgentOptions } from '../app/types.js';
import type { AgentEvent } from '../core/events.js';
import { atomicWrite } from '../tools/file-io.js';
import type { FileAccess } from '../tools/tool.js';
import { commandsUpdate, parseCommand, runCommand, type CommandHost } from './commands.js';
import { replayUpdates } from './replay.js';
import { configOptions, THOUGHT_LEVEL_ID } from './thought-level.js';
import { isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from '../model/thinking-levels.js';
import { diffContent, eventToUpdate, isModeId, MODE_IDS, permissionAnswer, permissionOptions, promptImages, promptText, rewrittenFile, stopReasonOf, toolKind, toolLocations, toolTitle, type ModeId } from './updates.js';

/**
 * The app layer, loaded on first use (acp-mode starts it right after answering initialize):
 * `initialize` does not wait for it, so an editor hears back about 100 ms sooner; session/new
 * waits for it. Measured in bench/acp.mjs: loading it lazily also made the whole start faster.
 */
let app: Promise<typeof import('../app/agent.js')> | undefined;
export function loadApp(): Promise<typeof import('../app/agent.js')> {
  return (app ??= import('../app/agent.js'));
}

/** Files larger than this get no diff (the editor would have to hold both versions). */
const MAX_DIFF_BYTES = 2 * 1024 * 1024;

export interface SessionDeps {
  /** The connection's client side (notifications, permission requests, fs). */
  client: () => AgentContext;
  /** A diagnostic line on stderr. */
  log: (text: string) => void;
  verbose: boolean;
  /** What the client said it can do at initialize. */
  clientFs: { read: boolean; write: boolean };
}

/** A call that rewrites a file, between tool_start and tool_end: the file, its text before the call, and its new text when the arguments hold it. */
interface PendingDiff {
  path: string;
  newText?: string;
  /** null: the file did not exist; undefined: unknown (too large, unreadable): no diff. */
  before: Promise<string | null | undefined>;
}

export class AcpSession {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  private readonly diffs = new Map<string, PendingDiff>();
  /** What this session wrote through the client, by path, until the call's tool_end reads it. */
  private readonly written = new Map<string, string>();
  /** suggestedRules the user answered "reject always" to: refused without asking again. */
  private readonly rejected = new Set<string>();
  /** The slash commands in progress (a rewind waiting for its answer): session/cancel aborts them. */
  private readonly commands = new Set<AbortController>();

  private constructor(
    readonly agent: Agent,
    readonly cwd: string,
    private readonly deps: SessionDeps,
  ) {
    agent.subscribe((event) => this.onEvent(event));
  }

  get id(): string {
    return this.agent.session.id;
  }

  /** Creates the agent (a new session, or `resume` for session/load) wired to the client. */
  static async open(options: CreateAgentOptions & { cwd: string }, deps: SessionDeps): Promise<AcpSession> {
    let self: AcpSession | undefined;
    const files = deps.clientFs.read || deps.clientFs.write ? clientFiles(deps, () => self) : undefined;
    let agent: Agent;
    try {
      const { createAgent } = await loadApp();
      agent = await createAgent({
        ...options,
        // An editor starts us before anyone typed: a missing key is reported by the first prompt.
        deferModelErrors: true,
        onPermissionRequest: (request) => (self ? self.askPermission(request) : 'deny'),
        ...(files ? { fileAccess: files } : {}),
      });
    } catch (err) {
      throw toRequestError(err);
    }
    self = new AcpSession(agent, agent.cwd, deps);
    for (const w of agent.warnings) deps.log(`warning: ${w}`);
    for (const note of agent.notes) deps.log(note);
    for (const w of agent.session.warnings) deps.log(`warning: ${w}`);
    return self;
  }

  get mode(): ModeId {
    const mode = this.agent.permissionMode;
    return isModeId(mode) ? mode : 'default';
  }

  setMode(modeId: string): void {
    if (!isModeId(modeId)) throw new RequestError(-32602, `unknown mode "${modeId}"; the modes are ${MODE_IDS.join(', ')}`, { modeId });
    this.agent.setPermissionMode(modeId);
    this.send({ sessionUpdate: 'current_mode_update', currentModeId: modeId });
  }

  get thinking(): ThinkingLevel {
    return this.agent.thinking;
  }

  /** session/set_config_option: the thinking level (the only option); the options as they now are. */
  setConfigOption(configId: string, value: unknown): SessionConfigOption[] {
    if (configId !== THOUGHT_LEVEL_ID) throw new RequestError(-32602, `unknown config option "${configId}"; the options are ${THOUGHT_LEVEL_ID}`, { configId });
    if (!isThinkingLevel(value)) throw new RequestError(-32602, `unknown thinking level ${JSON.stringify(value)}; the levels are ${THINKING_LEVELS.join(', ')}`, { value });
    const { note } = this.agent.setThinking(value);
    if (note) this.deps.log(`note: ${note}`);
    const options = configOptions(value);
    this.send({ sessionUpdate: 'config_option_update', configOptions: options });
    return options;
  }

  /** session/load: the active path as updates, each sent before this resolves. */
  async replay(): Promise<void> {
    for (const update of replayUpdates(this.agent.messages(), this.cwd, this.agent.toolDescriptions.describe)) this.send(update);
    await this.flush();
  }

  /**
   * Runs one prompt. `requestSignal` is the request's own (aborted by `$/cancel_request`, and by the
   * connection closing: EOF, after which the run settles instead of being aborted).
   */
  async prompt(blocks: readonly ContentBlock[], requestSignal: AbortSignal, connectionSignal: AbortSignal): Promise<StopReason> {
    const command = parseCommand(blocks);
    if (command) return this.command(command.name, command.arg, requestSignal);
    const controller = new AbortController();
    const onAbort = () => {
      if (!connectionSignal.aborted) controller.abort();
    };
    requestSignal.addEventListener('abort', onAbort, { once: true });
    let result;
    try {
      result = await this.agent.prompt(promptText(blocks), { signal: controller.signal, images: promptImages(blocks) });
    } catch (err) {
      throw toRequestError(err);
    } finally {
      requestSignal.removeEventListener('abort', onAbort);
    }
    await this.flush(); // every update of the run goes out before the answer
    const reason = stopReasonOf(result.stopReason);
    if (this.deps.verbose) this.deps.log(`session ${this.id}: run ${result.stopReason} after ${result.turns} turns, ${result.toolCalls} tool calls`);
    if (reason !== 'error') return reason;
    // A failed run (a key the provider refuses, the provider down after retries) is an error for the
    // client to show as one, not an answer: the session stays valid and the next prompt can retry.
    const e = result.error;
    throw new RequestError(-32603, e ? `the model failed (${e.kind}): ${e.message}` : 'the run failed', { kind: e?.kind ?? 'unknown' });
  }

  cancel(): void {
    this.agent.abort();
    for (const c of this.commands) c.abort();
  }

  /** The slash commands (commands.ts), as an available_commands_update. */
  advertiseCommands(): void {
    this.send(commandsUpdate());
  }

  /** A slash command instead of a prompt: answered with messages, nothing appended to the session. session/cancel (or the request's) withdraws its question. */
  private async command(name: Parameters<typeof runCommand>[1], arg: string, requestSignal: AbortSignal): Promise<StopReason> {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    requestSignal.addEventListener('abort', onAbort, { once: true });
    this.commands.add(controller);
    const host: CommandHost = {
      agent: this.agent,
      cwd: this.cwd,
      clientOwnsFiles: this.deps.clientFs.read || this.deps.clientFs.write, // as open() gives the tools the client's files
      send: (update) => this.send(update),
      ask: async (toolCall, options, signal) => (await this.deps.client().request('session/request_permission', { sessionId: this.id, toolCall, options }, { cancellationSignal: signal, stopWaitingOnCancel: true })).outcome,
    };
    try {
      const reason = await runCommand(host, name, arg, controller.signal);
      await this.flush();
      return controller.signal.aborted ? 'cancelled' : reason;
    } finally {
      requestSignal.removeEventListener('abort', onAbort);
      this.commands.delete(controller);
    }
  }

  /** Resolves when every update queued so far has been handed to the connection. */
  flush(): Promise<void> {
    return this.tail;
  }

  async close(): Promise<void> {
    await this.agent.close();
    await this.flush();
  }

  // ---- events → updates ----

  private onEvent(event: AgentEvent): void {
    if (event.type === 'warning') this.deps.log(`warning: ${event.message}`);
    const describe = this.agent.toolDescriptions.describe;
    const rewrites = event.type === 'tool_start' ? rewrittenFile(event.name, event.arguments, this.cwd, describe) : undefined;
    if (event.type === 'tool_start' && rewrites) {
      // Read now, synchronously (or, through the client, as the first request): the tool has not
      // started yet, so this is the text before the call.
      this.diffs.set(event.toolCallId, { ...rewrites, before: this.readBefore(rewrites.path) });
    }
    const update = eventToUpdate(event, this.cwd, describe);
    if (!update) return;
    if (event.type === 'tool_end' && this.diffs.has(event.toolCallId)) {
      const pending = this.diffs.get(event.toolCallId)!;
      this.diffs.delete(event.toolCallId);
      if (!event.result.isError) return this.sendLater(() => this.withDiff(update, pending));
      this.written.delete(pending.path);
    }
    this.send(update);
  }

  private readBefore(path: string): Promise<string | null | undefined> {
    if (this.deps.clientFs.read) {
      return this.deps
        .client()
        .request('fs/read_text_file', { sessionId: this.id, path })
        .then(
          (r) => r.content,
          () => null,
        ); // the client has no such file (or refused): shown as created
    }
    return Promise.resolve(readDisk(path));
  }

  private async withDiff(update: SessionUpdate, pending: PendingDiff): Promise<SessionUpdate> {
    const before = await pending.before;
    const written = this.written.get(pending.path);
    this.written.delete(pending.path);
    if (before === undefined || update.sessionUpdate !== 'tool_call_update') return update;
    const after = written ?? pending.newText ?? readDisk(pending.path);
    if (after === undefined || after === null) return update;
    return { ...update, content: [...(update.content ?? []), diffContent(pending.path, before, after)] };
  }

  /** Sends now when nothing is waiting for a file read, else after what waits (order is kept). */
  private send(update: SessionUpdate): void {
    if (this.waiting === 0) void this.notify(update);
    else this.tail = this.tail.then(() => this.notify(update));
  }

  private sendLater(make: () => Promise<SessionUpdate>): void {
    this.waiting++;
    this.tail = this.tail
      .then(make)
      .then((update) => this.notify(update))
      .catch((err: unknown) => this.deps.log(`session ${this.id}: an update was lost: ${(err as Error)?.message ?? String(err)}`))
      .finally(() => void this.waiting--);
  }

  private notify(update: SessionUpdate): Promise<void> {
    return this.deps
      .client()
      .notify('session/update', { sessionId: this.id, update })
      .catch((err: unknown) => {
        // The client went away (EOF): the run still settles and the session file stays valid.
        if (this.deps.verbose) this.deps.log(`session ${this.id}: update not sent: ${(err as Error)?.message ?? String(err)}`);
      });
  }

  // ---- permissions and files ----

  async askPermission(request: PermissionRequest): Promise<PermissionReply> {
    if (this.rejected.has(request.suggestedRule)) {
      return { decision: 'deny', reason: `the user chose "reject always" for ${request.suggestedRule} earlier in this session` };
    }
    const { tool, arguments: args } = request;
    const describe = this.agent.toolDescriptions.describe;
    const response = await this.deps.client().request(
      'session/request_permission',
      {
        sessionId: this.id,
        toolCall: { toolCallId: request.toolCallId, title: toolTitle(tool, args, describe), kind: toolKind(tool, describe), status: 'pending', rawInput: args, locations: toolLocations(tool, args, this.cwd, describe) },
        options: permissionOptions(request.suggestedRule),
      },
      { cancellationSignal: request.signal },
    );
    const answer = permissionAnswer(response.outcome);
    if (this.deps.verbose) this.deps.log(`session ${this.id}: permission for ${request.suggestedRule}: ${response.outcome.outcome === 'selected' ? response.outcome.optionId : 'cancelled'}`);
    if (answer.rejectAlways) this.rejected.add(request.suggestedRule);
    if (response.outcome.outcome === 'cancelled') return { decision: 'deny', reason: 'the client cancelled the question' };
    return answer.decision === 'always' ? { decision: 'always', rule: request.suggestedRule } : answer.decision;
  }

  /** Notes what was written through the client, for the call's diff. */
  recordWrite(path: string, content: string): void {
    this.written.set(path, content);
  }
}

/**
 * The client's fs methods as the tools' FileAccess. A client may offer one and not the other: the
 * missing one uses the disk, as the tools would (an atomic write keeping the file's mode, its
 * folders created).
 */
function clientFiles(deps: SessionDeps, session: () => AcpSession | undefined): FileAccess {
  const id = () => {
    const s = session();
    if (!s) throw new Error('the session is not open yet');
    return s.id;
  };
  return {
    async readTextFile(path, opts) {
      if (deps.clientFs.read) {
        const r = await deps.client().request('fs/read_text_file', { sessionId: id(), path, ...(opts?.line !== undefined ? { line: opts.line } : {}), ...(opts?.limit !== undefined ? { limit: opts.limit } : {}) });
        return r.content;
      }
      const text = await readFile(path, 'utf8');
      if (opts?.line === undefined && opts?.limit === undefined) return text;
      const from = Math.max(0, (opts.line ?? 1) - 1);
      return text
        .split('\n')
        .slice(from, opts.limit === undefined ? undefined : from + opts.limit)
        .join('\n');
    },
    async writeTextFile(path, content) {
      if (deps.clientFs.write) {
        await deps.client().request('fs/write_text_file', { sessionId: id(), path, content });
        session()?.recordWrite(path, content);
        return;
      }
      const mode = await stat(path).then(
        (st) => st.mode,
        () => undefined,
      );
      await mkdir(dirname(path), { recursive: true });
      await atomicWrite(path, content, mode);
    },
  };
}

/** The text of a file on disk; null if there is none; undefined if it cannot be shown as a diff. */
function readDisk(path: string): string | null | undefined {
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > MAX_DIFF_BYTES) return undefined;
    return readFileSync(path, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

/** An error of the app layer as a JSON-RPC error the client can show (and act on by its kind). */
export function toRequestError(err: unknown): RequestError {
  if (err instanceof RequestError) return err;
  const kind = errorKindOf(err);
  const message = (err as Error)?.message ?? String(err);
  if (kind === 'not_found') return new RequestError(-32002, message, { kind });
  if (kind === 'internal') return new RequestError(-32603, `internal error: ${message}`, { kind });
  if (kind === 'invalid_argument' && !(err instanceof AgentError)) return new RequestError(-32602, message, { kind });
  return new RequestError(-32603, message, { kind });
}
