// The public face of the application layer: what createAgent takes and what it gives. Fully
// typed, documented in the README; everything here is a contract for SDK users.
import type { RewindOptions, RewindOutcome } from '../session/file-rewind.js';
import type { StoreUsage } from '../session/checkpoint-store.js';
import type { ToolDescriptions } from '../tools/descriptions.js';
import type { PromptTemplate } from '../extensions/prompt-templates.js';
import type { McpServerStatus } from '../extensions/mcp-client.js';
import type { Skill } from '../extensions/skills.js';
import type { EventListener, SessionStats } from '../core/events.js';
import type { Message, QueueItem } from '../core/types.js';
import type { ModelAdapter } from '../model/adapter.js';
import type { RunResult } from '../agent/runner.js';
import type { TreeJson } from '../session/tree-json.js';
import type { EventListener as Listener } from '../core/events.js';
import type { BeforeToolCallResult, HookCall, HookContext, HookResult } from '../tools/hook-runner.js';
import type { PermissionCheck } from '../tools/registry.js';
import type { PermissionAsker, PermissionMode, PermissionReply, PermissionRequest } from './permission-gate.js';
import type { FileAccess, ToolDefinition } from '../tools/tool.js';
import type { EffectiveConfig } from './config.js';
import type { ConfigRow } from './config-show.js';
import type { ExportFormat } from './export-formats.js';
import type { ShellCommandResult } from './shell-command.js';
import type { SessionChoice } from './session-open.js';
import type { ThinkingChange, ThinkingLevel } from './thinking-control.js';
import type { PromptImage } from './prompt-images.js';

export type { PermissionMode, ThinkingChange, ThinkingLevel };
export type { BeforeToolCallResult, ExportFormat, HookCall, HookContext, HookResult, PermissionReply, PermissionRequest, RunResult, SessionChoice };

/** In-process hooks (no trust needed: they are the SDK user's own code). */
export interface AgentHooks {
  /** Asked after the permission policy allowed a call: allow, or deny with a reason the model sees. */
  permission?: PermissionCheck;
  /** Before each tool call (after the config's hooks): allow (return nothing), block with a reason, or rewrite the arguments. */
  beforeToolCall?(call: HookCall, ctx: HookContext): BeforeToolCallResult | void | Promise<BeforeToolCallResult | void>;
  /** After each tool call: return a patched result, or nothing to keep it. */
  afterToolCall?(call: HookCall, result: HookResult, ctx: HookContext): HookResult | void | Promise<HookResult | void>;
  /** Every event of every run (like subscribe). */
  onEvent?: Listener;
}

export interface CreateAgentOptions {
  /** The workspace: tools cannot reach outside it (default: the current directory). */
  cwd?: string;
  /** A provider preset (openai, anthropic, deepseek, openrouter, ollama, openai-compatible). */
  provider?: string;
  model?: string;
  apiKey?: string;
  baseUrl?: string;
  maxTurns?: number;
  /** The most a run may spend, in US dollars (`--max-cost`): it stops (stopReason "budget") before a request that could pass it. Needs known prices. */
  maxCost?: number;
  /** false: never compact automatically (the overflow path included). Default: the config (on). */
  compact?: boolean;
  /** The model's context window in tokens (overrides the model table and config). */
  contextWindow?: number;
  /** How much the model reasons: 'off', 'low', 'medium' or 'high' (`--thinking`; default: the config's `thinking`, else off). */
  thinking?: ThinkingLevel;
  /** Use the scripted model, replaying this file (the `--script` format): for tests and examples. */
  script?: string;
  /** Save every model response to this file in the script format (`--record`). */
  record?: string;
  /** A model adapter of your own, used as is. */
  modelAdapter?: ModelAdapter;
  /** Replace the built-in tools. */
  tools?: readonly ToolDefinition[];
  /** Add tools to the built-in ones (or to `tools`). */
  extraTools?: readonly ToolDefinition[];
  /** Deny every tool that changes something. */
  readOnly?: boolean;
  /** Only these tools are on (by name), e.g. ['read_file', 'grep'] (`--tools`). */
  enabledTools?: string[];
  /** Folders outside the workspace that file tools may use too (`--allow-path`). */
  allowPaths?: string[];
  /** Approve every call the permission policy would ask about (`--yes`); deny rules still hold. */
  yes?: boolean;
  /** Approve the calls these rules cover, e.g. 'bash(npm test)' (`--approve`). */
  approve?: string[];
  /** bash's default timeout in seconds (`--bash-timeout`). */
  bashTimeout?: number;
  /** Load the workspace's own hooks and MCP servers (from .mini-agent/config.json) without `mini-agent trust` (`--trust-workspace`). */
  trustWorkspace?: boolean;
  /** false: leave AGENTS.md / CLAUDE.md out of the system prompt (`--no-context-files`). Default: the config (on). */
  contextFiles?: boolean;
  /** Files with more MCP servers (`{"mcpServers": {...}}`, `--mcp-config`); they start like the user's own. */
  mcpConfig?: string[];
  /** More MCP servers, in the config's `mcpServers` shape (an editor's, over ACP); they start like the user's own. */
  mcpServers?: Record<string, unknown>;
  /**
   * Files as the client sees them (ACP's fs/read_text_file and fs/write_text_file: unsaved editor
   * buffers): read_file, write_file and edit_file go through it, after the workspace boundary and
   * the permission policy. Without it they use the disk.
   */
  fileAccess?: FileAccess;
  /**
   * A provider that cannot be used (no API key, a bad base URL) does not make createAgent throw:
   * every request fails with the reason (an `auth` error), so the first prompt reports it. For
   * front ends started before anyone typed (ACP). Default false.
   */
  deferModelErrors?: boolean;
  /** The permission preset to start in: 'default', 'accept-edits' or 'read-only' (see `setPermissionMode`). */
  permissionMode?: PermissionMode;
  /**
   * Answers calls that need approval (the policy said "ask"): 'allow', 'deny', or 'always' (allow,
   * and grant the rule for the rest of the session; stored in the session file). Without it, such
   * calls are refused unless approved by `yes`, `approve` or the config.
   */
  onPermissionRequest?: PermissionAsker;
  /** Which session to work in (default 'new'). */
  session?: SessionChoice;
  /** Continue from this entry of the chosen session (id, prefix or label): a new branch. */
  branch?: string;
  /** Copy root → this entry of the chosen session into a new session, and work there. */
  fork?: string;
  systemPrompt?: string;
  hooks?: AgentHooks;
  /** Where sessions and user config live (default: MINI_AGENT_HOME, else ~/.mini-agent). */
  home?: string;
  /** The environment for configuration and API keys (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface AgentState {
  session: { id: string; file: string | null; name: string | null };
  model: { provider: string; id: string };
  running: boolean;
  queue: QueueItem[];
  /** How full the context was at the last response: its input and output tokens against the window. */
  context: { tokens: number | null; contextWindow: number; fraction: number | null };
}

/** One session of an agent. A handle stays tied to its session: after a fork, new or switch it refuses to act. */
export interface AgentSessionHandle {
  readonly id: string;
  readonly file: string | null;
  readonly name: string | null;
  /** Problems found when the file was loaded (corrupt lines, a torn tail). */
  readonly warnings: readonly string[];
  tree(): TreeJson;
  /** The tree as text, as `mini-agent tree` prints it (each entry's preview cut to `width` characters). */
  treeText(width?: number): string;
  stats(): SessionStats;
  /** The files read and modified on the active path (through compactions too), workspace-relative. */
  filesTouched(): { readFiles: string[]; modifiedFiles: string[] };
  /** What the agent changed in the files on this branch since ENTRY (id, prefix or label; absent: since the session began), as a unified diff from the checkpoints; '' when nothing changed or the session is in memory. */
  diff(entry?: string): Promise<string>;
  /** What the session's file checkpoints take: the objects in its store and their bytes (a fork's hard-linked objects count too); null for a session in memory, which keeps none. */
  checkpointsSize(): Promise<StoreUsage | null>;
  /**
   * Every message on the active path, root to leaf, those a compaction summarized included (the
   * branch as it happened; `agent.messages()` is what the model sees). Read-only objects.
   */
  branchMessages(): Message[];
  /** Moves the active leaf to an entry (id, prefix or label): the next prompt starts a branch there. */
  branch(entry: string): string;
  /**
   * Restores the files the agent changed to their state at an entry (id, prefix or label) and moves
   * the leaf there (`filesOnly`, `conversationOnly` choose one). A file changed outside the agent
   * since its last change is not overwritten without `force` (an invalid_argument error names it);
   * `dryRun` only works out the plan. The rewind is recorded: rewinding to the entry left undoes it.
   */
  rewind(entry: string, opts?: RewindOptions): Promise<RewindOutcome>;
  /** Copies root → entry into a new session and switches the agent to it; returns the new session. */
  fork(entry: string): AgentSessionHandle;
  /** Sets (or with null clears) a label on an entry; returns the entry id. */
  label(entry: string, label: string | null): string;
  /** Sets (or with null clears) the session's display name. */
  setName(name: string | null): void;
  /** The session as Markdown, HTML or JSONL; with `file`, written there (atomically) and the path returned. */
  export(format: ExportFormat, file?: string): Promise<string>;
  /**
   * Moves to an entry and appends there a summary of the branch being left (from the common
   * ancestor to the old leaf), so its work is not forgotten. On failure nothing moves.
   */
  branchWithSummary(entry: string): Promise<BranchSummaryResult>;
  /** Undoes the latest compaction on the active path by moving the leaf back before it (nothing is deleted); returns the new leaf. */
  uncompact(): string;
  /**
   * `!cmd`: runs a shell command through the bash tool (permissions, sandbox and hooks apply) and adds
   * the command with its output to the conversation as a user message; aborted or refused, nothing is added.
   */
  shell(command: string, opts?: { signal?: AbortSignal }): Promise<ShellCommandResult>;
}

export type CompactResult = { ok: true; entryId: string; tokensBefore: number; tokensAfter: number; summarizedEntries: number; readFiles: string[]; modifiedFiles: string[] } | { ok: false; error: string; tokensBefore: number };

export type BranchSummaryResult = { ok: true; entryId: string; summarizedEntries: number } | { ok: false; error: string };

export interface Agent {
  readonly cwd: string;
  /** How this agent's calls are described (title, kind, locations) and which files they touched: by its own tools first (a tool given in `tools` that declares `describe` or `files`), then the built-in tools by name, else generically. */
  readonly toolDescriptions: ToolDescriptions;
  /** The workspace's sessions folder (under the home folder this agent was given): what `/resume` and `sessions` list. */
  readonly sessionsFolder: string;
  readonly config: EffectiveConfig;
  readonly model: { provider: string; id: string };
  /** What happened while opening (a migration, a fork), one line each. */
  readonly notes: readonly string[];
  /** Configuration problems worth a warning (e.g. a key file others can read). */
  readonly warnings: readonly string[];
  readonly running: boolean;
  readonly session: AgentSessionHandle;
  /** Errors thrown by listeners: they never break a run. */
  readonly listenerErrors: readonly unknown[];
  /**
   * Runs a prompt to the end (a prompt sent during a run waits for it). `images`: attached after
   * the text (base64 with a media type, or a file); a `@path` token in the text naming an image file
   * in the workspace attaches it too. Images over the providers' limits are scaled down.
   */
  prompt(text: string, opts?: { signal?: AbortSignal; images?: readonly PromptImage[] }): Promise<RunResult>;
  /**
   * Delivered after the current tool batch, before the next request; with no run in progress it
   * starts one. It carries what a prompt would (`images`, `@path` images and text files), read now,
   * as it is queued; a given image that is not valid throws (invalid_argument).
   */
  steer(text: string, opts?: { images?: readonly PromptImage[] }): QueueItem;
  /** Delivered when the run would otherwise end; with no run in progress it starts one. Attachments as steer's. */
  followUp(text: string, opts?: { images?: readonly PromptImage[] }): QueueItem;
  queue(): QueueItem[];
  cancel(id: string): boolean;
  /** Aborts the run in progress; returns the steers and follow-ups it had not delivered. */
  abort(): QueueItem[];
  /** Resolves when no run is in progress or waiting. */
  idle(): Promise<void>;
  subscribe(listener: EventListener): () => void;
  newSession(): AgentSessionHandle;
  switchSession(choice: SessionChoice): AgentSessionHandle;
  setModel(opts: { provider?: string; model?: string; baseUrl?: string; apiKey?: string }): Promise<{ provider: string; id: string }>;
  state(): AgentState;
  /** The prompt templates of the workspace (`.mini-agent/prompts/`) and the user (`$MINI_AGENT_HOME/prompts/`), loaded once. */
  readonly promptTemplates: readonly PromptTemplate[];
  /** `/name args` for a known template: its text with the arguments filled in; undefined for anything else. */
  expandPromptTemplate(text: string): { name: string; text: string } | undefined;
  /** The prompt folders read again (the interactive mode does it before each `/`): returns the templates now known. */
  reloadPromptTemplates(): Promise<readonly PromptTemplate[]>;
  /** The skills of the workspace (`.mini-agent/skills/NAME/SKILL.md`) and the user (`$MINI_AGENT_HOME/skills/`), loaded once. */
  readonly skills: readonly Skill[];
  /** `/skill:name args` for a known skill: its instructions wrapped for the model, the arguments after them. */
  expandSkill(text: string): { name: string; text: string } | undefined;
  /** The skill NAME inlined before `prompt` (`--skill NAME`); throws an AgentError naming the known skills for an unknown one. */
  skillPrompt(name: string, prompt: string): string;
  /** The permission preset in force. */
  readonly permissionMode: PermissionMode;
  /** Switches the permission preset (ACP's modes): 'default' (the policy), 'accept-edits' (file changes approved too), 'read-only'. Deny rules hold in every mode. */
  setPermissionMode(mode: PermissionMode): void;
  /** The thinking level in force ('off', 'low', 'medium', 'high'). */
  readonly thinking: ThinkingLevel;
  /** Changes the thinking level from the next request on (a tool-use loop in progress keeps its level until it ends); the note says when the model cannot take it. */
  setThinking(level: ThinkingLevel): ThinkingChange;
  /** The MCP servers and their state and tools (each tool with its estimated token cost). */
  mcpServers(): McpServerStatus[];
  /** Starts every MCP server that may start (a run starts those it needs by itself); one line per problem. */
  startMcpServers(): Promise<string[]>;
  /** The effective configuration, every value with where it came from (API keys redacted), as --show-config prints it. */
  showConfig(): ConfigRow[];
  /** What the model would see now: the projection of the active path. */
  messages(): Message[];
  /**
   * Compacts the session now (after a run in progress): a summary entry stands in for the older
   * messages, the originals stay in the file. `focus`: what the summary should dwell on.
   */
  compact(opts?: { focus?: string }): Promise<CompactResult>;
  /** Aborts a run in progress, waits for it to settle, then closes the session file and releases its lock. */
  close(): Promise<void>;
}
