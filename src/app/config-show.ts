// The lines of `--show-config` and `/show-config`: every effective value with its source, API
// keys redacted. Kept apart from the resolution (config.ts), which it only reads.
import { maskKey as redact } from '../core/redact.js';
import type { Resolved } from './config.js';
import { describeSandbox, sandboxStatus } from '../tools/sandbox.js';
import { valueAt, type ConfigKeyName } from '../core/config-table.js';

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

/**
 * The rows, in their order: the config table's keys (each `shown`: its effective value and source,
 * unless its row says more) among the values worked out from them (the window, prices, approvals).
 * `env`: where MINI_AGENT_BWRAP is read (the bash.sandbox row probes the sandbox, once per process).
 */
export function showConfig(resolved: Resolved, env: Readonly<Record<string, string | undefined>> = process.env): ConfigRow[] {
  const c = resolved.config;
  const s = resolved.sources;
  const shown = (key: ConfigKeyName, value: unknown = valueAt(c, key), source: string = s[key] ?? 'default'): ConfigRow => ({ key, value, source });
  const rules = (key: 'permissions.allow' | 'permissions.ask' | 'permissions.deny', list: readonly { text: string; source: string }[]) =>
    shown(key, list.map((r) => r.text).join(', ') || '(none)', [...new Set(list.map((r) => r.source))].join('; ') || 'none set');
  const rows: ConfigRow[] = [
    shown('provider'),
    shown('model'),
    shown('baseUrl'),
    shown('apiKey', redact(c.apiKey), s.apiKey ?? (c.apiKeyEnv ? `not set (env ${c.apiKeyEnv})` : 'not needed')),
    shown('maxTurns'),
    shown('timeoutMs'),
    shown('idleTimeoutMs'),
    shown('retry.maxRetries'),
    shown('retry.baseDelayMs'),
    shown('retry.maxDelayMs'),
    { key: 'contextWindow', value: c.contextWindow, source: s.contextWindow },
    shown('compaction.enabled'),
    shown('compaction.reserveTokens'),
    shown('compaction.keepRecentTokens'),
    { key: 'maxOutputTokens', value: c.maxOutputTokens, source: s.maxOutputTokens },
    shown('thinking'),
    { key: 'images', value: c.images, source: s.images ?? 'default' },
    shown('bash.timeoutSeconds'),
    shown('bash.maxTimeoutSeconds'),
    shown('bash.envAllowlist', c.bash.envAllowlist.join(', ') || '(none)', 'all config files'),
    shown('bash.parallel'),
    shown(
      'bash.sandbox',
      describeSandbox(c.bash.sandbox, () => sandboxStatus(env)),
    ),
    shown('bash.network'),
    rules('permissions.allow', c.permissions.allow),
    rules('permissions.ask', c.permissions.ask),
    rules('permissions.deny', c.permissions.deny),
    { key: 'approve', value: c.approveAll ? 'every ask (--yes)' : c.approvals.map((r) => r.text).join(', ') || '(none)', source: c.approveAll ? 'flag --yes' : c.approvals.length ? 'flag --approve' : 'none set' },
    shown('hooks', c.hooks.map((h) => h.path).join(', ') || '(none)', [...new Set(c.hooks.map((h) => h.source))].join('; ') || 'none set'),
    shown('allowPaths', c.allowPaths.join(', ') || '(none)', 'config files and --allow-path'),
    shown('tools', c.tools ? c.tools.join(', ') : '(all)', s.tools ?? (c.tools ? 'config' : 'default')),
    shown('loopGuard.warnAfter'),
    shown('loopGuard.stopAfter'),
    shown('cache.retention'),
  ];
  for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
    rows.push({ key: `pricing.${k}`, value: c.pricing?.[k] ?? 'unknown', source: s[`pricing.${k}`] });
  }
  rows.push(shown('budget.maxCostUsd', c.budget.maxCostUsd ?? '(none)'));
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
