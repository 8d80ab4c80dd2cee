// Extracts `CreateChatCompletionRequest` and every schema it transitively $refs from the
// OpenAI OpenAPI spec into one self-contained JSON Schema (2020-12) for the request tests.
//
//   node scripts/extract-openai-schema.mjs [path/to/openapi.json]
//
// Default source: ../shared/fixtures-peers/openai-openapi/openapi.json (a copy of
// openai/openai-openapi's openapi.json; see test/fixtures/SOURCES.md). Output:
// test/fixtures/openai-openapi/create-chat-completion-request.schema.json.
// Rewrites: `#/components/schemas/X` → `#/$defs/X`; OpenAPI's `nullable: true` → a type union
// (or `anyOf [..., {type: null}]` when the schema has no `type`); everything else is unchanged.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = resolve(process.argv[2] ?? resolve(root, '../shared/fixtures-peers/openai-openapi/openapi.json'));
const out = resolve(root, 'test/fixtures/openai-openapi/create-chat-completion-request.schema.json');
const ROOT_SCHEMA = 'CreateChatCompletionRequest';
const PREFIX = '#/components/schemas/';

const spec = JSON.parse(readFileSync(source, 'utf8'));
const all = spec.components.schemas;

// Collect the transitive closure of $refs.
const needed = new Set();
const queue = [ROOT_SCHEMA];
while (queue.length > 0) {
  const name = queue.pop();
  if (needed.has(name)) continue;
  if (!all[name]) throw new Error(`schema ${name} is referenced but not defined`);
  needed.add(name);
  visit(all[name], (node) => {
    if (typeof node.$ref === 'string') {
      if (!node.$ref.startsWith(PREFIX)) throw new Error(`unsupported $ref ${node.$ref}`);
      queue.push(node.$ref.slice(PREFIX.length));
    }
  });
}

function visit(node, fn) {
  if (Array.isArray(node)) return node.forEach((n) => visit(n, fn));
  if (node === null || typeof node !== 'object') return;
  fn(node);
  for (const v of Object.values(node)) visit(v, fn);
}

let nullables = 0;
/** Returns a rewritten copy. `properties` maps names to schemas, so its keys are never treated as keywords. */
function rewrite(node, isPropertyMap = false) {
  if (Array.isArray(node)) return node.map((n) => rewrite(n));
  if (node === null || typeof node !== 'object') return node;
  const copy = {};
  for (const [k, v] of Object.entries(node)) {
    if (isPropertyMap) copy[k] = rewrite(v);
    else if (k === '$ref') copy[k] = '#/$defs/' + v.slice(PREFIX.length);
    else if (k === 'example' || k === 'examples' || k === 'x-oaiMeta')
      continue; // documentation only
    else copy[k] = rewrite(v, k === 'properties' || k === 'patternProperties');
  }
  if (isPropertyMap || copy.nullable === undefined) return copy;
  const nullable = copy.nullable;
  delete copy.nullable;
  if (nullable !== true) return copy;
  nullables++;
  if (copy.type !== undefined) {
    const types = Array.isArray(copy.type) ? copy.type : [copy.type];
    if (!types.includes('null')) copy.type = [...types, 'null'];
    if (Array.isArray(copy.enum) && !copy.enum.includes(null)) copy.enum = [...copy.enum, null];
    return copy;
  }
  const { description, title, default: dflt, deprecated, ...rest } = copy;
  return {
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(dflt !== undefined ? { default: dflt } : {}),
    ...(deprecated !== undefined ? { deprecated } : {}),
    anyOf: [rest, { type: 'null' }],
  };
}

const defs = {};
for (const name of [...needed].sort()) defs[name] = rewrite(all[name]);
const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $comment:
    `Extracted by scripts/extract-openai-schema.mjs from openai/openai-openapi openapi.json (info.version ${spec.info?.version}): ` +
    `${ROOT_SCHEMA} and the ${needed.size - 1} schemas it references; nullable rewritten as type unions (${nullables} places). MIT licence (test/fixtures/licenses/openai-openapi.LICENSE).`,
  $ref: `#/$defs/${ROOT_SCHEMA}`,
  $defs: defs,
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(schema, null, 1) + '\n');
console.log(`wrote ${out}: ${needed.size} schemas, ${nullables} nullable rewrites`);
