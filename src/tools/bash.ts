// bash: runs a shell command in the workspace and returns the end of its output and its exit
// status. The command runs in a process group of its own, with stdin from /dev/null and a
// scrubbed environment (process-group.ts, env-scrub.ts); its stdout and stderr both go straight to
// a private full-output file (output-capture.ts), of which only the end is read once the command
// is done, and cleaned for the model: escapes stripped, progress redraws reduced, binary replaced,
// the tail kept (output-text.ts). The file is kept only when the result does not show everything.
import { existsSync, mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CONFIG_TABLE } from '../core/config-table.js';
import { Type } from '../core/type-builders.js';
import type { Static } from 'typebox';
import { SCRUB_SUMMARY, scrubEnv } from './env-scrub.js';
import { changedFiles, gitSnapshot } from './git-changes.js';
import { COUNT_LINES_MAX_BYTES, OutputFile, type CapturedFile, type CapturedTail } from './output-capture.js';
import { cleanTail, type TailView } from './output-text.js';
import { watchTail } from './live-tail.js';
import { findShell, LiveGroups, runInGroup, type GroupRunOutcome } from './process-group.js';
import { bwrapArgs, sandboxCause, sandboxNote, type Bind, type SandboxMode, type SandboxStatus } from './sandbox.js';
import { ToolError, type ToolDefinition, type ToolDescriber } from './tool.js';
import { argumentSubject, nonEmpty, oneLine } from './tool-describe.js';
import { DEFAULT_LIMITS, formatBytes, type TruncateLimits } from './truncate.js';

export interface BashToolOptions {
  /** Timeout of a call that gives none, in seconds (default: the configuration's, core/config-table.ts). */
  timeoutSeconds?: number;
  /** The most a call may ask for, in seconds (default: the configuration's); a larger request is lowered to it, and the result says so. */
  maxTimeoutSeconds?: number;
  /** Variable names or simple globs (`MY_*`) kept even if they look secret. */
  envAllowlist?: readonly string[];
  /** More variable names (or globs) to remove, e.g. the configured provider's key variable. */
  secretEnvNames?: readonly string[];
  /** The environment commands start from (default process.env, read at each call), before scrubbing. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The folder for full-output files (the session's own); undefined, or a folder that cannot be
   * made or used: a private folder made under the system temp folder.
   */
  outputDir?: () => string | undefined;
  /** Makes that private folder (the app's: journaled, removed at exit; leftovers.ts). Default: mkdtemp under the system temp folder. */
  privateDir?: () => string;
  /** What the model is shown at most (default DEFAULT_LIMITS: 2000 lines, 50 KB). */
  limits?: TruncateLimits;
  /** SIGTERM → SIGKILL grace when the process group is stopped. Default 2000 ms. */
  killGraceMs?: number;
  /**
   * The most bytes a full-output file may hold (default 1 GiB). The size is looked at every
   * OUTPUT_POLL_MS while the command runs: over it, the command is stopped (an error result that
   * says so). The file can overshoot the cap by what the command writes between two looks; it is
   * cut back to the cap before it is kept.
   */
  maxOutputFileBytes?: number;
  /** The shell (default: bash if found, else /bin/sh). */
  shell?: string;
  /**
   * In a git repository, compare `git status` before and after the command and report the files
   * it changed in `details.modifiedFiles` (for compaction's file lists). Best effort; off by default.
   */
  trackGitChanges?: boolean;
  /** The OS sandbox (sandbox.ts). Absent: commands run without one (the app's default is bash.sandbox `auto`). */
  sandbox?: BashSandbox;
}

/** How commands are sandboxed: the mode, the network, whether bwrap works here, and the mounts of a call. */
export interface BashSandbox {
  mode: SandboxMode;
  /** bash.network: sandboxed commands reach the network. */
  network: boolean;
  /** Whether a sandbox works here (probed once per process). */
  status: () => SandboxStatus;
  /** The writable folders (the workspace, --allow-path folders, the output folder) and the protected paths inside them. */
  binds: (cwd: string, outputDir: string, command: string) => Bind[];
}

/** The `details` of a bash result (a type, not an interface: it must fit ToolOutput's Record). */
export type BashResultDetails = {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** The result does not show the whole output. */
  truncated: boolean;
  /** Bytes the command wrote (stdout and stderr). */
  totalBytes: number;
  /** Lines in the output; absent when not counted: output over COUNT_LINES_MAX_BYTES (8 MB) is not read whole to count them. */
  totalLines?: number;
  timeoutSeconds: number;
  timeoutClamped?: true;
  /** The kept full-output file (absent when the result shows everything). */
  outputFile?: string;
  /** Why the configured output folder was not used (the file went to a private temp folder instead). */
  outputDirError?: string;
  /** The full-output file was cut to maxOutputFileBytes. */
  outputFileCapped?: true;
  /** The command was stopped because its output passed maxOutputFileBytes. */
  outputLimitReached?: true;
  strayProcessesStopped?: true;
  survivors?: number[];
  /** With trackGitChanges, in a git repository: the workspace-relative files the command changed (by `git status` before and after). */
  modifiedFiles?: string[];
  /** How the command ran: in bubblewrap, or without a sandbox (`off`: by the setting or an approved `sandbox: false`; `none`: none available). */
  sandbox?: 'bubblewrap' | 'off' | 'none';
  /** The network was on in the sandbox. */
  network?: true;
  /** The command failed, and its output suggests the sandbox refused something. */
  sandboxRefusal?: 'filesystem' | 'network';
};

function params(defaultTimeout: number, maxTimeout: number) {
  return Type.Object(
    {
      command: Type.String({ description: 'The bash command' }),
      timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: `Seconds (default ${defaultTimeout}, at most ${maxTimeout})` })),
      sandbox: Type.Optional(Type.Boolean({ description: 'false: unsandboxed (asks the user)' })),
      network: Type.Optional(Type.Boolean({ description: 'true: with network (asks the user)' })),
    },
    { additionalProperties: false },
  );
}

type Args = Static<ReturnType<typeof params>>;

/** Raw bytes read from the end of the output, as a multiple of the byte limit shown: room for escapes and redraws that cleaning removes. */
const TAIL_FACTOR = 4;
/** How often the full-output file's size is looked at while the command runs (the size cap). */
export const OUTPUT_POLL_MS = 150;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A bash call: its command; the files it changed are those git saw change (details.modifiedFiles), even when it failed. */
export const bashDescriber: ToolDescriber<Args, BashResultDetails> = {
  describe: (a) => ({ title: oneLine(`Run \`${nonEmpty(a.command) ?? ''}\``), kind: 'execute', locations: [], subject: nonEmpty(a.command) ?? argumentSubject(a) }),
  files: (_a, result) => {
    const changed: unknown = result?.details?.modifiedFiles; // from a session file: checked
    return { modified: Array.isArray(changed) ? changed : [] };
  },
};

export function createBashTool(opts: BashToolOptions = {}): ToolDefinition<Args, BashResultDetails> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const maxTimeout = opts.maxTimeoutSeconds ?? CONFIG_TABLE['bash.maxTimeoutSeconds'].default;
  const defaultTimeout = Math.min(opts.timeoutSeconds ?? CONFIG_TABLE['bash.timeoutSeconds'].default, maxTimeout);
  const maxFileBytes = opts.maxOutputFileBytes ?? 2 ** 30;
  const tailBytes = Math.max(limits.maxBytes * TAIL_FACTOR, 64 * 1024);
  const groups = new LiveGroups();
  let shell = opts.shell;
  let ownDir: string | undefined;

  /** This instance's own folder (0700) under the system temp folder, made again if it was removed. */
  const privateDir = (): string => {
    if (ownDir === undefined || !existsSync(ownDir)) ownDir = opts.privateDir?.() ?? mkdtempSync(join(tmpdir(), 'mini-agent-bash-')); // mkdtemp makes it 0700
    return ownDir;
  };

  /** The full-output file for a call, in the output folder, else in the private one (and why). */
  const createFile = (toolCallId: string): { file: OutputFile; dirError?: string } => {
    const base = `bash-${safeName(toolCallId)}`;
    let dirError: string | undefined;
    try {
      const dir = opts.outputDir?.();
      if (dir !== undefined) return { file: OutputFile.create(dir, base) };
    } catch (err) {
      dirError = (err as Error).message;
    }
    try {
      return { file: OutputFile.create(privateDir(), base), dirError };
    } catch (err) {
      throw new ToolError(`the command was not run: no file could be created for its output (${(err as Error).message})`);
    }
  };

  /** Removes the private folder once it is empty (a kept file keeps it); synchronous, so no call can be creating a file in it meanwhile. */
  const tidyPrivateDir = () => {
    if (ownDir === undefined) return;
    try {
      rmdirSync(ownDir);
      ownDir = undefined;
    } catch {
      /* not empty, or already gone */
    }
  };

  return {
    name: 'bash',
    ...bashDescriber,
    description:
      'Run a bash command in the workspace folder; returns its output (stdout and stderr merged) and exit code. No stdin or terminal: nothing can prompt for input. ' +
      `Timeout ${defaultTimeout} s. When it exits or times out, every process it started is stopped (no lasting servers or watchers). ` +
      `Only the last ${limits.maxLines} lines or ${formatBytes(limits.maxBytes)} of the cleaned output are shown; the full output is then saved to a file whose path is given. ` +
      `Write to stderr with >&2, not > /dev/stderr. ${SCRUB_SUMMARY}. ` +
      'Sandboxed where possible (writable: workspace and /tmp; no network); if the sandbox caused a failure the result says so: retry with network: true or sandbox: false, which asks the user.',
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
      const sandbox = sandboxFor(opts.sandbox, args);
      const { file, dirError } = createFile(ctx.toolCallId);
      const before = opts.trackGitChanges ? await gitSnapshot(ctx.cwd) : undefined;
      const stopWatching = ctx.onOutput ? watchTail(file, ctx.onOutput) : undefined;
      try {
        let outcome: GroupRunOutcome;
        try {
          outcome = await runInGroup({
            shell,
            command: args.command,
            ...(sandbox.run ? { prefix: [sandbox.run.program, ...bwrapArgs({ cwd: ctx.cwd, binds: opts.sandbox!.binds(ctx.cwd, dirname(file.path), args.command), network: sandbox.network }, [])], endsItsOwn: true } : {}),
            cwd: ctx.cwd,
            env: { ...env, PAGER: 'cat', GIT_PAGER: 'cat', ...(sandbox.run ? { TMPDIR: '/tmp' } : {}) },
            timeoutMs: Math.min(MAX_TIMER_MS, Math.max(1, Math.round(timeoutSeconds * 1000))),
            signal: ctx.signal,
            killGraceMs: opts.killGraceMs ?? 2000,
            outputFd: file.fd,
            limit: { everyMs: OUTPUT_POLL_MS, exceeded: () => file.size() > maxFileBytes },
            groups,
          });
        } catch (err) {
          stopWatching?.();
          const why = existsSync(ctx.cwd) ? (err as Error).message : `the workspace folder ${ctx.cwd} does not exist`;
          throw new ToolError(`the command could not be started (${shell} in ${ctx.cwd}): ${why}`);
        }
        stopWatching?.();
        const result = withSandbox(report(file, outcome, { limits, tailBytes, maxFileBytes, timeoutSeconds, asked, dirError }), sandbox);
        const after = before ? await gitSnapshot(ctx.cwd) : undefined;
        if (!before || !after) return result;
        return { ...result, details: { ...result.details, modifiedFiles: changedFiles(before, after) } };
      } finally {
        stopWatching?.();
        file.finish(false, maxFileBytes); // a no-op once report() has finished it
        tidyPrivateDir();
      }
    },
  };
}

/** How this call runs: in bwrap (run), or not, and why not; a required sandbox that is missing refuses the call. */
function sandboxFor(sb: BashSandbox | undefined, args: { sandbox?: boolean; network?: boolean }): { run?: { program: string }; network: boolean; how: BashResultDetails['sandbox'] } {
  const network = sb?.network === true || args.network === true;
  if (!sb || sb.mode === 'off') return { network, how: 'off' };
  if (args.sandbox === false) {
    if (sb.mode === 'required') throw new ToolError('the command was not run: bash.sandbox is "required", so no command runs outside the sandbox, even with "sandbox": false. Run it sandboxed, or ask the user to run it.');
    return { network, how: 'off' };
  }
  const status = sb.status();
  if (status.available) return { run: { program: status.program }, network, how: 'bubblewrap' };
  if (sb.mode === 'required') {
    throw new ToolError(`the command was not run: bash.sandbox is "required" and no sandbox is available here (${status.why}). The user can install bubblewrap, or set bash.sandbox to "auto" or "off".`);
  }
  return { network, how: 'none' };
}

/** The result with how it ran, and a note when its failure looks like the sandbox's doing. */
function withSandbox(result: ReturnType<typeof report>, sb: ReturnType<typeof sandboxFor>): ReturnType<typeof report> {
  const details: BashResultDetails = { ...result.details, sandbox: sb.how, ...(sb.run && sb.network ? { network: true as const } : {}) };
  if (!sb.run || !result.isError || details.timedOut || details.aborted) return { ...result, details };
  const cause = sandboxCause(result.content, sb.network);
  if (!cause) return { ...result, details };
  return { ...result, content: `${result.content}\n${sandboxNote(cause)}`, details: { ...details, sandboxRefusal: cause } };
}

interface ReportContext {
  limits: TruncateLimits;
  tailBytes: number;
  maxFileBytes: number;
  timeoutSeconds: number;
  asked: number;
  dirError: string | undefined;
}

/** The result: a notice if something is not shown, the cleaned tail, then the exit status and notes. */
function report(output: OutputFile, run: GroupRunOutcome, c: ReportContext) {
  const captured = output.tail(c.tailBytes);
  const view = cleanTail(captured.tail, c.limits);
  const linesHidden = captured.totalLines === undefined || captured.totalLines > view.shownRawLines; // not counted: only when not complete
  const truncated = !captured.complete || linesHidden || view.cutLine || captured.partialFirstLine;
  const file = output.finish(truncated || view.binary, c.maxFileBytes);

  const top: string[] = [];
  if (truncated) top.push(truncationNotice(captured, view, file, c.maxFileBytes));
  else if (view.binary) top.push(`[Binary data in the output is not shown. ${whereFull(file, c.maxFileBytes)}]`);
  const bottom = [status(run, c)];
  if (run.strayStopped) bottom.push('[Processes the command left running in the background were stopped when it exited.]');
  if (run.survivors.length > 0) bottom.push(`[Warning: processes ${run.survivors.join(', ')} of the command could not be killed (stuck in the kernel?).]`);
  if (c.asked > c.timeoutSeconds) bottom.push(`[The timeout asked for, ${c.asked} s, is over the maximum; ${c.timeoutSeconds} s was used.]`);

  const body = view.text === '' ? '(no output)' : view.text;
  const text = [...top, body, '', ...bottom].join('\n');
  const details: BashResultDetails = {
    exitCode: run.exitCode,
    signal: run.signal,
    timedOut: run.timedOut,
    aborted: run.aborted,
    durationMs: run.durationMs,
    truncated,
    totalBytes: captured.totalBytes,
    ...(captured.totalLines !== undefined ? { totalLines: captured.totalLines } : {}),
    timeoutSeconds: c.timeoutSeconds,
    ...(c.asked > c.timeoutSeconds ? { timeoutClamped: true as const } : {}),
    ...(file.path ? { outputFile: file.path } : {}),
    ...(c.dirError ? { outputDirError: c.dirError } : {}),
    ...(file.capped ? { outputFileCapped: true as const } : {}),
    ...(run.overLimit ? { outputLimitReached: true as const } : {}),
    ...(run.strayStopped ? { strayProcessesStopped: true as const } : {}),
    ...(run.survivors.length ? { survivors: run.survivors } : {}),
  };
  return { content: text, isError: run.exitCode !== 0 || run.timedOut || run.aborted || run.overLimit, details };
}

/** What is shown of how much, and where the full output is. */
function truncationNotice(t: CapturedTail, v: TailView, f: CapturedFile, maxFileBytes: number): string {
  const cut = v.cutLine || t.partialFirstLine ? ' The first line shown is only the end of a longer line.' : '';
  const shown = `${formatBytes(Buffer.byteLength(v.text))} of ${formatBytes(t.totalBytes)}`;
  const counts =
    t.totalLines === undefined
      ? `showing the last ${count(v.shownRawLines, 'line')}, ${shown} (lines not counted: the output is over ${formatBytes(COUNT_LINES_MAX_BYTES)}).`
      : `showing the last ${count(v.shownRawLines, 'line')} of ${count(t.totalLines, 'line')}, ${shown}; ${count(Math.max(0, t.totalLines - v.shownRawLines), 'earlier line')} not shown.`;
  return `[Output truncated: ${counts}${cut} ${whereFull(f, maxFileBytes)}]`;
}

function whereFull(file: CapturedFile, maxFileBytes: number): string {
  if (!file.path) return 'The full output could not be saved.';
  const part = file.capped ? ` (only its first ${formatBytes(maxFileBytes)}: the file size limit)` : '';
  return `Full output${part}: ${file.path} (read it with bash: grep -n, sed -n 'A,Bp', tail).`;
}

function status(run: GroupRunOutcome, c: ReportContext): string {
  if (run.timedOut) return `[Timed out after ${c.timeoutSeconds} s: the command and the processes it started were stopped (SIGTERM, then SIGKILL).]`;
  if (run.aborted) return '[Aborted: the command and the processes it started were stopped.]';
  if (run.overLimit) {
    return `[Stopped: the output passed the ${formatBytes(c.maxFileBytes)} limit of the full-output file; the command and the processes it started were stopped (SIGTERM, then SIGKILL).]`;
  }
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
