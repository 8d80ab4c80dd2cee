// The `permission_grant` control entry: an approval given "always, for this session".
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { base, Null, entryKind } from './parts.js';

export const PermissionGrantEntrySchema = Type.Object(
  {
    type: Type.Literal('permission_grant'),
    ...base,
    parentId: Null,
    /** A permission rule such as `bash(npm test)`. */
    rule: Type.String({ minLength: 1 }),
    /** `hmac-sha256:HEX` over the session id and the rule, keyed by the user's home (app/grant-seal.ts); a grant without a valid seal is not applied. */
    seal: Type.Optional(Type.String({ description: "hmac-sha256:HEX of the session id and the rule, keyed by the user's home; a grant without a valid seal is not applied." })),
  },
  { description: 'An approval given "always, for this session": a permission rule, TOOL or TOOL(PATTERN).' },
);
/** An approval the user gave "always, for this session" (control entry): a permission rule such as `bash(npm test)`. */
export type PermissionGrantEntry = Static<typeof PermissionGrantEntrySchema>;

export const permissionGrantKind = entryKind({ type: 'permission_grant', schema: PermissionGrantEntrySchema, node: false });
