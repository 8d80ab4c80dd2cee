// The command-line flags every front end accepts (print mode, RPC mode, later interactive and
// ACP): model, session and tool choices, turned into agent options. Each front end adds its own
// flags around these. Small on purpose: it is on the path of `--version`.
import { UsageError } from '../core/types.js';
import { CONFIG_FLAG_HELP, CONFIG_FLAG_READS, CONFIG_FLAG_SPECS } from './config-flags-help.generated.js';
import type { SessionChoice } from './session-open.js';
import type { ThinkingLevel } from '../model/thinking-levels.js';

/** util.parseArgs specs of the shared flags: the config table's (generated), then those that set no key. */
export const AGENT_FLAGS = {
  ...CONFIG_FLAG_SPECS,
  script: { type: 'string' },
  record: { type: 'string' },
  session: { type: 'string' },
  continue: { type: 'boolean', short: 'c', default: false },
  resume: { type: 'string' },
  branch: { type: 'string' },
  fork: { type: 'string' },
  'no-session': { type: 'boolean', default: false },
  'read-only': { type: 'boolean', default: false },
  'context-window': { type: 'string' },
  yes: { type: 'boolean', short: 'y', default: false },
  approve: { type: 'string', multiple: true },
  'trust-workspace': { type: 'boolean', default: false },
  'mcp-config': { type: 'string', multiple: true },
} as const;

/** The flags' help lines that come from the config table (generated: the table itself is not on this path). */
const H = CONFIG_FLAG_HELP;

/** Help lines for the shared flags, by section: the config table's flags, and the others. */
export const AGENT_FLAGS_HELP = {
  sessions: `Sessions (SESSION: a path, an id, a unique id prefix or a name; ENTRY: an id, a prefix or a label):
  --session FILE      use or create this session file and continue from its active leaf
  -c, --continue      continue the most recently used session of this workspace
  --resume SESSION    continue that session
  --branch ENTRY      continue from an old entry (with --session, -c or --resume)
  --fork ENTRY        copy root → ENTRY into a new session and continue there
  --no-session        keep everything in memory; write no session file`,
  model: `Model:
${H.provider}
${H.model}
${H.baseUrl}
${H.apiKey}
  --script FILE       use the scripted model, replaying FILE ({"turns": [...]})
  --record FILE       save the model's responses to FILE in the script format (replay with --script)
${H.thinking}`,
  tools: `${H.maxTurns}
${H['budget.maxCostUsd']}
  --read-only         deny tools that change anything (only read-only tools run)
${H['compaction.enabled']}
  --context-window N  the model's context window in tokens, for this run (compaction is relative to it)`,
  permissions: `Tools and permissions (RULE: TOOL or TOOL(PATTERN), e.g. bash(git status*), write_file(docs/**)):
${H.tools}
${H.allowPaths}
  -y, --yes           approve every call the policy would ask about (deny rules still hold)
  --approve RULE      approve the calls RULE covers (repeatable), e.g. --approve 'bash(npm test)'
${H['bash.timeoutSeconds']}
  --trust-workspace   trust this workspace's own .mini-agent/config.json for this run (its widening keys, hooks, MCP servers)`,
  extensions: `Extensions:
${H['contextFiles.enabled']}
  --mcp-config FILE   add the MCP servers of FILE ({"mcpServers": {...}}, as other agents write it; repeatable)`,
};

/** What the shared flags say, as agent options. */
export interface AgentFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  maxTurns?: number;
  /** --max-cost USD. */
  maxCost?: number;
  script?: string;
  record?: string;
  readOnly: boolean;
  /** false: --no-compact. */
  compact?: boolean;
  contextWindow?: number;
  thinking?: ThinkingLevel;
  allowPaths?: string[];
  yes?: boolean;
  approve?: string[];
  enabledTools?: string[];
  bashTimeout?: number;
  trustWorkspace?: boolean;
  /** false: --no-context-files. */
  contextFiles?: boolean;
  mcpConfig?: string[];
  session: SessionChoice;
  branch?: string;
  fork?: string;
}

/** How app/flags.ts reads a table flag's value: the key, the agent option it sets, and the kind read off the schema (with what its messages name). */
export type FlagRead =
  | { key: string; option: string; kind: 'text' | 'off' }
  | { key: string; option: string; kind: 'choice'; values: readonly string[] }
  | { key: string; option: string; kind: 'whole'; min: number; unit?: string }
  | { key: string; option: string; kind: 'amount'; above: number; unit: string }
  | { key: string; option: string; kind: 'repeat' | 'comma'; needs: string };

type FlagValue<F> = F extends { multiple: true } ? string[] : F extends { type: 'string' } ? string : boolean;
type Values = { [K in keyof typeof AGENT_FLAGS]?: FlagValue<(typeof AGENT_FLAGS)[K]> };

/** How the config table's flags are read (generated from the table), each setting an option of AgentFlags. */
const READS = CONFIG_FLAG_READS as Readonly<Record<keyof typeof CONFIG_FLAG_READS, FlagRead & { option: keyof AgentFlags }>>;

/** The value a config table's flag gives its option (undefined: not given), checked by its kind. */
function readFlag(flag: string, read: FlagRead, value: string | string[] | boolean | undefined): unknown {
  if (value === undefined) return undefined;
  const fail = (what: string) => new UsageError(`--${flag} ${what}`);
  switch (read.kind) {
    case 'text':
      return value;
    case 'off':
      return value ? false : undefined;
    case 'choice':
      if (!read.values.includes(value as string)) throw fail(`must be one of ${read.values.join(', ')}, got "${value}"`);
      return value;
    case 'whole': {
      const n = Number(value);
      if (!Number.isInteger(n) || n < read.min) throw fail(`must be a whole number${read.unit ? ` of ${read.unit}` : ''} >= ${read.min}, got "${value}"`);
      return n;
    }
    case 'amount': {
      // An amount of money: a leading $ is allowed.
      const text = value as string;
      const n = Number(text.replace(/^\$/, ''));
      if (text.trim() === '' || !Number.isFinite(n) || n <= read.above) throw fail(`must be an amount of ${read.unit} > ${read.above}, e.g. 0.50, got "${text}"`);
      return n;
    }
    case 'comma': {
      const list = (value as string)
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      if (list.length === 0) throw fail(`needs ${read.needs}`);
      return list;
    }
    case 'repeat':
      for (const item of value as string[]) if (item.trim() === '') throw fail(`needs ${read.needs}`);
      return (value as string[]).length ? value : undefined;
  }
}

/** Checks the shared flags (throws UsageError naming the problem) and turns them into agent options. */
export function agentFlagsFrom(v: Values): AgentFlags {
  // An empty value names nothing: an error, not the flag left out (nor, for --resume, every session).
  if (v.resume === '') throw new UsageError('--resume needs a session: a path, an id, a unique id prefix or a name');
  if (v.branch === '') throw new UsageError('--branch needs an entry: an id, a unique id prefix or a label');
  if (v.fork === '') throw new UsageError('--fork needs an entry: an id, a unique id prefix or a label');
  const picks = [v.session !== undefined, v.continue, v.resume !== undefined, v['no-session']].filter(Boolean).length;
  if (picks > 1) throw new UsageError('choose one of --session, -c/--continue, --resume and --no-session');
  if ((v.branch !== undefined || v.fork !== undefined) && !(v.session !== undefined || v.continue || v.resume !== undefined)) {
    throw new UsageError(`${v.branch !== undefined ? '--branch' : '--fork'} needs a session: add --session FILE, -c or --resume SESSION`);
  }
  if (v.branch !== undefined && v.fork !== undefined) throw new UsageError('--branch and --fork cannot be used together');
  if (v.session === '') throw new UsageError('--session needs a file path');
  if (v.script === '') throw new UsageError('--script needs a file path');
  if (v.record === '') throw new UsageError('--record needs a file path');
  // The config table's flags, in the table's order.
  const options: Partial<Record<keyof AgentFlags, unknown>> = {};
  for (const [flag, read] of Object.entries(READS)) {
    const value = readFlag(flag, read, v[flag as keyof typeof READS]);
    if (value !== undefined) options[read.option] = value;
  }
  let contextWindow: number | undefined;
  if (v['context-window'] !== undefined) {
    const n = Number(v['context-window']);
    if (!Number.isInteger(n) || n < 1024) throw new UsageError(`--context-window must be a whole number of tokens >= 1024, got "${v['context-window']}"`);
    contextWindow = n;
  }
  for (const r of v.approve ?? []) if (r.trim() === '') throw new UsageError("--approve needs a rule, e.g. --approve 'bash(npm test)'");
  for (const f of v['mcp-config'] ?? []) if (f.trim() === '') throw new UsageError('--mcp-config needs a file');
  const session: SessionChoice = v['no-session'] ? 'memory' : v.session !== undefined ? { file: v.session } : v.continue ? 'continue' : v.resume !== undefined ? { resume: v.resume } : 'new';
  return {
    ...(options as Partial<AgentFlags>),
    script: v.script,
    record: v.record,
    readOnly: v['read-only'] ?? false,
    contextWindow,
    ...(v.yes ? { yes: true } : {}),
    ...(v.approve?.length ? { approve: v.approve } : {}),
    ...(v['trust-workspace'] ? { trustWorkspace: true } : {}),
    ...(v['mcp-config']?.length ? { mcpConfig: v['mcp-config'] } : {}),
    session,
    branch: v.branch,
    fork: v.fork,
  };
}

/** "Unknown option '--foo'. To specify a positional argument starting with a '-', ..." → the first sentence. */
export function cleanParseError(message: string): string {
  const first = message.split('. ')[0];
  return first.endsWith('.') ? first.slice(0, -1) : first;
}
