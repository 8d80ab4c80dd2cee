// The `model_change` control entry: the session switched to another model.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { base, Null, entryKind } from './parts.js';
import { anyString } from './reading.js';

export const ModelChangeEntrySchema = Type.Object(
  { type: Type.Literal('model_change'), ...base, parentId: Null, provider: Type.String({ minLength: 1 }), model: Type.String({ minLength: 1 }) },
  { description: 'The session switched to another model; a resume continues with the last one.' },
);
/** The session switched to another model (control entry); the last one is the session's model on resume. */
export type ModelChangeEntry = Static<typeof ModelChangeEntrySchema>;

export const modelChangeKind = entryKind({ type: 'model_change', schema: ModelChangeEntrySchema, node: false, reading: { provider: anyString, model: anyString } });
