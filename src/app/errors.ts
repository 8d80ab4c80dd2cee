// Errors of the application layer, each with a kind a front end can act on (RPC sends it as
// `error.kind`; the CLI maps every usage error to exit code 2). Nothing here is guessed from text.
import { UsageError } from '../core/types.js';
import { SessionLockedError } from '../session/lock.js';
import { ResolveError } from '../session/resolve.js';
import { SessionFileError } from '../session/session-file.js';

export type AgentErrorKind =
  /** The command conflicts with a run in progress (branch, fork, switch, set_model while running). */
  | 'busy'
  /** The agent was closed. */
  | 'closed'
  /** A session handle whose session is no longer the agent's (after a fork, new or switch). */
  | 'stale_session'
  /** An argument is wrong (an empty prompt, an unknown format). */
  | 'invalid_argument'
  /** A compaction or branch summary could not be made; nothing was summarized or lost. */
  | 'compaction_failed'
  /** Nothing by that name or id (a permission request that is not waiting). */
  | 'not_found';

export class AgentError extends UsageError {
  constructor(
    readonly kind: AgentErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** The kind of any error a command can throw, for a protocol response. */
export function errorKindOf(err: unknown): string {
  if (err instanceof AgentError || err instanceof ResolveError) return err.kind;
  if (err instanceof SessionLockedError) return 'locked';
  if (err instanceof SessionFileError) return 'session_file';
  if (err instanceof UsageError) return 'invalid_argument';
  return 'internal';
}
