// The JSON Schema of session files (header and entries), written with TypeBox: each entry kind's
// schema is declared in its module (src/session/entry-kinds/), and the entry types are `Static`
// of them. docs/session.schema.json is generated from it (`npm run docs:schema`); a test checks
// the file is current and that real session files validate.
import { SessionEntrySchema } from './entry-kinds/index.js';
import { SessionHeaderSchema } from './entry-kinds/parts.js';

export { SessionEntrySchema, SessionHeaderSchema };

/** The document written to docs/session.schema.json. */
export function sessionJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://mini-agent.dev/schemas/session.schema.json',
    title: 'mini-agent session file (JSONL): the header, then one entry per line',
    $defs: { header: JSON.parse(JSON.stringify(SessionHeaderSchema)), entry: JSON.parse(JSON.stringify(SessionEntrySchema)) },
  };
}
