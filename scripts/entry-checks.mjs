// Renders src/session/entry-checks.generated.ts: for each entry kind (src/session/entry-kinds/),
// the check TypeBox's code generator writes for its schema, so reading a session file needs no
// schema compiler. Run by test/entry-checks.test.ts, which compares the result with the file (and
// rewrites it with UPDATE_ENTRY_CHECKS=1, as `npm run gen:entry-checks` does). See src/session/entry-shape.ts.
import { CHECK_IMPORTS, renderCheckEntry } from './arg-checks.mjs';

/** `kinds`: [{ type, schema }], in the order of the kinds list. */
export function renderEntryChecks(kinds) {
  return [
    '// Generated from the entry kinds\' schemas (src/session/entry-kinds/) by scripts/entry-checks.mjs',
    '// (TypeBox\'s code generator): do not edit. test/entry-checks.test.ts fails when it is stale;',
    '// `npm run gen:entry-checks` rewrites it. What it is for: src/session/entry-shape.ts.',
    ...CHECK_IMPORTS,
    '',
    'export const ENTRY_CHECKS: ReadonlyMap<string, (value: unknown) => boolean> = new Map([',
    ...kinds.map(({ type, schema }) => renderCheckEntry(type, type, schema)),
    ']);',
    '',
  ].join('\n');
}
