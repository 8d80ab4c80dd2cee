// Renders src/session/entry-checks.generated.ts: for each entry kind (src/session/entry-kinds/),
// the checks TypeBox's code generator writes for its reading schema (the kind's schema with what a
// reader accepts beyond it) and for its read form (what a read entry is filled in to; both in
// entry-kinds/reading.ts), so reading a session file needs no schema compiler. Run by
// test/entry-checks.test.ts, which compares the result with the file (and rewrites it with
// UPDATE_ENTRY_CHECKS=1, as `npm run gen:entry-checks` does). See src/session/entry-shape.ts.
import { CHECK_IMPORTS, renderCheckEntry } from './arg-checks.mjs';

/** `kinds`: [{ type, reading, readForm }] (the two schemas), in the order of the kinds list. */
export function renderEntryChecks(kinds) {
  return [
    "// Generated from the entry kinds' schemas (src/session/entry-kinds/: reading.ts) by scripts/entry-checks.mjs",
    "// (TypeBox's code generator): do not edit. test/entry-checks.test.ts fails when it is stale;",
    '// `npm run gen:entry-checks` rewrites it. What it is for: src/session/entry-shape.ts.',
    ...CHECK_IMPORTS,
    '',
    "/** Each kind's reading schema: what a line may hold and still be read. */",
    'export const ENTRY_CHECKS: ReadonlyMap<string, (value: unknown) => boolean> = new Map([',
    ...kinds.map(({ type, reading }) => renderCheckEntry(type, type, reading)),
    ']);',
    '',
    "/** Each kind's read form: an entry that passes is used as it is, others are filled in first. */",
    'export const READ_FORM_CHECKS: ReadonlyMap<string, (value: unknown) => boolean> = new Map([',
    ...kinds.map(({ type, readForm }) => renderCheckEntry(type, type, readForm)),
    ']);',
    '',
  ].join('\n');
}
