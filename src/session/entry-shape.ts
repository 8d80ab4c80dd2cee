// The check of a parsed line of a session file, and what the line becomes when read. A line is
// read when it matches its kind's reading schema (entry-kinds/reading.ts: the kind's schema and
// what a reader accepts beyond it, so that no line an older version wrote is lost); it is then
// filled in to the kind's read form, so no reader meets a field it cannot use. Both checks are
// generated ahead of time (entry-checks.generated.ts, by scripts/entry-checks.mjs), so reading a
// session needs no schema compiler; the schemas are walked only for the rare line that fails one.
import { isPlainObject } from '../core/types.js';
import { ENTRY_CHECKS, READ_FORM_CHECKS } from './entry-checks.generated.js';
import { ENTRY_KINDS } from './entry-kinds/index.js';
import type { EntryKind } from './entry-kinds/parts.js';
import { readForm, readingSchema, type JsonSchema } from './entry-kinds/reading.js';

const kindNamed = (type: string): EntryKind => ENTRY_KINDS.find((k) => k.type === type)!;

// The schemas a line that is not in its kind's read form is walked against, derived once per kind
// on first need (a memo of pure functions: an older file may hold 100,000 such lines).
const derived = new Map<string, { reading: JsonSchema; readForm: JsonSchema }>();
function schemasOf(type: string): { reading: JsonSchema; readForm: JsonSchema } {
  let found = derived.get(type);
  if (!found) {
    const kind = kindNamed(type);
    found = { reading: readingSchema(kind), readForm: readForm(kind) };
    derived.set(type, found);
  }
  return found;
}

/** Checks an entry against its kind's reading schema; returns a reason when it is wrong. */
export function entryShapeError(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'not a JSON object';
  // Beyond the schema (a string): an entry needs an id that can be named.
  if (typeof value.id !== 'string' || value.id === '') return 'missing "id"';
  if (typeof value.type !== 'string') return 'missing "type"';
  const check = ENTRY_CHECKS.get(value.type);
  if (!check) return `unknown entry type "${value.type}"`;
  if (check(value)) return undefined;
  return `${value.type} entry: ${schemaProblem(schemasOf(value.type).reading, value) ?? 'does not match its schema'}`;
}

/**
 * A parsed line as the readers get it, or why it is skipped. A line in its kind's read form (every
 * line mini-agent writes) passes one check and is used as it is; only another line is checked
 * against the reading schema (the read form is stricter, so this is the same verdict as checking
 * that first) and then filled in to the read form.
 */
export function readEntry<T extends { type: string }>(value: unknown): { entry: T } | { problem: string } {
  if (isPlainObject(value) && typeof value.id === 'string' && value.id !== '' && typeof value.type === 'string' && READ_FORM_CHECKS.get(value.type)?.(value)) return { entry: value as unknown as T };
  const problem = entryShapeError(value);
  if (problem !== undefined) return { problem };
  const entry = value as T;
  return { entry: filledIn(schemasOf(entry.type).readForm, entry) as T };
}

/** `value` made to match `s`: a wrong or missing required field gets a neutral value, a wrong optional one is left out; the rest is kept. */
function filledIn(s: JsonSchema, value: unknown): unknown {
  if (schemaProblem(s, value) === undefined) return value;
  if (s.anyOf) {
    const key = discriminator(s.anyOf);
    if (key === undefined || !isPlainObject(value)) return neutral(s);
    const branch = s.anyOf.find((b) => constOf(b, key) === value[key]);
    return branch ? filledIn(branch, value) : value;
  }
  if (s.type === 'object') {
    if (!isPlainObject(value)) return neutral(s);
    const out: Record<string, unknown> = { ...value };
    const required = new Set(s.required ?? []);
    for (const [k, p] of Object.entries(s.properties ?? {})) {
      if (required.has(k)) out[k] = filledIn(p, value[k]);
      else if (k in value && schemaProblem(p, value[k]) !== undefined) delete out[k];
    }
    return out;
  }
  if (s.type === 'array') return Array.isArray(value) && s.items ? value.map((v) => filledIn(s.items!, v)) : [];
  return neutral(s);
}

/** A neutral value of a schema: null where allowed, empty, zero, false; "" for a union of words. */
function neutral(s: JsonSchema): unknown {
  if ('const' in s) return s.const;
  if (s.anyOf) return s.anyOf.some((b) => b.type === 'null') ? null : s.anyOf.every((b) => typeof b.const === 'string') ? '' : neutral(s.anyOf[0]);
  switch (s.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) out[k] = neutral(s.properties![k]);
      return out;
    }
    case 'array':
      return [];
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return s.minimum ?? 0;
    case 'boolean':
      return false;
  }
  return null;
}

const show = (v: unknown): string => (v === undefined ? 'missing' : (JSON.stringify(v) ?? String(v)).slice(0, 40));
const join = (at: string, key: string | number): string => (typeof key === 'number' ? `${at}[${key}]` : at === '' ? key : `${at}.${key}`);
const expected = (s: JsonSchema): string => ('const' in s ? JSON.stringify(s.const) : s.anyOf ? s.anyOf.map(expected).join(' or ') : s.not ? 'another value' : (s.type ?? 'a value'));
const constOf = (b: JsonSchema, key: string): unknown => b.properties?.[key]?.const;

/** The property a union of objects is told apart by (a constant in each branch but a catch-all one: `role`, `type`). */
function discriminator(branches: JsonSchema[]): string | undefined {
  const first = branches[0]?.properties;
  if (!first) return undefined;
  return Object.keys(first).find((k) => branches.every((b) => b.properties?.[k] !== undefined) && branches.filter((b) => constOf(b, k) === undefined).length <= 1 && constOf(branches[0], k) !== undefined);
}

/** The first place where `value` does not match `schema`, in words; undefined when none is found. */
export function schemaProblem(schema: unknown, value: unknown, at = ''): string | undefined {
  const s = schema as JsonSchema;
  const name = at === '' ? 'the entry' : `"${at}"`;
  if ('const' in s) return value === s.const ? undefined : `${name} is ${show(value)}, not ${JSON.stringify(s.const)}`;
  if (s.not) return schemaProblem(s.not, value, at) === undefined ? `${name} is ${show(value)}, which is not allowed here` : undefined;
  if (s.enum) return s.enum.includes(value) ? undefined : `${name} is ${show(value)}, expected one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (s.anyOf) {
    const key = discriminator(s.anyOf);
    if (key !== undefined && !isPlainObject(value)) return `${name} is ${show(value)}, expected an object`;
    if (key !== undefined && isPlainObject(value)) {
      // Follow the branch the value names; none: the catch-all branch, if any, or the value names an unknown one.
      const branch = s.anyOf.find((b) => constOf(b, key) === value[key]) ?? s.anyOf.find((b) => constOf(b, key) === undefined);
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
      if (s.exclusiveMinimum !== undefined && !(value > s.exclusiveMinimum)) return `${name} is ${value}, expected more than ${s.exclusiveMinimum}`;
      return s.minimum !== undefined && value < s.minimum ? `${name} is ${value}, less than ${s.minimum}` : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${name} is ${show(value)}, expected true or false`;
    case 'null':
      return value === null ? undefined : `${name} is ${show(value)}, expected null`;
  }
  return undefined;
}
