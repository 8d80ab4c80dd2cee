// Precompiled argument checks for the built-in tools (issue 14). Compiling a tool's schema into a
// validator (TypeBox, schema-validator.ts) costs 4–8 ms at the first call of a run: loading the
// schema engine, building the check's code and evaluating it. The built-in tools' schemas are
// known when mini-agent is built, so their checks are generated ahead of time by TypeBox's own
// code generator (typebox/compile's Code, the same builder the validator evaluates at run time)
// into arg-checks.generated.ts, and test/arg-checks.test.ts fails when that file is stale.
//
// A check is found by the schema's validation identity (argSchemaKey): its JSON without the
// descriptions, which do not change what is valid. So a schema that differs in anything that
// matters (another tool, a changed limit, a stale generated file) finds no check, and the
// registry compiles one as before. A precompiled check answers only "valid or not": when it says
// "not", the registry loads the full validator to say why, so the error messages are unchanged.
import { GENERATED_CHECKS } from './arg-checks.generated.js';

export type ArgCheck = (value: unknown) => boolean;

/** What identifies a schema for validation: its JSON, without the `description` texts. */
export function argSchemaKey(schema: unknown): string {
  return JSON.stringify(schema, (key, value: unknown) => (key === 'description' && typeof value === 'string' ? undefined : value));
}

/** The precompiled check of `schema`, or undefined when none was generated for it. */
export function precompiledCheck(schema: unknown): ArgCheck | undefined {
  return GENERATED_CHECKS.get(argSchemaKey(schema));
}
