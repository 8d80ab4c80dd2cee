// The lines of `--show-config` and `/show-config`: every effective value with its source, API
// keys redacted. Kept apart from the resolution (config.ts), which it only reads.
import { maskKey as redact } from '../core/redact.js';
import type { Resolved } from './config.js';
import { describeSandbox, sandboxStatus } from '../tools/sandbox.js';
import { CONFIG_KEYS, valueAt, type ConfigKeyName } from '../core/config-table.js';

/** `sk-proj-abc…xyz` → `sk-p…(redacted, 51 chars)` (core/redact.ts, where every secret shape lives). */
export { redact };

/** One line of `--show-config`: a setting (or a context file, skill, server), its value and where it comes from. */
export interface ConfigRow {
  key: string;
  value: unknown;
  source: string;
}

/** The keys of the config table that are not rows here: the extensions' rows show what they give (context files, MCP servers), and `models.*` is the window, output cap, images and prices below. */
export const SHOWN_ELSEWHERE: readonly ConfigKeyName[] = ['models', 'mcpServers', 'contextFiles.enabled', 'contextFiles.maxBytes'];

type Row = (typeof CONFIG_KEYS)[number];

/** What a custom row reads: the resolution, and where MINI_AGENT_BWRAP is read. */
interface RowInput {
  resolved: Resolved;
  env: Readonly<Record<string, string | undefined>>;
}

/** A row of the table's key with its effective value and source (`default` when no layer set it), or the value and source given. */
function shown({ resolved }: RowInput, key: ConfigKeyName, value: unknown = valueAt(resolved.config, key), source: string = resolved.sources[key] ?? 'default'): ConfigRow {
  return { key, value, source };
}

const rules = (i: RowInput, key: 'permissions.allow' | 'permissions.ask' | 'permissions.deny') => {
  const list = valueAt(i.resolved.config, key) as readonly { text: string; source: string }[];
  return shown(i, key, list.map((r) => r.text).join(', ') || '(none)', [...new Set(list.map((r) => r.source))].join('; ') || 'none set');
};

/** The table's keys whose row says more than the value and its source. */
const CUSTOM_ROWS: Partial<Record<ConfigKeyName, (i: RowInput) => ConfigRow>> = {
  apiKey: (i) => {
    const { config: c, sources: s } = i.resolved;
    return shown(i, 'apiKey', redact(c.apiKey), s.apiKey ?? (c.apiKeyEnv ? `not set (env ${c.apiKeyEnv})` : 'not needed'));
  },
  'bash.envAllowlist': (i) => shown(i, 'bash.envAllowlist', i.resolved.config.bash.envAllowlist.join(', ') || '(none)', 'all config files'),
  // The sandbox row probes the sandbox (once per process).
  'bash.sandbox': (i) =>
    shown(
      i,
      'bash.sandbox',
      describeSandbox(i.resolved.config.bash.sandbox, () => sandboxStatus(i.env)),
    ),
  'permissions.allow': (i) => rules(i, 'permissions.allow'),
  'permissions.ask': (i) => rules(i, 'permissions.ask'),
  'permissions.deny': (i) => rules(i, 'permissions.deny'),
  hooks: (i) => {
    const { hooks } = i.resolved.config;
    return shown(i, 'hooks', hooks.map((h) => h.path).join(', ') || '(none)', [...new Set(hooks.map((h) => h.source))].join('; ') || 'none set');
  },
  allowPaths: (i) => shown(i, 'allowPaths', i.resolved.config.allowPaths.join(', ') || '(none)', 'config files and --allow-path'),
  tools: (i) => {
    const { config: c, sources: s } = i.resolved;
    return shown(i, 'tools', c.tools ? c.tools.join(', ') : '(all)', s.tools ?? (c.tools ? 'config' : 'default'));
  },
  'budget.maxCostUsd': (i) => shown(i, 'budget.maxCostUsd', i.resolved.config.budget.maxCostUsd ?? '(none)'),
};

/** The rows worked out from the keys (the window, output cap, images, approvals, prices), each group before the table key it precedes. */
const DERIVED_BEFORE: Partial<Record<ConfigKeyName, (i: RowInput) => ConfigRow[]>> = {
  'compaction.enabled': ({ resolved: { config: c, sources: s } }) => [{ key: 'contextWindow', value: c.contextWindow, source: s.contextWindow }],
  thinking: ({ resolved: { config: c, sources: s } }) => [{ key: 'maxOutputTokens', value: c.maxOutputTokens, source: s.maxOutputTokens }],
  'bash.timeoutSeconds': ({ resolved: { config: c, sources: s } }) => [{ key: 'images', value: c.images, source: s.images ?? 'default' }],
  hooks: ({ resolved: { config: c } }) => [
    { key: 'approve', value: c.approveAll ? 'every ask (--yes)' : c.approvals.map((r) => r.text).join(', ') || '(none)', source: c.approveAll ? 'flag --yes' : c.approvals.length ? 'flag --approve' : 'none set' },
  ],
  'budget.maxCostUsd': ({ resolved: { config: c, sources: s } }) => (['input', 'output', 'cacheRead', 'cacheWrite'] as const).map((k) => ({ key: `pricing.${k}`, value: c.pricing?.[k] ?? 'unknown', source: s[`pricing.${k}`] })),
};

/** The table's keys in --show-config's order: the table's, a key with `shownAfter` moved after that key. */
export function shownKeys(): Row[] {
  const order = CONFIG_KEYS.filter((row) => !row.shownAfter);
  for (const row of CONFIG_KEYS.filter((r) => r.shownAfter)) order.splice(order.findIndex((r) => r.key === row.shownAfter) + 1, 0, row);
  return order.filter((row) => !SHOWN_ELSEWHERE.includes(row.key));
}

/**
 * The rows, in their order: the config table's keys (each its effective value and source, unless
 * its row says more) among the values worked out from them (the window, prices, approvals), then
 * the workspace's trust. `env`: where MINI_AGENT_BWRAP is read (the bash.sandbox row probes the
 * sandbox, once per process).
 */
export function showConfig(resolved: Resolved, env: Readonly<Record<string, string | undefined>> = process.env): ConfigRow[] {
  const input: RowInput = { resolved, env };
  const rows: ConfigRow[] = [];
  for (const { key } of shownKeys()) {
    rows.push(...(DERIVED_BEFORE[key]?.(input) ?? []));
    rows.push(CUSTOM_ROWS[key]?.(input) ?? shown(input, key));
  }
  rows.push(...trustRows(resolved));
  return rows;
}

const TRUST_WORDS = {
  trusted: ['trusted', 'mini-agent trust, for this version of .mini-agent/config.json'],
  flag: ['trusted for this run', 'flag --trust-workspace'],
  changed: ['not trusted: the project config changed', 'trusted for another version of .mini-agent/config.json; run mini-agent trust again'],
  untrusted: ['not trusted', 'its .mini-agent/config.json may only narrow your settings; mini-agent trust to trust it'],
} as const;

/** The workspace's trust, then each key of its project config: applied or ignored, and why. */
function trustRows(resolved: Resolved): ConfigRow[] {
  if (!resolved.trust) return [];
  const [value, source] = TRUST_WORDS[resolved.trust.status];
  const rows: ConfigRow[] = [{ key: 'workspace trust', value, source }];
  for (const d of resolved.projectKeys ?? []) rows.push({ key: `project ${d.key}`, value: d.applied ? 'applied' : 'ignored', source: `${d.effect}: ${d.why}` });
  return rows;
}
