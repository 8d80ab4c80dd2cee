// The one place where a user's mistake becomes exit code 2: a UsageError (bad flags, bad input
// files, an unknown session) or a SessionFileError (a session file that must not be used) is
// printed as one line, `mini-agent: <what is wrong>` (with anything shaped like a key hidden: a
// config value quoted in a message can be one), and nothing else happens.
import { redactSecrets } from '../core/redact.js';
import { UsageError } from '../core/types.js';
import { SessionFileError } from '../session/session-file-error.js';
import { EXIT } from './exit-codes.js';

/** Runs `body`; a usage or session-file error is reported on stderr and becomes EXIT.usage. */
export async function guarded<T>(body: () => T | Promise<T>, opts: { hint?: string } = {}): Promise<T | typeof EXIT.usage> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof UsageError || err instanceof SessionFileError) {
      process.stderr.write(`mini-agent: ${redactSecrets(err.message)}\n${opts.hint ? `${opts.hint}\n` : ''}`);
      return EXIT.usage;
    }
    throw err;
  }
}
