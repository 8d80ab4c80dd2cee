// The TypeBox builders mini-agent uses, imported by name. TypeBox's `Type` namespace re-exports
// its whole type engine (a TypeScript-syntax parser, mapped and conditional types: ~210 KB in a
// bundle), and a bundler cannot drop the members nobody calls; these builders by name are ~19 KB.
// `Record` is the one builder that needs the engine (to evaluate its key type), so the one record
// we use, string keys to any value, is written out: the same JSON Schema and the same static type.
// The start-up path (the tools' schemas, built at import) loads this, so the difference is paid
// by every run (issue 14). Same functions, same types: `Type.Object(...)` reads as before.
// biome-ignore lint/suspicious/noShadowRestrictedNames: TypeBox's builders by their own names, so that `Type.Object(...)` reads as before
import { Array, Boolean, Integer, Literal, Null, Number, Object, Optional, String, Union, Unknown, Unsafe, type TUnsafe } from 'typebox';

/** `Type.Record(Type.String(), Type.Unknown())`: an object with any keys and values. */
function UnknownRecord(): TUnsafe<Record<string, unknown>> {
  return Unsafe<Record<string, unknown>>({ type: 'object', patternProperties: { '^.*$': {} } });
}

export const Type = { Array, Boolean, Integer, Literal, Null, Number, Object, Optional, String, Union, Unknown, UnknownRecord };
