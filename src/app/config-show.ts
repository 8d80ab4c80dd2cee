// The lines of `--show-config` and `/show-config`: every effective value with its source, API
// keys redacted. Kept apart from the resolution (config.ts), which it only reads.
import { maskKey as redact } from '../core/redact.js';
import type { Resolved } from './config.js';
import { describeSandbox, sandboxStatus } from '../tools/sandbox.js';

/** `sk-proj-abc…xyz` → `sk-p…(redacted, 51 chars)` (core/redact.ts, where every secret shape lives). */
export { redact };

/** The lines of `--show-config`: every effective value with its source, keys redacted. */
/** One line of `--show-config`: a setting (or a context file, skill, server), its value and where it comes from. */
export interface ConfigRow {
  key: string;
  value: unknown;
  source: string;
}

/** `env`: where MINI_AGENT_BWRAP is read (the bash.sandbox row probes the sandbox, once per process). */
export function showConfig(resolved: Resolved, env: Readonly<Record<string, string | undefined>> = process.env): ConfigRow[] {
  const c = resolved.config;
  const s = resolved.sources;
  const rows: ConfigRow[] = [
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
    { key: 'thinking', value: c.thinking, source: s.thinking },
    { key: 'images', value: c.images, source: s.images ?? 'default' },
    { key: 'bash.timeoutSeconds', value: c.bash.timeoutSeconds, source: s['bash.timeoutSeconds'] },
    { key: 'bash.maxTimeoutSeconds', value: c.bash.maxTimeoutSeconds, source: s['bash.maxTimeoutSeconds'] },
    { key: 'bash.envAllowlist', value: c.bash.envAllowlist.join(', ') || '(none)', source: 'all config files' },
    { key: 'bash.parallel', value: c.bash.parallel, source: s['bash.parallel'] },
    { key: 'bash.sandbox', value: describeSandbox(c.bash.sandbox, () => sandboxStatus(env)), source: s['bash.sandbox'] },
    { key: 'bash.network', value: c.bash.network, source: s['bash.network'] },
    ...(['allow', 'ask', 'deny'] as const).map((level) => ({
      key: `permissions.${level}`,
      value: c.permissions[level].map((r) => r.text).join(', ') || '(none)',
      source: [...new Set(c.permissions[level].map((r) => r.source))].join('; ') || 'none set',
    })),
    { key: 'approve', value: c.approveAll ? 'every ask (--yes)' : c.approvals.map((r) => r.text).join(', ') || '(none)', source: c.approveAll ? 'flag --yes' : c.approvals.length ? 'flag --approve' : 'none set' },
    { key: 'hooks', value: c.hooks.map((h) => h.path).join(', ') || '(none)', source: [...new Set(c.hooks.map((h) => h.source))].join('; ') || 'none set' },
    { key: 'allowPaths', value: c.allowPaths.join(', ') || '(none)', source: 'config files and --allow-path' },
    { key: 'tools', value: c.tools ? c.tools.join(', ') : '(all)', source: s.tools ?? (c.tools ? 'config' : 'default') },
    { key: 'loopGuard.warnAfter', value: c.loopGuard.warnAfter, source: s['loopGuard.warnAfter'] ?? 'default' },
    { key: 'loopGuard.stopAfter', value: c.loopGuard.stopAfter, source: s['loopGuard.stopAfter'] ?? 'default' },
    { key: 'cache.retention', value: c.cache.retention, source: s['cache.retention'] ?? 'default' },
  ];
  for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
    rows.push({ key: `pricing.${k}`, value: c.pricing?.[k] ?? 'unknown', source: s[`pricing.${k}`] });
  }
  rows.push({ key: 'budget.maxCostUsd', value: c.budget.maxCostUsd ?? '(none)', source: s['budget.maxCostUsd'] });
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
