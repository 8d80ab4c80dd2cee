// RPC mode: a thin front end over the application layer. Commands arrive as JSON lines on stdin;
// each gets exactly one response; the agent's events are written as they happen. stdout belongs
// to the protocol alone: anything else that writes to stdout (a tool, an SDK, console.log) is
// sent to stderr instead. EOF ends the process once the current run has settled (exit 0);
// SIGTERM aborts the run, keeps the session valid and exits 143 (SIGINT: 130).
import { createAgent } from '../app/agent.js';
import { errorKindOf } from '../app/errors.js';
import { EXIT, reportFailure } from '../app/exit-codes.js';
import { processIo, type FrontEndIo, type FrontEndSignal } from '../app/front-end-io.js';
import type { Agent, CreateAgentOptions } from '../app/types.js';
import { isPlainObject } from '../core/types.js';
import { commandProblem, HANDLERS, isCommandType, type RpcContext } from './commands.js';
import { PermissionBroker } from './permission-broker.js';
import { encodeLine, LineSplitter, type Frame } from './framing.js';
import type { CommandType, RpcErrorKind } from './protocol.js';

export interface RpcIo {
  input: NodeJS.ReadableStream;
  /** Writes one protocol line (already framed). */
  write(line: string): void;
  /** Writes a diagnostic line for humans (stderr). */
  log(text: string): void;
  /** SIGINT and SIGTERM: the process's own (processIo), or a test's. */
  onSignal: FrontEndIo['onSignal'];
}

/** The exit codes of RPC mode besides a failure's (reportFailure): EOF, and the signals. */
export const EXIT_RPC = { ok: EXIT.completed, sigint: EXIT.sigint, sigterm: EXIT.sigterm } as const;

/** What RPC mode logs on stderr besides warnings: with --verbose, its session, each command's outcome, each run's end and internal errors' stacks. */
export interface RpcModeOptions {
  verbose?: boolean;
}

/** The protocol's own way to stdout once takeOverStdout() has sent every other stdout write to stderr. */
export interface ProtocolOut {
  write(line: string): void;
  /** Resolves once what was written has been handed to the OS. */
  flushed(): Promise<void>;
}

/**
 * Takes over process.stdout for the protocol: from now on any other write to it (a tool, an SDK,
 * console.log) goes to stderr, and a client that went away is not an error (the run still settles).
 */
export function takeOverStdout(): ProtocolOut {
  const stdout = process.stdout;
  const protocolWrite = stdout.write.bind(stdout) as (line: string, done?: () => void) => boolean;
  const toStderr = process.stderr.write.bind(process.stderr);
  stdout.write = ((chunk: unknown, ...rest: unknown[]) => (toStderr as (...a: unknown[]) => boolean)(chunk, ...rest)) as typeof stdout.write;
  stdout.on('error', () => undefined);
  return { write: (line) => void protocolWrite(line), flushed: () => new Promise<void>((resolve) => void protocolWrite('', () => resolve())) };
}

/**
 * The process version of RPC mode for an embedder's own entry (the SDK's options, extra tools):
 * stdout for the protocol alone, the process's signals; resolves with the exit code once stdout is flushed.
 */
export async function runRpcProcess(options: CreateAgentOptions, mode: RpcModeOptions = {}): Promise<number> {
  const protocol = takeOverStdout();
  const code = await runRpcMode(options, { input: process.stdin, write: protocol.write, log: (text) => void process.stderr.write(`${text}\n`), onSignal: processIo().onSignal }, mode);
  await protocol.flushed();
  return code;
}

/** Runs the protocol over `io` until the input ends or a signal arrives; resolves with the exit code. */
export async function runRpcMode(options: CreateAgentOptions, io: RpcIo, mode: RpcModeOptions = {}): Promise<number> {
  let agent: Agent;
  const rpc: RpcContext = { permissions: new PermissionBroker() };
  try {
    agent = await createAgent({ onPermissionRequest: rpc.permissions.asker, ...options });
  } catch (err) {
    return reportFailure(err, io.log);
  }
  for (const w of agent.warnings) io.log(`mini-agent: warning: ${w}`);
  for (const note of agent.notes) io.log(`mini-agent: ${note}`);
  for (const w of agent.session.warnings) io.log(`warning: ${w}`);
  agent.subscribe((event) => io.write(encodeLine(event)));
  const verboseLog = mode.verbose ? (text: string) => io.log(`mini-agent: ${text}`) : undefined;
  if (verboseLog) {
    const s = agent.session;
    verboseLog(s.file ? `session ${s.id} (${s.file})` : `session ${s.id} (in memory)`);
    agent.subscribe((e) => {
      if (e.type === 'run_settled') verboseLog(`run ${e.stopReason} after ${e.turns} turns, ${e.toolCalls} tool calls`);
    });
  }
  return serve(agent, io, rpc, verboseLog);
}

function serve(agent: Agent, io: RpcIo, rpc: RpcContext, verboseLog?: (text: string) => void): Promise<number> {
  return new Promise<number>((resolve) => {
    const splitter = new LineSplitter();
    let chain: Promise<void> = Promise.resolve(); // commands are handled one after another, in order
    let finishing = false;
    const handleAll = (frames: Frame[]) => {
      for (const frame of frames) chain = chain.then(() => handle(agent, frame, io, rpc, verboseLog));
    };
    const onData = (chunk: Buffer | string) => handleAll(splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    const onEnd = () => {
      handleAll(splitter.end());
      void chain.then(() => finish(EXIT_RPC.ok));
    };
    const onSignal = (signal: FrontEndSignal) => {
      if (finishing) return;
      io.log(`mini-agent: ${signal} received, stopping the run`);
      agent.abort();
      void finish(signal === 'SIGTERM' ? EXIT_RPC.sigterm : EXIT_RPC.sigint);
    };
    const finish = async (code: number) => {
      if (finishing) return;
      finishing = true;
      io.input.off('data', onData);
      io.input.off('end', onEnd);
      (io.input as NodeJS.ReadableStream & { destroy?(): void }).destroy?.();
      await agent.idle(); // the run in progress settles (its last events are written) first
      await agent.close();
      offSignal();
      resolve(code);
    };
    io.input.on('data', onData);
    io.input.on('end', onEnd);
    const offSignal = io.onSignal(onSignal);
  });
}

/** One line in, exactly one response out (and, with --verbose, one stderr line saying how it went). Never throws. */
async function handle(agent: Agent, frame: Frame, io: RpcIo, rpc: RpcContext, verboseLog?: (text: string) => void): Promise<void> {
  let id: string | null = null;
  let command: string | null = null;
  const outcome = (text: string) => verboseLog?.(`command ${command ?? '(none)'}${id === null ? '' : ` (id ${JSON.stringify(id)})`}: ${text}`);
  const fail = (kind: RpcErrorKind, message: string) => {
    io.write(encodeLine({ type: 'response', id, command, ok: false, error: { kind, message } }));
    outcome(`${kind}: ${message}`);
  };
  if ('tooLong' in frame) return fail('parse_error', `the line is ${frame.tooLong} bytes, over the limit; it was skipped`);
  if (frame.line.trim() === '') return; // blank lines between commands are allowed
  let value: unknown;
  try {
    value = JSON.parse(frame.line);
  } catch (err) {
    return fail('parse_error', `the line is not valid JSON (${(err as Error).message}): ${frame.line.slice(0, 120)}`);
  }
  if (!isPlainObject(value)) return fail('parse_error', 'a command must be a JSON object {"type": ..., "id"?: ...}');
  if (typeof value.id === 'string') id = value.id;
  if (typeof value.type === 'string') command = value.type;
  if (!isCommandType(value.type)) {
    return fail(
      value.type === undefined ? 'invalid_argument' : 'unknown_command',
      value.type === undefined ? 'the command has no "type"' : `unknown command ${JSON.stringify(value.type)}; the commands are ${Object.keys(HANDLERS).join(', ')}`,
    );
  }
  const type: CommandType = value.type;
  const problem = commandProblem(type, value);
  if (problem) return fail('invalid_argument', problem);
  try {
    // Not awaited unless it is a promise: a prompt's response goes out before its run's first event.
    const pending = (HANDLERS[type] as (agent: Agent, params: unknown, rpc: RpcContext) => unknown)(agent, value, rpc);
    const result = pending instanceof Promise ? await pending : pending;
    io.write(encodeLine({ type: 'response', id, command, ok: true, result }));
    outcome('ok');
  } catch (err) {
    const kind = errorKindOf(err);
    fail(kind, kind === 'internal' ? `internal error: ${(err as Error)?.message ?? String(err)}` : (err as Error).message);
    if (kind === 'internal' && err instanceof Error && err.stack) verboseLog?.(err.stack);
  }
}
