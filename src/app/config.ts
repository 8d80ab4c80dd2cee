// Configuration: CLI flags > environment > project config (.mini-agent/config.json) >
// user config ($MINI_AGENT_HOME/config.json) > provider preset > defaults. Nested keys merge
// deeply; an empty string counts as set. Every effective value remembers where it came from.
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LoopGuardSettings } from '../agent/loop-guard.js';
import type { RetryPolicy } from '../agent/retry.js';
import { CONFIG_KEYS, configDefaults, flagSource } from '../core/config-table.js';
import { isPlainObject, UsageError } from '../core/types.js';
import { parseRule, type PermissionPolicy } from '../tools/permissions.js';
import type { SandboxMode } from '../tools/sandbox.js';
import { checkConfig } from './config-check.js';
import { costSettings } from './config-cost.js';
import { extensionSettings } from './config-extensions.js';
import { DEFAULT_MODEL_INFO, modelInfo, PROVIDERS } from '../model/models.js';
import type { CacheRetention } from '../model/cache.js';
import { agentHome } from '../session/paths.js';
import { modeString, othersHaveAccess } from '../session/private-fs.js';
import { projectConfigFile, trustState } from '../extensions/trust.js';
import { thinkingLevel } from './thinking-config.js';
import { ignoredKeys, narrowProjectConfig, trustHint, untrustedWarning, type ProjectKeyDecision } from './project-config.js';

/** The configured provider is not a preset (a usage error; `--script` runs can do without one). */
export class UnknownProviderError extends UsageError {
  constructor(readonly provider: string) {
    super(`unknown provider "${provider}" (known: ${Object.keys(PROVIDERS).join(', ')})`);
  }
}

export type { ConfigFile, ConfigFlags, ConfigInputs, EffectiveConfig, HookSpec, ModelOverride, Resolved } from './config-types.js';
import type { ConfigFile, ConfigInputs, EffectiveConfig, ModelOverride, Resolved } from './config-types.js';

type Layer = { source: string; data: Record<string, unknown> };

/** Deep merge of layers (lowest first); returns the merged object and each leaf's source. */
export function mergeLayers(layers: readonly Layer[]): { value: Record<string, unknown>; sources: Record<string, string> } {
  const value: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  const walk = (target: Record<string, unknown>, data: Record<string, unknown>, prefix: string, source: string) => {
    for (const [k, v] of Object.entries(data)) {
      if (v === undefined) continue; // absent; note that '' is a value
      const key = prefix ? `${prefix}.${k}` : k;
      if (isPlainObject(v)) {
        if (!isPlainObject(target[k])) target[k] = {};
        walk(target[k] as Record<string, unknown>, v, key, source);
      } else {
        target[k] = v;
        sources[key] = source;
      }
    }
  };
  for (const layer of layers) walk(value, layer.data, '', layer.source);
  return { value, sources };
}

/** The layers of the variables the table names for `keys` (MINI_AGENT_PROVIDER, MINI_AGENT_MODEL), one per variable set. */
function tableEnvLayers(env: NodeJS.ProcessEnv, keys: readonly string[]): Layer[] {
  return CONFIG_KEYS.flatMap((row) => (row.env && keys.includes(row.key) && env[row.env] !== undefined ? [{ source: `env ${row.env}`, data: { [row.key]: env[row.env] } }] : []));
}

export function resolveConfig(inputs: ConfigInputs): Resolved {
  const { env, flags } = inputs;
  const fileLayers: Layer[] = [];
  if (inputs.user) fileLayers.push({ source: `user config ${inputs.user.file}`, data: inputs.user.data as Record<string, unknown> });
  if (inputs.project) fileLayers.push({ source: `project config ${inputs.project.file}`, data: inputs.project.data as Record<string, unknown> });
  const envLayer = (data: Record<string, unknown>, names: Record<string, string>): Layer[] =>
    Object.entries(data)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => ({ source: `env ${names[k]}`, data: { [k]: v } }));
  const flagLayer = (data: Record<string, unknown>, names: Record<string, string>): Layer[] =>
    Object.entries(data)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => ({ source: `flag ${names[k]}`, data: { [k]: v } }));

  // 1. The provider decides which presets and env vars apply. The lowest layer: the table's defaults.
  const base: Layer[] = [{ source: 'default', data: configDefaults() }, ...fileLayers, ...tableEnvLayers(env, ['provider']), ...flagLayer({ provider: flags.provider }, { provider: '--provider' })];
  const provider = String(mergeLayers(base).value.provider);
  const preset = PROVIDERS[provider];
  if (!preset) {
    throw new UnknownProviderError(provider);
  }
  const baseUrlEnv = provider === 'anthropic' ? 'ANTHROPIC_BASE_URL' : provider === 'openai' || provider === 'openai-compatible' ? 'OPENAI_BASE_URL' : undefined;

  // 2. Everything, in precedence order. A config file that names another provider keeps its
  // baseUrl, apiKey and model to itself: a key for one provider never goes to another's URL.
  // After a switch to another provider (/model), a file that names no provider is the files' provider's.
  const filesProvider = flags.providerSwitch ? mergeLayers([base[0], ...fileLayers]).value.provider : undefined;
  const forProvider = (layer: Layer): Layer => {
    const named = layer.data.provider ?? filesProvider;
    if (named === undefined || named === provider) return layer;
    const { baseUrl: _url, apiKey: _key, model: _model, ...rest } = layer.data;
    return { ...layer, data: rest };
  };
  const layers: Layer[] = [
    base[0],
    { source: `preset ${provider}`, data: { model: preset.defaultModel, baseUrl: preset.baseUrl } },
    ...fileLayers.map(forProvider),
    ...tableEnvLayers(env, ['provider', 'model']),
    ...envLayer(
      {
        baseUrl: baseUrlEnv ? env[baseUrlEnv] : undefined,
        apiKey: preset.apiKeyEnv ? env[preset.apiKeyEnv] : undefined,
      },
      { baseUrl: baseUrlEnv ?? '', apiKey: preset.apiKeyEnv ?? '' },
    ),
    ...flagLayer(
      { provider: flags.provider, model: flags.model, baseUrl: flags.baseUrl, apiKey: flags.apiKey, maxTurns: flags.maxTurns, thinking: flags.thinking },
      { provider: '--provider', model: '--model', baseUrl: '--base-url', apiKey: '--api-key', maxTurns: '--max-turns', thinking: '--thinking' },
    ),
    ...(flags.compact === false ? [{ source: flagSource('compaction.enabled'), data: { compaction: { enabled: false } } }] : []),
  ];
  const { value: v, sources } = mergeLayers(layers);
  const model = String(v.model);
  const known = modelInfo(model);
  const override = (isPlainObject(v.models) ? (v.models as Record<string, ModelOverride>)[model] : undefined) ?? {};
  const modelSource = (key: string) => sources[`models.${model}.${key}`];
  const result: EffectiveConfig = {
    provider,
    preset,
    model,
    baseUrl: String(v.baseUrl),
    apiKey: v.apiKey === undefined ? undefined : String(v.apiKey),
    apiKeyEnv: preset.apiKeyEnv,
    maxTurns: v.maxTurns as number,
    timeoutMs: v.timeoutMs as number,
    idleTimeoutMs: v.idleTimeoutMs as number,
    retry: { ...(v.retry as RetryPolicy) },
    contextWindow: flags.contextWindow ?? override.contextWindow ?? known.contextWindow,
    maxOutputTokens: override.maxOutputTokens ?? known.maxOutputTokens,
    ...costSettings({ model, provider, known, preset, override: override.pricing, maxCostFlag: flags.maxCost, budget: v.budget, sources }),
    images: override.images ?? known.images,
    compaction: { enabled: true, reserveTokens: 0, keepRecentTokens: 0 },
    cache: { retention: (v.cache as { retention: CacheRetention }).retention },
    thinking: thinkingLevel(v.thinking, sources.thinking),
    checkpoints: { ...(v.checkpoints as { maxAgeDays: number }) },
    ...toolSettings(inputs, v, sources),
    ...extensionSettings(
      {
        cwd: resolve(inputs.cwd ?? process.cwd()),
        env,
        home: inputs.home ?? agentHome(env),
        user: inputs.user,
        project: inputs.project,
        mcpConfig: flags.mcpConfig,
        mcpServers: flags.mcpServers,
        contextFiles: flags.contextFiles,
        merged: v.contextFiles,
      },
      sources,
    ),
  };
  const tableSource = known === DEFAULT_MODEL_INFO ? 'default (unknown model)' : 'model table';
  sources.contextWindow = flags.contextWindow !== undefined ? 'flag --context-window' : (modelSource('contextWindow') ?? tableSource);
  // Compaction thresholds are relative to the window unless set: reserve min(16,384, 25%), keep min(20,000, 40%).
  const c = (isPlainObject(v.compaction) ? v.compaction : {}) as { enabled?: boolean; reserveTokens?: number; keepRecentTokens?: number };
  const window = result.contextWindow;
  result.compaction = {
    enabled: c.enabled !== false,
    reserveTokens: c.reserveTokens ?? Math.min(16_384, Math.floor(window * 0.25)),
    keepRecentTokens: c.keepRecentTokens ?? Math.min(20_000, Math.floor(window * 0.4)),
  };
  sources['compaction.reserveTokens'] ??= 'default (25% of the window, at most 16,384)';
  sources['compaction.keepRecentTokens'] ??= 'default (40% of the window, at most 20,000)';
  for (const k of ['reserveTokens', 'keepRecentTokens'] as const) {
    if (result.compaction[k] >= window) throw new UsageError(`compaction.${k} (${result.compaction[k]}, from ${sources[`compaction.${k}`]}) must be smaller than the context window (${window})`);
  }
  sources.maxOutputTokens = modelSource('maxOutputTokens') ?? tableSource;
  sources.images = modelSource('images') ?? tableSource;
  return { config: result, sources };
}

/**
 * The tool settings: bash, permissions, hooks, allowed folders, the tool list and the loop guard.
 * Lists that protect (permission rules, the env allowlist, allowed folders, hooks) add up across
 * the config files, each entry keeping its source; scalars follow the usual precedence.
 */
function toolSettings(inputs: ConfigInputs, v: Record<string, unknown>, sources: Record<string, string>) {
  const { flags } = inputs;
  const cwd = resolve(inputs.cwd ?? process.cwd());
  const files = [
    ...(inputs.user ? [{ scope: 'user' as const, ...inputs.user, base: inputs.home ?? agentHome(inputs.env) }] : []),
    ...(inputs.project ? [{ scope: 'project' as const, ...inputs.project, base: join(cwd, '.mini-agent') }] : []),
  ];
  const label = (f: (typeof files)[number]) => `${f.scope} config ${f.file}`;
  // The defaults' layer (the table) gives every scalar here a value and a source.
  const bash = v.bash as { timeoutSeconds: number; maxTimeoutSeconds: number; parallel: boolean; sandbox: SandboxMode; network: boolean };
  const timeoutSeconds = flags.bashTimeout ?? bash.timeoutSeconds;
  if (flags.bashTimeout !== undefined) sources['bash.timeoutSeconds'] = flagSource('bash.timeoutSeconds');
  const maxTimeoutSeconds = Math.max(bash.maxTimeoutSeconds, timeoutSeconds);
  const permissions: PermissionPolicy = { allow: [], ask: [], deny: [] };
  for (const f of files) {
    for (const level of ['allow', 'ask', 'deny'] as const) {
      for (const text of f.data.permissions?.[level] ?? []) permissions[level].push(parseRule(text, label(f)));
    }
  }
  const allowPaths = [...files.flatMap((f) => (f.data.allowPaths ?? []).map((p) => resolve(cwd, p))), ...(flags.allowPaths ?? []).map((p) => resolve(cwd, p))];
  const tools = flags.tools ?? (Array.isArray(v.tools) ? (v.tools as string[]) : null);
  if (flags.tools) sources.tools = flagSource('tools');
  const loopGuard = { ...(v.loopGuard as LoopGuardSettings) };
  if (loopGuard.warnAfter >= loopGuard.stopAfter) {
    throw new UsageError(`loopGuard.warnAfter (${loopGuard.warnAfter}) must be smaller than loopGuard.stopAfter (${loopGuard.stopAfter})`);
  }
  return {
    bash: { timeoutSeconds, maxTimeoutSeconds, envAllowlist: [...new Set(files.flatMap((f) => f.data.bash?.envAllowlist ?? []))], parallel: bash.parallel, sandbox: bash.sandbox, network: bash.network },
    permissions,
    approveAll: flags.yes === true,
    approvals: (flags.approve ?? []).map((text) => parseRule(text, 'flag --approve')),
    hooks: files.flatMap((f) => (f.data.hooks ?? []).map((p) => ({ path: resolve(f.base, p), scope: f.scope, source: label(f) }))),
    allowPaths: [...new Set(allowPaths)],
    tools,
    loopGuard,
  };
}

/** Reads a config file; a missing file is fine, a malformed one is a usage error naming it. */
export function readConfigFile(file: string): ConfigFile | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read config ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  checkConfig(data, file);
  return data as ConfigFile;
}

/**
 * Loads both config files and resolves everything. The project config applies whole only in a
 * trusted workspace; otherwise only what narrows the user's own settings (project-config.ts),
 * and one warning names the keys it ignored.
 */
export function loadConfig(cwd: string, env: NodeJS.ProcessEnv, flags: ConfigInputs['flags'], home: string = agentHome(env)): Resolved {
  const userFile = join(home, 'config.json');
  const projectFile = projectConfigFile(cwd);
  const user = readConfigFile(userFile);
  const project = readConfigFile(projectFile);
  const trust = trustState(cwd, home, flags.trustWorkspace === true);
  const inputs: ConfigInputs = { flags, env, home, cwd, user: user ? { file: userFile, data: user } : undefined };
  // A project's key counts only when it applies (a trusted workspace); the user's always does.
  const warnings = [user && keyFileWarning(userFile, user), project && trust.trusted && keyFileWarning(projectFile, project)].filter((w): w is string => !!w);
  let projectKeys: ProjectKeyDecision[] | undefined;
  if (project) {
    // What the user's own layers give: the values an untrusted project config may only lower.
    const without = trust.trusted ? undefined : resolveConfig(inputs).config;
    const narrowed = narrowProjectConfig(project, trust.trusted, without, trustHint(trust));
    projectKeys = narrowed.decisions;
    // Its MCP servers stay listed (as untrusted: the MCP manager never starts them without trust).
    const listed = !trust.trusted && project.mcpServers !== undefined ? { mcpServers: project.mcpServers } : {};
    inputs.project = { file: projectFile, data: { ...narrowed.kept, ...listed } };
    const ignored = ignoredKeys(narrowed.decisions);
    if (ignored.length > 0) warnings.push(untrustedWarning(projectFile, cwd, trust, ignored));
  }
  const resolved = resolveConfig(inputs);
  return { ...resolved, trust, ...(projectKeys ? { projectKeys } : {}), ...(warnings.length > 0 ? { warnings } : {}) };
}

/** Like ssh with a private key: a config file that holds an API key must not be readable by others. */
function keyFileWarning(file: string, data: ConfigFile): string | undefined {
  if (data.apiKey === undefined || data.apiKey === '') return undefined;
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return undefined;
  }
  if (!othersHaveAccess(stat)) return undefined;
  return `${file} holds an API key and other users can read it (permissions ${modeString(stat)} are too open); fix with: chmod 600 ${file}`;
}
