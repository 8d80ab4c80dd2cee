// Skills: `SKILL.md` files with front matter (`name`, `description`) under the workspace's
// `.mini-agent/skills/NAME/` or `$MINI_AGENT_HOME/skills/NAME/`. Progressive disclosure: only the
// names and descriptions go into the system prompt; the model reads a skill's file with read_file
// when a task calls for it, or the user inlines it (`/skill:name args`, `--skill name`).
//
// Rules (the Agent Skills convention): `name` is lowercase letters, digits and single hyphens
// (no hyphen first or last), at most 64 characters; `description` is a non-empty string of at
// most 1024. A skill that breaks them is skipped with a warning naming its file and the problem,
// and the rest load. A name that differs from its folder's is a warning, and the skill loads
// under the front matter's name (the name is what the model and the user type). A workspace
// skill hides the user's skill of the same name without a warning: a project customising a
// personal skill is the expected case, as with prompt templates. Two skills of the same name in
// one place: the first folder (in name order) wins, with a warning.
//
// Loading reads one directory listing per place and one small file per skill (no globbing,
// no recursion): 200 skills load in a few milliseconds.
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Message } from '../core/types.js';
import { inside } from '../tools/workspace.js';
import { parseFrontMatter } from './front-matter.js';

export interface Skill {
  name: string;
  description: string;
  /** Absolute path of its SKILL.md. */
  file: string;
  /** Its folder (files the skill mentions are relative to it). */
  dir: string;
  source: 'workspace' | 'user';
  /** The file's text without the front matter. */
  body: string;
}

export const SKILL_FILE = 'SKILL.md';
export const MAX_SKILL_NAME = 64;
export const MAX_SKILL_DESCRIPTION = 1024;
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Why a skill's front matter is not acceptable, or undefined when it is. Pure. */
export function checkSkillFields(data: Record<string, unknown>): string | undefined {
  const { name, description } = data;
  if (name === undefined) return 'the front matter has no name';
  if (typeof name !== 'string') return 'its name must be a string';
  if (name.length > MAX_SKILL_NAME) return `its name is ${name.length} characters long; at most ${MAX_SKILL_NAME} are allowed`;
  if (!NAME.test(name)) return `its name "${name}" must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen`;
  if (description === undefined) return 'the front matter has no description';
  if (typeof description !== 'string' || description.trim() === '') return 'its description must be a non-empty string';
  if (description.length > MAX_SKILL_DESCRIPTION) return `its description is ${description.length} characters long; at most ${MAX_SKILL_DESCRIPTION} are allowed`;
  return undefined;
}

async function readPlace(root: string, source: Skill['source'], warnings: string[]): Promise<Skill[]> {
  let entries: string[];
  try {
    entries = readdirSync(root).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') warnings.push(`skills in ${root} were not read: ${(err as Error).message}`);
    return [];
  }
  const out: Skill[] = [];
  const byName = new Map<string, Skill>();
  for (const folder of entries) {
    if (folder.startsWith('.')) continue;
    const dir = join(root, folder);
    const file = join(dir, SKILL_FILE);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Not a folder, or a folder without SKILL.md (shared scripts, say): not a skill, nothing to say.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') warnings.push(`skill ${file} was not read: ${(err as Error).message}`);
      continue;
    }
    const fm = await parseFrontMatter(text);
    const problem = fm.error ?? (fm.body === text ? 'it has no front matter (a --- block with name and description)' : checkSkillFields(fm.data));
    if (problem) {
      warnings.push(`skill ${file} was skipped: ${problem}`);
      continue;
    }
    const name = fm.data.name as string;
    const description = (fm.data.description as string).trim();
    if (name !== folder) warnings.push(`skill ${file}: its name "${name}" differs from its folder "${folder}"; it is loaded as "${name}"`);
    const first = byName.get(name);
    if (first) {
      warnings.push(`skill ${file} was skipped: ${first.file} already has the name "${name}"`);
      continue;
    }
    const skill: Skill = { name, description, file, dir, source, body: fm.body };
    byName.set(name, skill);
    out.push(skill);
  }
  return out;
}

/** The skills of a workspace and of the user's home, sorted by name; a workspace skill hides the user's of the same name. */
export async function loadSkills(opts: { cwd: string; home: string }): Promise<{ skills: Skill[]; warnings: string[] }> {
  const warnings: string[] = [];
  const workspace = await readPlace(join(resolve(opts.cwd), '.mini-agent', 'skills'), 'workspace', warnings);
  const user = await readPlace(join(opts.home, 'skills'), 'user', warnings);
  const taken = new Set(workspace.map((s) => s.name));
  const skills = [...workspace, ...user.filter((s) => !taken.has(s.name))];
  return { skills: skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), warnings };
}

/** Where the model finds a skill's file: relative to the workspace when inside it, else absolute. */
export function skillPath(skill: Skill, cwd: string): string {
  const root = resolve(cwd);
  return inside(root, skill.file) ? relative(root, skill.file) : skill.file;
}

/** The system prompt's section: what skills are and one line per skill; '' when there are none. */
export function skillsSection(skills: readonly Skill[], opts: { cwd: string; inConversation: ReadonlySet<string> }): string {
  if (skills.length === 0) return '';
  const lines = skills.map((s) => {
    const description = s.description.replace(/\s+/g, ' ');
    const where = `path: ${skillPath(s, opts.cwd)}`;
    return opts.inConversation.has(s.name) ? `- ${s.name}: ${description} (${where}; already loaded: its instructions are already in the conversation; do not read it again)` : `- ${s.name}: ${description} (${where})`;
  });
  return [
    '# Skills',
    'Skills are instructions for particular tasks, each in a SKILL.md file; only their names and descriptions are listed here. ' +
      'When a task matches a skill, read the file with read_file before you follow one, then follow it. ' +
      "Paths the skill mentions are relative to its file's folder.",
    lines.join('\n'),
  ].join('\n\n');
}

/** `/skill:NAME args` → the skill and its arguments, when `line` invokes one of `skills`. */
export function findSkillCall(line: string, skills: readonly Skill[]): { skill: Skill; args: string } | undefined {
  const m = /^\/skill:(\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!m) return undefined;
  const skill = skills.find((s) => s.name === m[1]);
  return skill ? { skill, args: (m[2] ?? '').trim() } : undefined;
}

const FOLLOW = 'Follow the skill above (its file is already here; do not read it again).';

const attr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/\n/g, ' ');

/** The skill inlined in a user message, wrapped so the model knows it must follow it; the user's arguments after it. */
export function skillMessage(skill: Skill, args: string): string {
  const body = skill.body.replace(/^\s*\n/, '').trimEnd();
  const tail = args.trim() ? `\n\n${args.trim()}` : '';
  return `<skill name="${attr(skill.name)}" path="${attr(skill.file)}">\n${body}\n</skill>\n\n${FOLLOW}${tail}`;
}

const OPENING = /^<skill name="([a-z0-9-]+)" path="[^"\n]*">$/gm;

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * The names of `skills` already in `messages`: inlined (a user message holding skillMessage's
 * wrapper), or read (an assistant's read_file call whose `path` resolves, against `cwd`, to the
 * skill's file, unless its result was an error). After a compaction the projected messages no
 * longer hold them, so the model is told to read them again: that is intended.
 */
export function skillsInConversation(messages: readonly Message[], skills: readonly Skill[], cwd: string): Set<string> {
  const out = new Set<string>();
  if (skills.length === 0) return out;
  const names = new Set(skills.map((s) => s.name));
  const byFile = new Map<string, string>();
  for (const s of skills) {
    byFile.set(resolve(s.file), s.name);
    byFile.set(realOr(s.file), s.name);
  }
  const failed = new Set<string>();
  for (const m of messages) if (m.role === 'toolResult' && m.isError) failed.add(m.toolCallId);
  const root = resolve(cwd);
  for (const m of messages) {
    if (m.role === 'user') {
      for (const part of m.content) {
        if (part.type !== 'text' || !part.text.includes(FOLLOW)) continue;
        for (const hit of part.text.matchAll(OPENING)) if (names.has(hit[1])) out.add(hit[1]);
      }
    } else if (m.role === 'assistant') {
      for (const part of m.content) {
        if (part.type !== 'toolCall' || part.name !== 'read_file' || failed.has(part.id)) continue;
        const path = part.arguments.path;
        if (typeof path !== 'string' || path === '') continue;
        const abs = resolve(root, path);
        const name = byFile.get(abs) ?? byFile.get(realOr(abs));
        if (name) out.add(name);
      }
    }
  }
  return out;
}
