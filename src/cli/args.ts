// Command-line arguments of print mode: util.parseArgs in strict mode, so an unknown flag is an
// error. The flags every front end shares (model, session, tools) come from app/flags.ts.
import { parseArgs } from 'node:util';
import { isExportFormat, type ExportFormat } from '../app/export-formats.js';
import { AGENT_FLAGS, AGENT_FLAGS_HELP, agentFlagsFrom, cleanParseError, type AgentFlags } from '../app/flags.js';
import { UsageError } from '../core/types.js';

export const USAGE = `Usage:
  mini-agent [options]               on a terminal, with no prompt: the interactive conversation (/help inside)
  mini-agent [options] "prompt"      run the agent on a prompt (or read it from stdin)
  mini-agent --rpc [options]         RPC mode: JSONL commands on stdin, responses and events on stdout
  mini-agent --acp [options]         ACP mode: an Agent Client Protocol agent on stdin/stdout, for editors
  mini-agent sessions [--all] [--json]              list the sessions of this workspace
  mini-agent tree [SESSION] [--json]                print a session's entry tree
  mini-agent label SESSION ENTRY NAME | --clear     set or clear a bookmark on an entry
  mini-agent name SESSION "title"                   give a session a display name
  mini-agent export SESSION --format md|html|jsonl [-o FILE]
  mini-agent compact [SESSION] [--focus TEXT]       summarize the older messages now (originals kept)
  mini-agent uncompact [SESSION]                    move the leaf back before the latest compaction
  mini-agent diff [SESSION] [ENTRY]                 what the agent changed in the files since ENTRY
                                                    (default: since the session began), as a unified diff
  mini-agent rewind [SESSION] ENTRY [--files-only | --conversation-only] [--yes] [--force]
                                                    restore the files the agent changed to ENTRY's state and
                                                    move the leaf there; shows the plan, asks on a terminal,
                                                    else needs --yes; --force overwrites changes made outside
  mini-agent gc [--dry-run] [--max-age-days N]     remove the file checkpoints of deleted sessions, and of
                                                    sessions not written for N days (default: the config key
                                                    checkpoints.maxAgeDays; 0: never by age); sessions in use
                                                    are skipped; --dry-run only says what would go
  mini-agent trace FILE              print a readable account of a --trace file
  mini-agent trust [DIR]             trust a workspace (default: this one) for its current .mini-agent/config.json:
                                     its widening keys apply, its hooks and MCP servers may run
  mini-agent trust --list [--json]   the trusted workspaces, and whether their config changed since
  mini-agent untrust [DIR]           take a workspace off the trusted list
  mini-agent mcp list [--json]       start the configured MCP servers, show their status, tools and context cost
  mini-agent eval memory [--rounds N] [--json]      memory-loss probe: compact a long session N times
                                                    (default 3) with the model, print the facts kept

${AGENT_FLAGS_HELP.sessions}
  --summarize-left    with --branch: summarize the branch being left onto the new one
  --restore-files     with --branch: also put the files the agent changed back as they were at ENTRY;
                      refused when one was changed outside the agent since, unless --force

${AGENT_FLAGS_HELP.model}
  --show-config       print the effective configuration and where each value comes from

${AGENT_FLAGS_HELP.permissions}

${AGENT_FLAGS_HELP.extensions}
  --skill NAME        run with the skill NAME's instructions inlined before the prompt (repeatable)
  A prompt "/NAME args" runs the prompt template NAME (.mini-agent/prompts/NAME.md).
  --image FILE        attach a PNG, JPEG, GIF or WebP image to the prompt (repeatable); a prompt
                      token @path naming an image file in the workspace attaches it too

Options:
${AGENT_FLAGS_HELP.tools.replace(/(--max-turns .*\(default \d+)\)/, '$1; exit code 3)')}
  --json              write only JSONL events to stdout (run_settled last)
  --trace FILE        also write every event of the run to FILE (JSONL)
  --verbose           more detail on stderr (turns, thinking, stack traces)
  -h, --help          show this help
  -v, --version       print the version

Environment:
  MINI_AGENT_HOME     where sessions and user state live (default ~/.mini-agent)
  MINI_AGENT_PROVIDER, MINI_AGENT_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL,
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, DEEPSEEK_API_KEY, OPENROUTER_API_KEY

Config: flags > environment > .mini-agent/config.json > $MINI_AGENT_HOME/config.json > defaults

Exit codes: 0 completed, 1 model/runtime error, 2 usage error, 3 stopped by a limit,
4 the model refused, 5 loop detected (the same tool call over and over), 130 aborted by SIGINT,
143 aborted by SIGTERM.`;

export interface RunArgs {
  command: 'run';
  prompt: string | undefined;
  agent: AgentFlags;
  json: boolean;
  trace?: string;
  verbose: boolean;
  /** --branch ENTRY --summarize-left: summarize the branch being left. */
  summarizeLeft: boolean;
  /** --branch ENTRY --restore-files: restore the files to their state at ENTRY too (--force: over changes made outside the agent). */
  restoreFiles?: { force: boolean };
  /** --skill NAME (repeatable): skills inlined before the prompt. */
  skills: string[];
  /** --image FILE (repeatable): images attached to the prompt. */
  images: string[];
}

export type CliArgs =
  | RunArgs
  | { command: 'help' }
  | { command: 'version' }
  | { command: 'show-config'; agent: AgentFlags; json: boolean }
  | { command: 'sessions'; all: boolean; json: boolean }
  | { command: 'tree'; session?: string; json: boolean }
  | { command: 'diff'; session?: string; entry?: string }
  | { command: 'gc'; dryRun: boolean; maxAgeDays?: number }
  | { command: 'rewind'; session?: string; entry: string; filesOnly: boolean; conversationOnly: boolean; force: boolean; yes: boolean }
  | { command: 'label'; session: string; entry: string; label: string | null }
  | { command: 'name'; session: string; name: string }
  | { command: 'export'; session: string; format: ExportFormat; output?: string }
  | { command: 'trace'; file: string; verbose: boolean }
  | { command: 'trust'; dir?: string; list: boolean; json: boolean }
  | { command: 'untrust'; dir?: string }
  | { command: 'mcp-list'; agent: AgentFlags; json: boolean }
  | { command: 'compact'; session?: string; focus?: string; agent: AgentFlags }
  | { command: 'uncompact'; session?: string }
  | { command: 'eval'; suite: 'memory'; agent: AgentFlags; rounds: number; json: boolean };

export function parseCliArgs(argv: string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        ...AGENT_FLAGS,
        'show-config': { type: 'boolean', default: false },
        all: { type: 'boolean', default: false },
        clear: { type: 'boolean', default: false },
        list: { type: 'boolean', default: false },
        format: { type: 'string' },
        output: { type: 'string', short: 'o' },
        json: { type: 'boolean', default: false },
        trace: { type: 'string' },
        verbose: { type: 'boolean', default: false },
        focus: { type: 'string' },
        rounds: { type: 'string' },
        'summarize-left': { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        'max-age-days': { type: 'string' },
        'restore-files': { type: 'boolean', default: false },
        'files-only': { type: 'boolean', default: false },
        'conversation-only': { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        skill: { type: 'string', multiple: true },
        image: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    });
  } catch (err) {
    throw new UsageError(cleanParseError((err as Error).message));
  }
  const { values: v, positionals } = parsed;
  if (v.help) return { command: 'help' };
  if (v.version) return { command: 'version' };

  const sub = positionals[0];
  const rest = positionals.slice(1);
  if (sub !== 'rewind' && (v['files-only'] || v['conversation-only'] || (v.force && !v['restore-files']))) {
    throw new UsageError('--files-only, --conversation-only and --force go with the rewind command: mini-agent rewind [SESSION] ENTRY (--force also with --branch ENTRY --restore-files)');
  }
  if (sub !== 'gc' && (v['dry-run'] || v['max-age-days'] !== undefined)) {
    throw new UsageError('--dry-run and --max-age-days go with the gc command: mini-agent gc [--dry-run] [--max-age-days N]');
  }
  if (sub === 'gc') return gcArgs(rest, v);
  if (sub === 'trace') {
    if (rest.length !== 1) throw new UsageError('trace takes exactly one FILE: mini-agent trace FILE');
    return { command: 'trace', file: rest[0], verbose: v.verbose };
  }
  if (sub === 'trust') {
    if (rest.length > (v.list ? 0 : 1)) throw new UsageError('usage: mini-agent trust [DIR], or mini-agent trust --list [--json]');
    return { command: 'trust', dir: rest[0], list: v.list, json: v.json };
  }
  if (sub === 'untrust') {
    if (rest.length > 1) throw new UsageError('usage: mini-agent untrust [DIR]');
    return { command: 'untrust', dir: rest[0] };
  }
  if (v.list) throw new UsageError('--list goes with the trust command: mini-agent trust --list');
  if (sub === 'mcp') {
    if (rest.length !== 1 || rest[0] !== 'list') throw new UsageError('usage: mini-agent mcp list [--json]');
    return { command: 'mcp-list', agent: agentFlagsFrom(v), json: v.json };
  }
  if (sub === 'sessions') {
    if (rest.length !== 0) throw new UsageError('sessions takes no arguments: mini-agent sessions [--all] [--json]');
    return { command: 'sessions', all: v.all, json: v.json };
  }
  if (sub === 'tree') {
    if (rest.length > 1) throw new UsageError('tree takes at most one SESSION: mini-agent tree [SESSION] [--json]');
    return { command: 'tree', session: rest[0], json: v.json };
  }
  if (sub === 'diff') {
    if (rest.length > 2) throw new UsageError('usage: mini-agent diff [SESSION] [ENTRY]');
    return { command: 'diff', session: rest[0], entry: rest[1] };
  }
  if (sub === 'rewind') {
    if (rest.length < 1 || rest.length > 2) throw new UsageError('usage: mini-agent rewind [SESSION] ENTRY [--files-only | --conversation-only] [--yes] [--force]');
    const [session, entry] = rest.length === 2 ? rest : [undefined, rest[0]];
    return { command: 'rewind', session, entry, filesOnly: v['files-only'], conversationOnly: v['conversation-only'], force: v.force, yes: v.yes };
  }
  if (sub === 'label') {
    if (v.clear ? rest.length !== 2 : rest.length !== 3) {
      throw new UsageError('usage: mini-agent label SESSION ENTRY NAME, or mini-agent label SESSION ENTRY --clear');
    }
    return { command: 'label', session: rest[0], entry: rest[1], label: v.clear ? null : rest[2] };
  }
  if (sub === 'name') {
    if (rest.length !== 2) throw new UsageError('usage: mini-agent name SESSION "title"');
    return { command: 'name', session: rest[0], name: rest[1] };
  }
  if (sub === 'export') {
    if (rest.length !== 1) throw new UsageError('usage: mini-agent export SESSION --format md|html|jsonl [-o FILE]');
    const format = v.format ?? 'md';
    if (!isExportFormat(format)) throw new UsageError(`--format must be md, html or jsonl, got "${format}"`);
    return { command: 'export', session: rest[0], format, output: v.output };
  }
  if (sub === 'compact') {
    if (rest.length > 1) throw new UsageError('usage: mini-agent compact [SESSION] [--focus TEXT]');
    if (v.focus === '') throw new UsageError('--focus needs a text');
    return { command: 'compact', session: rest[0], focus: v.focus, agent: agentFlagsFrom(v) };
  }
  if (sub === 'uncompact') {
    if (rest.length > 1) throw new UsageError('usage: mini-agent uncompact [SESSION]');
    return { command: 'uncompact', session: rest[0] };
  }
  if (sub === 'eval') return evalArgs(rest, v, agentFlagsFrom(v));
  if (v.rounds !== undefined) throw new UsageError('--rounds goes with the eval command: mini-agent eval memory --rounds N');
  const agent = agentFlagsFrom(v);
  if (v['show-config']) return { command: 'show-config', agent, json: v.json };
  if (v['summarize-left'] && agent.branch === undefined) throw new UsageError('--summarize-left goes with --branch ENTRY');
  if (v['restore-files'] && agent.branch === undefined) throw new UsageError('--restore-files goes with --branch ENTRY: it restores the files to their state at the entry branched to');
  if (v.focus !== undefined) throw new UsageError('--focus goes with the compact command: mini-agent compact [SESSION] --focus TEXT');
  const prompt = positionals.length > 0 ? positionals.join(' ') : undefined;
  const skills = v.skill ?? [];
  if (skills.some((s) => s.trim() === '')) throw new UsageError('--skill needs a skill name');
  const images = v.image ?? [];
  if (images.some((s) => s.trim() === '')) throw new UsageError('--image needs a file');
  return { command: 'run', prompt, agent, json: v.json, trace: v.trace, verbose: v.verbose, summarizeLeft: v['summarize-left'], ...(v['restore-files'] ? { restoreFiles: { force: v.force } } : {}), skills, images };
}

/** `gc [--dry-run] [--max-age-days N]`: N a whole number of days, 0 or more. */
function gcArgs(rest: string[], v: { 'dry-run': boolean; 'max-age-days'?: string }): CliArgs {
  if (rest.length !== 0) throw new UsageError('gc takes no arguments: mini-agent gc [--dry-run] [--max-age-days N]');
  const text = v['max-age-days'];
  if (text === undefined) return { command: 'gc', dryRun: v['dry-run'] };
  const days = Number(text);
  if (text.trim() === '' || !Number.isInteger(days) || days < 0) throw new UsageError(`--max-age-days must be a whole number of days, 0 or more (0: never by age), got "${text}"`);
  return { command: 'gc', dryRun: v['dry-run'], maxAgeDays: days };
}

/** `eval memory`: the model flags apply; the probe's session lives in memory, so no session flag does. */
function evalArgs(rest: string[], v: { rounds?: string; json: boolean }, agent: AgentFlags): CliArgs {
  if (rest.length !== 1 || rest[0] !== 'memory') throw new UsageError('usage: mini-agent eval memory [--rounds N] [--json] (memory is the only eval)');
  if (agent.session !== 'new') throw new UsageError('eval memory builds its own session in memory; it takes no session flags');
  let rounds = 3;
  if (v.rounds !== undefined) {
    rounds = Number(v.rounds);
    if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) throw new UsageError(`--rounds must be a whole number from 1 to 20, got "${v.rounds}"`);
  }
  return { command: 'eval', suite: 'memory', agent, rounds, json: v.json };
}
