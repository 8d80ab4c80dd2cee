// What a CLI command reads and writes instead of `process`: the workspace, the environment, the
// three standard streams, the signals that stop a run, and the way out on a second signal.
// bin/mini-agent (main.ts) passes the process's own; a test passes its own streams and runs the
// CLI in process (runCli in run-cli.ts). Nothing under src/cli reads `process` but main.ts.

export type CliSignal = 'SIGINT' | 'SIGTERM';

/** A standard stream as the CLI uses it: written to, and maybe a terminal. */
export type CliOutput = NodeJS.WritableStream & { isTTY?: boolean; destroyed?: boolean };

export interface CliIo {
  /** The workspace: relative paths on the command line are taken from here. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: CliOutput;
  stderr: CliOutput;
  /** Calls `listener` on each SIGINT or SIGTERM until the returned function is called. */
  onSignal(listener: (sig: CliSignal) => void): () => void;
  /** Ends everything now with `code` (a second signal: do not wait for the run to wind down). */
  exitNow(code: number): void;
}

/** One line to stderr: the CLI's log of failures and warnings. */
export function stderrLine(io: Pick<CliIo, 'stderr'>): (text: string) => void {
  return (text) => void io.stderr.write(`${text}\n`);
}
