// Configuration: precedence (flags > env > project > user > preset > defaults), deep merge,
// empty strings, --show-config with redaction, and clear usage errors.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, mergeLayers, resolveConfig, UnknownProviderError } from '../src/app/config.js';
import { redact } from '../src/app/config-show.js';
import { UsageError } from '../src/core/types.js';
import { cliInProcess } from './support/cli-in-process.js';
import { runCli, tempDir, writeScript } from './support/helpers.js';

const writeJson = (file: string, data: unknown) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(data));
};

describe('mergeLayers', () => {
  it('merges nested keys deeply and records the source of every leaf', () => {
    const { value, sources } = mergeLayers([
      { source: 'a', data: { retry: { maxRetries: 4, baseDelayMs: 1000 }, model: 'x' } },
      { source: 'b', data: { retry: { baseDelayMs: 5 } } },
      { source: 'c', data: { model: '' } },
    ]);
    expect(value).toEqual({ retry: { maxRetries: 4, baseDelayMs: 5 }, model: '' });
    expect(sources).toEqual({ 'retry.maxRetries': 'a', 'retry.baseDelayMs': 'b', model: 'c' });
  });
});

describe('resolveConfig precedence', () => {
  const project = { file: '/p/.mini-agent/config.json', data: { model: 'project-model', retry: { maxRetries: 2 } } };
  const user = { file: '/h/config.json', data: { model: 'user-model', baseUrl: 'https://user.example/v1', retry: { maxDelayMs: 5000 } } };

  it('defaults and the provider preset apply when nothing is set', () => {
    const { config, sources } = resolveConfig({ flags: {}, env: {} });
    expect(config.provider).toBe('openai');
    expect(config.baseUrl).toBe('https://api.openai.com/v1');
    expect(sources.baseUrl).toBe('preset openai');
    expect(config.retry).toEqual({ maxRetries: 4, baseDelayMs: 1000, maxDelayMs: 60_000 });
    expect(config.apiKey).toBeUndefined();
  });

  it('flags > env > project > user > preset', () => {
    const env = { MINI_AGENT_MODEL: 'env-model', OPENAI_BASE_URL: 'https://env.example/v1', OPENAI_API_KEY: 'sk-env' };
    let r = resolveConfig({ flags: {}, env: {}, user, project });
    expect(r.config.model).toBe('project-model');
    expect(r.sources.model).toBe('project config /p/.mini-agent/config.json');
    expect(r.config.baseUrl).toBe('https://user.example/v1');
    r = resolveConfig({ flags: {}, env, user, project });
    expect([r.config.model, r.config.baseUrl, r.config.apiKey]).toEqual(['env-model', 'https://env.example/v1', 'sk-env']);
    expect(r.sources.apiKey).toBe('env OPENAI_API_KEY');
    r = resolveConfig({ flags: { model: 'flag-model', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-flag' }, env, user, project });
    expect([r.config.model, r.config.baseUrl, r.config.apiKey]).toEqual(['flag-model', 'http://127.0.0.1:9/v1', 'sk-flag']);
    expect(r.sources.model).toBe('flag --model');
  });

  it('nested keys merge across layers', () => {
    const { config, sources } = resolveConfig({ flags: {}, env: {}, user, project });
    expect(config.retry).toEqual({ maxRetries: 2, baseDelayMs: 1000, maxDelayMs: 5000 });
    expect(sources['retry.maxRetries']).toMatch(/^project config/);
    expect(sources['retry.maxDelayMs']).toMatch(/^user config/);
    expect(sources['retry.baseDelayMs']).toBe('default');
  });

  it('an empty string counts as set, not as absent', () => {
    const r = resolveConfig({ flags: {}, env: { OPENAI_API_KEY: '', MINI_AGENT_MODEL: '' }, user, project });
    expect(r.config.apiKey).toBe('');
    expect(r.config.model).toBe('');
    expect(r.sources.model).toBe('env MINI_AGENT_MODEL');
  });

  it('the provider picks its own env vars and preset', () => {
    const env = { MINI_AGENT_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'ak', OPENAI_API_KEY: 'ok', OPENAI_BASE_URL: 'https://x/v1' };
    const { config, sources } = resolveConfig({ flags: {}, env });
    expect(config.provider).toBe('anthropic');
    expect(config.apiKey).toBe('ak');
    expect(config.baseUrl).toBe('https://api.anthropic.com');
    expect(sources.provider).toBe('env MINI_AGENT_PROVIDER');
    const flagWins = resolveConfig({ flags: { provider: 'ollama' }, env });
    expect(flagWins.config.baseUrl).toBe('http://localhost:11434/v1');
    expect(flagWins.config.apiKey).toBeUndefined();
  });

  it('per-model settings: known models from the table, overrides from config, defaults for unknown models', () => {
    const known = resolveConfig({ flags: { model: 'gpt-4o-mini' }, env: {} });
    expect(known.config.contextWindow).toBe(128_000);
    expect(known.config.pricing?.input).toBeGreaterThan(0);
    expect(known.sources.contextWindow).toBe('model table');
    const custom = resolveConfig({
      flags: { model: 'my-llm' },
      env: {},
      project: { file: 'p', data: { models: { 'my-llm': { contextWindow: 32_000, pricing: { input: 1 } } } } },
    });
    expect(custom.config.contextWindow).toBe(32_000);
    expect(custom.config.maxOutputTokens).toBe(8192);
    // Only an input price: the output price is unknown, so the price is (issue 23 §6: unknown is not $0).
    expect(custom.config.pricing).toBeUndefined();
    expect(custom.sources['pricing.output']).toMatch(/^unknown: my-llm is not in the model table; set models\.my-llm\.pricing\.input and \.output/);
    const priced = resolveConfig({ flags: { model: 'my-llm' }, env: {}, project: { file: 'p', data: { models: { 'my-llm': { pricing: { input: 1, output: 2 } } } } } });
    expect(priced.config.pricing).toEqual({ input: 1, output: 2, cacheRead: 1, cacheWrite: 1 });
    expect(priced.sources['pricing.cacheRead']).toBe('default (the input price)');
    expect(custom.sources.contextWindow).toBe('project config p');
    expect(custom.sources.maxOutputTokens).toBe('default (unknown model)');
  });

  it('an unknown provider is a usage error listing the known ones', () => {
    expect(() => resolveConfig({ flags: { provider: 'nope' }, env: {} })).toThrow(/unknown provider "nope" \(known: openai, anthropic/);
    // A typed error, so --script runs can tell it apart without reading its message.
    expect(() => resolveConfig({ flags: { provider: 'nope' }, env: {} })).toThrow(UnknownProviderError);
    expect(() => resolveConfig({ flags: { provider: 'nope' }, env: {} })).toThrow(UsageError);
  });
});

describe('config files', () => {
  it('are read from the workspace and MINI_AGENT_HOME; a malformed file names itself and the key', () => {
    const cwd = tempDir();
    const home = tempDir();
    writeJson(join(home, 'config.json'), { model: 'from-user' });
    writeJson(join(cwd, '.mini-agent', 'config.json'), { retry: { maxRetries: 1 } });
    const r = loadConfig(cwd, { MINI_AGENT_HOME: home }, {});
    expect(r.config.model).toBe('from-user');
    expect(r.config.retry.maxRetries).toBe(1);
    writeJson(join(cwd, '.mini-agent', 'config.json'), { retry: { maxRetries: 'many' } });
    expect(() => loadConfig(cwd, { MINI_AGENT_HOME: home }, {})).toThrow(/config\.json: "retry\.maxRetries" must be a whole number/);
    writeJson(join(cwd, '.mini-agent', 'config.json'), { modle: 'typo' });
    expect(() => loadConfig(cwd, { MINI_AGENT_HOME: home }, {})).toThrow(/"modle" is not a known setting/);
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), '{oops');
    expect(() => loadConfig(cwd, { MINI_AGENT_HOME: home }, {})).toThrow(/config\.json: not valid JSON/);
  });
});

describe('redact', () => {
  it('never shows more than a short prefix of a key', () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    expect(redact(key)).toBe(`sk-p…(redacted, ${key.length} chars)`);
    expect(redact(key)).not.toContain('abcdefgh');
    expect(redact('abc')).toBe('…(redacted, 3 chars)');
    expect(redact('')).toBe('(empty)');
    expect(redact(undefined)).toBe('(not set)');
  });
});

describe('CLI', () => {
  it('--show-config prints every value with its source and redacts keys', async () => {
    const cwd = tempDir();
    writeJson(join(cwd, '.mini-agent', 'config.json'), { model: 'gpt-4o', retry: { maxRetries: 2 } });
    const secret = 'sk-test-SECRET-0123456789abcdef';
    const r = await cliInProcess(['--show-config'], { cwd, env: { OPENAI_API_KEY: secret } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('SECRET');
    expect(r.stdout).toMatch(/^apiKey\s+sk-t…\(redacted, \d+ chars\)\s+\(env OPENAI_API_KEY\)$/m);
    expect(r.stdout).toMatch(/^model\s+gpt-4o\s+\(project config .*config\.json\)$/m);
    expect(r.stdout).toMatch(/^retry\.maxRetries\s+2\s+\(project config/m);
    expect(r.stdout).toMatch(/^baseUrl\s+https:\/\/api\.openai\.com\/v1\s+\(preset openai\)$/m);
    const j = await cliInProcess(['--show-config', '--json', '--api-key', secret, '--provider', 'anthropic'], { cwd });
    const parsed = JSON.parse(j.stdout);
    expect(parsed.provider).toEqual({ value: 'anthropic', source: 'flag --provider' });
    expect(parsed.apiKey.source).toBe('flag --api-key');
    expect(j.stdout).not.toContain('SECRET');
  });

  it('a missing API key is a usage error naming the env var, before any request', async () => {
    const cwd = tempDir();
    const r = await runCli(['hello'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/openai: no API key; set OPENAI_API_KEY/);
    const a = await cliInProcess(['--provider', 'anthropic', 'hello'], { cwd });
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/anthropic: no API key; set ANTHROPIC_API_KEY/);
    const empty = await cliInProcess(['hello'], { cwd, env: { OPENAI_API_KEY: '' } });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/the API key is empty \(set by env OPENAI_API_KEY\)/);
    const badUrl = await cliInProcess(['--base-url', 'not a url', 'hello'], { cwd, env: { OPENAI_API_KEY: 'k' } });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/base URL "not a url" \(from flag --base-url\) is not an http\(s\) URL/);
    const unknown = await cliInProcess(['--provider', 'nope', 'hello'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown provider "nope"/);
  });

  it('--script needs no provider: an unknown one is ignored, but the rest of the config applies and other config errors still stop the run', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const script = writeScript(cwd, [{ toolCalls: [{ name: 'read_file', arguments: { path: 'script.json' } }] }, { text: 'never reached' }]);
    writeFileSync(join(home, 'config.json'), JSON.stringify({ provider: 'nope', maxTurns: 1 }));
    const r = await cliInProcess(['--script', script, '--no-session', 'go'], { cwd, home });
    expect(r.code).toBe(3); // maxTurns 1 from the same config file
    expect(r.stderr).not.toMatch(/unknown provider/);
    writeFileSync(join(home, 'config.json'), JSON.stringify({ provider: 'nope', maxTurns: 'many' }));
    const bad = await cliInProcess(['--script', script, '--no-session', 'go'], { cwd, home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"maxTurns" must be a whole number/);
  });
});
