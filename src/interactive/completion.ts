// Tab completion in the interactive editor (issue 24 §2): slash commands (and prompt templates,
// skills), their arguments by kind (sessions, entries and labels, models, thinking levels, file
// paths), and file paths anywhere else (`@path` too). Pure but for pathCandidates, which lists a folder.
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ArgKind } from './commands.js';

export interface CompletionSources {
  /** The commands: built-in ones, prompt templates and skills, by name without the "/". */
  commands: readonly { name: string; help: string; arg?: ArgKind }[];
  /** The values an argument of this kind can take (sessions, entries, models, levels). */
  values(kind: ArgKind): readonly string[];
  /** The paths that complete a path prefix (folders end with "/"). */
  paths(prefix: string): readonly string[];
}

/** What Tab can put in place of the last `replace` characters before the cursor. */
export interface Completion {
  replace: number;
  candidates: string[];
}

const ARG_VALUES: ReadonlySet<ArgKind> = new Set(['session', 'entry', 'model', 'thinking']);

/** The completion of the text before the cursor (`before`, the cursor's line), or null when nothing completes it. */
export function completeAt(before: string, src: CompletionSources): Completion | null {
  const name = /^\s*\/(\S*)$/.exec(before);
  if (name) {
    const typed = name[1].toLowerCase();
    const candidates = unique(src.commands.filter((c) => c.name.toLowerCase().startsWith(typed)).map((c) => '/' + c.name));
    return candidates.length ? { replace: name[1].length + 1, candidates } : null;
  }
  const token = /(\S*)$/.exec(before)![1];
  const command = /^\s*\/(\S+)\s+/.exec(before);
  const kind = command ? src.commands.find((c) => c.name.toLowerCase() === command[1].toLowerCase())?.arg : undefined;
  if (kind && ARG_VALUES.has(kind)) {
    const args = before.slice(command![0].length);
    if (kind === 'entry' && /\s/.test(args.trimEnd()) && command![1] === 'label') return null; // /label ENTRY NAME: the name is free text
    const candidates = unique(src.values(kind).filter((v) => v.toLowerCase().startsWith(token.toLowerCase())));
    return candidates.length ? { replace: token.length, candidates } : null;
  }
  const at = token.startsWith('@') ? '@' : '';
  const prefix = token.slice(at.length);
  const candidates = src.paths(prefix).map((p) => at + p);
  return candidates.length ? { replace: token.length, candidates } : null;
}

/** The longest start the candidates share. */
export function commonPrefix(candidates: readonly string[]): string {
  if (candidates.length === 0) return '';
  let out = candidates[0];
  for (const c of candidates) while (!c.startsWith(out)) out = out.slice(0, -1);
  return out;
}

/** The files and folders (with a final "/") whose path starts with `prefix`, relative to `cwd` as typed; .git is left out, dotfiles unless asked for. */
export function pathCandidates(cwd: string, prefix: string, max = 200): string[] {
  const slash = prefix.lastIndexOf('/');
  const dir = slash >= 0 ? prefix.slice(0, slash + 1) : '';
  const base = prefix.slice(dir.length);
  let entries;
  try {
    entries = readdirSync(resolve(cwd, dir === '' ? '.' : dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.name.startsWith(base) && e.name !== '.git' && (base.startsWith('.') || !e.name.startsWith('.')))
    .map((e) => dir + e.name + (e.isDirectory() ? '/' : ''))
    .sort()
    .slice(0, max);
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}
