// Exit codes: a contract for scripts, documented in the README ("Exit codes"). Every front end's
// process ends with one of these; a failure ends with the code of its error's kind, by the one
// table below, through the one helper every front end's main uses (reportFailure).
import { redactSecrets } from '../core/redact.js';
import type { ErrorKind } from '../core/types.js';
import { errorKindOf } from './errors.js';

export const EXIT = {
  /** The run completed: the model answered without asking for more tools. */
  completed: 0,
  /** The model or the runtime failed (network, auth, script exhausted, internal error). */
  error: 1,
  /** The command line or an input file was wrong; nothing ran. */
  usage: 2,
  /** The run was stopped by a limit (--max-turns, or --max-cost before a request could pass the budget). */
  limit: 3,
  /** The model refused, or the provider's content filter stopped the response. */
  refused: 4,
  /** The loop guard stopped the run: the same tool call, with the same arguments, over and over. */
  loopDetected: 5,
  /** Aborted by SIGINT (Ctrl-C): 128 + 2. */
  sigint: 130,
  /** Aborted by SIGTERM: 128 + 15. */
  sigterm: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The exit code of each error kind. The user's mistakes (nothing ran) are usage errors; a command
 * that meets the agent in the wrong state, or a summary the model could not make, failed at run
 * time (as `mini-agent compact` exits 1 when its compaction fails).
 */
export const EXIT_CODE_OF_KIND = {
  invalid_argument: EXIT.usage,
  not_found: EXIT.usage,
  ambiguous: EXIT.usage,
  locked: EXIT.usage,
  session_file: EXIT.usage,
  busy: EXIT.error,
  stale_session: EXIT.error,
  closed: EXIT.error,
  compaction_failed: EXIT.error,
  internal: EXIT.error,
} as const satisfies Record<ErrorKind, ExitCode>;

/**
 * A failure that ends a front end's command: an error with a kind is reported as one line,
 * `mini-agent: <message>` (anything shaped like a key hidden: a config value quoted in a message
 * can be one), then `hint` if given, and its kind's exit code is returned. Any other error is a
 * bug: it is thrown on, to the main's internal-error report.
 */
export function reportFailure(err: unknown, log: (text: string) => void = (text) => void process.stderr.write(`${text}\n`), hint?: string): ExitCode {
  const kind = errorKindOf(err);
  if (kind === 'internal') throw err;
  log(`mini-agent: ${redactSecrets((err as Error).message)}${hint ? `\n${hint}` : ''}`);
  return EXIT_CODE_OF_KIND[kind];
}
