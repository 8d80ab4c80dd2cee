// The TypeBox builders mini-agent uses, imported by name. TypeBox's `Type` namespace re-exports
// its whole type engine (a TypeScript-syntax parser, mapped and conditional types: ~210 KB in a
// bundle), and a bundler cannot drop the members nobody calls; these builders by name are ~19 KB.
// The start-up path (the tools' schemas, built at import) loads this, so the difference is paid
// by every run (issue 14). Same functions, same types: `Type.Object(...)` reads as before.
import { Array, Boolean, Integer, Literal, Null, Number, Object, Optional, Record, String, Union, Unknown } from 'typebox';

export const Type = { Array, Boolean, Integer, Literal, Null, Number, Object, Optional, Record, String, Union, Unknown };
