// What a workspace's own `.mini-agent/config.json` may change. It came with the repository (or
// the model wrote it), so until the user trusts the workspace it may only narrow what the user
// allowed. Every key is in PROJECT_KEYS, once:
// - narrowing: applies without trust (deny and ask rules, display, compaction, a model id for
//   the provider the user chose);
// - lower: a limit, applied without trust only when it lowers the value the user's own settings give;
// - subset: the tool list, applied without trust only for tools that are on without it;
// - stricter: a choice between levels (bash.sandbox, bash.network), applied without trust only
//   when it is at least as strict as the user's own;
// - widening: needs trust (allow rules, allowPaths, bash.envAllowlist, hooks, MCP servers, and
//   everything that decides where a request goes and what credentials it carries).
// Pure: the caller gives the config data and the values the user's own layers resolve to.
import { isPlainObject } from '../core/types.js';
import type { TrustState } from '../extensions/trust.js';
import type { ConfigFile, EffectiveConfig } from './config.js';

export type KeyEffect = 'narrowing' | 'lower' | 'subset' | 'stricter' | 'widening';

export interface ProjectKeyRule {
  effect: KeyEffect;
  /** Why, in a few words (shown by --show-config and in the README). */
  why: string;
  /** For `lower`: the value without the project config; for `stricter`: its level. */
  current?: (c: EffectiveConfig) => number;
  /** For `stricter`: how strict a value is (higher is stricter). */
  level?: (value: unknown) => number;
}

const SANDBOX_LEVEL = (v: unknown) => ['off', 'auto', 'required'].indexOf(String(v));
const NETWORK_LEVEL = (v: unknown) => (v === true ? 0 : 1);
/** The shorter the provider keeps the prompt (and the cheaper a cache write), the stricter. */
const RETENTION_LEVEL = (v: unknown) => ['1h', '5m', 'none'].indexOf(String(v));
// Less thinking is stricter: it costs less (an unknown value ranks as the least strict).
const THINKING_LEVEL = (v: unknown) => ['high', 'medium', 'low', 'off'].indexOf(String(v));

/** Every key a project config may hold (dotted; a key covers the keys under it). */
export const PROJECT_KEYS: Readonly<Record<string, ProjectKeyRule>> = {
  provider: { effect: 'widening', why: 'decides where requests go and which API key they carry' },
  baseUrl: { effect: 'widening', why: 'decides where requests (and the API key) go' },
  apiKey: { effect: 'widening', why: 'a credential' },
  model: { effect: 'narrowing', why: 'a model id, for the provider the user chose' },
  maxTurns: { effect: 'lower', why: 'a limit', current: (c) => c.maxTurns },
  timeoutMs: { effect: 'lower', why: 'a limit', current: (c) => c.timeoutMs },
  idleTimeoutMs: { effect: 'lower', why: 'a limit', current: (c) => c.idleTimeoutMs },
  'retry.maxRetries': { effect: 'lower', why: 'a limit', current: (c) => c.retry.maxRetries },
  'retry.baseDelayMs': { effect: 'narrowing', why: 'retry pacing' },
  'retry.maxDelayMs': { effect: 'narrowing', why: 'retry pacing' },
  models: { effect: 'narrowing', why: "a model's window, output cap, prices and whether it takes images" },
  compaction: { effect: 'narrowing', why: 'when and how much to compact' },
  'bash.timeoutSeconds': { effect: 'lower', why: 'a limit', current: (c) => c.bash.timeoutSeconds },
  'bash.maxTimeoutSeconds': { effect: 'lower', why: 'a limit', current: (c) => c.bash.maxTimeoutSeconds },
  'bash.envAllowlist': { effect: 'widening', why: 'lets secret variables reach commands' },
  'bash.parallel': { effect: 'narrowing', why: 'scheduling only' },
  'bash.sandbox': { effect: 'stricter', why: '"off" turns the sandbox off; "required" refuses to run without one', current: (c) => SANDBOX_LEVEL(c.bash.sandbox), level: SANDBOX_LEVEL },
  'bash.network': { effect: 'stricter', why: 'true lets sandboxed commands reach the network', current: (c) => NETWORK_LEVEL(c.bash.network), level: NETWORK_LEVEL },
  'permissions.allow': { effect: 'widening', why: 'approves calls without asking' },
  'permissions.ask': { effect: 'narrowing', why: 'asks before more calls' },
  'permissions.deny': { effect: 'narrowing', why: 'refuses more calls' },
  hooks: { effect: 'widening', why: 'runs code from the repository' },
  allowPaths: { effect: 'widening', why: 'lets file tools reach folders outside the workspace' },
  tools: { effect: 'subset', why: 'may turn tools off, not on' },
  'loopGuard.warnAfter': { effect: 'lower', why: 'a limit', current: (c) => c.loopGuard.warnAfter },
  'loopGuard.stopAfter': { effect: 'lower', why: 'a limit', current: (c) => c.loopGuard.stopAfter },
  mcpServers: { effect: 'widening', why: 'starts programs and connects to servers' },
  'contextFiles.enabled': { effect: 'narrowing', why: 'context files on or off' },
  'contextFiles.maxBytes': { effect: 'lower', why: 'a limit', current: (c) => c.contextFiles.maxBytes },
  'cache.retention': {
    effect: 'stricter',
    why: 'how long the provider keeps the prompt cached; "1h" doubles the price of each cache write',
    current: (c) => RETENTION_LEVEL(c.cache.retention),
    level: RETENTION_LEVEL,
  },
  'budget.maxCostUsd': { effect: 'lower', why: 'a limit', current: (c) => c.budget.maxCostUsd ?? Infinity },
  thinking: { effect: 'stricter', why: 'more thinking costs more output tokens', current: (c) => THINKING_LEVEL(c.thinking), level: THINKING_LEVEL },
};

/** One key of the project config and what became of it. */
export interface ProjectKeyDecision {
  key: string;
  effect: KeyEffect;
  applied: boolean;
  /** Applied in part: some of its values were dropped (a tool list cut to the tools that are on). */
  cut?: boolean;
  /** Why it applied or was ignored. */
  why: string;
}

/** The rule for a dotted key: its own, or the nearest enclosing key's. */
export function ruleFor(key: string): { key: string; rule: ProjectKeyRule } | undefined {
  for (let k = key; ; ) {
    const rule = PROJECT_KEYS[k];
    if (rule) return { key: k, rule };
    const dot = k.lastIndexOf('.');
    if (dot < 0) return undefined;
    k = k.slice(0, dot);
  }
}

/** The keys of `data` that the table names, as [dotted key, value] (objects are walked until a key has a rule). */
function leaves(data: Record<string, unknown>, prefix = ''): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined) continue;
    const key = prefix ? `${prefix}.${k}` : k;
    if (PROJECT_KEYS[key] || !isPlainObject(v)) out.push([key, v]);
    else out.push(...leaves(v, key));
  }
  return out;
}

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let cur = target;
  for (const p of parts.slice(0, -1)) {
    if (!isPlainObject(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

/**
 * The project config as it applies. Trusted: all of it. Untrusted: its narrowing keys, its limits
 * where they lower the user's value, its tool list cut to the tools on without it; the rest ignored.
 * `without` is the configuration the user's own layers give (the project config left out).
 */
export function narrowProjectConfig(data: ConfigFile, trusted: boolean, without: EffectiveConfig | undefined, trustHint: string): { kept: ConfigFile; decisions: ProjectKeyDecision[] } {
  if (!trusted && !without) throw new Error('narrowProjectConfig: an untrusted project config needs the configuration without it');
  const kept: Record<string, unknown> = {};
  const decisions: ProjectKeyDecision[] = [];
  for (const [key, value] of leaves(data as Record<string, unknown>)) {
    const found = ruleFor(key);
    // The config check knows every key; one the table lacks is kept (the check has passed it).
    const effect = found?.rule.effect ?? 'narrowing';
    const decide = (applied: boolean, why: string, keptValue: unknown = value, cut = false) => {
      decisions.push({ key, effect, applied, why, ...(cut ? { cut } : {}) });
      if (applied) setPath(kept, key, keptValue);
    };
    if (trusted) {
      decide(true, effect === 'narrowing' ? found?.rule.why ?? 'narrowing' : 'the workspace is trusted');
      continue;
    }
    switch (effect) {
      case 'narrowing':
        // A model id chosen for a provider that does not apply is not one for the user's provider.
        if (key === 'model' && typeof data.provider === 'string') decide(false, `a model for the provider ${data.provider}, which is ignored; ${trustHint}`);
        else decide(true, found?.rule.why ?? 'a setting');
        break;
      case 'widening':
        decide(false, `${found?.rule.why}; ${trustHint}`);
        break;
      case 'lower': {
        const current = found!.rule.current!(without!);
        if (typeof value === 'number' && value <= current) decide(true, `lowers the limit (${Number.isFinite(current) ? current : 'none'} without it)`);
        else decide(false, `would raise the limit above ${current}; ${trustHint}`);
        break;
      }
      case 'stricter': {
        const current = found!.rule.current!(without!);
        if (found!.rule.level!(value) >= current) decide(true, 'as strict as your setting, or stricter');
        else decide(false, `would be less strict than your setting; ${trustHint}`);
        break;
      }
      case 'subset': {
        const on = without!.tools;
        const list = Array.isArray(value) ? (value as string[]) : [];
        const extra = on ? list.filter((t) => !on.includes(t)) : [];
        if (extra.length === 0) decide(true, 'a subset of the tools that are on');
        else if (extra.length === list.length) decide(false, `turns on tools the user's config turned off (${extra.join(', ')}); ${trustHint}`);
        else {
          const subset = list.filter((t) => !extra.includes(t));
          decide(true, `only ${subset.join(', ')}: the user's config turned off ${extra.join(', ')} (${trustHint})`, subset, true);
        }
        break;
      }
    }
  }
  return { kept: kept as ConfigFile, decisions };
}

/** The keys an untrusted project config could not change, for the one-line warning. */
export function ignoredKeys(decisions: readonly ProjectKeyDecision[]): string[] {
  return decisions.filter((d) => !d.applied || d.cut).map((d) => d.key);
}

/** Why a widening key was ignored: never trusted, or trusted for another version. */
export function trustHint(trust: TrustState): string {
  return trust.status === 'changed' ? 'the project config changed since the workspace was trusted; run "mini-agent trust" again to apply it' : 'the workspace is not trusted; run "mini-agent trust" to apply it';
}

/** The one line that names what an untrusted (or changed) project config could not change. */
export function untrustedWarning(file: string, cwd: string, trust: TrustState, ignored: string[]): string {
  const keys = ignored.join(', ');
  const how = `Read it, then run "mini-agent trust" in ${cwd} to apply them (or pass --trust-workspace for one run).`;
  if (trust.status === 'changed') {
    const when = trust.record?.trustedAt ? `since you trusted the workspace (${trust.record.trustedAt.slice(0, 10)})` : 'or was trusted before mini-agent recorded which version you trusted';
    return `${file} changed ${when}: its keys that widen what you allowed are ignored again (${keys}). ${how}`;
  }
  return `${file} came with a workspace you have not trusted: its keys that widen what you allowed are ignored (${keys}). ${how}`;
}
