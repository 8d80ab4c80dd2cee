// The error of a session file that must not be used, alone: the CLI's guard tells it from other
// errors on the path of `--version` and `--help`, which must not load the session code.
import { KindedError } from '../core/types.js';

/** A session file that must not be used: bad header, newer version. The file is left untouched. */
export class SessionFileError extends KindedError {
  override name = 'SessionFileError';
  constructor(message: string) {
    super('session_file', message);
  }
}
