// `mini-agent [options] "prompt"`: wires the blocks together and watches the events.
// The interface never decides when the loop stops; it only aborts on a signal.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SessionRunner } from '../agent/runner.js';
import type { AgentEvent, EventListener } from '../core/events.js';
import { UsageError } from '../core/types.js';
import type { ModelAdapter } from '../model/adapter.js';
import { parseScript } from '../model/script.js';
import { ScriptedModel } from '../model/scripted.js';
import { SessionFileError } from '../session/session-file.js';
import { SessionStore } from '../session/store.js';
import { createReadFileTool } from '../tools/read-file.js';
import { ToolRegistry, type PermissionCheck } from '../tools/registry.js';
import { createWriteNoteTool } from '../tools/write-note.js';
import type { RunArgs } from './args.js';
import { EXIT } from './exit-codes.js';
import { newSessionFile } from './paths.js';
import { jsonlRenderer, textRenderer } from './render.js';

export async function runCommand(args: RunArgs, _version: string): Promise<number> {
  const cwd = process.cwd();
  let prompt: string;
  let model: ModelAdapter;
  let store: SessionStore;
  let trace: ReturnType<typeof openTrace> | undefined;
  try {
    prompt = args.prompt ?? (await readPromptFromStdin());
    model = loadModel(args);
    store = openStore(args, cwd);
    trace = args.trace ? openTrace(args.trace, store) : undefined;
  } catch (err) {
    if (err instanceof UsageError || err instanceof SessionFileError) {
      process.stderr.write(`mini-agent: ${err.message}\n`);
      return EXIT.usage;
    }
    throw err;
  }

  const permission: PermissionCheck | undefined = args.readOnly
    ? (_call, tool) => (tool.risk === 'read' ? { allow: true } : { allow: false, reason: 'mini-agent runs with --read-only; this tool changes files' })
    : undefined;
  const tools = new ToolRegistry([createReadFileTool(), createWriteNoteTool()], { permission });
  const runner = new SessionRunner({ store, model, tools, cwd, maxTurns: args.maxTurns });

  const out = guardedOutput(process.stdout);
  const err = guardedOutput(process.stderr);
  runner.subscribe(args.json ? jsonlRenderer(out) : textRenderer({ stdout: out, stderr: err, verbose: args.verbose }));
  if (args.json) for (const w of store.warnings) err.write(`warning: ${w}\n`);
  if (trace) runner.subscribe(trace.listener);

  // SIGINT/SIGTERM abort the run cleanly; a second signal exits at once (every
  // appended line is already whole, so the session file stays consistent).
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (signalled) process.exit(sig === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint);
    signalled = sig;
    if (!args.json) err.write(`\nmini-agent: ${sig} received, stopping (again to force)\n`);
    runner.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runner.run(prompt);
    for (const e of runner.errors) err.write(`mini-agent: an output listener failed: ${(e as Error)?.message ?? String(e)}\n`);
    if (result.error && args.verbose && result.stopReason === 'error') err.write(`(${result.error.kind}, retryable: ${result.error.retryable})\n`);
    switch (result.stopReason) {
      case 'completed':
        return EXIT.completed;
      case 'max_turns':
        return EXIT.limit;
      case 'aborted':
        return signalled === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
      case 'error':
        return EXIT.error;
    }
    return EXIT.error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    trace?.close();
    store.close();
  }
}

/**
 * Writes to stdout/stderr that survive the reader going away (`mini-agent --json | head -1`):
 * EPIPE stops the output instead of crashing the process, so the run still finishes and the
 * session is left consistent.
 */
function guardedOutput(stream: NodeJS.WriteStream): { write(text: string): void } {
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

function loadModel(args: RunArgs): ModelAdapter {
  if (!args.script) {
    throw new UsageError('no model selected: pass --script FILE to use the scripted model');
  }
  let text: string;
  try {
    text = readFileSync(args.script, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read script ${args.script}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return new ScriptedModel(parseScript(text, args.script));
}

function openStore(args: RunArgs, cwd: string): SessionStore {
  if (args.noSession) return SessionStore.inMemory({ cwd });
  if (args.session) {
    try {
      return SessionStore.openOrCreate(resolve(args.session), { cwd });
    } catch (err) {
      if (err instanceof SessionFileError) throw err;
      throw new UsageError(`cannot use session ${args.session}: ${(err as Error).message}`);
    }
  }
  const id = randomUUID();
  return SessionStore.create(newSessionFile(cwd, id, new Date()), { cwd, id });
}

async function readPromptFromStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('no prompt: pass it as an argument, e.g. mini-agent "fix the failing test"');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') throw new UsageError('no prompt: pass it as an argument or on stdin');
  return text;
}

/** --trace FILE: every event, one JSON line each, written as it happens. */
function openTrace(file: string, store: SessionStore): { listener: EventListener; close(): void } {
  let fd: number;
  try {
    fd = openSync(file, 'w');
  } catch (err) {
    store.close();
    throw new UsageError(`cannot write trace file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return {
    listener: (event: AgentEvent) => void writeSync(fd, JSON.stringify(event) + '\n'),
    close: () => closeSync(fd),
  };
}
