// The CLI in process: runCli (src/cli/run-cli.ts) with the same arguments, workspace and
// environment a test would give bin/mini-agent, its streams collected. For the behaviour that
// needs no process boundary (what a command prints, the files it writes, its exit code); the
// smoke tests that need one (stdin from a pipe, signals, a crash, the built bundle) keep runCli
// from helpers.ts. The CLI reads no `process` state, so runs share nothing but module caches.
import { Readable, Writable } from 'node:stream';
import { runCli as runCliIn, type FrontEndIo } from '../../src/cli/run-cli.js';
import { tempDir, type CliOptions, type CliResult } from './helpers.js';

/** Options of an in-process run: those of a process run that need no process. */
export type InProcessOptions = Pick<CliOptions, 'cwd' | 'home' | 'env' | 'input' | 'timeoutMs'>;

/** `mini-agent ARGS` in process, as runCli in helpers.ts runs it as a child (MINI_AGENT_HOME a temp dir unless given). */
export async function cliInProcess(args: string[], opts: InProcessOptions): Promise<CliResult> {
  const home = opts.home ?? tempDir('mini-agent-home-');
  const stdout = collector();
  const stderr = collector();
  let exitNow: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (exitNow = resolve));
  const io: FrontEndIo = {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: home, MINI_AGENT_HOME: home, MINI_AGENT_NO_COMPILE_CACHE: '1', ...opts.env },
    stdin: Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]),
    stdout: stdout.stream,
    stderr: stderr.stream,
    onSignal: () => () => {},
    exitNow,
  };
  const ms = opts.timeoutMs ?? 20_000;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RunTimedOut(`mini-agent ${args.join(' ')} did not finish within ${ms} ms; stderr:\n${stderr.text()}`)), ms);
  });
  let code: number;
  try {
    code = await Promise.race([runCliIn(args, io), exited, late]);
  } catch (err) {
    if (err instanceof RunTimedOut) throw err;
    // What main.ts does with an error that has no kind.
    stderr.stream.write(`mini-agent: internal error: ${(err as Error)?.message ?? String(err)}\n`);
    code = 1;
  } finally {
    clearTimeout(timer);
  }
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
}

class RunTimedOut extends Error {}

function collector(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}
