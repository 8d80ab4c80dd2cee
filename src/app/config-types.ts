// The shapes of configuration: what a config file may hold (the config table's, core/config-table.ts),
// the flags above it, and the effective configuration every block reads (each value with where it
// came from). Types only; config.ts resolves them.
import type { LoopGuardSettings } from '../agent/loop-guard.js';
import type { RetryPolicy } from '../agent/retry.js';
import type { McpServerSpec } from '../extensions/mcp-config.js';
import type { TrustState } from '../extensions/trust.js';
import type { CacheRetention } from '../model/cache.js';
import type { ConfigFile } from '../core/config-table.js';
import type { Pricing, ProviderPreset } from '../model/models.js';
import type { ThinkingLevel } from '../model/thinking.js';
import type { PermissionPolicy, PermissionRule } from '../tools/permissions.js';
import type { SandboxMode } from '../tools/sandbox.js';
import type { ProjectKeyDecision } from './project-config.js';

/** The shape of config.json files and of `models.<id>`: Static of the config table's schemas. */
export type { ConfigFile, ModelOverride } from '../core/config-table.js';

/** A hook module to load, and whose config listed it. */
export interface HookSpec {
  path: string;
  /** `project` hooks run only in a trusted workspace. */
  scope: 'user' | 'project';
  source: string;
}

export interface EffectiveConfig {
  provider: string;
  preset: ProviderPreset;
  model: string;
  baseUrl: string;
  apiKey: string | undefined;
  /** The env var that holds the key for this provider, if any. */
  apiKeyEnv: string | undefined;
  maxTurns: number;
  timeoutMs: number;
  idleTimeoutMs: number;
  retry: RetryPolicy;
  contextWindow: number;
  maxOutputTokens: number;
  /** Undefined: unknown (config-cost.ts), shown as "cost unknown". budget: the most a run may spend (US$), with a known price only. */
  pricing: Pricing | undefined;
  budget: { maxCostUsd: number | undefined };
  /** The model takes images (read_file returns them, prompts attach them); false: each one becomes a text note. */
  images: boolean;
  /** Automatic compaction: on or off (every path, overflow included), and its thresholds in tokens. */
  compaction: { enabled: boolean; reserveTokens: number; keepRecentTokens: number };
  /** sandbox: the OS sandbox for commands (tools/sandbox.ts); network: sandboxed commands reach the network. */
  bash: { timeoutSeconds: number; maxTimeoutSeconds: number; envAllowlist: string[]; parallel: boolean; sandbox: SandboxMode; network: boolean };
  /** The rules of every config file, each with its source. */
  permissions: PermissionPolicy;
  /** --yes: every call the policy would ask about is approved (deny rules still hold). */
  approveAll: boolean;
  /** --approve RULE: calls the policy would ask about that these rules cover are approved. */
  approvals: PermissionRule[];
  hooks: HookSpec[];
  /** Absolute folders outside the workspace that file tools may use (config and --allow-path). */
  allowPaths: string[];
  /** The tools that are on, or null for all. */
  tools: string[] | null;
  loopGuard: LoopGuardSettings;
  /** MCP servers of every config layer, each with its scope (a project's start only in a trusted workspace). */
  mcpServers: McpServerSpec[];
  contextFiles: { enabled: boolean; maxBytes: number };
  /** Prompt caching: Anthropic cache breakpoints with this time to live (none: no breakpoints), OpenAI's prompt_cache_key. */
  cache: { retention: CacheRetention };
  thinking: ThinkingLevel;
  /** File checkpoints: `mini-agent gc` removes those of a session not written for `maxAgeDays` days (0: never by age). */
  checkpoints: { maxAgeDays: number };
}

export interface Resolved {
  config: EffectiveConfig;
  /** Dotted key → where its value came from. */
  sources: Record<string, string>;
  /** Problems worth a warning that do not stop the run (e.g. a config file with a key readable by others). */
  warnings?: string[];
  /** Whether the workspace is trusted (its project config may widen what the user allowed). Set by loadConfig. */
  trust?: TrustState;
  /** Each key of the project config: applied or ignored, and why. Set by loadConfig when there is one. */
  projectKeys?: ProjectKeyDecision[];
}

/** Values given as command-line flags (or SDK options): the top of the precedence order. */
export interface ConfigFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  maxTurns?: number;
  /** false: --no-compact. */
  compact?: boolean;
  /** --context-window N: the model's window for this run. */
  contextWindow?: number;
  /** --thinking LEVEL. */
  thinking?: ThinkingLevel;
  /** --allow-path DIR (repeatable). */
  allowPaths?: string[];
  /** --yes. */
  yes?: boolean;
  /** --approve RULE (repeatable). */
  approve?: string[];
  /** --tools LIST. */
  tools?: string[];
  /** --bash-timeout SECONDS. */
  bashTimeout?: number;
  /** --mcp-config FILE (repeatable). */
  mcpConfig?: string[];
  /** MCP servers given in code (SDK option mcpServers). */
  mcpServers?: Record<string, unknown>;
  /** false: --no-context-files. */
  contextFiles?: boolean;
  /** --trust-workspace: trust the workspace's own config (widening keys, hooks, MCP servers) for this run. */
  trustWorkspace?: boolean;
  /** --max-cost USD. */
  maxCost?: number;
  /**
   * Set by `/model` (Agent.setModel) when it moves to another provider: a config file's baseUrl,
   * apiKey and model then go only to the provider the files name, and a file that names none
   * belongs to the provider the files give (by default openai), not to the one switched to.
   */
  providerSwitch?: boolean;
}

export interface ConfigInputs {
  flags: ConfigFlags;
  env: NodeJS.ProcessEnv;
  /** The home folder (the user config's folder); default: the one `env` names (agentHome). */
  home?: string;
  /** The workspace (relative allowPaths start there); default: the current directory. */
  cwd?: string;
  project?: { file: string; data: ConfigFile };
  user?: { file: string; data: ConfigFile };
}
