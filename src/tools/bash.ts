// bash: runs a shell command in the workspace and returns the end of its output and its exit
// status. The command runs in a process group of its own, with stdin from /dev/null and a
// scrubbed environment (process-group.ts, env-scrub.ts); its output is captured with bounded
// memory, the full output going to a private file once it outgrows memory (output-capture.ts),
// and is cleaned for the model: escapes stripped, progress redraws reduced, binary replaced, the
// tail kept (output-text.ts). The file is kept only when the result does not show everything.
import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Type, type Static } from 'typebox';
import { scrubEnv, SECRET_SUFFIXES } from './env-scrub.js';
import { OutputCapture, type CaptureFile, type CapturedFile } from './output-capture.js';
import { pipeChannel, socketChannel, type OutputChannel } from './output-channel.js';
import { cleanTail } from './output-text.js';
import { findShell, LiveGroups, runInGroup, type RunOutcome } from './process-group.js';
import { ToolError, type ToolDefinition } from './tool.js';
import { DEFAULT_LIMITS, formatBytes, type TruncateLimits } from './truncate.js';

export interface BashToolOptions {
  /** Timeout of a call that gives none, in seconds (default 120). */
  timeoutSeconds?: number;
  /** The most a call may ask for, in seconds (default 600); a larger request is lowered to it, and the result says so. */
  maxTimeoutSeconds?: number;
  /** Variable names or simple globs (`MY_*`) kept even if they look secret. */
  envAllowlist?: readonly string[];
  /** More variable names (or globs) to remove, e.g. the configured provider's key variable. */
  secretEnvNames?: readonly string[];
  /** The environment commands start from (default process.env, read at each call), before scrubbing. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The folder for full-output files (the session's own); undefined: a private folder made under the system temp folder. */
  outputDir?: () => string | undefined;
  /** What the model is shown at most (default DEFAULT_LIMITS: 2000 lines, 50 KB). */
  limits?: TruncateLimits;
  /** After the command exits, how long its output pipe may stay open (a background child holding it) before the result is returned. Default 250 ms. */
  graceMs?: number;
  /** SIGTERM → SIGKILL grace when the process group is stopped. Default 2000 ms. */
  killGraceMs?: number;
  /** The most bytes saved in a full-output file (default 1 GiB); the rest is counted, not saved. */
  maxOutputFileBytes?: number;
  /** The shell (default: bash if found, else /bin/sh). */
  shell?: string;
}

function params(defaultTimeout: number, maxTimeout: number) {
  return Type.Object(
    {
      command: Type.String({ description: 'The command to run with bash, in the workspace folder' }),
      timeout: Type.Optional(
        Type.Number({ exclusiveMinimum: 0, description: `Timeout in seconds (default ${defaultTimeout}, at most ${maxTimeout}: a larger value is lowered to it)` }),
      ),
    },
    { additionalProperties: false },
  );
}

type Args = Static<ReturnType<typeof params>>;

/** Raw bytes kept in memory, as a multiple of the byte limit shown: room for escapes and redraws that cleaning removes. */
const TAIL_FACTOR = 4;
const MAX_TIMER_MS = 2 ** 31 - 1;

export function createBashTool(opts: BashToolOptions = {}): ToolDefinition<Args> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const maxTimeout = opts.maxTimeoutSeconds ?? 600;
  const defaultTimeout = Math.min(opts.timeoutSeconds ?? 120, maxTimeout);
  const groups = new LiveGroups();
  let shell = opts.shell;
  let ownDir: string | undefined;

  /** This instance's own folder (0700) under the system temp folder, made again if it was removed. */
  const privateDir = (): string => {
    if (ownDir === undefined || !existsSync(ownDir)) ownDir = mkdtempSync(join(tmpdir(), 'mini-agent-bash-')); // mkdtemp makes it 0700
    return ownDir;
  };

  /** The full-output file for a call: private (0600), in a private folder, named after the call. */
  const createFile = (toolCallId: string): CaptureFile => {
    let dir = opts.outputDir?.();
    if (dir === undefined) dir = privateDir();
    else makePrivateDirs(dir);
    return openPrivate(dir, `bash-${safeName(toolCallId)}`);
  };

  /** A socket channel (made through a private folder under the system temp folder); an ordinary pipe if that cannot be made. */
  const openChannel = async (onData: (chunk: Uint8Array) => void): Promise<OutputChannel> => {
    try {
      return await socketChannel(tmpdir(), onData);
    } catch {
      return pipeChannel(onData);
    }
  };

  return {
    name: 'bash',
    description:
      'Run a shell command with bash in the workspace folder; returns its output (stdout and stderr merged, in order) and exit code. ' +
      'stdin is empty (/dev/null) and there is no terminal: nothing can prompt for input. ' +
      `Timeout: ${defaultTimeout} s unless \`timeout\` (seconds, at most ${maxTimeout}) says otherwise; on timeout the command and every process it started are stopped. ` +
      'The call ends when the command exits: processes it left running in the background are stopped then, so this cannot start a server or watcher that keeps running. ' +
      `Output is cleaned (colors and terminal escapes removed, progress lines reduced to their last state, binary data replaced by a note) and only its last ${limits.maxLines} lines or ${formatBytes(limits.maxBytes)} are shown; ` +
      'when something is not shown, the full output is saved to a file whose path is given (read it with this tool: grep, sed -n, tail). ' +
      `Secret environment variables (names ending in ${SECRET_SUFFIXES.join(', ')}) are removed; PAGER and GIT_PAGER are cat.`,
    parameters: params(defaultTimeout, maxTimeout),
    risk: 'execute',
    selfTruncating: true,
    async execute(args, ctx) {
      if (args.command.trim() === '') throw new ToolError('command is empty; give the shell command to run');
      if (args.command.includes('\0')) throw new ToolError('command must not contain NUL bytes');
      if (ctx.signal.aborted) throw new ToolError('the run was aborted before the command started');
      const asked = args.timeout ?? defaultTimeout;
      const timeoutSeconds = Math.min(asked, maxTimeout);
      const { env } = scrubEnv(opts.env ?? process.env, { allowlist: opts.envAllowlist, extraNames: opts.secretEnvNames });
      shell ??= findShell(env.PATH);
      const capture = new OutputCapture({
        tailBytes: Math.max(limits.maxBytes * TAIL_FACTOR, 64 * 1024),
        maxFileBytes: opts.maxOutputFileBytes ?? 2 ** 30,
        createFile: () => createFile(ctx.toolCallId),
      });
      const channel = await openChannel((chunk) => capture.write(chunk));
      let outcome: RunOutcome;
      try {
        outcome = await runInGroup({
          shell,
          command: args.command,
          cwd: ctx.cwd,
          env: { ...env, PAGER: 'cat', GIT_PAGER: 'cat' },
          timeoutMs: Math.min(MAX_TIMER_MS, Math.max(1, Math.round(timeoutSeconds * 1000))),
          signal: ctx.signal,
          drainMs: opts.graceMs ?? 250,
          killGraceMs: opts.killGraceMs ?? 2000,
          channel,
          groups,
        });
      } catch (err) {
        capture.finish(false);
        const why = existsSync(ctx.cwd) ? (err as Error).message : `the workspace folder ${ctx.cwd} does not exist`;
        throw new ToolError(`the command could not be started (${shell} in ${ctx.cwd}): ${why}`);
      }
      return report(capture, outcome, { limits, timeoutSeconds, asked });
    },
  };
}

interface ReportContext {
  limits: TruncateLimits;
  timeoutSeconds: number;
  asked: number;
}

/** The result: a notice if something is not shown, the cleaned tail, then the exit status and notes. */
function report(capture: OutputCapture, run: RunOutcome, c: ReportContext) {
  const captured = capture.tail();
  const view = cleanTail(captured.tail, c.limits);
  const hidden = captured.totalLines - view.shownRawLines;
  const truncated = !captured.complete || hidden > 0 || view.cutLine || captured.partialFirstLine;
  const file = capture.finish(truncated || view.binary);

  const top: string[] = [];
  if (truncated) {
    const cut = view.cutLine || captured.partialFirstLine ? ' The first line shown is only the end of a longer line.' : '';
    top.push(
      `[Output truncated: showing the last ${count(view.shownRawLines, 'line')} of ${count(captured.totalLines, 'line')}, ` +
        `${formatBytes(Buffer.byteLength(view.text))} of ${formatBytes(captured.totalBytes)}; ${count(Math.max(0, hidden), 'earlier line')} not shown.${cut} ${whereFull(file)}]`,
    );
  } else if (view.binary) {
    top.push(`[Binary data in the output is not shown. ${whereFull(file)}]`);
  }
  const bottom = [status(run, c.timeoutSeconds)];
  if (run.strayStopped) bottom.push('[Processes the command left running in the background were stopped when it exited.]');
  if (run.survivors.length > 0) bottom.push(`[Warning: processes ${run.survivors.join(', ')} of the command could not be killed (stuck in the kernel?).]`);
  if (c.asked > c.timeoutSeconds) bottom.push(`[The timeout asked for, ${c.asked} s, is over the maximum; ${c.timeoutSeconds} s was used.]`);

  const body = view.text === '' ? '(no output)' : view.text;
  const text = [...top, body, '', ...bottom].join('\n');
  return {
    content: text,
    isError: run.exitCode !== 0 || run.timedOut || run.aborted,
    details: {
      exitCode: run.exitCode,
      signal: run.signal,
      timedOut: run.timedOut,
      aborted: run.aborted,
      durationMs: run.durationMs,
      truncated,
      totalBytes: captured.totalBytes,
      totalLines: captured.totalLines,
      timeoutSeconds: c.timeoutSeconds,
      ...(c.asked > c.timeoutSeconds ? { timeoutClamped: true } : {}),
      ...(file.path ? { outputFile: file.path } : {}),
      ...(file.error ? { outputFileError: file.error } : {}),
      ...(file.capped ? { outputFileCapped: true } : {}),
      ...(run.strayStopped ? { strayProcessesStopped: true } : {}),
      ...(run.survivors.length ? { survivors: run.survivors } : {}),
    },
  };
}

function whereFull(file: CapturedFile): string {
  if (!file.path) return `The full output could not be saved: ${file.error ?? 'no file'}.`;
  const part = file.capped ? ` (only its first ${formatBytes(file.bytes)}: the file size limit)` : file.error ? ` (incomplete: ${file.error})` : '';
  return `Full output${part}: ${file.path} (read it with bash: grep -n, sed -n 'A,Bp', tail).`;
}

function status(run: RunOutcome, timeoutSeconds: number): string {
  if (run.timedOut) return `[Timed out after ${timeoutSeconds} s: the command and the processes it started were stopped (SIGTERM, then SIGKILL).]`;
  if (run.aborted) return '[Aborted: the command and the processes it started were stopped.]';
  if (run.exitCode === null) return `[Killed by signal ${run.signal ?? 'unknown'}]`;
  return `[Exit code ${run.exitCode}]`;
}

function count(n: number, what: string): string {
  return `${n.toLocaleString('en')} ${what}${n === 1 ? '' : 's'}`;
}

/** A tool call id as a file name: only letters, digits, `.`, `_`, `-`; at most 100 characters. */
function safeName(id: string): string {
  return (id.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'call').slice(0, 100);
}

/**
 * Creates `dir` and its missing parents, each 0700. (Not mkdirSync's `recursive`: on Node 20 it
 * loops forever on a path it cannot create under an existing parent, such as /proc/x.)
 */
function makePrivateDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d) && dirname(d) !== d; d = dirname(d)) missing.push(d);
  for (const d of missing.reverse()) {
    mkdirSync(d, { mode: 0o700 });
    chmodSync(d, 0o700); // mkdir applies the umask
  }
}

/** Creates `<dir>/<base>.log` (or `<base>-2.log`, … if taken), 0600 whatever the umask. */
function openPrivate(dir: string, base: string): CaptureFile {
  for (let n = 1; ; n++) {
    const path = join(dir, n === 1 ? `${base}.log` : `${base}-${n}.log`);
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        fchmodSync(fd, 0o600);
      } catch (err) {
        closeSync(fd);
        throw err;
      }
      return { fd, path };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw err;
    }
  }
}
