// The tool-argument validator: TypeBox's JSON Schema engine (typebox/schema), the same checks
// and error messages as typebox/compile without the value codecs it adds around them. The
// registry and edit_file import this module dynamically, at the first call (issue 14: nothing
// heavy at start-up), and it imports TypeBox statically, by name, so that the bundler leaves out
// what is not used (a dynamic import of typebox/schema itself would keep every export it has).
import { Compile } from 'typebox/schema';

export interface ValidationError {
  instancePath: string;
  message: string;
  keyword: string;
  params?: unknown;
}

export interface SchemaValidator {
  check(value: unknown): boolean;
  /** The errors for a value, in TypeBox's order (empty for a valid one). */
  errors(value: unknown): ValidationError[];
}

/** A compiled validator for `schema`; throws when TypeBox cannot compile it. */
export function compileValidator(schema: unknown): SchemaValidator {
  const v = Compile(schema as never) as unknown as { Check(value: unknown): boolean; Errors(value: unknown): [boolean, ValidationError[]] };
  return { check: (value) => v.Check(value), errors: (value) => v.Errors(value)[1] };
}
