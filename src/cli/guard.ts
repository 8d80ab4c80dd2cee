// The CLI's side of ending a command on a failure (app/exit-codes.ts decides): an error with a
// kind (bad flags, bad input files, an unknown or unusable session, an agent in the wrong state)
// is printed as one line, `mini-agent: <what is wrong>`, and becomes its kind's exit code (a
// user's mistake: 2); nothing else happens.
import { reportFailure, type ExitCode } from '../app/exit-codes.js';
import { stderrLine, type FrontEndIo } from '../app/front-end-io.js';

/** Runs `body`; an error with a kind is reported on io's stderr and becomes its exit code. */
export async function guarded<T>(io: Pick<FrontEndIo, 'stderr'>, body: () => T | Promise<T>, opts: { hint?: string } = {}): Promise<T | ExitCode> {
  try {
    return await body();
  } catch (err) {
    return reportFailure(err, stderrLine(io), opts.hint);
  }
}
