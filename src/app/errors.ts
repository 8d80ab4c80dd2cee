// Errors of the application layer, each with a kind a front end can act on: RPC and ACP send it
// with an error answer, and a process exits with the code its kind maps to (exit-codes.ts). The
// kinds are declared once (ERROR_KINDS, core/types.ts); nothing here is guessed from text.
import { KindedError, type ErrorKind } from '../core/types.js';

/** The kinds an AgentError has (what each means: ERROR_KINDS). */
export type AgentErrorKind = Extract<ErrorKind, 'busy' | 'closed' | 'stale_session' | 'invalid_argument' | 'compaction_failed' | 'not_found'>;

/** An error of the agent's own commands. Not a UsageError: only its `invalid_argument` and `not_found` are the user's mistakes. */
export class AgentError extends KindedError {
  override name = 'AgentError';
  constructor(
    override readonly kind: AgentErrorKind,
    message: string,
  ) {
    super(kind, message);
  }
}

/** The kind of any error a command can throw, for a protocol response or an exit code: `internal` for an error without one. */
export function errorKindOf(err: unknown): ErrorKind {
  return err instanceof KindedError ? err.kind : 'internal';
}
