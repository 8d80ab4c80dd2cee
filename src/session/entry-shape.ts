// The check of a parsed line of a session file: the check generated ahead of time from its
// kind's schema (entry-checks.generated.ts, by scripts/entry-checks.mjs), so reading a session
// needs no schema compiler. Only when a check fails is the schema walked again, to name the
// first problem in the warning.
import { isPlainObject } from '../core/types.js';
import { ENTRY_CHECKS } from './entry-checks.generated.js';
import { ENTRY_KINDS } from './entry-kinds/index.js';

const SCHEMAS: ReadonlyMap<string, unknown> = new Map(ENTRY_KINDS.map((k) => [k.type, k.schema]));

/** Checks an entry against its kind's schema; returns a reason when it is wrong. */
export function entryShapeError(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'not a JSON object';
  // Beyond the schema (a string): an entry needs an id that can be named.
  if (typeof value.id !== 'string' || value.id === '') return 'missing "id"';
  if (typeof value.type !== 'string') return 'missing "type"';
  const check = ENTRY_CHECKS.get(value.type);
  if (!check) return `unknown entry type "${value.type}"`;
  if (check(value)) return undefined;
  return `${value.type} entry: ${schemaProblem(SCHEMAS.get(value.type), value) ?? 'does not match its schema'}`;
}

/** The parts of JSON Schema the entry kinds use. */
interface JsonSchema {
  type?: string;
  const?: unknown;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minLength?: number;
  minimum?: number;
  minItems?: number;
}

const show = (v: unknown): string => (v === undefined ? 'missing' : (JSON.stringify(v) ?? String(v)).slice(0, 40));
const join = (at: string, key: string | number): string => (typeof key === 'number' ? `${at}[${key}]` : at === '' ? key : `${at}.${key}`);
const expected = (s: JsonSchema): string => ('const' in s ? JSON.stringify(s.const) : s.anyOf ? s.anyOf.map(expected).join(' or ') : (s.type ?? 'a value'));

/** The property a union of objects is told apart by (a constant in each branch: `role`, `type`). */
function discriminator(branches: JsonSchema[]): string | undefined {
  const first = branches[0]?.properties;
  if (!first) return undefined;
  return Object.keys(first).find((k) => branches.every((b) => b.properties?.[k] !== undefined && 'const' in b.properties[k]));
}

/** The first place where `value` does not match `schema`, in words; undefined when none is found. */
export function schemaProblem(schema: unknown, value: unknown, at = ''): string | undefined {
  const s = schema as JsonSchema;
  const name = at === '' ? 'the entry' : `"${at}"`;
  if ('const' in s) return value === s.const ? undefined : `${name} is ${show(value)}, not ${JSON.stringify(s.const)}`;
  if (s.anyOf) {
    const key = discriminator(s.anyOf);
    if (key !== undefined && isPlainObject(value)) {
      // Follow the branch the value names; none: the value names an unknown one.
      const branch = s.anyOf.find((b) => b.properties![key].const === value[key]);
      if (branch) return schemaProblem(branch, value, at);
      return `"${join(at, key)}" is ${show(value[key])}, expected ${s.anyOf.map((b) => expected(b.properties![key])).join(', ')}`;
    }
    if (s.anyOf.some((b) => schemaProblem(b, value, at) === undefined)) return undefined;
    return `${name} is ${show(value)}, expected ${expected(s)}`;
  }
  switch (s.type) {
    case 'object': {
      if (!isPlainObject(value)) return `${name} is ${show(value)}, expected an object`;
      for (const k of s.required ?? []) if (!(k in value)) return `missing "${join(at, k)}"`;
      for (const [k, p] of Object.entries(s.properties ?? {})) {
        const problem = k in value ? schemaProblem(p, value[k], join(at, k)) : undefined;
        if (problem) return problem;
      }
      return undefined;
    }
    case 'array': {
      if (!Array.isArray(value)) return `${name} is ${show(value)}, expected an array`;
      if (s.minItems !== undefined && value.length < s.minItems) return `${name} has fewer than ${s.minItems} items`;
      for (let i = 0; i < value.length && s.items; i++) {
        const problem = schemaProblem(s.items, value[i], join(at, i));
        if (problem) return problem;
      }
      return undefined;
    }
    case 'string':
      if (typeof value !== 'string') return `${name} is ${show(value)}, expected a string`;
      return s.minLength !== undefined && value.length < s.minLength ? `${name} is empty` : undefined;
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || (s.type === 'integer' && !Number.isInteger(value))) return `${name} is ${show(value)}, expected ${s.type === 'integer' ? 'an integer' : 'a number'}`;
      return s.minimum !== undefined && value < s.minimum ? `${name} is ${value}, less than ${s.minimum}` : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${name} is ${show(value)}, expected true or false`;
    case 'null':
      return value === null ? undefined : `${name} is ${show(value)}, expected null`;
  }
  return undefined;
}
