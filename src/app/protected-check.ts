// The guard in front of the permission gate: a file tool that would change a protected path
// (protected-paths.ts), or a bash command whose redirection or `tee` visibly writes one, is
// refused before any rule, mode, grant or --yes is consulted. The only way through is the
// user's own --approve for exactly that call:
// - a file tool: `TOOL(PATH)` with the tool's own name (no `*`, no `edit_*`) and PATH naming that
//   file literally (relative to the workspace, or absolute; glob characters `* ? [ ] { } ( )`
//   only when escaped with a backslash), e.g. `--approve 'write_file(.mini-agent/config.json)'`;
// - bash: `bash(COMMAND)` whose COMMAND is the command line itself, trimmed, with its `*` and `?`
//   escaped (`\*`, `\?`): the exact-line rule of permissions.ts, so the policy covers it too.
// Rules in config files and "always" grants stored in the session never count: the agent can
// write those. An approved call then goes through the gate as usual (deny rules still hold).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ToolCall } from '../core/types.js';
import { exactCommand, exactCommandPattern, type PermissionRule } from '../tools/permissions.js';
import type { PermissionCheck, PermissionContext, PermissionDecision } from '../tools/registry.js';
import { writeTargets } from '../tools/redirections.js';
import type { ToolDefinition } from '../tools/tool.js';
import { displayPath } from '../tools/workspace.js';
import { expandGlob, matchProtected, physicalPath, resolveProtected, type ProtectedSources } from './protected-paths.js';

export const PROTECTED_SOURCE = 'protected path';

export interface ProtectionOptions {
  /** What is protected now (asked at each call: the session file changes with the session). */
  sources: () => ProtectedSources;
  /** The user's --approve rules (never config rules or session grants). */
  approvals: () => readonly PermissionRule[];
  /** The HOME bash commands get: what `~` and `$HOME` in a redirection target mean (default: the OS's). */
  userHome?: string;
}

/** What one agent loads and keeps: the protected list's inputs, read afresh at each call. */
export function agentProtectedSources(a: {
  cwd: string;
  /** The agent's home folder (its config, sessions and grant key are protected). */
  home: string;
  config: { allowPaths: readonly string[]; hooks: readonly { path: string; source: string }[] };
  sessionFile: string | null;
  mcpConfig?: readonly string[];
  extensions: { skills: readonly { name: string; dir: string }[]; promptTemplates: readonly { name: string; file: string }[] };
}): ProtectedSources {
  const { home } = a;
  return {
    roots: [a.cwd, ...a.config.allowPaths],
    home,
    sessionFile: a.sessionFile,
    configFiles: [join(home, 'config.json'), join(a.cwd, '.mini-agent', 'config.json')],
    mcpConfigFiles: (a.mcpConfig ?? []).map((f) => resolve(a.cwd, f)),
    hooks: a.config.hooks,
    skills: a.extensions.skills,
    promptTemplates: a.extensions.promptTemplates,
  };
}

/** A protected path a call would change, as the model sees it, and why it is protected. */
interface Hit {
  shown: string;
  why: string;
  via?: string;
}

/** The gate with the guard in front: refuses a write to a protected path, else asks the gate. */
export function guardProtected(gate: PermissionCheck, opts: ProtectionOptions): PermissionCheck {
  return async (call, tool, ctx) => {
    const verdict = protectedVerdict(call, tool, ctx, opts);
    if (verdict === undefined) return gate(call, tool, ctx);
    if (!verdict.allow) return verdict;
    const decided = await gate(call, tool, ctx);
    if (!decided.allow) return decided;
    return { ...decided, rule: verdict.rule ?? decided.rule, source: `${verdict.source} (protected path); ${decided.source ?? 'check'}`, reason: `${verdict.reason}; ${decided.reason ?? 'allowed'}` };
  };
}

/** undefined: nothing protected is touched; allow false: refused; allow true: approved by --approve (the gate decides next). */
export function protectedVerdict(call: ToolCall, tool: ToolDefinition, ctx: PermissionContext, opts: ProtectionOptions): PermissionDecision | undefined {
  const command = tool.risk === 'execute' && typeof call.arguments.command === 'string' ? call.arguments.command : undefined;
  if (command === undefined && (tool.risk !== 'write' || !tool.paths)) return undefined;
  if (command !== undefined) return bashVerdict(call, command, ctx, opts);
  const list = resolveProtected(opts.sources());
  let real: string[];
  try {
    real = tool.paths!(call.arguments as never, ctx);
  } catch {
    return undefined; // outside the boundary: the tool refuses it itself
  }
  const hits: (Hit & { real: string })[] = [];
  for (const p of real) {
    const why = matchProtected(p, list);
    if (why !== undefined) hits.push({ real: p, shown: displayPath(ctx, p), why });
  }
  if (hits.length === 0) return undefined;
  const rules = opts.approvals().filter((r) => r.tool === call.name && r.pattern !== undefined);
  const approving = hits.map((h) => rules.find((r) => names(r.pattern!, h.real, ctx.cwd)));
  const unapproved = hits.filter((_, i) => approving[i] === undefined);
  if (unapproved.length > 0) return refusal(unapproved, unapproved.map((h) => `--approve '${shellQuoted(`${call.name}(${escapeGlob(h.shown)})`)}'`).join(' and '));
  const text = [...new Set(approving.map((r) => r!.text))].join(' + ');
  return { allow: true, rule: text, source: 'flag --approve', reason: `${hits.map((h) => h.shown).join(', ')}: a protected path, approved by ${text}` };
}

function bashVerdict(call: ToolCall, command: string, ctx: PermissionContext, opts: ProtectionOptions): PermissionDecision | undefined {
  const targets = writeTargets(command, { vars: { HOME: opts.userHome ?? homedir() } });
  if (targets.length === 0) return undefined;
  const list = resolveProtected(opts.sources());
  const hits: Hit[] = [];
  const seen = new Set<string>();
  const check = (real: string, via: string) => {
    const why = matchProtected(real, list);
    if (why === undefined || seen.has(real)) return;
    seen.add(real);
    hits.push({ shown: displayPath(ctx, real), why, via });
  };
  for (const t of targets) {
    const via = t.via === 'tee' ? 'tee' : `the redirection ${t.via}`;
    if (!t.dynamic) {
      check(physicalPath(ctx.cwd, t.text), via);
      if (t.glob) for (const match of expandGlob(ctx.cwd, t.pattern)) check(physicalPath('/', match), via);
    } else if (t.prefix.includes('/')) {
      // `> .git/hooks/$NAME`: the file is unknown, its folder is not.
      check(physicalPath(ctx.cwd, t.prefix.slice(0, t.prefix.lastIndexOf('/')) || '/'), via);
    }
  }
  if (hits.length === 0) return undefined;
  const line = command.trim();
  const approved = opts.approvals().find((r) => r.tool === call.name && r.pattern !== undefined && exactCommand(r.pattern) === line);
  if (approved) return { allow: true, rule: approved.text, source: 'flag --approve', reason: `the command writes to ${hits.map((h) => h.shown).join(', ')}, a protected path, approved by ${approved.text}` };
  return refusal(hits, `--approve '${shellQuoted(`${call.name}(${exactCommandPattern(line)})`)}'`, true);
}

function refusal(hits: Hit[], fix: string, bash = false): PermissionDecision {
  const what = hits.map((h) => `${h.shown}${h.via ? ` (through ${h.via})` : ''} is a protected path (${h.why})`).join('; ');
  const how = `only the user can allow this ${bash ? 'command' : 'write'}, with ${fix}`;
  return {
    allow: false,
    rule: null,
    source: PROTECTED_SOURCE,
    reason: `${what}. The agent may not change it, whatever the permission rules, the mode or --yes say; ${how}. ` + `Do not try another way (another tool, a link, a shell command); tell the user what you wanted to change and why.`,
  };
}

/** Whether an --approve pattern names this real path literally. */
function names(pattern: string, real: string, cwd: string): boolean {
  if (/(^|[^\\])[*?[\]{}()]/.test(pattern)) return false; // a glob: it could stand for more than this path
  return physicalPath(cwd, pattern.replace(/\\(.)/g, '$1')) === real;
}

function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()]/g, '\\$&');
}

/** The text inside single quotes on a shell's command line. */
function shellQuoted(text: string): string {
  return text.replace(/'/g, `'\\''`);
}
