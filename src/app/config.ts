// Configuration: CLI flags > environment > project config (.mini-agent/config.json) >
// user config ($MINI_AGENT_HOME/config.json) > provider preset > defaults. Nested keys merge
// deeply; an empty string counts as set. Every effective value remembers where it came from.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RETRY, type RetryPolicy } from '../agent/retry.js';
import { isPlainObject, UsageError } from '../core/types.js';
import { DEFAULT_MODEL_INFO, modelInfo, PROVIDERS, type Pricing, type ProviderPreset } from '../model/models.js';
import { agentHome } from '../session/paths.js';
import { modeString, othersHaveAccess } from '../session/private-fs.js';

/** The configured provider is not a preset (a usage error; `--script` runs can do without one). */
export class UnknownProviderError extends UsageError {
  constructor(readonly provider: string) {
    super(`unknown provider "${provider}" (known: ${Object.keys(PROVIDERS).join(', ')})`);
  }
}

export interface ModelOverride {
  contextWindow?: number;
  maxOutputTokens?: number;
  pricing?: Partial<Pricing>;
}

/** The shape of config.json files (all optional). */
export interface ConfigFile {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  maxTurns?: number;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  models?: Record<string, ModelOverride>;
  compaction?: { enabled?: boolean; reserveTokens?: number; keepRecentTokens?: number };
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
  pricing: Pricing;
  /** Automatic compaction: on or off (every path, overflow included), and its thresholds in tokens. */
  compaction: { enabled: boolean; reserveTokens: number; keepRecentTokens: number };
}

export interface Resolved {
  config: EffectiveConfig;
  /** Dotted key → where its value came from. */
  sources: Record<string, string>;
  /** Problems worth a warning that do not stop the run (e.g. a config file with a key readable by others). */
  warnings?: string[];
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
}

export interface ConfigInputs {
  flags: ConfigFlags;
  env: NodeJS.ProcessEnv;
  project?: { file: string; data: ConfigFile };
  user?: { file: string; data: ConfigFile };
}

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

  // 1. The provider decides which presets and env vars apply.
  const base: Layer[] = [
    { source: 'default', data: { provider: 'openai', maxTurns: 50, timeoutMs: 600_000, idleTimeoutMs: 300_000, retry: { ...DEFAULT_RETRY }, compaction: { enabled: true } } },
    ...fileLayers,
    ...envLayer({ provider: env.MINI_AGENT_PROVIDER }, { provider: 'MINI_AGENT_PROVIDER' }),
    ...flagLayer({ provider: flags.provider }, { provider: '--provider' }),
  ];
  const provider = String(mergeLayers(base).value.provider);
  const preset = PROVIDERS[provider];
  if (!preset) {
    throw new UnknownProviderError(provider);
  }
  const baseUrlEnv = provider === 'anthropic' ? 'ANTHROPIC_BASE_URL' : provider === 'openai' || provider === 'openai-compatible' ? 'OPENAI_BASE_URL' : undefined;

  // 2. Everything, in precedence order.
  const layers: Layer[] = [
    base[0],
    { source: `preset ${provider}`, data: { model: preset.defaultModel, baseUrl: preset.baseUrl } },
    ...fileLayers,
    ...envLayer(
      {
        provider: env.MINI_AGENT_PROVIDER,
        model: env.MINI_AGENT_MODEL,
        baseUrl: baseUrlEnv ? env[baseUrlEnv] : undefined,
        apiKey: preset.apiKeyEnv ? env[preset.apiKeyEnv] : undefined,
      },
      { provider: 'MINI_AGENT_PROVIDER', model: 'MINI_AGENT_MODEL', baseUrl: baseUrlEnv ?? '', apiKey: preset.apiKeyEnv ?? '' },
    ),
    ...flagLayer(
      { provider: flags.provider, model: flags.model, baseUrl: flags.baseUrl, apiKey: flags.apiKey, maxTurns: flags.maxTurns },
      { provider: '--provider', model: '--model', baseUrl: '--base-url', apiKey: '--api-key', maxTurns: '--max-turns' },
    ),
    ...(flags.compact === false ? [{ source: 'flag --no-compact', data: { compaction: { enabled: false } } }] : []),
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
    retry: { ...DEFAULT_RETRY, ...(v.retry as Partial<RetryPolicy>) },
    contextWindow: flags.contextWindow ?? override.contextWindow ?? known.contextWindow,
    maxOutputTokens: override.maxOutputTokens ?? known.maxOutputTokens,
    pricing: { ...known.pricing, ...override.pricing },
    compaction: { enabled: true, reserveTokens: 0, keepRecentTokens: 0 },
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
  for (const k of ['input', 'output', 'cacheRead', 'cacheWrite']) sources[`pricing.${k}`] = modelSource(`pricing.${k}`) ?? tableSource;
  return { config: result, sources };
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

function checkConfig(data: unknown, file: string): void {
  const fail = (key: string, what: string): never => {
    throw new UsageError(`${file}: "${key}" ${what}`);
  };
  if (!isPlainObject(data)) fail('(top level)', 'must be a JSON object');
  const d = data as Record<string, unknown>;
  const known = ['provider', 'model', 'baseUrl', 'apiKey', 'maxTurns', 'timeoutMs', 'idleTimeoutMs', 'retry', 'models', 'compaction'];
  for (const k of Object.keys(d)) if (!known.includes(k)) fail(k, `is not a known setting (known: ${known.join(', ')})`);
  for (const k of ['provider', 'model', 'baseUrl', 'apiKey']) if (d[k] !== undefined && typeof d[k] !== 'string') fail(k, 'must be a string');
  for (const k of ['maxTurns', 'timeoutMs', 'idleTimeoutMs']) if (d[k] !== undefined && !(Number.isInteger(d[k]) && (d[k] as number) > 0)) fail(k, 'must be a whole number > 0');
  if (d.retry !== undefined) {
    if (!isPlainObject(d.retry)) fail('retry', 'must be an object');
    for (const [k, val] of Object.entries(d.retry as object)) {
      if (!['maxRetries', 'baseDelayMs', 'maxDelayMs'].includes(k)) fail(`retry.${k}`, 'is not a known setting (maxRetries, baseDelayMs, maxDelayMs)');
      if (!(Number.isInteger(val) && val >= 0)) fail(`retry.${k}`, 'must be a whole number >= 0');
    }
  }
  if (d.compaction !== undefined) {
    if (!isPlainObject(d.compaction)) fail('compaction', 'must be an object');
    for (const [k, val] of Object.entries(d.compaction as object)) {
      if (k === 'enabled') {
        if (typeof val !== 'boolean') fail('compaction.enabled', 'must be true or false');
      } else if (k === 'reserveTokens' || k === 'keepRecentTokens') {
        if (!(Number.isInteger(val) && val > 0)) fail(`compaction.${k}`, 'must be a whole number > 0');
      } else fail(`compaction.${k}`, 'is not a known setting (enabled, reserveTokens, keepRecentTokens)');
    }
  }
  if (d.models !== undefined) {
    if (!isPlainObject(d.models)) fail('models', 'must be an object of model id → settings');
    for (const [id, m] of Object.entries(d.models as object)) {
      if (!isPlainObject(m)) fail(`models.${id}`, 'must be an object');
      for (const [k, val] of Object.entries(m as object)) {
        if (k === 'pricing') {
          if (!isPlainObject(val)) fail(`models.${id}.pricing`, 'must be an object');
          for (const [pk, pv] of Object.entries(val as object)) {
            if (!['input', 'output', 'cacheRead', 'cacheWrite'].includes(pk)) fail(`models.${id}.pricing.${pk}`, 'is not a known price (input, output, cacheRead, cacheWrite)');
            if (typeof pv !== 'number' || pv < 0) fail(`models.${id}.pricing.${pk}`, 'must be a number >= 0 (US$ per million tokens)');
          }
        } else if (k === 'contextWindow' || k === 'maxOutputTokens') {
          if (!(Number.isInteger(val) && val > 0)) fail(`models.${id}.${k}`, 'must be a whole number > 0');
        } else fail(`models.${id}.${k}`, 'is not a known setting (contextWindow, maxOutputTokens, pricing)');
      }
    }
  }
}

/** Loads both config files and resolves everything. */
export function loadConfig(cwd: string, env: NodeJS.ProcessEnv, flags: ConfigInputs['flags']): Resolved {
  const userFile = join(agentHome(env), 'config.json');
  const projectFile = join(cwd, '.mini-agent', 'config.json');
  const user = readConfigFile(userFile);
  const project = readConfigFile(projectFile);
  const resolved = resolveConfig({
    flags,
    env,
    user: user ? { file: userFile, data: user } : undefined,
    project: project ? { file: projectFile, data: project } : undefined,
  });
  const warnings = [user && keyFileWarning(userFile, user), project && keyFileWarning(projectFile, project)].filter((w): w is string => !!w);
  return warnings.length > 0 ? { ...resolved, warnings } : resolved;
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

/** `sk-proj-abc…xyz` → `sk-p…(redacted, 51 chars)`. */
export function redact(secret: string | undefined): string {
  if (secret === undefined) return '(not set)';
  if (secret === '') return '(empty)';
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 4)))}…(redacted, ${secret.length} chars)`;
}

/** The lines of `--show-config`: every effective value with its source, keys redacted. */
export function showConfig(resolved: Resolved): Array<{ key: string; value: unknown; source: string }> {
  const c = resolved.config;
  const s = resolved.sources;
  const rows: Array<{ key: string; value: unknown; source: string }> = [
    { key: 'provider', value: c.provider, source: s.provider },
    { key: 'model', value: c.model, source: s.model },
    { key: 'baseUrl', value: c.baseUrl, source: s.baseUrl },
    { key: 'apiKey', value: redact(c.apiKey), source: s.apiKey ?? (c.apiKeyEnv ? `not set (env ${c.apiKeyEnv})` : 'not needed') },
    { key: 'maxTurns', value: c.maxTurns, source: s.maxTurns },
    { key: 'timeoutMs', value: c.timeoutMs, source: s.timeoutMs },
    { key: 'idleTimeoutMs', value: c.idleTimeoutMs, source: s.idleTimeoutMs },
    { key: 'retry.maxRetries', value: c.retry.maxRetries, source: s['retry.maxRetries'] },
    { key: 'retry.baseDelayMs', value: c.retry.baseDelayMs, source: s['retry.baseDelayMs'] },
    { key: 'retry.maxDelayMs', value: c.retry.maxDelayMs, source: s['retry.maxDelayMs'] },
    { key: 'contextWindow', value: c.contextWindow, source: s.contextWindow },
    { key: 'compaction.enabled', value: c.compaction.enabled, source: s['compaction.enabled'] },
    { key: 'compaction.reserveTokens', value: c.compaction.reserveTokens, source: s['compaction.reserveTokens'] },
    { key: 'compaction.keepRecentTokens', value: c.compaction.keepRecentTokens, source: s['compaction.keepRecentTokens'] },
    { key: 'maxOutputTokens', value: c.maxOutputTokens, source: s.maxOutputTokens },
  ];
  for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
    rows.push({ key: `pricing.${k}`, value: c.pricing[k], source: s[`pricing.${k}`] });
  }
  return rows;
}
