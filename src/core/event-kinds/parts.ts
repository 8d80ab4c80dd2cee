// What every event schema is built with (src/core/event-kinds/*.ts): the stamp each event carries
// and the builder of one event's schema. An event is declared once, by `ev`; its TypeScript type
// is `Static` of the schema (core/events.ts), and docs/events.schema.json is generated from the
// list in core/event-schema.ts.
import type { TLiteral, TObject, TSchema } from 'typebox';
import { Type } from '../type-builders.js';

/** Every event carries the schema version, a sequence number (monotonic within a run) and a time (ms since epoch). */
export const stamp = {
  schemaVersion: Type.Integer({ minimum: 1 }),
  seq: Type.Integer({ minimum: 0, description: 'monotonic within a run, starting at 0' }),
  time: Type.Number({ description: 'ms since the Unix epoch' }),
};

/** The schema of one event: its `type`, its fields, then the stamp; no other field is allowed. */
export function ev<const T extends string, P extends Record<string, TSchema>>(type: T, props: P, description: string): TObject<{ type: TLiteral<T> } & P & typeof stamp> {
  return Type.Object({ type: Type.Literal(type), ...props, ...stamp }, { description, additionalProperties: false });
}
