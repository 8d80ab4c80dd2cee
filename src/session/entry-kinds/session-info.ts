// The `session_info` control entry: the display name of the session.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { Str } from '../../core/message-schema.js';
import { base, Null, entryKind } from './parts.js';

export const SessionInfoEntrySchema = Type.Object({ type: Type.Literal('session_info'), ...base, parentId: Null, name: Type.Union([Str, Null]) }, { description: 'The display name.' });
/** The display name of the session (control entry); the last one wins, `null` clears it. */
export type SessionInfoEntry = Static<typeof SessionInfoEntrySchema>;

export const sessionInfoKind = entryKind({ type: 'session_info', schema: SessionInfoEntrySchema, node: false });
