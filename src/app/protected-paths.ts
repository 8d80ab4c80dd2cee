// The paths the agent may not change, because they decide what it may do: the workspace's
// `.mini-agent/` and any `.git` (its hooks and config run code), the session file of the run, the
// state home, and every config, hook, skill, prompt template and --mcp-config file mini-agent
// loads. `protectedEntries` and `matchProtected` are pure; `resolveProtected` and `physicalPath`
// are the edge that asks the filesystem, so that symbolic links and `..` lead to the same real
// paths the tools use.
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import { inside } from '../tools/workspace.js';

/** Folders whose name protects everything under them, wherever they sit inside a workspace root. */
export const PROTECTED_NAMES: Readonly<Record<string, string>> = {
  '.git': 'git metadata: git runs its hooks and obeys its config',
  '.mini-agent': "mini-agent's workspace settings: their rules, hooks, skills and prompts decide what the agent may do",
};

/** One protected file or folder, and why. */
export interface ProtectedEntry {
  path: string;
  /** A folder protects everything under it. */
  folder: boolean;
  why: string;
}

/** What mini-agent loads and keeps, for one run: the inputs of the protected list. */
export interface ProtectedSources {
  /** The workspace, and the --allow-path folders: `.git` and `.mini-agent` are protected anywhere inside them. */
  roots: readonly string[];
  /** The state home ($MINI_AGENT_HOME). */
  home: string;
  /** The session file of the run (null: --no-session). */
  sessionFile: string | null;
  /** Config files mini-agent reads, whether they exist or not (the user's, the project's). */
  configFiles: readonly string[];
  /** --mcp-config files. */
  mcpConfigFiles: readonly string[];
  /** Hook modules listed in any config (loaded or not), with the config that lists them. */
  hooks: readonly { path: string; source: string }[];
  /** Skill folders. */
  skills: readonly { name: string; dir: string }[];
  /** Prompt template files. */
  promptTemplates: readonly { name: string; file: string }[];
}

export interface ProtectedList {
  roots: string[];
  entries: ProtectedEntry[];
}

/** The protected entries, as given (not resolved). Pure. */
export function protectedEntries(s: ProtectedSources): ProtectedEntry[] {
  return [
    { path: s.home, folder: true, why: `mini-agent's state home (${s.home}): the user's config, trusted workspaces and sessions` },
    ...(s.sessionFile ? [{ path: s.sessionFile, folder: false, why: 'the session file of this run: a resume reads its entries back, permission grants included' }] : []),
    ...s.configFiles.map((path) => ({ path, folder: false, why: 'a config file mini-agent loads: its rules decide what the agent may do' })),
    ...s.mcpConfigFiles.map((path) => ({ path, folder: false, why: 'an --mcp-config file: it names the programs that run as MCP servers' })),
    ...s.hooks.map((h) => ({ path: h.path, folder: false, why: `a hook module mini-agent loads (listed in ${h.source}): it runs around every tool call` })),
    ...s.skills.map((k) => ({ path: k.dir, folder: true, why: `the folder of the skill "${k.name}", whose instructions the agent follows` })),
    ...s.promptTemplates.map((t) => ({ path: t.file, folder: false, why: `the prompt template "/${t.name}"` })),
  ];
}

/** Why a real path is protected, or undefined. Pure: `real` and the list are already resolved. */
export function matchProtected(real: string, list: ProtectedList): string | undefined {
  for (const root of list.roots) {
    if (!inside(root, real)) continue;
    const parts = relative(root, real).split(sep);
    for (const part of parts) {
      // Case-insensitively: on macOS and Windows `.GIT` is `.git`.
      const why = PROTECTED_NAMES[part.toLowerCase()];
      if (why !== undefined) return why;
    }
  }
  for (const e of list.entries) {
    if (real === e.path || (e.folder && inside(e.path, real))) return e.why;
  }
  return undefined;
}

/** The protected list with every path resolved as the kernel would (the edge). */
export function resolveProtected(s: ProtectedSources): ProtectedList {
  return {
    roots: [...new Set(s.roots.map((r) => physicalPath('/', r)))],
    entries: protectedEntries(s).map((e) => ({ ...e, path: physicalPath('/', e.path) })),
  };
}

const MAX_LINKS = 40;

/**
 * The path the kernel opens for `p` (relative to `from`): each component in turn, a symbolic link
 * replaced by its target (a dangling one too: a write would create its target), `..` taken after
 * the links before it, as bash's `>` does. Components that do not exist stay as written.
 */
export function physicalPath(from: string, p: string): string {
  let cur = isAbsolute(p) ? '/' : from === '/' ? '/' : physicalPath('/', from);
  const queue = p.split(/[/\\]+/);
  let links = 0;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      cur = dirname(cur);
      continue;
    }
    const next = join(cur, part);
    let target: string | undefined;
    try {
      target = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : undefined;
    } catch {
      target = undefined; // missing or unreadable: taken as written
    }
    if (target === undefined || ++links > MAX_LINKS) {
      cur = next;
      continue;
    }
    queue.unshift(...target.split(/[/\\]+/));
    if (isAbsolute(target)) cur = '/';
  }
  return cur;
}

const MAX_MATCHES = 1000;

/**
 * The existing files a glob (`.git/conf*`, quoted characters escaped) names from `from`, as bash
 * would expand it, dot files included (more than bash matches by default: the safe side).
 */
export function expandGlob(from: string, pattern: string): string[] {
  let current = [isAbsolute(pattern) ? '/' : from];
  for (const segment of pattern.split('/')) {
    if (segment === '' || segment === '.') continue;
    const next: string[] = [];
    const glob = /(^|[^\\])[*?[]/.test(segment);
    for (const dir of current) {
      if (!glob) next.push(join(dir, segment.replace(/\\(.)/g, '$1')));
      else {
        const match = picomatch(segment, { dot: true });
        let names: string[] = [];
        try {
          names = readdirSync(dir);
        } catch {
          names = [];
        }
        for (const n of names) if (match(n)) next.push(join(dir, n));
      }
      if (next.length > MAX_MATCHES) break;
    }
    current = next.slice(0, MAX_MATCHES);
  }
  return current;
}
