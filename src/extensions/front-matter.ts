// Front matter of Markdown files (skills, prompt templates): a YAML block between `---` lines at
// the very start, parsed with the `yaml` package. Pure: text in, fields out; a broken block is
// an error message naming the problem, never an exception. The `yaml` package (~260 KB bundled)
// is imported only when a file has such a block, so that runs without skills or prompt templates
// never load it (issue 14). A dynamic import, not a require: the bundler keeps it resolvable.
import { isPlainObject } from '../core/types.js';

export interface FrontMatter {
  /** The fields (empty when the file has no front matter). */
  data: Record<string, unknown>;
  /** The text after the front matter. */
  body: string;
  /** Why the front matter could not be read (then `data` is empty and `body` is the whole text). */
  error?: string;
}

const BLOCK = /^\ufeff?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

export async function parseFrontMatter(text: string): Promise<FrontMatter> {
  const m = BLOCK.exec(text);
  if (!m) {
    if (/^\ufeff?---[ \t]*\r?\n/.test(text)) return { data: {}, body: text, error: 'the front matter has no closing --- line' };
    return { data: {}, body: text };
  }
  const body = text.slice(m[0].length);
  const parse = await yamlParser();
  let data: unknown;
  try {
    data = parse(m[1] ?? '') ?? {};
  } catch (err) {
    return { data: {}, body: text, error: `the front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}` };
  }
  if (!isPlainObject(data)) return { data: {}, body: text, error: 'the front matter must be a mapping of fields (name: value)' };
  return { data, body };
}

/** yaml is CommonJS: Node's import gives its exports by name, a bundle's (esbuild) as `default`. */
async function yamlParser(): Promise<(source: string) => unknown> {
  const mod = (await import('yaml')) as typeof import('yaml') & { default?: typeof import('yaml') };
  return typeof mod.parse === 'function' ? mod.parse : mod.default!.parse;
}
