// The `model_window` control entry: a context window learned from the provider.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { Str } from '../../core/message-schema.js';
import { base, Null, entryKind } from './parts.js';
import { anyString, positiveNumber } from './reading.js';

export const ModelWindowEntrySchema = Type.Object(
  {
    type: Type.Literal('model_window'),
    ...base,
    parentId: Null,
    provider: Type.String({ minLength: 1 }),
    model: Type.String({ minLength: 1 }),
    contextWindow: Type.Integer({ minimum: 1 }),
    /** `error`: stated by an overflow error; `server`: reported by the server (`detail` says where). */
    source: Type.Union([Type.Literal('error'), Type.Literal('server')]),
    /** Where exactly, e.g. `vLLM /v1/models`. */
    detail: Type.Optional(Str),
  },
  { description: 'A context window learned from the provider (an overflow error stated it, or the server reported it); compaction uses the last one for the model. Version 6.' },
);
/** A context window learned from the provider (control entry); compaction uses the last one for its provider and model. Never sent to the model. */
export type ModelWindowEntry = Static<typeof ModelWindowEntrySchema>;

export const modelWindowKind = entryKind({
  type: 'model_window',
  schema: ModelWindowEntrySchema,
  node: false,
  reading: { provider: anyString, model: anyString, contextWindow: positiveNumber },
});
