// `mini-agent [options] "prompt"`, print mode: a thin user of the application layer. It creates
// an agent (createAgent), renders its events, and on a signal aborts; it never decides when the
// loop stops, and it builds no model, tool or session itself.
import { closeSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { createAgent } from '../app/agent.js';
import { loadConfig, type EffectiveConfig } from '../app/config.js';
import { showConfig } from '../app/config-show.js';
import { AgentExtensions } from '../app/extensions.js';
import { sessionEntriesFor, showConfigWindow } from '../app/learned-window.js';
import { openSession } from '../app/session-open.js';
import type { AgentEvent, EventListener } from '../core/events.js';
import { budgetLine } from '../core/cost-text.js';
import { redactSecrets } from '../core/redact.js';
import { UsageError, type ModelError, type ModelErrorKind } from '../core/types.js';
import { mark } from '../core/timings.js';
import { agentHome, sessionPlace } from '../session/paths.js';
import { openPrivateFile } from '../session/private-fs.js';
import type { AgentFlags } from '../app/flags.js';
import type { RunArgs } from './args.js';
import { terminalAsker } from './ask-permission.js';
import { EXIT } from '../app/exit-codes.js';
import type { FrontEndIo, FrontEndOutput, FrontEndSignal } from '../app/front-end-io.js';
import { jsonlRenderer, textRenderer } from './render.js';
import { branchAndRestore, requireSessionFile, restoreWithAgent } from './branch-restore.js';
import type { BranchSummaryResult } from '../app/types.js';

export async function runCommand(args: RunArgs, io: FrontEndIo): Promise<number> {
  mark('modules');
  const cwd = io.cwd;
  // Usage errors thrown while setting up (bad config, no prompt, unusable session) become exit
  // code 2 in main.ts; nothing has run yet.
  // --branch/--fork without a prompt only move the leaf or create the fork: no model, no run.
  if (args.prompt === undefined && (args.agent.branch || args.agent.fork) && !args.summarizeLeft) {
    if (!args.restoreFiles) return moveOnly(args.agent, io);
    io.stdout.write(await branchAndRestore(args.agent, args.restoreFiles.force, io));
    return EXIT.completed;
  }
  // With --skill the prompt may be empty (the skill says what to do).
  const prompt = args.prompt ?? (args.summarizeLeft ? undefined : args.skills.length > 0 && io.stdin.isTTY ? '' : await readPromptFromStdin(io, args.skills.length > 0));
  // --summarize-left, --restore-files: the branch is taken after the agent is up (the summary needs the model; the files are checked first).
  // On a terminal, a call that needs approval is asked about; without one it is refused (the gate says how to allow it).
  const onPermissionRequest = io.stdin.isTTY && io.stderr.isTTY ? terminalAsker(io.stdin, io.stderr) : undefined;
  if (args.restoreFiles) requireSessionFile(args.agent, cwd);
  const agent = await createAgent({ cwd, env: io.env, ...args.agent, onPermissionRequest, ...(args.summarizeLeft || args.restoreFiles ? { branch: undefined } : {}) });
  mark('agent');
  let left: BranchSummaryResult | undefined;
  const summarize = async () => (left = await agent.session.branchWithSummary(args.agent.branch!)).ok;
  if (args.restoreFiles) {
    await restoreWithAgent(agent.session, args.agent.branch!, args.restoreFiles.force, cwd, io, args.summarizeLeft ? summarize : undefined).catch(async (err: unknown) => {
      await agent.close();
      throw err;
    });
  } else if (args.summarizeLeft) await summarize();
  if (left) {
    if (!left.ok) {
      io.stderr.write(`mini-agent: the summary of the branch being left failed: ${left.error}; the leaf did not move\n`);
      await agent.close();
      return EXIT.error;
    }
    io.stderr.write(`mini-agent: left the branch with a summary of ${left.summarizedEntries} entries (entry ${left.entryId})\n`);
    if (prompt === undefined) {
      io.stdout.write(`active leaf of session ${agent.session.id} is now ${left.entryId}\n`);
      await agent.close();
      return EXIT.completed;
    }
  }
  for (const w of agent.warnings) io.stderr.write(`mini-agent: warning: ${w}\n`);
  for (const note of agent.notes) io.stderr.write(`mini-agent: ${note}\n`);
  let trace: ReturnType<typeof openTrace> | undefined;
  try {
    trace = args.trace ? openTrace(args.trace, cwd) : undefined;
  } catch (err) {
    await agent.close();
    throw err;
  }

  const out = guardedOutput(io.stdout);
  const err = guardedOutput(io.stderr);
  agent.subscribe(args.json ? jsonlRenderer(out) : textRenderer({ stdout: out, stderr: err, verbose: args.verbose, live: io.stdout.isTTY === true }));
  if (args.json) for (const w of agent.session.warnings) err.write(`warning: ${w}\n`);
  if (trace) agent.subscribe(trace.listener);

  // SIGINT/SIGTERM abort the run cleanly; a second signal exits at once (every
  // appended line is already whole, so the session file stays consistent).
  let signalled: FrontEndSignal | undefined;
  const onSignal = (sig: FrontEndSignal) => {
    if (signalled) return io.exitNow(sig === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint);
    signalled = sig;
    if (!args.json) err.write(`\nmini-agent: ${sig} received, stopping (again to force)\n`);
    agent.abort();
  };
  const stopListening = io.onSignal(onSignal);
  try {
    // `/name args` naming a prompt template runs the template's text, arguments filled in;
    // `--skill NAME` puts the skill's instructions before it.
    let text = agent.expandSkill(prompt!)?.text ?? agent.expandPromptTemplate(prompt!)?.text ?? prompt!;
    for (const name of [...args.skills].reverse()) text = agent.skillPrompt(name, text);
    const result = await agent.prompt(text, args.images.length > 0 ? { images: args.images.map((path) => ({ path })) } : {});
    for (const e of agent.listenerErrors) err.write(`mini-agent: an output listener failed: ${(e as Error)?.message ?? String(e)}\n`);
    // One line on stderr, in every mode: provider, kind, message and what to do.
    if (result.error && result.stopReason === 'error') err.write(describeFailure(result.error, agent.model.provider, agent.config) + '\n');
    if (result.budget) err.write(`mini-agent: ${budgetLine(result.budget)}\n`);
    switch (result.stopReason) {
      case 'completed':
        return EXIT.completed;
      case 'refused':
        return EXIT.refused;
      case 'max_turns':
      case 'budget':
        return EXIT.limit;
      case 'loop_detected':
        return EXIT.loopDetected;
      case 'aborted':
        return signalled === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
      case 'error':
        return EXIT.error;
    }
    return EXIT.error;
  } finally {
    stopListening();
    trace?.close();
    await agent.close();
  }
}

/**
 * Writes to stdout/stderr that survive the reader going away (`mini-agent --json | head -1`):
 * EPIPE stops the output instead of crashing the process, so the run still finishes and the
 * session is left consistent.
 */
function guardedOutput(stream: FrontEndOutput): { write(text: string): void } {
  let closed = false;
  // EPIPE (the reader went away) or any other write error: stop writing, keep running.
  stream.on('error', () => {
    closed = true;
  });
  return {
    write: (text) => {
      if (!closed && !stream.destroyed) stream.write(text);
    },
  };
}

/** `--branch ENTRY` / `--fork ENTRY` without a prompt: move the leaf, or create the fork, and stop. */
function moveOnly(flags: AgentFlags, io: FrontEndIo): number {
  const opened = openSession({ place: sessionPlace(agentHome(io.env), io.cwd), session: flags.session, branch: flags.branch, fork: flags.fork });
  const { store, moved } = opened;
  for (const note of opened.notes) io.stderr.write(`mini-agent: ${note}\n`);
  io.stdout.write(moved?.kind === 'fork' ? `${store.id} ${store.file}\n` : `active leaf of session ${store.id} is now ${moved?.entryId}\n`);
  opened.lock?.release();
  store.close();
  return EXIT.completed;
}

/** What to do about a failed run, by error kind: one line, naming the provider. */
export function describeFailure(error: ModelError, provider: string, c: EffectiveConfig): string {
  const kind = error.kind;
  const hints: Record<ModelErrorKind, string> = {
    auth: `check the API key${c.apiKeyEnv ? ` (${c.apiKeyEnv})` : ''} and that it may use model ${c.model}`,
    rate_limit: 'wait and try again, or check the plan and quota of the account',
    overloaded: 'the provider is overloaded; try again in a little while',
    server: 'the provider had an internal error; try again later',
    context_overflow: `the conversation is longer than ${c.model}'s context window (${error.contextWindow ?? c.contextWindow} tokens); run "mini-agent compact", start a new session, or use a model with a larger window`,
    network: `check the network and the base URL (${c.baseUrl})`,
    invalid_response: `the server at ${c.baseUrl} (or a proxy on the way) sent a broken stream; if it keeps happening, report it to whoever runs that server`,
    bad_request: 'the provider rejected the request; run with --verbose and check the model name and settings',
    aborted: 'the run was aborted',
    unknown: 'run with --verbose for details',
  };
  // The adapters already hid the key; this holds for any error, whoever made it.
  const message = redactSecrets(error.message, [c.apiKey]).replace(/\s+/g, ' ');
  return `mini-agent: ${provider} ${kind} error: ${message} — ${provider === 'scripted' && kind === 'unknown' ? 'check the script' : hints[kind]}`;
}

/** `mini-agent --show-config`: the effective configuration, every value with its source, keys redacted. */
export async function showConfigCommand(args: { agent: AgentFlags; json: boolean }, io: FrontEndIo): Promise<number> {
  const a = args.agent;
  const place = sessionPlace(agentHome(io.env), io.cwd); // the environment is read here, once
  const resolved = loadConfig(
    place.cwd,
    io.env,
    {
      provider: a.provider,
      model: a.model,
      baseUrl: a.baseUrl,
      apiKey: a.apiKey,
      maxTurns: a.maxTurns,
      compact: a.compact,
      contextWindow: a.contextWindow,
      thinking: a.thinking,
      allowPaths: a.allowPaths,
      yes: a.yes,
      approve: a.approve,
      tools: a.enabledTools,
      bashTimeout: a.bashTimeout,
      mcpConfig: a.mcpConfig,
      contextFiles: a.contextFiles,
      trustWorkspace: a.trustWorkspace,
      maxCost: a.maxCost,
    },
    place.home,
  );
  for (const w of resolved.warnings ?? []) io.stderr.write(`mini-agent: warning: ${w}\n`);
  // The extensions' rows too: each context file with its path and size, skills, templates, MCP servers (not started).
  const extensions = await AgentExtensions.load({ cwd: place.cwd, home: place.home, env: io.env, config: resolved.config, trusted: resolved.trust?.trusted === true });
  for (const w of extensions.warnings) io.stderr.write(`mini-agent: warning: ${w}\n`);
  // Every value once more through the redactor: a base URL with a password, a key pasted where it does not belong.
  const rows = [...showConfig(await showConfigWindow(resolved, sessionEntriesFor(a.session, place)), io.env), ...extensions.rows()].map((r) =>
    typeof r.value === 'string' ? { ...r, value: redactSecrets(r.value, [resolved.config.apiKey]) } : r,
  );
  if (args.json) {
    io.stdout.write(JSON.stringify(Object.fromEntries(rows.map((r) => [r.key, { value: r.value, source: r.source }])), null, 2) + '\n');
  } else {
    const width = Math.max(...rows.map((r) => r.key.length));
    const vwidth = Math.max(...rows.map((r) => String(r.value).length));
    for (const r of rows) io.stdout.write(`${r.key.padEnd(width)}  ${String(r.value).padEnd(vwidth)}  (${r.source})\n`);
  }
  return EXIT.completed;
}

async function readPromptFromStdin(io: FrontEndIo, emptyIsFine = false): Promise<string> {
  if (io.stdin.isTTY) throw new UsageError('no prompt: pass it as an argument, e.g. mini-agent "fix the failing test"');
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '' && !emptyIsFine) throw new UsageError('no prompt: pass it as an argument or on stdin');
  return text;
}

/** --trace FILE: every event, one JSON line each, written as it happens. */
function openTrace(file: string, cwd: string): { listener: EventListener; close(): void } {
  let fd: number;
  try {
    fd = openPrivateFile(resolve(cwd, file), 'w'); // a new trace file is 0600: it holds the whole conversation
  } catch (err) {
    throw new UsageError(`cannot write trace file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return {
    listener: (event: AgentEvent) => void writeSync(fd, JSON.stringify(event) + '\n'),
    close: () => closeSync(fd),
  };
}
