// The command-line flags every front end accepts (print mode, RPC mode, later interactive and
// ACP): model, session and tool choices, turned into agent options. Each front end adds its own
// flags around these. Small on purpose: it is on the path of `--version`.
import { UsageError } from '../core/types.js';
import { CONFIG_FLAG_HELP } from './config-flags-help.generated.js';
import type { SessionChoice } from './session-open.js';
import { isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from '../model/thinking-levels.js';

/** util.parseArgs specs of the shared flags. */
export const AGENT_FLAGS = {
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  script: { type: 'string' },
  record: { type: 'string' },
  session: { type: 'string' },
  continue: { type: 'boolean', short: 'c', default: false },
  resume: { type: 'string' },
  branch: { type: 'string' },
  fork: { type: 'string' },
  'no-session': { type: 'boolean', default: false },
  'max-turns': { type: 'string' },
  'max-cost': { type: 'string' },
  'read-only': { type: 'boolean', default: false },
  'no-compact': { type: 'boolean', default: false },
  'context-window': { type: 'string' },
  thinking: { type: 'string' },
  'allow-path': { type: 'string', multiple: true },
  yes: { type: 'boolean', short: 'y', default: false },
  approve: { type: 'string', multiple: true },
  tools: { type: 'string' },
  'bash-timeout': { type: 'string' },
  'trust-workspace': { type: 'boolean', default: false },
  'no-context-files': { type: 'boolean', default: false },
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

type FlagValue<F> = F extends { multiple: true } ? string[] : F extends { type: 'string' } ? string : boolean;
type Values = { [K in keyof typeof AGENT_FLAGS]?: FlagValue<(typeof AGENT_FLAGS)[K]> };

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
  let maxTurns: number | undefined;
  if (v['max-turns'] !== undefined) {
    const n = Number(v['max-turns']);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--max-turns must be a whole number >= 1, got "${v['max-turns']}"`);
    maxTurns = n;
  }
  let maxCost: number | undefined;
  if (v['max-cost'] !== undefined) {
    const n = Number(v['max-cost'].replace(/^\$/, ''));
    if (v['max-cost'].trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`--max-cost must be an amount of US dollars > 0, e.g. 0.50, got "${v['max-cost']}"`);
    maxCost = n;
  }
  let contextWindow: number | undefined;
  if (v['context-window'] !== undefined) {
    const n = Number(v['context-window']);
    if (!Number.isInteger(n) || n < 1024) throw new UsageError(`--context-window must be a whole number of tokens >= 1024, got "${v['context-window']}"`);
    contextWindow = n;
  }
  if (v.thinking !== undefined && !isThinkingLevel(v.thinking)) throw new UsageError(`--thinking must be one of ${THINKING_LEVELS.join(', ')}, got "${v.thinking}"`);
  let bashTimeout: number | undefined;
  if (v['bash-timeout'] !== undefined) {
    const n = Number(v['bash-timeout']);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--bash-timeout must be a whole number of seconds >= 1, got "${v['bash-timeout']}"`);
    bashTimeout = n;
  }
  let enabledTools: string[] | undefined;
  if (v.tools !== undefined) {
    enabledTools = v.tools
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    if (enabledTools.length === 0) throw new UsageError('--tools needs a comma-separated list of tool names, e.g. --tools read_file,grep');
  }
  for (const p of v['allow-path'] ?? []) if (p.trim() === '') throw new UsageError('--allow-path needs a folder');
  for (const r of v.approve ?? []) if (r.trim() === '') throw new UsageError("--approve needs a rule, e.g. --approve 'bash(npm test)'");
  for (const f of v['mcp-config'] ?? []) if (f.trim() === '') throw new UsageError('--mcp-config needs a file');
  const session: SessionChoice = v['no-session'] ? 'memory' : v.session !== undefined ? { file: v.session } : v.continue ? 'continue' : v.resume !== undefined ? { resume: v.resume } : 'new';
  return {
    provider: v.provider,
    model: v.model,
    baseUrl: v['base-url'],
    apiKey: v['api-key'],
    maxTurns,
    ...(maxCost !== undefined ? { maxCost } : {}),
    script: v.script,
    record: v.record,
    readOnly: v['read-only'] ?? false,
    ...(v['no-compact'] ? { compact: false } : {}),
    contextWindow,
    ...(v.thinking !== undefined ? { thinking: v.thinking as ThinkingLevel } : {}),
    ...(v['allow-path']?.length ? { allowPaths: v['allow-path'] } : {}),
    ...(v.yes ? { yes: true } : {}),
    ...(v.approve?.length ? { approve: v.approve } : {}),
    ...(enabledTools ? { enabledTools } : {}),
    ...(bashTimeout !== undefined ? { bashTimeout } : {}),
    ...(v['trust-workspace'] ? { trustWorkspace: true } : {}),
    ...(v['no-context-files'] ? { contextFiles: false } : {}),
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
