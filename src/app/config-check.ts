// The shape check of a config.json file, read off the config table's schemas (core/config-table.ts):
// every key known, every value of the right type, and an error that names the file, the key and
// what is wrong. The schemas are small JSON Schema objects, walked here (no schema compiler is
// loaded). Permission rules are parsed here too, so a malformed rule stops the run before anything runs.
import { configFileSchema } from '../core/config-table.js';
import { isPlainObject, UsageError } from '../core/types.js';
import { parseRule } from '../tools/permissions.js';

/** The JSON Schema words the table's schemas use. */
interface Schema {
  type?: string;
  enum?: readonly string[];
  minimum?: number;
  exclusiveMinimum?: number;
  /** A number's unit; a record's keys and values (for the messages). */
  description?: string;
  /** What an unknown key of an object is not (default: a setting). */
  title?: string;
  pattern?: string;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  items?: Schema;
}

/** Each top-level key: its row's schema, or, for a group (`retry`), an object of its rows. */
const TOP_LEVEL: ReadonlyMap<string, Schema> = new Map(Object.entries(configFileSchema().properties as Record<string, Schema>));

export const TOP_LEVEL_KEYS: readonly string[] = [...TOP_LEVEL.keys()];

/** `> 0` or `>= 2`. */
function bound(s: Schema): string {
  return s.exclusiveMinimum !== undefined ? `> ${s.exclusiveMinimum}` : `>= ${s.minimum}`;
}

function inBounds(s: Schema, v: number): boolean {
  return (s.exclusiveMinimum === undefined || v > s.exclusiveMinimum) && (s.minimum === undefined || v >= s.minimum);
}

/** What is wrong with `value` against `schema`, at `key`: [key, what] of the first problem, or undefined. */
function problem(value: unknown, s: Schema, key: string): [string, string] | undefined {
  if (s.patternProperties) {
    if (!isPlainObject(value)) return [key, `must be an object of ${s.description}`];
    const each = Object.values(s.patternProperties)[0];
    for (const [k, v] of Object.entries(value)) {
      const p = problem(v, each, `${key}.${k}`);
      if (p) return p;
    }
    return undefined;
  }
  if (s.properties) {
    if (!isPlainObject(value)) return [key, 'must be an object'];
    for (const [k, v] of Object.entries(value)) {
      const known = s.properties[k];
      if (!known) return [`${key}.${k}`, `is not a known ${s.title ?? 'setting'} (${Object.keys(s.properties).join(', ')})`];
      const p = problem(v, known, `${key}.${k}`);
      if (p) return p;
    }
    return undefined;
  }
  if (s.enum) return typeof value === 'string' && s.enum.includes(value) ? undefined : [key, `must be one of ${s.enum.map((x) => `"${x}"`).join(', ')}`];
  switch (s.type) {
    case 'string':
      return typeof value === 'string' ? undefined : [key, 'must be a string'];
    case 'boolean':
      return typeof value === 'boolean' ? undefined : [key, 'must be true or false'];
    case 'integer':
      return Number.isInteger(value) && inBounds(s, value as number) ? undefined : [key, `must be a whole number ${bound(s)}`];
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && inBounds(s, value) ? undefined : [key, `must be a number ${bound(s)}${s.description ? ` (${s.description})` : ''}`];
    case 'array':
      return Array.isArray(value) && value.every((x) => typeof x === 'string' && x.trim() !== '') ? undefined : [key, 'must be an array of non-empty strings'];
    default:
      return undefined;
  }
}

export function checkConfig(data: unknown, file: string): void {
  const fail = (key: string, what: string): never => {
    throw new UsageError(`${file}: "${key}" ${what}`);
  };
  if (!isPlainObject(data)) fail('(top level)', 'must be a JSON object');
  const d = data as Record<string, unknown>;
  for (const k of Object.keys(d)) if (!TOP_LEVEL.has(k)) fail(k, `is not a known setting (known: ${TOP_LEVEL_KEYS.join(', ')})`);
  for (const [k, schema] of TOP_LEVEL) {
    if (d[k] === undefined) continue;
    const p = problem(d[k], schema, k);
    if (p) fail(...p);
  }
  // Each server's shape is checked where it is parsed (extensions/mcp-config.ts), with the same kind of message.
  const permissions = (d.permissions ?? {}) as Record<string, string[]>;
  for (const [level, rules] of Object.entries(permissions)) for (const rule of rules) parseRule(rule, `${file} permissions.${level}`);
}
