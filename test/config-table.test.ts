// The config table (src/core/config-table.ts) is the one declaration of the configuration: the
// README's tables and the flags' --help lines, parse specs and reads are rendered from it (and
// must be current), a config file is checked by its schemas (the messages as before, and the same
// verdicts as TypeBox's own compiled check), its defaults are what --show-config reports (its keys
// in the table's order) and what the SDK's lower blocks fall back to. Regenerate the README's
// tables and the flags' module with `npm run gen:config-docs` (UPDATE_CONFIG_DOCS=1).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, flagsHelpModule, withReadmeTables } from '../src/app/config-docs.js';
import { checkConfig } from '../src/app/config-check.js';
import { resolveConfig } from '../src/app/config.js';
import { SHOWN_ELSEWHERE, showConfig, shownKeys } from '../src/app/config-show.js';
import { AGENT_FLAGS, AGENT_FLAGS_HELP, agentFlagsFrom } from '../src/app/flags.js';
import { CONFIG_KEYS, CONFIG_TABLE, configFileSchema } from '../src/core/config-table.js';
import { DEFAULT_MAX_TURNS, DEFAULT_RETRY } from '../src/index.js';
import { USAGE } from '../src/cli/args.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const FLAGS_HELP = fileURLToPath(new URL('../src/app/config-flags-help.generated.ts', import.meta.url));
const CONFIG_SCHEMA = fileURLToPath(new URL('../docs/config.schema.json', import.meta.url));

describe('generated from the config table', () => {
  it("docs/config.schema.json is the check's schema with each key's help and default (regenerate: npm run docs:schema)", () => {
    const expected = configJsonSchema();
    if (process.env.UPDATE_SCHEMA) writeFileSync(CONFIG_SCHEMA, JSON.stringify(expected, null, 2) + '\n');
    expect(JSON.parse(readFileSync(CONFIG_SCHEMA, 'utf8')), 'docs/config.schema.json is out of date: run `npm run docs:schema`').toEqual(expected);
    const doc = expected as { properties: Record<string, { description?: string; default?: unknown; properties?: Record<string, { default?: unknown }> }> };
    expect(doc.properties.maxTurns.default).toBe(CONFIG_TABLE.maxTurns.default);
    expect(doc.properties.maxTurns.description).toBe(CONFIG_TABLE.maxTurns.help);
    expect(doc.properties.bash.properties?.timeoutSeconds.default).toBe(CONFIG_TABLE['bash.timeoutSeconds'].default);
    // A file the schema's own compiled check accepts is one checkConfig accepts, and the other way.
    const check = Compile(expected as never);
    const accepted = (file: unknown) => {
      try {
        checkConfig(file, 'f');
        return true;
      } catch {
        return false;
      }
    };
    for (const file of [{ maxTurns: 3 }, { maxTurns: 'x' }, { bash: { timeoutSeconds: 5 } }, { nope: 1 }]) expect(check.Check(file), JSON.stringify(file)).toBe(accepted(file));
  });

  it("the README's configuration tables and the flags' help lines are current (regenerate: npm run gen:config-docs)", () => {
    const readme = readFileSync(README, 'utf8');
    const expected = withReadmeTables(readme);
    const help = flagsHelpModule();
    if (process.env.UPDATE_CONFIG_DOCS) {
      writeFileSync(README, expected);
      writeFileSync(FLAGS_HELP, help);
    }
    expect(readFileSync(README, 'utf8'), 'README.md is out of date: run `npm run gen:config-docs`').toBe(expected);
    expect(readFileSync(FLAGS_HELP, 'utf8'), 'src/app/config-flags-help.generated.ts is out of date: run `npm run gen:config-docs`').toBe(help);
  });

  it('the README lists every key with its default, flag and variable', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toContain('| `maxTurns` | `50` | `--max-turns N` |  | ');
    expect(readme).toContain('| `provider` | `"openai"` | `--provider NAME` | `MINI_AGENT_PROVIDER` | ');
    expect(readme).toContain('| `thinking` | narrowing when stricter: applies only if it thinks no more than your value (`high` < `medium` < `low` < `off`) | more thinking costs more output tokens |');
    for (const row of CONFIG_KEYS) expect(readme, row.key).toContain(`| \`${row.key}\` | `);
  });

  it('every flag of the table is a flag the CLI parses, and --help shows it with its default', () => {
    for (const row of CONFIG_KEYS.filter((r) => r.flag)) expect(Object.keys(AGENT_FLAGS), row.key).toContain(row.flag!.split(' ')[0].slice(2));
    expect(AGENT_FLAGS_HELP.tools).toContain(`  --max-turns N       stop after N model turns (default ${CONFIG_TABLE.maxTurns.default})`);
    expect(USAGE).toContain(`--max-turns N       stop after N model turns (default ${CONFIG_TABLE.maxTurns.default}; exit code 3)`);
    expect(AGENT_FLAGS_HELP.model).toContain('  --thinking LEVEL    how much the model reasons: off (default), low, medium, high');
    expect(AGENT_FLAGS_HELP.permissions).toContain(`  --bash-timeout S    bash's default timeout in seconds (default ${CONFIG_TABLE['bash.timeoutSeconds'].default})`);
  });

  it('every flag of the table is parsed with the kind its schema declares, into an option its key accepts', () => {
    const flags = AGENT_FLAGS as Record<string, unknown>;
    for (const row of CONFIG_KEYS.filter((r) => r.flag)) {
      const name = row.flag!.split(' ')[0].slice(2);
      const schema = row.schema as { type: string; enum?: string[]; minimum?: number; exclusiveMinimum?: number };
      const list = row.flagReads?.list;
      // A boolean key's flag turns it off; a repeated list flag is `multiple`; the rest take one string.
      const spec = schema.type === 'boolean' ? { type: 'boolean', default: false } : list === 'repeat' ? { type: 'string', multiple: true } : { type: 'string' };
      expect(flags[name], name).toEqual(spec);
      if (schema.type === 'boolean') expect(row.flag, row.key).toMatch(/^--no-/);
      if (schema.type === 'array') expect(list, row.key).toBeDefined();
      const least = schema.minimum ?? (schema.exclusiveMinimum ?? 0) + 1;
      const given = schema.type === 'boolean' ? true : list === 'repeat' ? ['a', 'b'] : list === 'comma' ? 'a, b,' : schema.enum ? schema.enum.at(-1) : schema.type === 'integer' ? String(least) : schema.type === 'number' ? '$2.5' : 'x';
      const expected = schema.type === 'boolean' ? false : list ? ['a', 'b'] : schema.enum ? schema.enum.at(-1) : schema.type === 'integer' ? least : schema.type === 'number' ? 2.5 : 'x';
      const option = (row.flagReads?.option ?? row.key) as keyof ReturnType<typeof agentFlagsFrom>;
      const read = agentFlagsFrom({ [name]: given } as never);
      expect(read[option], `${name} → ${option}`).toEqual(expected);
      expect(Compile(row.schema as never).Check(read[option]), `${name}: a value ${row.key} accepts`).toBe(true);
      // Not given: the option is left out (a --no-X flag's false default included).
      expect(agentFlagsFrom(schema.type === 'boolean' ? ({ [name]: false } as never) : {})[option], name).toBeUndefined();
    }
  });

  it("a table flag's bad value is refused with the same messages as before, the first bad flag in the table's order named", () => {
    const refusal = (values: Record<string, unknown>) => {
      try {
        agentFlagsFrom(values as never);
      } catch (err) {
        return (err as Error).message;
      }
      return 'ok';
    };
    expect(refusal({ 'max-turns': '0' })).toBe('--max-turns must be a whole number >= 1, got "0"');
    expect(refusal({ 'max-turns': '1.5' })).toBe('--max-turns must be a whole number >= 1, got "1.5"');
    expect(refusal({ 'bash-timeout': 'x' })).toBe('--bash-timeout must be a whole number of seconds >= 1, got "x"');
    expect(refusal({ 'max-cost': '0' })).toBe('--max-cost must be an amount of US dollars > 0, e.g. 0.50, got "0"');
    expect(refusal({ 'max-cost': ' ' })).toBe('--max-cost must be an amount of US dollars > 0, e.g. 0.50, got " "');
    expect(refusal({ thinking: 'max' })).toBe('--thinking must be one of off, low, medium, high, got "max"');
    expect(refusal({ tools: ' , ' })).toBe('--tools needs a comma-separated list of tool names, e.g. --tools read_file,grep');
    expect(refusal({ 'allow-path': ['a', ' '] })).toBe('--allow-path needs a folder');
    expect(refusal({ provider: '', model: '', 'base-url': '', 'api-key': '' })).toBe('ok');
    expect(refusal({ thinking: 'max', 'max-cost': 'x', tools: ',', 'allow-path': [''], 'bash-timeout': '0', 'max-turns': '0' })).toMatch(/^--max-turns /);
    expect(refusal({ thinking: 'max', 'max-cost': 'x', tools: ',', 'allow-path': [''], 'bash-timeout': '0' })).toMatch(/^--bash-timeout /);
    expect(refusal({ thinking: 'max', 'max-cost': 'x', tools: ',', 'allow-path': [''] })).toMatch(/^--allow-path /);
    expect(refusal({ thinking: 'max', 'max-cost': 'x', tools: ',' })).toMatch(/^--tools /);
    expect(refusal({ thinking: 'max', 'max-cost': 'x' })).toMatch(/^--max-cost /);
  });
});

describe('a config file is checked by the schemas of the table', () => {
  const compiled = Compile(configFileSchema() as never);
  const verdict = (data: unknown): boolean => {
    try {
      checkConfig(data, 'c.json');
      return true;
    } catch {
      return false;
    }
  };
  const cases: unknown[] = [
    {},
    { provider: 'anthropic', model: 'm', maxTurns: 3, timeoutMs: 1, idleTimeoutMs: 2 },
    { maxTurns: 0 },
    { maxTurns: 1.5 },
    { maxTurns: '5' },
    { retry: { maxRetries: 0, baseDelayMs: 0 } },
    { retry: { maxRetries: -1 } },
    { retry: { tries: 1 } },
    { retry: 3 },
    { compaction: { enabled: false, reserveTokens: 1, keepRecentTokens: 2 } },
    { compaction: { reserveTokens: 0 } },
    { bash: { sandbox: 'required', network: true, envAllowlist: ['NPM_TOKEN'], parallel: true } },
    { bash: { sandbox: 'maybe' } },
    { bash: { envAllowlist: [' '] } },
    { bash: { envAllowlist: 'A' } },
    { tools: ['read_file'] },
    { tools: [] },
    { tools: [1] },
    { loopGuard: { warnAfter: 2, stopAfter: 3 } },
    { loopGuard: { warnAfter: 1 } },
    { contextFiles: { maxBytes: 1023 } },
    { contextFiles: { maxBytes: 1024, enabled: true } },
    { cache: { retention: '1h' } },
    { cache: { retention: '2h' } },
    { budget: { maxCostUsd: 0.5 } },
    { budget: { maxCostUsd: 0 } },
    { thinking: 'high' },
    { thinking: 'max' },
    { mcpServers: { a: { command: 'x' } } },
    { mcpServers: [] },
    { models: { m: { contextWindow: 1000, maxOutputTokens: 10, images: true, pricing: { input: 0, output: 1.5 } } } },
    { models: { m: { pricing: { input: -1 } } } },
    { models: { m: { pricing: { euros: 1 } } } },
    { models: { m: { window: 1 } } },
    { models: { m: 5 } },
    { models: [] },
    { nope: 1 },
    [],
    'x',
  ];

  it('agrees with TypeBox compiling the same schema, on valid and broken files', () => {
    for (const data of cases) expect(verdict(data), JSON.stringify(data)).toBe(compiled.Check(data));
  });

  it('names the key and what is wrong, as before', () => {
    const message = (data: unknown) => {
      try {
        checkConfig(data, 'c.json');
      } catch (err) {
        return (err as Error).message;
      }
      return 'ok';
    };
    expect(message({ maxTurns: 0 })).toBe('c.json: "maxTurns" must be a whole number > 0');
    expect(message({ retry: { maxRetries: -1 } })).toBe('c.json: "retry.maxRetries" must be a whole number >= 0');
    expect(message({ retry: { tries: 1 } })).toBe('c.json: "retry.tries" is not a known setting (maxRetries, baseDelayMs, maxDelayMs)');
    expect(message({ retry: 3 })).toBe('c.json: "retry" must be an object');
    expect(message({ bash: { sandbox: 'maybe' } })).toBe('c.json: "bash.sandbox" must be one of "auto", "required", "off"');
    expect(message({ bash: { envAllowlist: [' '] } })).toBe('c.json: "bash.envAllowlist" must be an array of non-empty strings');
    expect(message({ compaction: { enabled: 'yes' } })).toBe('c.json: "compaction.enabled" must be true or false');
    expect(message({ budget: { maxCostUsd: 0 } })).toBe('c.json: "budget.maxCostUsd" must be a number > 0 (US dollars)');
    expect(message({ thinking: 'max' })).toBe('c.json: "thinking" must be one of "off", "low", "medium", "high"');
    expect(message({ mcpServers: 1 })).toBe('c.json: "mcpServers" must be an object of server name → {command, args, env} or {url, headers}');
    expect(message({ models: 1 })).toBe('c.json: "models" must be an object of model id → settings');
    expect(message({ models: { m: 1 } })).toBe('c.json: "models.m" must be an object');
    expect(message({ models: { m: { window: 1 } } })).toBe('c.json: "models.m.window" is not a known setting (contextWindow, maxOutputTokens, pricing, images)');
    expect(message({ models: { m: { pricing: { euros: 1 } } } })).toBe('c.json: "models.m.pricing.euros" is not a known price (input, output, cacheRead, cacheWrite)');
    expect(message({ models: { m: { pricing: { input: -1 } } } })).toBe('c.json: "models.m.pricing.input" must be a number >= 0 (US$ per million tokens)');
    expect(message({ models: { m: { contextWindow: 0 } } })).toBe('c.json: "models.m.contextWindow" must be a whole number > 0');
    expect(message({ permissions: { deny: ['bash('] } })).toMatch(/^permission rule "bash\(" \(c\.json permissions\.deny/);
    expect(message({ nope: 1 })).toMatch(/^c\.json: "nope" is not a known setting \(known: provider, model, baseUrl, apiKey, maxTurns, .*, thinking\)$/);
    expect(message(5)).toBe('c.json: "(top level)" must be a JSON object');
  });
});

describe('the defaults are the table’s', () => {
  it('every key with a default resolves to it, with the source "default"', () => {
    const { config, sources } = resolveConfig({ flags: {}, env: {} });
    for (const row of CONFIG_KEYS.filter((r) => r.default !== undefined)) {
      const value = row.key.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], config);
      expect(value, row.key).toEqual(row.default);
      expect(sources[row.key], row.key).toBe('default');
    }
  });

  it("the SDK's lower blocks fall back to the same values", () => {
    expect(DEFAULT_MAX_TURNS).toBe(CONFIG_TABLE.maxTurns.default);
    expect(DEFAULT_RETRY).toEqual({ maxRetries: CONFIG_TABLE['retry.maxRetries'].default, baseDelayMs: CONFIG_TABLE['retry.baseDelayMs'].default, maxDelayMs: CONFIG_TABLE['retry.maxDelayMs'].default });
  });

  it('--show-config has a row for every key (or the rows that show what it gives), valued and sourced as resolved', () => {
    const resolved = resolveConfig({ flags: { maxTurns: 7 }, env: {}, user: { file: 'u.json', data: { bash: { timeoutSeconds: 30 }, thinking: 'low' } } });
    const rows = new Map(showConfig(resolved, {}).map((r) => [r.key, r]));
    for (const row of CONFIG_KEYS) {
      if (SHOWN_ELSEWHERE.includes(row.key)) expect(rows.has(row.key), row.key).toBe(false);
      else expect(rows.has(row.key), `${row.key} has no --show-config row`).toBe(true);
    }
    expect(rows.get('maxTurns')).toEqual({ key: 'maxTurns', value: 7, source: 'flag --max-turns' });
    expect(rows.get('bash.timeoutSeconds')).toEqual({ key: 'bash.timeoutSeconds', value: 30, source: 'user config u.json' });
    expect(rows.get('thinking')).toEqual({ key: 'thinking', value: 'low', source: 'user config u.json' });
    expect(rows.get('idleTimeoutMs')).toEqual({ key: 'idleTimeoutMs', value: CONFIG_TABLE.idleTimeoutMs.default, source: 'default' });
  });

  it("--show-config lists the table's keys in the table's order, a key with shownAfter right after the key it names", () => {
    const keys = Object.keys(CONFIG_TABLE);
    for (const row of CONFIG_KEYS.filter((r) => r.shownAfter)) expect(keys, `${row.key}'s shownAfter`).toContain(row.shownAfter);
    const tableKeys = new Set<string>(keys);
    const shownOrder = showConfig(resolveConfig({ flags: {}, env: {} }), {})
      .map((r) => r.key)
      .filter((k) => tableKeys.has(k));
    expect(shownOrder).toEqual(shownKeys().map((r) => r.key));
    expect(shownOrder.indexOf('thinking')).toBe(shownOrder.indexOf('compaction.keepRecentTokens') + 1);
    const unmoved = keys.filter((k) => !SHOWN_ELSEWHERE.includes(k as never) && !CONFIG_KEYS.find((r) => r.key === k)?.shownAfter);
    expect(shownOrder.filter((k) => unmoved.includes(k))).toEqual(unmoved);
  });
});
