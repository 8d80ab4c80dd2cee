// The shape check of a config.json file: every key known, every value of the right type, and an
// error that names the file, the key and what is wrong. Permission rules are parsed here too, so
// a malformed rule stops the run before anything runs.
import { isPlainObject, UsageError } from '../core/types.js';
import { parseRule } from '../tools/permissions.js';
import { CACHE_RETENTIONS } from '../model/cache.js';

export const TOP_LEVEL_KEYS: readonly string[] = [
  'provider',
  'model',
  'baseUrl',
  'apiKey',
  'maxTurns',
  'timeoutMs',
  'idleTimeoutMs',
  'retry',
  'models',
  'compaction',
  'bash',
  'permissions',
  'hooks',
  'allowPaths',
  'tools',
  'loopGuard',
  'mcpServers',
  'contextFiles',
  'cache',
  'budget',
  'thinking',
];

export function checkConfig(data: unknown, file: string): void {
  const fail = (key: string, what: string): never => {
    throw new UsageError(`${file}: "${key}" ${what}`);
  };
  if (!isPlainObject(data)) fail('(top level)', 'must be a JSON object');
  const d = data as Record<string, unknown>;
  for (const k of Object.keys(d)) if (!TOP_LEVEL_KEYS.includes(k)) fail(k, `is not a known setting (known: ${TOP_LEVEL_KEYS.join(', ')})`);
  for (const k of ['provider', 'model', 'baseUrl', 'apiKey']) if (d[k] !== undefined && typeof d[k] !== 'string') fail(k, 'must be a string');
  for (const k of ['maxTurns', 'timeoutMs', 'idleTimeoutMs']) if (d[k] !== undefined && !(Number.isInteger(d[k]) && (d[k] as number) > 0)) fail(k, 'must be a whole number > 0');
  const object = (key: string, known: Record<string, (value: unknown, key: string) => void>) => {
    const value = d[key];
    if (value === undefined) return;
    if (!isPlainObject(value)) fail(key, 'must be an object');
    for (const [k, v] of Object.entries(value as object)) {
      const check = known[k];
      if (!check) fail(`${key}.${k}`, `is not a known setting (${Object.keys(known).join(', ')})`);
      check(v, `${key}.${k}`);
    }
  };
  const wholeAtLeast = (min: number) => (v: unknown, key: string) => {
    if (!(Number.isInteger(v) && (v as number) >= min)) fail(key, `must be a whole number >= ${min}`);
  };
  const bool = (v: unknown, key: string) => {
    if (typeof v !== 'boolean') fail(key, 'must be true or false');
  };
  const strings = (v: unknown, key: string) => {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x.trim() !== '')) fail(key, 'must be an array of non-empty strings');
  };
  const rules = (v: unknown, key: string) => {
    strings(v, key);
    for (const rule of v as string[]) parseRule(rule, `${file} ${key}`);
  };
  object('retry', { maxRetries: wholeAtLeast(0), baseDelayMs: wholeAtLeast(0), maxDelayMs: wholeAtLeast(0) });
  object('compaction', { enabled: bool, reserveTokens: wholeAtLeast(1), keepRecentTokens: wholeAtLeast(1) });
  const oneOf = (values: readonly string[]) => (v: unknown, key: string) => {
    if (typeof v !== 'string' || !values.includes(v)) fail(key, `must be one of ${values.map((x) => `"${x}"`).join(', ')}`);
  };
  object('bash', { timeoutSeconds: wholeAtLeast(1), maxTimeoutSeconds: wholeAtLeast(1), envAllowlist: strings, parallel: bool, sandbox: oneOf(['auto', 'required', 'off']), network: bool });
  object('permissions', { allow: rules, ask: rules, deny: rules });
  object('loopGuard', { warnAfter: wholeAtLeast(2), stopAfter: wholeAtLeast(2) });
  object('contextFiles', { enabled: bool, maxBytes: wholeAtLeast(1024) });
  object('cache', { retention: oneOf(CACHE_RETENTIONS) });
  object('budget', { maxCostUsd: (v, key) => (typeof v === 'number' && Number.isFinite(v) && v > 0) || fail(key, 'must be a number > 0 (US dollars)') });
  if (d.thinking !== undefined) oneOf(['off', 'low', 'medium', 'high'])(d.thinking, 'thinking');
  // Each server's shape is checked where it is parsed (extensions/mcp-config.ts), with the same kind of message.
  if (d.mcpServers !== undefined && !isPlainObject(d.mcpServers)) fail('mcpServers', 'must be an object of server name → {command, args, env} or {url, headers}');
  for (const k of ['hooks', 'allowPaths', 'tools']) if (d[k] !== undefined) strings(d[k], k);
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
        } else if (k === 'images') {
          bool(val, `models.${id}.images`);
        } else fail(`models.${id}.${k}`, 'is not a known setting (contextWindow, maxOutputTokens, pricing, images)');
      }
    }
  }
}
