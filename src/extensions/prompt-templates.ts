// Prompt templates: Markdown files in the workspace's `.mini-agent/prompts/` or in
// `$MINI_AGENT_HOME/prompts/`, invoked as `/name args`. The file's name (without `.md`) is the
// command; an optional front matter gives a `description`. Arguments fill `$1`…`$n` (positional,
// quotes group words), `$@` and `$ARGUMENTS` (all of them, as typed). Expansion is pure; loading
// reads the two folders, the workspace's template winning over the user's of the same name.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseFrontMatter } from './front-matter.js';

export interface PromptTemplate {
  name: string;
  description: string;
  body: string;
  file: string;
  source: 'workspace' | 'user';
}

/** A template's name: what can follow the `/` (letters, digits, `-`, `_`, `.`, `:`). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** Arguments as a shell would group them for `$1`…`$n`: split at whitespace, "double" or 'single' quotes keep spaces. */
export function splitArguments(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) out.push(current);
      current = '';
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (started) out.push(current);
  return out;
}

/**
 * The template's body with its placeholders filled: `$ARGUMENTS` and `$@` by all the arguments as
 * typed (trimmed), `$N` by the Nth (empty when there is none). Text the arguments bring in is not
 * expanded again, so an argument holding `$1` stays `$1`.
 */
export function expandTemplate(body: string, args: string): string {
  const all = args.trim();
  const positional = splitArguments(all);
  return body.replace(/\$(ARGUMENTS\b|@|\d+)/g, (_, what: string) => (what === 'ARGUMENTS' || what === '@' ? all : (positional[Number(what) - 1] ?? '')));
}

/** `/name args` → the template and its arguments, when `line` invokes one of `templates`. */
export function findTemplateCall(line: string, templates: readonly PromptTemplate[]): { template: PromptTemplate; args: string } | undefined {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!m) return undefined;
  const template = templates.find((t) => t.name === m[1]);
  return template ? { template, args: m[2] ?? '' } : undefined;
}

async function readFolder(dir: string, source: PromptTemplate['source'], warnings: string[]): Promise<PromptTemplate[]> {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.md'))
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`prompt templates in ${dir} were not read: ${(err as Error).message}`);
    return [];
  }
  const out: PromptTemplate[] = [];
  for (const n of names) {
    const file = join(dir, n);
    const name = basename(n, '.md');
    if (!NAME.test(name)) {
      warnings.push(`prompt template ${file} was skipped: its name must start with a letter or digit and hold only letters, digits, . _ : -`);
      continue;
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      warnings.push(`prompt template ${file} was not read: ${(err as Error).message}`);
      continue;
    }
    const fm = await parseFrontMatter(text);
    if (fm.error) warnings.push(`prompt template ${file}: ${fm.error}; the whole file is used as its text`);
    const d = fm.data.description;
    const firstLine = fm.body.trim().split('\n')[0] ?? '';
    out.push({ name, description: typeof d === 'string' && d.trim() ? d.trim() : firstLine.slice(0, 80), body: fm.body, file, source });
  }
  return out;
}

/** The templates of a workspace and of the user's home; a workspace template hides the user's of the same name. */
export async function loadPromptTemplates(opts: { cwd: string; home: string }): Promise<{ templates: PromptTemplate[]; warnings: string[] }> {
  const warnings: string[] = [];
  const workspace = await readFolder(join(opts.cwd, '.mini-agent', 'prompts'), 'workspace', warnings);
  const user = await readFolder(join(opts.home, 'prompts'), 'user', warnings);
  const taken = new Set(workspace.map((t) => t.name));
  return { templates: [...workspace, ...user.filter((t) => !taken.has(t.name))].sort((a, b) => a.name.localeCompare(b.name)), warnings };
}
