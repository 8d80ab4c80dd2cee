// Renders src/tools/arg-checks.generated.ts: for each schema, the check TypeBox's code generator
// (typebox/compile's Code) writes for it, wrapped as a function that needs no set-up. Run by
// test/arg-checks.test.ts, which compares the result with the file (and rewrites the file with
// UPDATE_ARG_CHECKS=1, as `npm run gen:arg-checks` does). See src/tools/arg-checks.ts.
import { Code } from 'typebox/compile';

/**
 * One generated check as a Map entry `[key, Check]`: the code TypeBox's generator writes for
 * `schema`, wrapped as a function that needs no set-up. Throws for a schema the wrapper cannot take.
 */
export function renderCheckEntry(name, key, schema) {
  const { External, Code: code } = Code(schema);
  for (const v of External.variables) if (!(v instanceof RegExp)) throw new Error(`${name}: the generated check needs a value that is not a regular expression`);
  if (code.includes('CheckContext')) throw new Error(`${name}: the generated check needs a CheckContext (unevaluated properties), which the wrapper does not set up`);
  const body = code
    .split('\n')
    .filter((line) => line !== '' && line !== '// @ts-ignore' && !line.startsWith('import ') && !line.startsWith('export function SetExternal('))
    .map((line) => {
      if (line === `let ${External.identifier} = []`) return `const ${External.identifier} = [${External.variables.map(String).join(', ')}];`;
      if (line.startsWith('export function Check(')) return line.replace('export function Check(', 'return function Check(') + ';';
      return line;
    });
  if (!body.some((line) => line.startsWith('return function Check('))) throw new Error(`${name}: no Check function in the generated code`);
  return `  // ${name}\n  [\n    ${JSON.stringify(key)},\n    (() => {\n${body.map((l) => `      ${l}`).join('\n')}\n    })(),\n  ],`;
}

/** The imports the generated checks use. */
export const CHECK_IMPORTS = ['// @ts-nocheck', "import { Guard } from 'typebox/guard';", "import { Hashing } from 'typebox/system';"];

/** `tools`: [{ name, parameters }]; `keyOf`: argSchemaKey. Throws for a schema the wrapper cannot take. */
export function renderArgChecks(tools, keyOf) {
  const entries = tools.map(({ name, parameters }) => renderCheckEntry(name, keyOf(parameters), parameters));
  return [
    "// Generated from the built-in tools' parameter schemas by scripts/arg-checks.mjs (TypeBox's code",
    '// generator): do not edit. test/arg-checks.test.ts fails when it is stale; `npm run gen:arg-checks`',
    '// rewrites it. What it is for: src/tools/arg-checks.ts.',
    ...CHECK_IMPORTS,
    '',
    'export const GENERATED_CHECKS: ReadonlyMap<string, (value: unknown) => boolean> = new Map([',
    ...entries,
    ']);',
    '',
  ].join('\n');
}
