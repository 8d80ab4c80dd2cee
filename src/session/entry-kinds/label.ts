// The `label` control entry: a bookmark on an entry.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { Str } from '../../core/message-schema.js';
import { base, Null, entryKind } from './parts.js';

export const LabelEntrySchema = Type.Object({ type: Type.Literal('label'), ...base, parentId: Null, targetId: Str, label: Type.Union([Str, Null]) }, { description: 'A bookmark on an entry; null clears it; the last one wins.' });
/** A bookmark on an entry (control entry: not a tree node). `label: null` clears it. */
export type LabelEntry = Static<typeof LabelEntrySchema>;

export const labelKind = entryKind({ type: 'label', schema: LabelEntrySchema, node: false });
