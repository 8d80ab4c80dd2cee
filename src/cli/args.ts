// Command-line arguments: util.parseArgs in strict mode, so an unknown flag is an error.
import { parseArgs } from 'node:util';
import { UsageError } from '../core/types.js';

export const USAGE = `Usage:
  mini-agent [options] "prompt"      run the agent on a prompt (or read it from stdin)
  mini-agent sessions [--all] [--json]              list the sessions of this workspace
  mini-agent tree [SESSION] [--json]                print a session's entry tree
  mini-agent label SESSION ENTRY NAME | --clear     set or clear a bookmark on an entry
  mini-agent name SESSION "title"                   give a session a display name
  mini-agent export SESSION --format md|html|jsonl [-o FILE]
  mini-agent trace FILE              print a readable account of a --trace file

Sessions (SESSION: a path, an id, a unique id prefix or a name; ENTRY: an id, a prefix or a label):
  -c, --continue      continue the most recently used session of this workspace
  --resume SESSION    continue that session
  --branch ENTRY      continue from an old entry (with --session, -c or --resume)
  --fork ENTRY        copy root → ENTRY into a new session and continue there

Model:
  --provider NAME     openai | anthropic | deepseek | openrouter | ollama | openai-compatible
  --model ID          the model id (default: the provider's preset)
  --base-url URL      the API base URL, as the SDK takes it (OpenAI-style URLs end in /v1)
  --api-key KEY       the API key (default: the provider's env var, e.g. OPENAI_API_KEY)
  --script FILE       use the scripted model, replaying FILE ({"turns": [...]})
  --record FILE       save the model's responses to FILE in the script format (replay with --script)
  --show-config       print the effective configuration and where each value comes from

Options:
  --session FILE      use or create this session file and continue from its active leaf
  --no-session        keep everything in memory; write no session file
  --max-turns N       stop after N model turns (default 50; exit code 3)
  --json              write only JSONL events to stdout (run_settled last)
  --trace FILE        also write every event of the run to FILE (JSONL)
  --read-only         deny tools that change anything (only read-only tools run)
  --verbose           more detail on stderr (turns, thinking, stack traces)
  -h, --help          show this help
  -v, --version       print the version

Environment:
  MINI_AGENT_HOME     where sessions and user state live (default ~/.mini-agent)
  MINI_AGENT_PROVIDER, MINI_AGENT_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL,
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, DEEPSEEK_API_KEY, OPENROUTER_API_KEY

Config: flags > environment > .mini-agent/config.json > $MINI_AGENT_HOME/config.json > defaults

Exit codes: 0 completed, 1 model/runtime error, 2 usage error, 3 stopped by a limit,
4 the model refused, 130 aborted by SIGINT, 143 aborted by SIGTERM.`;

export interface ModelFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  maxTurns?: number;
}

export interface RunArgs {
  command: 'run';
  prompt: string | undefined;
  flags: ModelFlags;
  script?: string;
  record?: string;
  continue: boolean;
  resume?: string;
  branch?: string;
  fork?: string;
  session?: string;
  noSession: boolean;
  json: boolean;
  trace?: string;
  readOnly: boolean;
  verbose: boolean;
}

export type CliArgs =
  | RunArgs
  | { command: 'help' }
  | { command: 'version' }
  | { command: 'show-config'; flags: ModelFlags; json: boolean }
  | { command: 'sessions'; all: boolean; json: boolean }
  | { command: 'tree'; session?: string; json: boolean }
  | { command: 'label'; session: string; entry: string; label: string | null }
  | { command: 'name'; session: string; name: string }
  | { command: 'export'; session: string; format: 'md' | 'html' | 'jsonl'; output?: string }
  | { command: 'trace'; file: string; verbose: boolean };

export function parseCliArgs(argv: string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        provider: { type: 'string' },
        model: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        record: { type: 'string' },
        'show-config': { type: 'boolean', default: false },
        script: { type: 'string' },
        session: { type: 'string' },
        continue: { type: 'boolean', short: 'c', default: false },
        resume: { type: 'string' },
        branch: { type: 'string' },
        fork: { type: 'string' },
        all: { type: 'boolean', default: false },
        clear: { type: 'boolean', default: false },
        format: { type: 'string' },
        output: { type: 'string', short: 'o' },
        'no-session': { type: 'boolean', default: false },
        'max-turns': { type: 'string' },
        json: { type: 'boolean', default: false },
        trace: { type: 'string' },
        'read-only': { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
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
  if (sub === 'trace') {
    if (rest.length !== 1) throw new UsageError('trace takes exactly one FILE: mini-agent trace FILE');
    return { command: 'trace', file: rest[0], verbose: v.verbose };
  }
  if (sub === 'sessions') {
    if (rest.length !== 0) throw new UsageError('sessions takes no arguments: mini-agent sessions [--all] [--json]');
    return { command: 'sessions', all: v.all, json: v.json };
  }
  if (sub === 'tree') {
    if (rest.length > 1) throw new UsageError('tree takes at most one SESSION: mini-agent tree [SESSION] [--json]');
    return { command: 'tree', session: rest[0], json: v.json };
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
    if (format !== 'md' && format !== 'html' && format !== 'jsonl') throw new UsageError(`--format must be md, html or jsonl, got "${format}"`);
    return { command: 'export', session: rest[0], format, output: v.output };
  }
  const picks = [v.session !== undefined, v.continue, v.resume !== undefined, v['no-session']].filter(Boolean).length;
  if (picks > 1) throw new UsageError('choose one of --session, -c/--continue, --resume and --no-session');
  if ((v.branch !== undefined || v.fork !== undefined) && !(v.session !== undefined || v.continue || v.resume !== undefined)) {
    throw new UsageError(`${v.branch !== undefined ? '--branch' : '--fork'} needs a session: add --session FILE, -c or --resume SESSION`);
  }
  if (v.branch !== undefined && v.fork !== undefined) throw new UsageError('--branch and --fork cannot be used together');
  if (v.session === '') throw new UsageError('--session needs a file path');
  if (v.script === '') throw new UsageError('--script needs a file path');
  let maxTurns: number | undefined;
  if (v['max-turns'] !== undefined) {
    const n = Number(v['max-turns']);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--max-turns must be a whole number >= 1, got "${v['max-turns']}"`);
    maxTurns = n;
  }
  const flags: ModelFlags = { provider: v.provider, model: v.model, baseUrl: v['base-url'], apiKey: v['api-key'], maxTurns };
  if (v['show-config']) return { command: 'show-config', flags, json: v.json };
  if (v.record === '') throw new UsageError('--record needs a file path');
  const prompt = positionals.length > 0 ? positionals.join(' ') : undefined;
  return {
    command: 'run',
    prompt,
    flags,
    script: v.script,
    record: v.record,
    session: v.session,
    continue: v.continue,
    resume: v.resume,
    branch: v.branch,
    fork: v.fork,
    noSession: v['no-session'],
    json: v.json,
    trace: v.trace,
    readOnly: v['read-only'],
    verbose: v.verbose,
  };
}

function cleanParseError(message: string): string {
  // "Unknown option '--foo'. To specify a positional argument starting with a '-', ..." → keep the first sentence.
  const first = message.split('. ')[0];
  return first.endsWith('.') ? first.slice(0, -1) : first;
}
