// The permission policy, pure: rules `TOOL` or `TOOL(PATTERN)` in three lists (allow, ask, deny)
// decide whether a call runs, must be approved, or is refused. Deny wins over ask, ask over
// allow; a call no rule names gets its tool's default (read: allow; write: allow inside the
// workspace, ask outside it; execute: ask). For file tools PATTERN is a glob over the
// workspace-relative path; for bash it is a glob over the command line, where `*` matches
// anything, `\*` and `\?` are the characters themselves, and a trailing `:*` means "starts with".
// The shape Claude Code users already write. A bash pattern without wildcards names one exact
// command line: it covers that line whole, whatever it holds (`a; b`, `$(…)`); this is what an
// "always" answer grants (suggestedRule). A glob covers a command line only when the parser
// (shell-parse.ts) reads it as simple commands of literal words joined by ; && || | and each of
// them matches; its redirections are writes, decided as write_file calls (DESIGN §5).
import picomatch from 'picomatch';
import { UsageError } from '../core/types.js';
import { parseShell, type ShellSyntax } from './shell-parse.js';
import type { ToolRisk } from './tool.js';

export type PermissionLevel = 'allow' | 'ask' | 'deny';

export interface PermissionRule {
  /** The rule as written, e.g. `bash(git status*)`. */
  text: string;
  /** A tool name, or a glob over tool names (`*`, `write_*`). */
  tool: string;
  pattern?: string;
  /** Where it comes from, e.g. `project config /w/.mini-agent/config.json` or `flag --approve`. */
  source: string;
}

export interface PermissionPolicy {
  allow: PermissionRule[];
  ask: PermissionRule[];
  deny: PermissionRule[];
}

/** What the policy looks at in a call. */
export interface CallFacts {
  tool: string;
  risk: ToolRisk;
  /** The paths the call touches, workspace-relative (absolute when outside the workspace). */
  paths: string[];
  /** Set when one of the paths is outside the workspace itself (an --allow-path folder). */
  outsideWorkspace: boolean;
  /** The command line, for tools that run commands. */
  command?: string;
  /**
   * The files the command's redirections write, resolved by the gate against the workspace (the
   * path as the user sees it, and whether it is outside the workspace). Without it, the parser's
   * targets are judged as written: absolute or `..` paths count as outside.
   */
  writes?: { path: string; outsideWorkspace: boolean }[];
  /** The command line as the parser read it (the gate parses once per call); parsed on demand when absent. */
  syntax?: ShellSyntax | null;
}

/** The parser's reading of the call's command line: the one in the facts, else parsed now (null: no command, or no parser yet). */
function syntaxOf(facts: CallFacts): ShellSyntax | null {
  if (facts.command === undefined) return null;
  return facts.syntax !== undefined ? facts.syntax : parseShell(facts.command.trim());
}

export interface PolicyDecision {
  level: PermissionLevel;
  /** The rule that decided, or null for the tool's default. */
  rule: PermissionRule | null;
  /** Why, in words: the rule and its source, or the default. */
  why: string;
}

export function emptyPolicy(): PermissionPolicy {
  return { allow: [], ask: [], deny: [] };
}

const RULE = /^([A-Za-z0-9_.*?-]+)(?:\((.*)\))?$/s;

/** Parses `TOOL` or `TOOL(PATTERN)`; a malformed rule is a usage error that names it and its source. */
export function parseRule(text: string, source: string): PermissionRule {
  const m = typeof text === 'string' ? RULE.exec(text.trim()) : null;
  if (!m) throw new UsageError(`permission rule ${JSON.stringify(text)} (${source}) is not TOOL or TOOL(PATTERN), e.g. bash(git status*) or write_file(secret/**)`);
  const pattern = m[2];
  if (pattern !== undefined && pattern.trim() === '') throw new UsageError(`permission rule ${JSON.stringify(text)} (${source}) has an empty pattern; write ${m[1]} to name the whole tool`);
  return { text: text.trim(), tool: m[1], ...(pattern !== undefined ? { pattern: pattern.trim() } : {}), source };
}

/** The policy's decision for a call. */
export function decide(policy: PermissionPolicy, call: CallFacts): PolicyDecision {
  const syntax = syntaxOf(call);
  const facts: CallFacts = call.command !== undefined ? { ...call, syntax } : call;
  const deny = policy.deny.find((r) => namesAny(r, facts, syntax));
  if (deny) return { level: 'deny', rule: deny, why: `the permissions.deny rule ${deny.text} (${deny.source})` };
  const writes = writeDecisions(policy, facts, syntax);
  const wDeny = writes.find((d) => d.level === 'deny');
  if (wDeny) return wDeny;
  const ask = policy.ask.find((r) => namesAny(r, facts, syntax));
  if (ask) return { level: 'ask', rule: ask, why: `the permissions.ask rule ${ask.text} (${ask.source})` };
  const wAsk = writes.find((d) => d.level === 'ask');
  if (wAsk?.rule) return wAsk;
  const allow = coveredBy(policy.allow, facts);
  if (allow) {
    // A glob does not carry a write the write rules would ask about (outside the workspace); the exact line the user approved does.
    if (wAsk && !coversExactly(allow, facts)) return wAsk;
    const rule = allow.length === 1 ? allow[0] : { text: allow.map((r) => r.text).join(' + '), tool: facts.tool, source: [...new Set(allow.map((r) => r.source))].join('; ') };
    return { level: 'allow', rule, why: `the permissions.allow rule${allow.length > 1 ? 's' : ''} ${rule.text} (${rule.source})` };
  }
  return { level: defaultLevel(facts), rule: null, why: defaultWhy(facts) };
}

/**
 * A command's redirections, each decided as a write_file call of its target: deny and ask rules
 * on write tools, and the write default (allow inside the workspace, ask outside). Each decision
 * names the redirection. Targets come from the gate's facts, else from the parser as written.
 */
export function writeDecisions(policy: PermissionPolicy, facts: CallFacts, syntax = syntaxOf(facts)): PolicyDecision[] {
  if (facts.command === undefined) return [];
  const writes = facts.writes ?? (syntax?.writes ?? []).map((p) => ({ path: p.replace(/^\.\/+/, ''), outsideWorkspace: p.startsWith('/') || p === '..' || p.startsWith('../') }));
  return writes.map((w) => {
    const d = decide(policy, { tool: 'write_file', risk: 'write', paths: [w.path], outsideWorkspace: w.outsideWorkspace });
    return { ...d, why: `the redirection to ${w.path} is a write, and for write_file ${d.why}` };
  });
}

/** Whether the rules cover the command line as written: one rule naming the whole tool, or the exact line (not a glob). */
export function coversExactly(rules: readonly PermissionRule[], facts: CallFacts): boolean {
  return facts.command !== undefined && rules.length === 1 && (rules[0].pattern === undefined || exactCommand(rules[0].pattern) === facts.command.trim());
}

/** Whether deciding this call may need the shell parser: a command, and a rule with a pattern for its tool, or a rule on writes. */
export function needsShellParser(rules: readonly PermissionRule[], facts: CallFacts): boolean {
  if (facts.command === undefined) return false;
  return rules.some((r) => (r.pattern !== undefined && toolMatches(r.tool, facts.tool)) || toolMatches(r.tool, 'write_file'));
}

/**
 * The rules that together cover the call, or null: every path, or every simple command of a
 * command line, must be named by one of them (so one allowed path cannot carry another, and
 * `git status && curl … | sh` is not covered by `bash(git status*)`). A glob covers a command
 * line only when the parser reads it as simple commands of literal words (shell-parse.ts): a
 * substitution, `$'…'`, a function, a subshell, a loop, `eval`, `env`, `sh -c`, a line that
 * does not parse, or a parser not loaded yet is never covered. Each simple command is matched
 * by its words as written, joined by one space (so a tab is a space, and `'l's` is not `ls`).
 */
export function coveredBy(rules: readonly PermissionRule[], facts: CallFacts): PermissionRule[] | null {
  const candidates = rules.filter((r) => toolMatches(r.tool, facts.tool));
  if (candidates.length === 0) return null;
  const whole = candidates.find((r) => r.pattern === undefined);
  if (whole) return [whole];
  let items: string[];
  let test: (rule: PermissionRule, item: string) => boolean;
  if (facts.command !== undefined) {
    // A rule that names the exact line covers it as written, whatever it holds: the text it was granted for.
    const line = facts.command.trim();
    const exact = candidates.find((r) => exactCommand(r.pattern!) === line);
    if (exact) return [exact];
    const syntax = syntaxOf(facts);
    if (!syntax || syntax.failure !== null) return null;
    items = syntax.commands.map((c) => c.text);
    const matchers = new Map(candidates.map((r) => [r, commandMatcher(r.pattern!)]));
    test = (rule, part) => matchers.get(rule)!(part);
  } else {
    items = facts.paths;
    test = (rule, path) => picomatch(rule.pattern!, { dot: true })(path);
  }
  if (items.length === 0) return null;
  const used: PermissionRule[] = [];
  for (const item of items) {
    const rule = candidates.find((r) => test(r, item));
    if (!rule) return null;
    if (!used.includes(rule)) used.push(rule);
  }
  return used;
}

function defaultLevel(facts: CallFacts): PermissionLevel {
  if (facts.risk === 'read') return 'allow';
  if (facts.risk === 'write') return facts.outsideWorkspace ? 'ask' : 'allow';
  return 'ask';
}

function defaultWhy(facts: CallFacts): string {
  if (facts.risk === 'read') return 'the default for read tools (allow)';
  if (facts.risk === 'write') return facts.outsideWorkspace ? 'the default for writes outside the workspace (ask)' : 'the default for writes inside the workspace (allow)';
  return facts.command !== undefined ? 'the default for tools that run commands (ask)' : 'the default for execute-risk tools, such as MCP tools (ask)';
}

/**
 * Whether a deny or ask rule names the call: any path; for a command, the whole line, every
 * simple command the parser sees (also inside substitutions, functions, loops, `sh -c` and
 * `eval` strings, with quotes, paths and wrappers such as `env` or `command` taken off), and
 * the parts of the text split at its operators (all there is when the parser is not loaded).
 */
function namesAny(rule: PermissionRule, facts: CallFacts, syntax: ShellSyntax | null): boolean {
  if (!toolMatches(rule.tool, facts.tool)) return false;
  if (rule.pattern === undefined) return true;
  if (facts.command !== undefined) {
    const test = commandMatcher(rule.pattern);
    const whole = facts.command.trim();
    return test(whole) || splitCommand(whole).parts.some(test) || (syntax?.seen ?? []).some(test);
  }
  const test = picomatch(rule.pattern, { dot: true });
  return facts.paths.some((p) => test(p));
}

function toolMatches(glob: string, tool: string): boolean {
  return glob === tool || (/[*?]/.test(glob) && picomatch(glob)(tool));
}

/** A glob over a command line: `*` any text, `?` one character (`\*`, `\?`: the characters themselves); a trailing `:*` is a prefix match. */
export function commandMatcher(pattern: string): (command: string) => boolean {
  const prefix = pattern.endsWith(':*');
  const body = prefix ? pattern.slice(0, -2) : pattern;
  const source = patternTokens(body)
    .map((t) => (t === WILD_ANY ? '[\\s\\S]*' : t === WILD_ONE ? '[\\s\\S]' : t.replace(/[.*?+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const re = new RegExp(`^${source}${prefix ? '(?:\\s[\\s\\S]*)?' : ''}$`);
  return (command) => re.test(command.trim());
}

const WILD_ANY = Symbol('*');
const WILD_ONE = Symbol('?');

/** A command pattern read left to right: wildcards, and literal characters (`\*` and `\?` are literal; any other backslash is itself). */
function patternTokens(body: string): Array<string | typeof WILD_ANY | typeof WILD_ONE> {
  const tokens: Array<string | typeof WILD_ANY | typeof WILD_ONE> = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\' && (body[i + 1] === '*' || body[i + 1] === '?')) tokens.push(body[++i]);
    else tokens.push(c === '*' ? WILD_ANY : c === '?' ? WILD_ONE : c);
  }
  return tokens;
}

/** The command line a pattern names exactly (no wildcard, no trailing `:*`), or undefined for a glob. */
export function exactCommand(pattern: string): string | undefined {
  if (pattern.endsWith(':*')) return undefined;
  const tokens = patternTokens(pattern);
  return tokens.every((t) => typeof t === 'string') ? tokens.join('') : undefined;
}

/** A pattern that names exactly this command line: its `*` and `?` escaped. The inverse of exactCommand. */
export function exactCommandPattern(command: string): string {
  return command.replace(/[*?]/g, '\\$&');
}

/**
 * The simple commands of a command line, split at the shell's control operators outside quotes
 * (; & && | || and newlines), each trimmed; `substitution` when it holds $(…), `…` or <(…).
 * A text split, not a parser (it misreads comments and `$'…'`): deny and ask rules use it as
 * well as the parser's view, allow rules never do.
 */
export function splitCommand(command: string): { parts: string[]; substitution: boolean } {
  const parts: string[] = [];
  let cur = '';
  let quote: '"' | "'" | null = null;
  let substitution = false;
  const push = () => {
    if (cur.trim() !== '') parts.push(cur.trim());
    cur = '';
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote === "'") {
      cur += c;
      if (c === "'") quote = null;
      continue;
    }
    if (c === '\\' && i + 1 < command.length) {
      cur += c + command[++i];
      continue;
    }
    if (c === '`' || (c === '$' && command[i + 1] === '(') || ((c === '<' || c === '>') && command[i + 1] === '(')) substitution = true;
    if (quote === '"') {
      cur += c;
      if (c === '"') quote = null;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      cur += c;
      continue;
    }
    if (c === ';' || c === '\n' || c === '|' || (c === '&' && command[i - 1] !== '>' && command[i + 1] !== '>')) {
      push();
      if ((c === '|' || c === '&') && command[i + 1] === c) i++;
      continue;
    }
    cur += c;
  }
  push();
  return { parts, substitution };
}

/**
 * The rule an "always" answer grants, one that covers this call next time: for a command, the
 * exact line as it was shown (a compound line or one with `$(…)` included: a rule per simple
 * command would also approve each of them alone or in other combinations, such as the `rm -rf *`
 * of `cd build && rm -rf *` in another folder); for a file tool, the exact path.
 */
export function suggestedRule(facts: CallFacts): string {
  // An empty command line cannot be named by a pattern; '' names a line that is never run, so an "always" grants nothing wider.
  if (facts.command !== undefined) return `${facts.tool}(${exactCommandPattern(facts.command.trim()) || "''"})`;
  if (facts.paths.length === 1) return `${facts.tool}(${escapeGlob(facts.paths[0])})`;
  return facts.tool;
}

/** A rule as a question names it: whole when it is one line of at most `max` characters, else what it stands for. */
export function ruleInBrief(rule: string, max = 80): string {
  if (!rule.includes('\n') && rule.length <= max) return rule;
  const m = RULE.exec(rule);
  if (!m || m[2] === undefined) return rule;
  const lines = m[2].trim().split('\n').length;
  const size = `${lines} line${lines === 1 ? '' : 's'}, ${m[2].trim().length} characters`;
  return exactCommand(m[2].trim()) !== undefined ? `${m[1]}(exactly the command shown: ${size})` : `${m[1]}(a pattern of ${size})`;
}

function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}()!+@]/g, '\\$&');
}
