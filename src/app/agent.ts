// The application layer: one agent session for any front end. It owns the configuration, the model, the tool set,
// the session file (new, continue, resume, fork, branch, with the lock and migration) and the runner with its events.
// The SDK (createAgent), RPC mode and print mode are thin users of it; none opens a session or builds a model itself.
import { sessionCheckpoints } from '../agent/workspace-checkpoints.js';
import type { EventListener } from '../core/events.js';
import type { Message, QueueItem } from '../core/types.js';
import type { ModelAdapter } from '../model/adapter.js';
import { projectMessages } from '../session/projector.js';
import { lastContextTokens } from '../session/stats.js';
import type { SessionStore } from '../session/store.js';
import type { CompactionConfig } from '../agent/compactor.js';
import { SessionRunner, type RunResult } from '../agent/runner.js';
import { loadHooks, type LoadedHooks } from '../extensions/hooks.js';
import type { McpServerStatus } from '../extensions/mcp-client.js';
import type { PromptTemplate } from '../extensions/prompt-templates.js';
import type { Skill } from '../extensions/skills.js';
import { parseRule, type PermissionRule } from '../tools/permissions.js';
import { modelSwitch, resolveFor, runLimits, startModelAndSession } from './agent-start.js';
import { agentContext, type AgentContext } from './agent-context.js';
import type { EffectiveConfig, Resolved } from './config.js';
import { showConfig, type ConfigRow } from './config-show.js';
import { PERMISSION_MODES, type PermissionMode } from './permission-gate.js';
import { agentTools } from './agent-tools.js';
import { toolDescriptions, type ToolDescriptions } from '../tools/descriptions.js';
import { sealGrant, sessionGrants } from './grant-seal.js';
import { AgentError } from './errors.js';
import { createModel } from './model-factory.js';
import { readAttachments } from './prompt-files.js';
import type { PromptImage } from './prompt-images.js';
import { forkInto, openSession, type OpenedSession, type SessionChoice } from './session-open.js';
import { sessionHandle, type HandleHost } from './session-handle.js';
import { AgentExtensions } from './extensions.js';
import { compactResult } from './compact-result.js';
import { ThinkingControl, type ThinkingChange, type ThinkingLevel } from './thinking-control.js';
import type { Agent, AgentSessionHandle, AgentState, CompactResult, CreateAgentOptions } from './types.js';
import { effectiveWindow, learnedWindow, sessionCompaction, withWindow } from './learned-window.js';

export type * from './types.js';

/** Creates an agent: configuration, model, tools and session, ready to prompt. */
export async function createAgent(options: CreateAgentOptions = {}): Promise<Agent> {
  const ctx = agentContext(options); // the workspace, home and sessions folders, worked out once
  const resolved = resolveFor(options, ctx);
  const trusted = resolved.trust?.trusted === true;
  const hooks = await loadHooks(resolved.config.hooks, { trusted, cwd: ctx.place.cwd });
  const started = await startModelAndSession(options, ctx, resolved);
  // MCP servers are only described here; they start when a run begins (never for commands that run no model).
  const extensions = await AgentExtensions.load({ cwd: ctx.place.cwd, home: ctx.place.home, env: ctx.env, config: started.resolved.config, trusted });
  return new AgentImpl(options, ctx, started.resolved, started.model, started.opened, hooks, extensions);
}

class AgentImpl implements Agent {
  readonly notes: string[];
  readonly warnings: readonly string[];
  private readonly listeners = new Set<EventListener>();
  readonly listenerErrors: unknown[] = [];
  private readonly tools;
  readonly toolDescriptions: ToolDescriptions;
  private runner!: SessionRunner;
  private opened: OpenedSession;
  private generation = 0;
  private handle!: AgentSessionHandle;
  private closed = false;
  private checkpoints: ReturnType<typeof sessionCheckpoints>; // the session's file checkpoints (none in memory)
  private grants: PermissionRule[] = []; // "always" approvals of the current session (permission_grant entries)
  private mode: PermissionMode;
  private readonly level: ThinkingControl;

  constructor(
    private readonly options: CreateAgentOptions,
    private readonly ctx: AgentContext,
    private resolved: Resolved,
    private modelAdapter: ModelAdapter,
    opened: OpenedSession,
    private readonly loaded: LoadedHooks,
    private readonly extensions: AgentExtensions,
  ) {
    this.opened = opened;
    this.notes = [...opened.notes];
    this.mode = options.permissionMode ?? 'default';
    this.level = new ThinkingControl(
      resolved.config.thinking,
      () => this.modelAdapter.model,
      () => this.check(),
    );
    this.warnings = [...(resolved.warnings ?? []), ...loaded.warnings, ...extensions.warnings, ...[this.level.note() ?? []].flat()];
    this.tools = agentTools({
      config: () => this.resolved.config,
      options,
      ctx: this.ctx,
      loaded,
      extensions,
      sessionFile: () => this.store.file,
      grants: () => this.grants,
      mode: () => this.mode,
      grant: (rule) => this.grant(rule),
    });
    this.toolDescriptions = toolDescriptions((name) => this.tools.get(name));
    this.attach();
  }

  /** Records an "always" answer: in the session file (it survives a resume) and for the calls to come. */
  private grant(text: string): void {
    const rule = parseRule(text, `session grant (${this.store.id})`);
    this.store.append({ type: 'permission_grant', rule: rule.text, ...(this.store.file ? { seal: sealGrant(this.ctx.place.home, this.store.id, rule.text) } : {}) });
    this.store.sync();
    this.grants.push(rule);
  }

  get cwd(): string {
    return this.ctx.place.cwd;
  }

  get sessionsFolder(): string {
    return this.ctx.place.sessions;
  }

  get config(): EffectiveConfig {
    return this.resolved.config;
  }

  get model() {
    return { provider: this.modelAdapter.provider, id: this.modelAdapter.model };
  }

  get running(): boolean {
    return this.runner.busy;
  }

  get session(): AgentSessionHandle {
    this.check();
    return this.handle;
  }

  async prompt(text: string, opts: Parameters<Agent['prompt']>[1] = {}): Promise<RunResult> {
    return this.runner.run(text, opts.signal, this.attachments(text, opts.images, 'prompt'));
  }

  steer(text: string, opts: Parameters<Agent['steer']>[1] = {}): QueueItem {
    return this.runner.steer(text, this.attachments(text, opts.images));
  }

  followUp(text: string, opts: Parameters<Agent['followUp']>[1] = {}): QueueItem {
    return this.runner.followUp(text, this.attachments(text, opts.images));
  }

  queue(): QueueItem[] {
    this.check();
    return this.runner.queued();
  }

  cancel(id: string): boolean {
    this.check();
    return this.runner.cancel(id);
  }

  abort(): QueueItem[] {
    this.check();
    return this.runner.abort();
  }

  idle(): Promise<void> {
    return this.runner.idle();
  }

  subscribe(listener: EventListener): () => void {
    this.check();
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  newSession(): AgentSessionHandle {
    return this.switchSession('new');
  }

  switchSession(choice: SessionChoice): AgentSessionHandle {
    this.idleOnly('switch sessions');
    const next = openSession({ place: this.ctx.place, session: choice });
    this.replaceSession(next);
    return this.handle;
  }

  async setModel(opts: { provider?: string; model?: string; baseUrl?: string; apiKey?: string }): Promise<{ provider: string; id: string }> {
    this.idleOnly('change the model');
    const over = modelSwitch(this.resolved.config.provider, opts);
    const resolved = resolveFor(this.options, this.ctx, over);
    const model = await createModel({ cwd: this.cwd }, resolved);
    this.idleOnly('change the model'); // a prompt may have started while the model loaded
    this.resolved = resolved;
    this.modelAdapter = model;
    this.attach(false);
    // Recorded in the session, so that a resume continues with this model.
    this.store.append({ type: 'model_change', provider: model.provider, model: model.model });
    this.store.sync();
    return this.model;
  }

  state(): AgentState {
    this.check();
    const { store, resolved, modelAdapter: m } = this;
    const [window, tokens] = [effectiveWindow(resolved, learnedWindow(store.entries(), m.provider, m.model)).contextWindow, lastContextTokens(store)];
    return {
      session: { id: store.id, file: store.file, name: store.name },
      model: this.model,
      running: this.running,
      queue: this.runner.queued(),
      context: { tokens, contextWindow: window, fraction: tokens === null ? null : tokens / window },
    };
  }

  get promptTemplates(): readonly PromptTemplate[] {
    return this.extensions.promptTemplates;
  }

  get skills(): readonly Skill[] {
    return this.extensions.skills;
  }

  expandPromptTemplate(text: string): { name: string; text: string } | undefined {
    return this.extensions.expandPromptTemplate(text);
  }

  reloadPromptTemplates(): Promise<readonly PromptTemplate[]> {
    return this.extensions.reloadPromptTemplates();
  }

  expandSkill(text: string): { name: string; text: string } | undefined {
    return this.extensions.expandSkill(text);
  }

  skillPrompt(name: string, prompt: string): string {
    const text = this.extensions.skillPrompt(name, prompt);
    if (text !== undefined) return text;
    const known = this.skills.map((s) => s.name).join(', ') || 'none: add .mini-agent/skills/NAME/SKILL.md';
    throw new AgentError('invalid_argument', `no skill named "${name}" (skills: ${known})`);
  }

  get permissionMode(): PermissionMode {
    return this.mode;
  }

  setPermissionMode(mode: PermissionMode): void {
    this.check();
    if (!PERMISSION_MODES.includes(mode)) throw new AgentError('invalid_argument', `unknown permission mode "${mode}" (modes: ${PERMISSION_MODES.join(', ')})`);
    this.mode = mode;
  }

  get thinking(): ThinkingLevel {
    return this.level.get();
  }

  setThinking(level: ThinkingLevel): ThinkingChange {
    return this.level.set(level);
  }

  mcpServers(): McpServerStatus[] {
    return this.extensions.mcpStatus();
  }

  startMcpServers(): Promise<string[]> {
    this.check();
    return this.extensions.startAllServers();
  }

  showConfig(): ConfigRow[] {
    this.check();
    // The model in use wins over the configured one: a --script run, or one changed by setModel.
    const { provider, id } = this.model;
    const configured = this.resolved.config;
    const rows = [...showConfig(withWindow(this.resolved, learnedWindow(this.store.entries(), this.modelAdapter.provider, this.modelAdapter.model)), this.ctx.env), ...this.extensions.rows()];
    if (provider === configured.provider && id === configured.model) return rows;
    const source = this.options.script ? 'flag --script' : this.options.modelAdapter ? 'SDK modelAdapter' : 'setModel or the session';
    return rows.map((r) => (r.key === 'provider' ? { ...r, value: provider, source } : r.key === 'model' ? { ...r, value: id, source } : r));
  }

  messages(): Message[] {
    this.check();
    return projectMessages(this.store.activePath());
  }

  async compact(opts: { focus?: string } = {}): Promise<CompactResult> {
    this.check();
    return compactResult(await this.runner.compact({ focus: opts.focus }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.runner.busy) {
      this.runner.abort();
      await this.runner.idle();
    }
    this.closed = true;
    this.release(this.opened);
    await this.extensions.close();
  }

  private get store(): SessionStore {
    return this.opened.store;
  }

  private check(): void {
    if (this.closed) throw new AgentError('closed', 'this agent was closed; create a new one');
  }

  /** A message checked (not empty), and what it carries after its text: its `@path` files and images, read now (prompt-files.ts); a bad given image throws. */
  private attachments(text: string, images: readonly PromptImage[] | undefined, what = 'message') {
    this.check();
    if (typeof text !== 'string' || (text.trim() === '' && !images?.length)) throw new AgentError('invalid_argument', `the ${what} is empty`);
    return readAttachments(text, images, { cwd: this.cwd, allowedPaths: this.resolved.config.allowPaths }, this.resolved.config.permissions);
  }

  private idleOnly(what: string): void {
    this.check();
    if (this.runner.busy) throw new AgentError('busy', `cannot ${what} while a run is in progress; wait for it to settle or abort it`);
  }

  /** A runner for the current session and model; a new session also gets a new handle (old ones go stale). */
  private attach(newSession = true): void {
    const c = this.resolved.config;
    if (newSession) {
      this.grants = sessionGrants(this.store, this.ctx.place.home, (note) => this.notes.push(note));
      this.checkpoints = sessionCheckpoints(this.store.file, this.cwd);
    }
    this.runner = new SessionRunner({
      store: this.store,
      ...(this.checkpoints ?? {}),
      model: this.modelAdapter,
      tools: this.tools,
      cwd: this.cwd,
      ...runLimits(c),
      retry: c.retry,
      idleTimeoutMs: c.idleTimeoutMs,
      systemPrompt: this.options.systemPrompt,
      compaction: this.compactionConfig(),
      loopGuard: c.loopGuard,
      thinking: () => this.level.get(),
      prepareRun: ({ signal, purpose }) => this.extensions.prepareRun({ signal, purpose, messages: () => projectMessages(this.store.activePath()) }),
    });
    const listeners = [...this.loaded.listeners, ...(this.options.hooks?.onEvent ? [this.options.hooks.onEvent] : [])];
    this.runner.subscribe((event) => {
      for (const listener of [...listeners, ...this.listeners]) {
        try {
          listener(event);
        } catch (err) {
          this.listenerErrors.push(err);
        }
      }
    });
    if (newSession) this.handle = sessionHandle(this.handleHost(), ++this.generation);
  }

  /** Compaction with the session's own model as the summarizer. */
  private compactionConfig(): CompactionConfig {
    return sessionCompaction(this.resolved, this.store, this.modelAdapter, this.toolDescriptions.files);
  }

  /** What the session handles use of this agent. */
  private handleHost(): HandleHost {
    return {
      cwd: this.cwd,
      store: () => this.store,
      generation: () => this.generation,
      check: () => this.check(),
      idleOnly: (what) => this.idleOnly(what),
      fork: (store, entryId) => {
        this.replaceSession(forkInto(store, entryId, this.ctx.place));
        return this.handle;
      },
      exclusive: (task) => this.runner.exclusive(task),
      compactionConfig: () => this.compactionConfig(),
      files: this.toolDescriptions.files,
      runTool: (call, signal) => this.tools.execute(call, { cwd: this.cwd, signal }),
    };
  }

  private replaceSession(next: OpenedSession): void {
    const previous = this.opened;
    this.opened = next;
    this.notes.push(...next.notes);
    this.release(previous);
    this.attach();
  }

  private release(opened: OpenedSession): void {
    this.checkpoints?.workspaceCheckpoints.close();
    opened.store.close();
    opened.lock?.release();
  }
}
