// The process entry of RPC mode (`mini-agent --rpc`; bin/mini-agent picks this bundle when the
// flag is given). It parses the shared flags and hands over to runRpcProcess.
import { parseArgs } from 'node:util';
import { AGENT_FLAGS, AGENT_FLAGS_HELP, agentFlagsFrom, cleanParseError } from '../app/flags.js';
import { reportFailure } from '../app/exit-codes.js';
import { UsageError } from '../core/types.js';
import { EXIT_RPC, runRpcProcess } from './rpc-mode.js';

const USAGE = `Usage: mini-agent --rpc [options]

RPC mode: one JSON command per line on stdin ({"type": "prompt", "message": "...", "id"?: "..."});
a response to each command and the agent's events, one JSON object per line, on stdout.
The protocol: docs/rpc.schema.json; the events: docs/events.schema.json.

${AGENT_FLAGS_HELP.sessions}

${AGENT_FLAGS_HELP.model}

${AGENT_FLAGS_HELP.permissions}
  (a call the policy asks about is sent as a permission_request event; answer it with the
  permission_response command)

${AGENT_FLAGS_HELP.extensions}

Options:
${AGENT_FLAGS_HELP.tools}
  --verbose           log on stderr the session, each command's outcome, each run's end and internal errors' stacks
  -h, --help          show this help

EOF on stdin ends mini-agent after the current run settles (exit 0); SIGTERM aborts it (143).`;

function parse(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: { ...AGENT_FLAGS, rpc: { type: 'boolean', default: false }, verbose: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
    });
  } catch (err) {
    throw new UsageError(cleanParseError((err as Error).message));
  }
  if (parsed.values.help) return 'help' as const;
  if (parsed.positionals.length > 0) throw new UsageError('--rpc takes no prompt: send {"type":"prompt","message":"..."} on stdin');
  return { flags: agentFlagsFrom(parsed.values), verbose: parsed.values.verbose === true };
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parse(process.argv.slice(2));
  } catch (err) {
    return reportFailure(err, undefined, 'Run "mini-agent --rpc --help" for usage.');
  }
  if (parsed === 'help') {
    process.stdout.write(USAGE + '\n');
    return EXIT_RPC.ok;
  }
  return runRpcProcess({ cwd: process.cwd(), env: process.env, ...parsed.flags }, { verbose: parsed.verbose });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`mini-agent: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
