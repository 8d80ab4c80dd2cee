// RPC mode as a function: `runRpc(argv, io)` parses the flags and serves the protocol over io's
// stdin and stdout (logs on its stderr, signals from io.onSignal) until EOF or a signal, and
// resolves with the exit code. main.ts runs it with the process's own io (and keeps stdout for the
// protocol alone); tests run it in process (test/support/rpc-client.ts).
import { parseArgs } from 'node:util';
import { AGENT_FLAGS, AGENT_FLAGS_HELP, agentFlagsFrom, cleanParseError } from '../app/flags.js';
import { reportFailure } from '../app/exit-codes.js';
import type { FrontEndIo } from '../app/front-end-io.js';
import { UsageError } from '../core/types.js';
import { EXIT_RPC, runRpcMode, type RpcIo } from './rpc-mode.js';

export const USAGE = `Usage: mini-agent --rpc [options]

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

export function parseRpcArgs(argv: string[]) {
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

/** `mini-agent --rpc ARGV` against `io`: the protocol (and --help) on io.stdout, or on `protocol` when the process took stdout over; resolves with the exit code. */
export async function runRpc(argv: string[], io: FrontEndIo, protocol: Pick<RpcIo, 'write'> = { write: (line) => void io.stdout.write(line) }): Promise<number> {
  const log = (text: string) => void io.stderr.write(`${text}\n`);
  let parsed;
  try {
    parsed = parseRpcArgs(argv);
  } catch (err) {
    return reportFailure(err, log, 'Run "mini-agent --rpc --help" for usage.');
  }
  if (parsed === 'help') {
    protocol.write(USAGE + '\n');
    return EXIT_RPC.ok;
  }
  return runRpcMode({ cwd: io.cwd, env: io.env, ...parsed.flags }, { input: io.stdin, write: protocol.write, log, onSignal: io.onSignal }, { verbose: parsed.verbose });
}
