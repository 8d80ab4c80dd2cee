// The built-in tools' precompiled argument checks (src/tools/arg-checks.ts): generated ahead of
// time, found only for the exact schema they were made from, and in agreement with the validator
// the registry compiles at run time. Regenerate with `npm run gen:arg-checks` (UPDATE_ARG_CHECKS=1).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript
import { renderArgChecks } from '../scripts/arg-checks.mjs';
import { builtinTools } from '../src/app/tools.js';
import { textOf, type ToolCall } from '../src/core/types.js';
import { argSchemaKey, precompiledCheck } from '../src/tools/arg-checks.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { compileValidator } from '../src/tools/schema-validator.js';
import { tempDir } from './support/helpers.js';

const GENERATED = fileURLToPath(new URL('../src/tools/arg-checks.generated.ts', import.meta.url));
const tools = builtinTools();

describe('precompiled argument checks', () => {
  it("the generated file matches the built-in tools' schemas (regenerate: npm run gen:arg-checks)", () => {
    const expected = (renderArgChecks as (t: unknown, k: unknown) => string)(tools, argSchemaKey);
    if (process.env.UPDATE_ARG_CHECKS) writeFileSync(GENERATED, expected);
    expect(readFileSync(GENERATED, 'utf8'), 'src/tools/arg-checks.generated.ts is out of date: run `npm run gen:arg-checks`').toBe(expected);
  });

  it('every built-in tool has one, and descriptions do not matter to finding it', () => {
    for (const tool of tools) {
      expect(precompiledCheck(tool.parameters), tool.name).toBeTypeOf('function');
      const redescribed = JSON.parse(JSON.stringify(tool.parameters).replaceAll('"description":"', '"description":"(changed) '));
      expect(precompiledCheck(redescribed), tool.name).toBe(precompiledCheck(tool.parameters));
    }
  });

  it("a schema that differs in what is valid finds none (another limit, another tool's schema)", () => {
    const read = tools.find((t) => t.name === 'read_file')!;
    const changed = JSON.parse(JSON.stringify(read.parameters)) as { properties: { limit: { minimum: number } } };
    changed.properties.limit.minimum = 2;
    expect(precompiledCheck(changed)).toBeUndefined();
    expect(precompiledCheck(Type.Object({ text: Type.String() }))).toBeUndefined();
    // A property named "description" is a schema, not a text: it stays in the key.
    expect(argSchemaKey({ type: 'object', properties: { description: { type: 'string' } } })).toContain('"description":{');
  });

  // Values built from each tool's schema (mostly valid, each part sometimes of another kind, with
  // names left out or added) and values of any shape: the precompiled check and the compiled
  // validator must agree, on the TypeBox schema and on the same schema as plain JSON (as an MCP
  // server would send it).
  type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; items?: Schema; anyOf?: Schema[]; const?: unknown; enum?: unknown[]; minimum?: number; maximum?: number; minLength?: number };
  const wrong = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(fc.anything(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));
  const sometimesWrong = (arb: fc.Arbitrary<unknown>) => fc.oneof({ weight: 15, arbitrary: arb }, { weight: 1, arbitrary: wrong });
  function fromSchema(schema: Schema): fc.Arbitrary<unknown> {
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    if (schema.anyOf) return fc.oneof(...schema.anyOf.map(fromSchema));
    switch (schema.type) {
      case 'string':
        return fc.oneof(fc.string({ minLength: schema.minLength ?? 0, maxLength: 8 }), fc.constantFrom('', 'é', '😀'));
      case 'integer':
        return fc.oneof({ weight: 4, arbitrary: fc.integer({ min: schema.minimum ?? -50, max: schema.maximum ?? 5000 }) }, { weight: 1, arbitrary: fc.constantFrom(-1, 0, 1.5, 2 ** 53, 1e6) });
      case 'number':
        return fc.oneof({ weight: 4, arbitrary: fc.double({ noNaN: true, min: 0.001, max: 1e6 }) }, { weight: 1, arbitrary: fc.constantFrom(0, -1, Infinity, NaN) });
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(sometimesWrong(fromSchema(schema.items ?? {})), { maxLength: 3 });
      case 'object': {
        const props = schema.properties ?? {};
        const required = schema.required ?? [];
        const record = fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sometimesWrong(fromSchema(v))])), {
          requiredKeys: required.filter(() => true),
        });
        const rarely = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
        const drop = required.length > 0 ? rarely(fc.constantFrom(...required)) : fc.constant(null);
        const variants = fc.tuple(record, drop, rarely(fc.string({ maxLength: 4 })), wrong);
        return variants.map(([value, dropped, extra, extraValue]) => {
          const out: Record<string, unknown> = { ...(value as object) };
          if (dropped !== null) delete out[dropped];
          if (extra !== null) out[extra] = extraValue;
          return out;
        });
      }
      default:
        return fc.anything();
    }
  }
  for (const tool of tools) {
    it(`${tool.name}: agrees with the compiled validator on every value`, () => {
      const check = precompiledCheck(tool.parameters)!;
      const full = compileValidator(tool.parameters);
      const plain = compileValidator(JSON.parse(JSON.stringify(tool.parameters)));
      let valid = 0;
      let invalid = 0;
      fc.assert(
        fc.property(fc.oneof({ weight: 5, arbitrary: fromSchema(tool.parameters as Schema) }, { weight: 1, arbitrary: fc.anything() }), (value) => {
          const answer = check(value);
          expect(answer).toBe(full.check(value));
          expect(answer).toBe(plain.check(value));
          if (answer) valid++;
          else invalid++;
        }),
        { numRuns: 600 },
      );
      expect(valid, 'valid arguments among the values').toBeGreaterThan(60);
      expect(invalid, 'invalid arguments among the values').toBeGreaterThan(60);
    });
  }

  it("through the registry: valid arguments run, invalid ones get the full validator's reasons", async () => {
    const registry = new ToolRegistry(tools);
    const cwd = tempDir();
    writeFileSync(`${cwd}/a.txt`, 'hello\n');
    const run = (args: Record<string, unknown>) => {
      const call: ToolCall = { type: 'toolCall', id: 'c1', name: 'read_file', arguments: args };
      return registry.execute(call, { cwd, signal: new AbortController().signal });
    };
    const ok = await run({ path: 'a.txt' });
    expect(ok.isError).toBe(false);
    expect(textOf(ok.content)).toContain('hello');
    const bad = await run({ path: 'a.txt', limit: 0, colour: 'red' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad.content)).toMatch(/limit: .*1/);
    expect(textOf(bad.content)).toContain('colour');
  });
});
