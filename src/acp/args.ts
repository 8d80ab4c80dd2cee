// The flags of ACP mode: the shared ones (model, tools, permissions, extensions) and --verbose.
// The client (the editor) chooses the workspace and the session, so the flags that pick a
// session are refused with a message that says so. Pure, apart from reading the build's version.
import { parseArgs } from 'node:util';
import { AGENT_FLAGS, AGENT_FLAGS_HELP, agentFlagsFrom, cleanParseError } from '../app/flags.js';
import { UsageError } from '../core/types.js';
import type { AcpOptions } from './acp-mode.js';

declare const __MINI_AGENT_VERSION__: string | undefined;
const VERSION = typeof __MINI_AGENT_VERSION__ === 'string' ? __MINI_AGENT_VERSION__ : '0.0.0-dev';

export const USAGE = `Usage: mini-agent --acp [options]

ACP mode: mini-agent as an Agent Client Protocol agent (JSON-RPC over stdin/stdout), for editors
such as Zed, JetBrains IDEs, Neovim (CodeCompanion) and Emacs (agent-shell). The editor starts it
and chooses the workspace and the session (session/new, session/load with our session ids, which
\`mini-agent --resume ID\` also takes). Logs go to stderr; stdout carries only the protocol.

${AGENT_FLAGS_HELP.model}

${AGENT_FLAGS_HELP.permissions}
  (a call the policy asks about is put to the editor as session/request_permission; the editor's
  modes are default, accept-edits and read-only)

${AGENT_FLAGS_HELP.extensions}

Options:
${AGENT_FLAGS_HELP.tools}
  --no-session        keep sessions in memory; write no session file
  --verbose           log each message's method and id and each run's end on stderr
  -h, --help          show this help

EOF on stdin ends mini-agent after open runs settle (exit 0); SIGTERM aborts them (143).`;

/** The session flags the client decides instead (--no-session stays: sessions in memory). */
const SESSION_FLAGS = ['session', 'continue', 'resume', 'branch', 'fork'] as const;

export function parseAcpArgs(argv: string[]): AcpOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: { ...AGENT_FLAGS, acp: { type: 'boolean', default: false }, verbose: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
    });
  } catch (err) {
    throw new UsageError(cleanParseError((err as Error).message));
  }
  const v = parsed.values;
  if (v.help) return 'help';
  if (parsed.positionals.length > 0) throw new UsageError('--acp takes no prompt: the editor sends prompts over the protocol');
  for (const flag of SESSION_FLAGS) {
    if (v[flag] !== undefined && v[flag] !== false) {
      throw new UsageError(`--${flag} does not apply to --acp: the editor opens sessions (session/new, or session/load with a session id)`);
    }
  }
  const { session, branch: _branch, fork: _fork, ...agent } = agentFlagsFrom(v);
  return { agent, memory: session === 'memory', verbose: v.verbose === true, version: VERSION };
}
