// The `leaf` control entry: a move of the active leaf.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { Str } from '../../core/message-schema.js';
import { base, Null, entryKind } from './parts.js';

export const LeafEntrySchema = Type.Object({ type: Type.Literal('leaf'), ...base, parentId: Null, targetId: Type.Union([Str, Null]) }, { description: 'A move of the active leaf.' });
/** A move of the active leaf (control entry). `targetId: null` means "before the first entry". */
export type LeafEntry = Static<typeof LeafEntrySchema>;

export const leafKind = entryKind({ type: 'leaf', schema: LeafEntrySchema, node: false });
