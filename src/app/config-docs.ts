// The config table (core/config-table.ts) as people and the flags' parser read it: the README's
// two configuration tables (every key; what a repository's own config may change), and the --help
// lines, util.parseArgs specs and reads of the flags that set a key. Pure text; `npm run
// gen:config-docs` writes them into README.md and app/config-flags-help.generated.ts (the CLI's
// start-up path does not load the table), and test/config-table.test.ts holds both equal to what
// this renders.
import { CONFIG_KEYS, configFileSchema, type ConfigKey, type ProjectRule } from '../core/config-table.js';
import type { FlagRead } from './flags.js';

type Row = (typeof CONFIG_KEYS)[number];

const code = (text: string) => `\`${text}\``;

/** The default as the README shows it: the value, or how it is worked out. */
function defaultCell(row: Row): string {
  return row.default !== undefined ? code(JSON.stringify(row.default)) : (row.defaultText ?? '');
}

/** The README's table of every key: default, flag, environment variable, what it does. */
export function keysTable(): string {
  const lines = ['| key | default | flag | environment | what it does |', '|---|---|---|---|---|'];
  for (const row of CONFIG_KEYS) {
    const env = row.env ? code(row.env) : (row.envText ?? '');
    lines.push(`| ${code(row.key)} | ${defaultCell(row)} | ${row.flag ? code(row.flag) : ''} | ${env} | ${row.help} |`);
  }
  return lines.join('\n');
}

/** What an untrusted workspace's config does with a key of this rule, in the README's words. */
function effectWords(rule: ProjectRule): string {
  switch (rule.effect) {
    case 'narrowing':
      return 'narrowing: applies';
    case 'widening':
      return 'widening: ignored until trusted';
    case 'lower':
      return 'narrowing when lower: applies only if it lowers your value';
    case 'subset':
      return 'narrowing when a subset: only the tools you left on';
    case 'stricter':
      return `narrowing when stricter: applies only if it ${rule.stricterText ?? 'is at least as strict as your value'} (${(rule.order ?? []).map((v) => code(String(v))).join(' < ')})`;
  }
}

/** The README's table of what a repository's own config may change before it is trusted (a group's rule once). */
export function projectTable(): string {
  const lines = ['| key | in an untrusted workspace | why |', '|---|---|---|'];
  const seen = new Set<string>();
  for (const row of CONFIG_KEYS) {
    const key = row.project.group ? row.key.split('.')[0] : row.key;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`| ${code(key)} | ${effectWords(row.project)} | ${row.project.why} |`);
  }
  return lines.join('\n');
}

/** The values of a choice key with its default marked: `off (default), low, medium, high`. */
function choices(row: ConfigKey): string {
  const values = (row.schema as { enum?: readonly string[] }).enum ?? [];
  return values.map((v) => (v === row.default ? `${v} (default)` : v)).join(', ');
}

/** One flag's --help line(s): the flag in a column of 20, its text after it, continued lines under the text. */
export function flagHelpLine(row: ConfigKey): string {
  const text = (row.flagHelp ?? '').replaceAll('{default}', row.default !== undefined ? String(row.default) : (row.defaultText ?? '')).replaceAll('{choices}', choices(row));
  const [first, ...more] = text.split('\n');
  return [`  ${(row.flag ?? '').padEnd(18)}  ${first}`, ...more.map((line) => `${' '.repeat(22)}${line}`)].join('\n');
}

/** The flag's name without its dashes and argument: `--max-turns N` → `max-turns`. */
const flagName = (row: Row): string => (row.flag ?? '').split(' ')[0].slice(2);

/** How the flag of a row is read: its schema gives the kind, `flagReads` the rest (a row it cannot read throws: the generation fails). */
export function flagRead(row: Row): FlagRead {
  const schema = row.schema as { type?: string; enum?: readonly string[]; minimum?: number; exclusiveMinimum?: number; description?: string };
  const reads = row.flagReads ?? {};
  const option = reads.option ?? row.key;
  const fail = (why: string) => new Error(`${row.key}: ${row.flag} ${why}`);
  if (option.includes('.')) throw fail('needs flagReads.option: the agent option it sets');
  const base = { key: row.key, option };
  if (schema.type === 'boolean') {
    if (!row.flag?.startsWith('--no-')) throw fail('is a boolean flag: only --no-X (setting false) is read');
    return { ...base, kind: 'off' };
  }
  if (schema.type === 'string') return schema.enum ? { ...base, kind: 'choice', values: schema.enum } : { ...base, kind: 'text' };
  if (schema.type === 'integer') return { ...base, kind: 'whole', min: schema.minimum ?? (schema.exclusiveMinimum ?? 0) + 1, ...(reads.unit ? { unit: reads.unit } : {}) };
  if (schema.type === 'number' && schema.exclusiveMinimum !== undefined && schema.description) return { ...base, kind: 'amount', above: schema.exclusiveMinimum, unit: schema.description };
  if (schema.type === 'array' && reads.list && reads.needs) return { ...base, kind: reads.list, needs: reads.needs };
  throw fail('has a schema the flags cannot read (a list needs flagReads.list and .needs)');
}

/** A flag's util.parseArgs spec, by how it is read. */
function parseSpec(read: FlagRead): Record<string, unknown> {
  if (read.kind === 'off') return { type: 'boolean', default: false };
  return read.kind === 'repeat' ? { type: 'string', multiple: true } : { type: 'string' };
}

/** The source of app/config-flags-help.generated.ts: the table's flags' --help lines (by key), parse specs and reads (by flag name). */
export function flagsHelpModule(): string {
  const rows = CONFIG_KEYS.filter((row) => row.flag);
  const entries = (pick: (row: Row) => [string, unknown]) => rows.map((row) => pick(row)).map(([k, value]) => `  ${JSON.stringify(k)}: ${JSON.stringify(value)},`);
  return [
    '// Generated from the config table (src/core/config-table.ts) by `npm run gen:config-docs`; do not edit.',
    '// The --help lines of the flags that set a config key, by key. test/config-table.test.ts holds it fresh.',
    'export const CONFIG_FLAG_HELP = {',
    ...entries((row) => [row.key, flagHelpLine(row)]),
    '} as const;',
    '',
    "// Those flags' util.parseArgs specs, by flag name (app/flags.ts adds the flags that set no key).",
    'export const CONFIG_FLAG_SPECS = {',
    ...entries((row) => [flagName(row), parseSpec(flagRead(row))]),
    '} as const;',
    '',
    '// How each is read into an agent option, in the order of the table (app/flags.ts agentFlagsFrom).',
    'export const CONFIG_FLAG_READS = {',
    ...entries((row) => [flagName(row), flagRead(row)]),
    '} as const;',
    '',
  ].join('\n');
}

/** Where each generated README table sits: between `<!-- config-table: NAME -->` and `<!-- /config-table: NAME -->`. */
export const README_TABLES = { keys: keysTable, project: projectTable } as const;

/** README.md with its generated tables replaced by what the table renders now. */
export function withReadmeTables(readme: string): string {
  let out = readme;
  for (const [name, render] of Object.entries(README_TABLES)) {
    const open = `<!-- config-table: ${name} -->\n`;
    const close = `\n<!-- /config-table: ${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close, start);
    if (start < 0 || end < 0) throw new Error(`README.md has no ${open.trim()} … ${close.trim()} section`);
    out = out.slice(0, start + open.length) + render() + out.slice(end);
  }
  return out;
}

/**
 * docs/config.schema.json: the JSON Schema of a config file (`~/.mini-agent/config.json`,
 * `.mini-agent/config.json`), the check's own schema with each key's help line and default.
 */
export function configJsonSchema(): Record<string, unknown> {
  // A copy by JSON, not structuredClone: rows share schema objects (`Positive`), which must come apart.
  const doc = JSON.parse(JSON.stringify(configFileSchema())) as { properties: Record<string, Record<string, unknown>> };
  for (const row of CONFIG_KEYS) {
    const path = row.key.split('.');
    let node: Record<string, unknown> | undefined = { properties: doc.properties };
    for (const part of path) node = (node?.properties as Record<string, Record<string, unknown>> | undefined)?.[part];
    if (!node) continue;
    node.description = row.default === undefined && row.defaultText ? `${row.help} (default: ${row.defaultText})` : row.help;
    if (row.default !== undefined) node.default = row.default;
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'mini-agent config file',
    description: 'The user config (~/.mini-agent/config.json) and a project config (.mini-agent/config.json); generated from src/core/config-table.ts.',
    ...doc,
  };
}
