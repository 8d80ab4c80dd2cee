// The CLI bundle's entry (bin/mini-agent loads it): runs runCli (run-cli.ts) with this process's
// workspace, environment, streams and signals, and exits with its code once the output is out.
import { EXIT } from '../app/exit-codes.js';
import { processIo } from '../app/front-end-io.js';
import { runCli } from './run-cli.js';

// MINI_AGENT_TIMINGS=FILE (core/timings.ts): start-up marks. Their module loads only when asked
// for, so that without the variable (and for --version) the cost is this one check.
const startedAt = performance.now();
const timings = process.env.MINI_AGENT_TIMINGS ? await import('../core/timings.js') : undefined;
timings?.mark('main', startedAt);

/** Resolves once what was written to `stream` has been handed to the OS (at most 2 s: a reader that went away must not keep us). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 2000);
    timer.unref();
    stream.write('', () => (clearTimeout(timer), resolve()));
  });
}

runCli(process.argv.slice(2), processIo()).then(
  async (code) => {
    timings?.mark('done');
    // Exit as soon as the output is out. Waiting for the event loop to empty costs ~170 ms after
    // a run: V8 keeps optimizing undici's WebAssembly HTTP parser (fetch's) in the background, and
    // Node waits for it. Everything of ours is closed by now (the session, its lock, MCP servers).
    process.exitCode = code;
    await Promise.all([drained(process.stdout), drained(process.stderr)]);
    process.exit(code);
  },
  (err: unknown) => {
    const verbose = process.argv.includes('--verbose');
    process.stderr.write(`mini-agent: internal error: ${verbose && err instanceof Error ? err.stack : ((err as Error)?.message ?? String(err))}\n`);
    process.exitCode = EXIT.error;
  },
);
