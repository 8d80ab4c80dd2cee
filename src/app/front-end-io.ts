// What a front end reads and writes instead of `process`: the workspace, the environment, the
// three standard streams, the signals that stop a run, and the way out on a second signal.
// A front end's process entry (cli/main.ts, rpc/main.ts, acp/main.ts) passes processIo(), the process's own; a
// test passes its own streams and runs the front end in process (runCli, runRpc, runAcp). Nothing under
// those front ends reads `process` but their main.ts.

export type FrontEndSignal = 'SIGINT' | 'SIGTERM';

/** A standard stream as the CLI uses it: written to, and maybe a terminal. */
export type FrontEndOutput = NodeJS.WritableStream & { isTTY?: boolean; destroyed?: boolean };

export interface FrontEndIo {
  /** The workspace: relative paths on the command line are taken from here. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: FrontEndOutput;
  stderr: FrontEndOutput;
  /** Calls `listener` on each SIGINT or SIGTERM until the returned function is called. */
  onSignal(listener: (sig: FrontEndSignal) => void): () => void;
  /** Ends everything now with `code` (a second signal: do not wait for the run to wind down). */
  exitNow(code: number): void;
}

/** One line to stderr: a front end's log of failures and warnings. */
export function stderrLine(io: Pick<FrontEndIo, 'stderr'>): (text: string) => void {
  return (text) => void io.stderr.write(`${text}\n`);
}

/** The process's own workspace, environment, streams and signals. */
export function processIo(): FrontEndIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    onSignal(listener) {
      const on = (sig: FrontEndSignal) => listener(sig);
      process.on('SIGINT', on);
      process.on('SIGTERM', on);
      return () => {
        process.off('SIGINT', on);
        process.off('SIGTERM', on);
      };
    },
    exitNow: (code) => process.exit(code),
  };
}
