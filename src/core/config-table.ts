// The configuration, declared once: every key a config file may hold, with its TypeBox schema, its
// default, the flag and the environment variable that set it, what it does, and what a project's
// own config may do with it before the workspace is trusted (narrowing or widening). Everything
// else follows from this table: the type `ConfigFile` (Static of the schemas), the config file's
// check (app/config-check.ts), the defaults (the resolution's lowest layer, app/config.ts, and the
// fallbacks of the blocks below the app layer), the untrusted-project rules
// (app/project-config.ts), the --help lines, parse specs and reads of the flags that set a key
// (app/config-flags-help.generated.ts), the rows of --show-config (app/config-show.ts, in the
// table's order) and the README's two configuration tables (app/config-docs.ts renders them and
// the flags' module; test/config-table.test.ts holds them equal).
// It is in core so the agent, the tools and the extensions can take their defaults from it.
import { Unsafe, type Static, type TSchema, type TUnsafe } from 'typebox';
import { Type } from './type-builders.js';
import { CACHE_RETENTIONS, SANDBOX_MODES, THINKING_LEVELS } from './config-choices.js';
import { isPlainObject } from './types.js';

/**
 * What a workspace's own config may do with a key before the workspace is trusted:
 * - narrowing: applies (deny and ask rules, display, compaction, a model id);
 * - lower: a limit, applied only when it lowers the value the user's own settings give;
 * - subset: the tool list, applied only for tools that are on without it;
 * - stricter: a choice between levels, applied only when it is at least as strict as the user's;
 * - widening: needs trust (allow rules, folders, secrets, code, where requests go).
 */
export type KeyEffect = 'narrowing' | 'lower' | 'subset' | 'stricter' | 'widening';

export interface ProjectRule {
  effect: KeyEffect;
  /** Why, in a few words (shown by --show-config and in the README). */
  why: string;
  /** For `stricter`: the values from the least strict to the strictest. */
  order?: readonly unknown[];
  /** For `stricter`: the README's words for "at least as strict as your value". */
  stricterText?: string;
  /** The rule is the whole group's (`compaction`): a project config's group is decided as one key. */
  group?: boolean;
}

export interface ConfigKey<S extends TSchema = TSchema, D = unknown> {
  schema: S;
  /** The value when no layer sets it (absent: none, or `defaultText` says how it is worked out). */
  default?: D;
  /** The default in words, when it is not one value. */
  defaultText?: string;
  /** The flag that sets it, with its argument (`--max-turns N`). */
  flag?: string;
  /** The flag's --help text: `{default}` is the default, `{choices}` the values with the default marked; a new line continues it. */
  flagHelp?: string;
  /**
   * How app/flags.ts reads the flag where the schema does not say (the schema gives the kind: text,
   * a choice, a whole number and its least value, an amount, a list; a boolean's flag is `--no-X`
   * and sets false): the agent option it sets (default: the key), a list's form (`repeat`: the flag
   * repeats; `comma`: one comma-separated value), what an empty value lacks, the unit a number's error names.
   */
  flagReads?: { option?: string; list?: 'repeat' | 'comma'; needs?: string; unit?: string };
  /** The environment variable that sets it. */
  env?: string;
  /** Where the environment sets it, in words, when that depends on the provider. */
  envText?: string;
  /** What it does, in one line (the README's table). */
  help: string;
  project: ProjectRule;
  /** --show-config shows its row right after this key's (default: in the table's order). */
  shownAfter?: string;
}

/** A row; its default is typed by its schema (and stays its own type, so `CONFIG_TABLE.maxTurns.default` is a number). */
function key<S extends TSchema, D extends Static<S> | undefined = undefined>(row: ConfigKey<S, D>): ConfigKey<S, D> & { default: D } {
  return row as ConfigKey<S, D> & { default: D };
}

const narrowing = (why: string): ProjectRule => ({ effect: 'narrowing', why });
const widening = (why: string): ProjectRule => ({ effect: 'widening', why });
const LIMIT: ProjectRule = { effect: 'lower', why: 'a limit' };
const stricter = (why: string, order: readonly unknown[], stricterText?: string): ProjectRule => ({ effect: 'stricter', why, order, ...(stricterText ? { stricterText } : {}) });

const Str = Type.String();
/** A whole number > 0. */
const Positive = Type.Integer({ exclusiveMinimum: 0 });
const WholeAtLeast = (minimum: number) => Type.Integer({ minimum });
const Bool = Type.Boolean();
/** A list of non-empty strings (at least one character that is not white space). */
const Names = Type.Array(Type.String({ pattern: '\\S' }));
/** One of a list of strings; the message names them in this order. */
const OneOf = <L extends readonly string[]>(values: L): TUnsafe<L[number]> => Unsafe<L[number]>({ type: 'string', enum: [...values] });
/** An object of any keys, each value of `schema`; `description` says what the keys and values are. */
const RecordOf = <S extends TSchema>(schema: S, description: string): TUnsafe<Record<string, Static<S>>> => Unsafe<Record<string, Static<S>>>({ type: 'object', description, patternProperties: { '^.*$': schema } });
const Price = Type.Number({ minimum: 0, description: 'US$ per million tokens' });

/** A model's settings over the model table's (`models.<id>`). */
export const ModelOverrideSchema = Type.Object(
  {
    contextWindow: Type.Optional(Positive),
    maxOutputTokens: Type.Optional(Positive),
    /** `title` names what an unknown key is not (the check's message). */
    pricing: Type.Optional(Type.Object({ input: Type.Optional(Price), output: Type.Optional(Price), cacheRead: Type.Optional(Price), cacheWrite: Type.Optional(Price) }, { title: 'price', additionalProperties: false })),
    /** The model takes images (the table's word, or false for a model it does not know). */
    images: Type.Optional(Bool),
  },
  { additionalProperties: false },
);
export type ModelOverride = Static<typeof ModelOverrideSchema>;

const COMPACTION: ProjectRule = { ...narrowing('when and how much to compact'), group: true };

/** Every key of a config file, dotted (two levels at most), in the order the check names them. */
export const CONFIG_TABLE = {
  provider: key({
    schema: Str,
    default: 'openai',
    flag: '--provider NAME',
    flagHelp: 'openai | anthropic | deepseek | openrouter | ollama | openai-compatible',
    env: 'MINI_AGENT_PROVIDER',
    help: 'the provider preset: its API, base URL, key variable and default model',
    project: widening('decides where requests go and which API key they carry'),
  }),
  model: key({
    schema: Str,
    defaultText: "the provider's preset",
    flag: '--model ID',
    flagHelp: 'the model id (default: {default})',
    env: 'MINI_AGENT_MODEL',
    help: 'the model id',
    project: narrowing('a model id, for the provider the user chose'),
  }),
  baseUrl: key({
    schema: Str,
    defaultText: "the provider's preset",
    flag: '--base-url URL',
    flagHelp: 'the API base URL, as the SDK takes it (OpenAI-style URLs end in /v1)',
    envText: 'OPENAI_BASE_URL or ANTHROPIC_BASE_URL, by provider',
    help: 'the API base URL',
    project: widening('decides where requests (and the API key) go'),
  }),
  apiKey: key({
    schema: Str,
    defaultText: "the provider's env var",
    flag: '--api-key KEY',
    flagHelp: 'the API key (default: {default}, e.g. OPENAI_API_KEY)',
    envText: "the provider's: OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, OPENROUTER_API_KEY",
    help: 'the API key (keep the file private: chmod 600)',
    project: widening('a credential'),
  }),
  maxTurns: key({ schema: Positive, default: 50, flag: '--max-turns N', flagHelp: 'stop after N model turns (default {default})', help: 'model turns per run before it stops (exit 3)', project: LIMIT }),
  timeoutMs: key({ schema: Positive, default: 600_000, help: "the timeout of one model request, in ms (the SDK's; the retry layer decides what follows)", project: LIMIT }),
  idleTimeoutMs: key({ schema: Positive, default: 300_000, help: 'how long a model stream may send nothing before it is dropped (and retried), in ms', project: LIMIT }),
  'retry.maxRetries': key({ schema: WholeAtLeast(0), default: 4, help: 'retries of a failed model request', project: LIMIT }),
  'retry.baseDelayMs': key({ schema: WholeAtLeast(0), default: 1000, help: 'the first backoff ceiling, in ms (doubled each retry; the wait is random below it)', project: narrowing('retry pacing') }),
  'retry.maxDelayMs': key({ schema: WholeAtLeast(0), default: 60_000, help: 'the longest wait between retries, in ms', project: narrowing('retry pacing') }),
  models: key({
    schema: RecordOf(ModelOverrideSchema, 'model id → settings'),
    defaultText: 'the model table',
    help: 'per model id: `contextWindow`, `maxOutputTokens`, `pricing` (`input`, `output`, `cacheRead`, `cacheWrite`, US$ per million tokens), `images`',
    project: narrowing("a model's window, output cap, prices and whether it takes images"),
  }),
  'compaction.enabled': key({
    schema: Bool,
    default: true,
    flag: '--no-compact',
    flagHelp: 'never compact automatically (not even when the context overflows)',
    flagReads: { option: 'compact' },
    help: 'automatic compaction (every path, overflow included)',
    project: COMPACTION,
  }),
  'compaction.reserveTokens': key({ schema: WholeAtLeast(1), defaultText: '25% of the window, at most 16,384', help: 'tokens kept free for the answer: compaction starts when fewer are left', project: COMPACTION }),
  'compaction.keepRecentTokens': key({ schema: WholeAtLeast(1), defaultText: '40% of the window, at most 20,000', help: 'tokens of recent conversation kept as they are', project: COMPACTION }),
  'bash.timeoutSeconds': key({
    schema: WholeAtLeast(1),
    default: 120,
    flag: '--bash-timeout S',
    flagHelp: "bash's default timeout in seconds (default {default})",
    flagReads: { option: 'bashTimeout', unit: 'seconds' },
    help: "a command's timeout when the call gives none",
    project: LIMIT,
  }),
  'bash.maxTimeoutSeconds': key({ schema: WholeAtLeast(1), default: 600, help: 'the longest timeout a call may ask for', project: LIMIT }),
  'bash.envAllowlist': key({ schema: Names, defaultText: 'none', help: 'variables that reach commands although their names look secret (adds up across config files)', project: widening('lets secret variables reach commands') }),
  'bash.parallel': key({ schema: Bool, default: false, help: 'bash calls may run at the same time as the other calls of a response', project: narrowing('scheduling only') }),
  'bash.sandbox': key({
    schema: OneOf(SANDBOX_MODES),
    default: 'auto',
    help: '`auto`: sandbox where bubblewrap works; `required`: refuse without one; `off`: never',
    project: stricter('"off" turns the sandbox off; "required" refuses to run without one', ['off', 'auto', 'required']),
  }),
  'bash.network': key({ schema: Bool, default: false, help: 'sandboxed commands reach the network', project: stricter('true lets sandboxed commands reach the network', [true, false]) }),
  'permissions.allow': key({ schema: Names, defaultText: 'none', help: 'rules `TOOL` or `TOOL(PATTERN)` approved without asking (adds up)', project: widening('approves calls without asking') }),
  'permissions.ask': key({ schema: Names, defaultText: 'none', help: 'rules asked about (adds up)', project: narrowing('asks before more calls') }),
  'permissions.deny': key({ schema: Names, defaultText: 'none', help: "rules refused (adds up: a project cannot drop a user's deny rule)", project: narrowing('refuses more calls') }),
  hooks: key({ schema: Names, defaultText: 'none', help: "ES modules with tool hooks (relative: to the config file's folder)", project: widening('runs code from the repository') }),
  allowPaths: key({
    schema: Names,
    defaultText: 'none',
    flag: '--allow-path DIR',
    flagHelp: 'let file tools use DIR outside the workspace too (repeatable)',
    flagReads: { list: 'repeat', needs: 'a folder' },
    help: 'folders outside the workspace the file tools may use (relative: to the workspace)',
    project: widening('lets file tools reach folders outside the workspace'),
  }),
  tools: key({
    schema: Names,
    defaultText: 'all',
    flag: '--tools LIST',
    flagHelp: 'the tools that are on, comma-separated (default: {default}: read_file, list_dir, grep, find,\nwrite_file, edit_file, write_note, bash)',
    flagReads: { option: 'enabledTools', list: 'comma', needs: 'a comma-separated list of tool names, e.g. --tools read_file,grep' },
    help: 'the tools that are on',
    project: { effect: 'subset', why: 'may turn tools off, not on' },
  }),
  'loopGuard.warnAfter': key({ schema: WholeAtLeast(2), default: 3, help: 'the same call this many times in a row: the model is warned', project: LIMIT }),
  'loopGuard.stopAfter': key({ schema: WholeAtLeast(2), default: 6, help: 'the same call this many times in a row: the run stops (exit 5)', project: LIMIT }),
  mcpServers: key({
    schema: RecordOf(Type.Unknown(), 'server name → {command, args, env} or {url, headers}'),
    defaultText: 'none',
    help: 'MCP servers: NAME → `{command, args, env}` or `{url, headers}`',
    project: widening('starts programs and connects to servers'),
  }),
  'contextFiles.enabled': key({
    schema: Bool,
    default: true,
    flag: '--no-context-files',
    flagHelp: 'leave AGENTS.md / CLAUDE.md out of the system prompt',
    flagReads: { option: 'contextFiles' },
    help: 'AGENTS.md / CLAUDE.md files in the system prompt',
    project: narrowing('context files on or off'),
  }),
  'contextFiles.maxBytes': key({ schema: WholeAtLeast(1024), default: 64 * 1024, help: 'the cap on their total size', project: LIMIT }),
  'cache.retention': key({
    schema: OneOf(CACHE_RETENTIONS),
    default: '5m',
    help: 'how long the provider keeps the cached prompt prefix',
    project: stricter('how long the provider keeps the prompt cached; "1h" doubles the price of each cache write', ['1h', '5m', 'none']),
  }),
  'budget.maxCostUsd': key({
    schema: Type.Number({ exclusiveMinimum: 0, description: 'US dollars' }),
    defaultText: 'no budget',
    flag: '--max-cost USD',
    flagHelp: 'stop before a request that could take the run past USD dollars (exit 3; needs known prices)',
    flagReads: { option: 'maxCost' },
    help: 'the most a run may spend, in US dollars (needs known prices)',
    project: LIMIT,
  }),
  'checkpoints.maxAgeDays': key({
    schema: WholeAtLeast(0),
    default: 30,
    help: "`mini-agent gc` removes the file checkpoints of a session not written for this many days (0: never by age; a deleted session's always)",
    project: widening('decides when the file checkpoints of every workspace are removed'),
  }),
  thinking: key({
    schema: OneOf(THINKING_LEVELS),
    default: 'off',
    flag: '--thinking LEVEL',
    flagHelp: 'how much the model reasons: {choices}',
    help: 'how much the model reasons',
    shownAfter: 'compaction.keepRecentTokens',
    project: stricter('more thinking costs more output tokens', ['high', 'medium', 'low', 'off'], 'thinks no more than your value'),
  }),
};

export type ConfigTable = typeof CONFIG_TABLE;
export type ConfigKeyName = keyof ConfigTable;

type Head<K> = K extends `${infer H}.${string}` ? H : K;
type ValueOf<K extends ConfigKeyName> = Static<ConfigTable[K]['schema']>;

/** The shape of config.json files (every key optional): Static of the table's schemas. */
export type ConfigFile = {
  [H in Head<ConfigKeyName>]?: H extends ConfigKeyName ? ValueOf<H> : { [K in ConfigKeyName as K extends `${H}.${infer L}` ? L : never]?: ValueOf<K> };
};

/** The table's rows, in order, each with its dotted key. */
export const CONFIG_KEYS: ReadonlyArray<ConfigKey & { key: ConfigKeyName }> = Object.entries(CONFIG_TABLE).map(([k, row]) => ({ ...(row as ConfigKey), key: k as ConfigKeyName }));

/**
 * The rows nested as a config file nests them (`retry.maxRetries` under `retry`), each leaf
 * `pick(row)` (a row it gives undefined is left out); `group` holds a group's leaves (default: the
 * group object itself).
 */
function nest(pick: (row: (typeof CONFIG_KEYS)[number]) => unknown, group: (object: Record<string, unknown>) => Record<string, unknown> = (o) => o): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const groups = new Map<string, Record<string, unknown>>();
  for (const row of CONFIG_KEYS) {
    const value = pick(row);
    if (value === undefined) continue;
    const [head, leaf] = row.key.split('.');
    if (leaf === undefined) out[head] = value;
    else {
      if (!groups.has(head)) groups.set(head, group((out[head] = {}) as Record<string, unknown>));
      groups.get(head)![leaf] = value;
    }
  }
  return out;
}

/** The defaults, nested as a config file writes them: the lowest layer of the resolution (every key with one default value). */
export function configDefaults(): Record<string, unknown> {
  return nest((row) => row.default);
}

/** How a flag names itself in a source (`flag --max-turns`). */
export function flagSource(key: ConfigKeyName): string {
  return `flag ${CONFIG_TABLE[key].flag?.split(' ')[0]}`;
}

/**
 * The JSON Schema of a whole config file: each top-level key's row, or for a group (`retry`) an
 * object of its rows; no other key. app/config-check.ts reads it to check a file.
 */
export function configFileSchema(): { type: 'object'; properties: Record<string, TSchema>; additionalProperties: false } {
  const properties = nest(
    (row) => row.schema,
    (object) => Object.assign(object, { type: 'object', properties: {}, additionalProperties: false }).properties as Record<string, unknown>,
  );
  return { type: 'object', properties: properties as Record<string, TSchema>, additionalProperties: false };
}

/** The value at a dotted key of a configuration, effective or as a file writes it (`bash.timeoutSeconds`). */
export function valueAt(config: object, key: string): unknown {
  return key.split('.').reduce<unknown>((v, k) => (isPlainObject(v) ? v[k] : undefined), config);
}
