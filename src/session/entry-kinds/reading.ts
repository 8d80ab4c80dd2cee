// The reading form of an entry kind's schema. The kinds' schemas say what mini-agent WRITES
// (docs/session.schema.json); a reader accepts more, so that no line an older version wrote, or a
// hand edit, is skipped as long as the readers can use it (a skipped line hides an entry, and a
// skipped node cuts its branch off the tree). The reading form is derived from the strict schema
// by the relaxations below, the generic ones for every kind and the ones a kind declares
// (`reading`: the fields its readers do not need, by path). The checks generated ahead of time
// (entry-checks.generated.ts) are the reading forms' checks.
import type { EntryKind } from './parts.js';

/** A JSON Schema, as TypeBox writes it (plain data). */
export interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  not?: JsonSchema;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  [other: string]: unknown;
}

/** What a kind declares a field may hold when read: a JSON Schema. */
export type Relaxation = Readonly<JsonSchema>;

/** The field may be missing or hold anything: no reader needs it. */
export const anything: Relaxation = {};
/** Any string (not only the values mini-agent writes; an empty one too). */
export const anyString: Relaxation = { type: 'string' };
/** Anything a reader can index (an object or an array): a reader reads its fields when present. */
export const indexable: Relaxation = { anyOf: [{ type: 'object' }, { type: 'array' }] };
/** Any number above zero (not only integers). */
export const positiveNumber: Relaxation = { type: 'number', exclusiveMinimum: 0 };

/** The relaxations whose values the readers use as they are; for the others the entry is filled in (`readForm`). */
const USABLE: ReadonlySet<Relaxation> = new Set([anyString, positiveNumber]);

/**
 * The schema a reader checks a line of `kind` against. Generic relaxations:
 * - an optional field may hold anything;
 * - a control entry's `parentId` may be a string (control entries are never on a path);
 * - a content block (an item of an array of objects told apart by `type`) may be an object of
 *   another `type`: the readers pass such a block on or leave it out, as they always did;
 * - extra fields are kept (as TypeBox writes objects: no `additionalProperties: false`).
 * Then the kind's own `reading` relaxations, each at its path (`a.b`, `a[].b`: in each item).
 */
export function readingSchema(kind: EntryKind): JsonSchema {
  const schema = relaxed(
    withRelaxations(kind, () => true),
    true,
  );
  if (!kind.node) schema.properties = { ...schema.properties, parentId: { anyOf: [{ type: 'string' }, { type: 'null' }] } };
  return schema;
}

/**
 * What an entry becomes when read (session-file.ts fills it in to this form): the kind's schema,
 * with the values a reader uses as they are (any string, any positive number, another block type).
 * A field that a line read by `readingSchema` lacks, or holds of another type, is filled in with
 * a neutral value (required) or left out (optional), so no reader meets a field it cannot use.
 */
export function readForm(kind: EntryKind): JsonSchema {
  return relaxed(
    withRelaxations(kind, (r) => USABLE.has(r)),
    false,
  );
}

/** The kind's schema (a copy) with those of its relaxations that `take` selects (each path is checked). */
function withRelaxations(kind: EntryKind, take: (r: Relaxation) => boolean): JsonSchema {
  const copy = (): JsonSchema => JSON.parse(JSON.stringify(kind.schema)) as JsonSchema;
  const schema = copy();
  for (const [path, relaxation] of Object.entries(kind.reading ?? {})) {
    const segments = path.split(/\.|(?=\[\])/).filter((s) => s !== '');
    if (!relaxAt(take(relaxation) ? schema : copy(), segments, relaxation)) throw new Error(`${kind.type}: no field "${path}" to relax`);
  }
  return schema;
}

/** Sets the field at `path` (under every branch of a union that has it) to `relaxation`; false when none has it. */
function relaxAt(schema: JsonSchema, path: readonly string[], relaxation: Relaxation): boolean {
  if (schema.anyOf) return schema.anyOf.map((b) => relaxAt(b, path, relaxation)).some(Boolean);
  const [head, ...rest] = path;
  if (head === '[]') return schema.items !== undefined && relaxAt(schema.items, rest, relaxation);
  const props = schema.properties;
  if (head === undefined || !props || !(head in props)) return false;
  if (rest.length > 0) return relaxAt(props[head], rest, relaxation);
  props[head] = { ...relaxation };
  if (relaxation === anything) schema.required = schema.required?.filter((k) => k !== head);
  return true;
}

/** The generic relaxations, applied all the way down (`optionalAnything`: an optional field may hold anything). */
function relaxed(s: JsonSchema, optionalAnything: boolean): JsonSchema {
  if (s.anyOf) return { ...s, anyOf: s.anyOf.map((b) => relaxed(b, optionalAnything)) };
  if (s.type === 'object' && s.properties) {
    const required = new Set(s.required ?? []);
    // (no Object.fromEntries: the export page's script, checked against ES2017, sees the kinds' modules)
    const properties: Record<string, JsonSchema> = {};
    for (const [k, p] of Object.entries(s.properties)) properties[k] = required.has(k) || !optionalAnything ? relaxed(p, optionalAnything) : {};
    return { ...s, properties };
  }
  if (s.type === 'array' && s.items) {
    const items = relaxed(s.items, optionalAnything);
    const kinds = items.anyOf?.map((b) => b.properties?.type?.const);
    if (!kinds || kinds.some((k) => typeof k !== 'string')) return { ...s, items };
    const otherBlock: JsonSchema = { type: 'object', required: ['type'], properties: { type: { type: 'string', not: { enum: kinds } } } };
    return { ...s, items: { ...items, anyOf: [...items.anyOf!, otherBlock] } };
  }
  return s;
}
