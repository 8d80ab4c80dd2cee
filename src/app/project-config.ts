// What a workspace's own `.mini-agent/config.json` may change. It came with the repository (or
// the model wrote it), so until the user trusts the workspace it may only narrow what the user
// allowed. Each key's rule is the config table's `project` column (core/config-table.ts, where the
// effects are explained): narrowing keys apply, limits apply when they lower the user's value, the
// tool list when it is a subset, choices between levels when they are at least as strict, and
// widening keys need trust. Pure: the caller gives the config data and the values the user's own
// layers resolve to.
import { CONFIG_KEYS, valueAt, type KeyEffect, type ProjectRule } from '../core/config-table.js';
import { isPlainObject } from '../core/types.js';
import type { TrustState } from '../extensions/trust.js';
import type { ConfigFile, EffectiveConfig } from './config.js';

export type { KeyEffect };
export type ProjectKeyRule = ProjectRule;

/** Every key a project config may hold (dotted; a key covers the keys under it): the table's rules, a group's once. */
export const PROJECT_KEYS: Readonly<Record<string, ProjectKeyRule>> = Object.fromEntries(CONFIG_KEYS.map((row) => [row.project.group ? row.key.split('.')[0] : row.key, row.project] as const));

/** For `lower`: the user's limit (none: no limit); for `stricter`: how strict a value is (higher is stricter). */
function limitOf(c: EffectiveConfig, key: string): number {
  return (valueAt(c, key) as number | undefined) ?? Infinity;
}
function levelOf(rule: ProjectKeyRule, value: unknown): number {
  return (rule.order ?? []).indexOf(value);
}

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
      decide(true, effect === 'narrowing' ? (found?.rule.why ?? 'narrowing') : 'the workspace is trusted');
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
        const current = limitOf(without!, found!.key);
        if (typeof value === 'number' && value <= current) decide(true, `lowers the limit (${Number.isFinite(current) ? current : 'none'} without it)`);
        else decide(false, `would raise the limit above ${current}; ${trustHint}`);
        break;
      }
      case 'stricter': {
        const current = levelOf(found!.rule, valueAt(without!, found!.key));
        if (levelOf(found!.rule, value) >= current) decide(true, 'as strict as your setting, or stricter');
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
