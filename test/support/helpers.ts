// Shared test helpers: temp workspaces, the CLI as a child process, scripted runs.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CompactionConfig } from '../../src/agent/compactor.js';
import type { LoopGuardSettings } from '../../src/agent/loop-guard.js';
import type { RetryPolicy } from '../../src/agent/retry.js';
import { SessionRunner, type RunResult } from '../../src/agent/runner.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { ScriptTurn } from '../../src/model/script.js';
import { ScriptedModel } from '../../src/model/scripted.js';
import { SessionStore } from '../../src/session/store.js';
import { createReadFileTool } from '../../src/tools/read-file.js';
import { ToolRegistry, type RegistryOptions } from '../../src/tools/registry.js';
import type { ToolDefinition } from '../../src/tools/tool.js';
import { createWriteNoteTool } from '../../src/tools/write-note.js';

export const BIN = fileURLToPath(new URL('../../bin/mini-agent', import.meta.url));

import { tempDir } from './temp-dirs.js';

export { tempDir };

export function writeScript(dir: string, turns: ScriptTurn[], name = 'script.json'): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ turns }));
  return file;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  home?: string;
  env?: Record<string, string>;
  input?: string;
  /** Called once the process has started, e.g. to send it a signal. */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
  /** Called with stdout as it grows. */
  onStdout?: (soFar: string, child: import('node:child_process').ChildProcess) => void;
  /** Called with stderr as it grows. */
  onStderr?: (soFar: string, child: import('node:child_process').ChildProcess) => void;
  timeoutMs?: number;
  /** Run under this umask (e.g. '000'), through /bin/sh. */
  umask?: string;
}

/** Runs bin/mini-agent as a real process, with MINI_AGENT_HOME in a temp dir unless given. */
export function runCli(args: string[], opts: CliOptions): Promise<CliResult> {
  const home = opts.home ?? tempDir('mini-agent-home-');
  return new Promise((resolvePromise, reject) => {
    const command = opts.umask === undefined ? [process.execPath, BIN, ...args] : ['/bin/sh', '-c', `umask ${opts.umask} && exec "$0" "$@"`, process.execPath, BIN, ...args];
    const child = spawn(command[0], command.slice(1), {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: home, MINI_AGENT_HOME: home, MINI_AGENT_NO_COMPILE_CACHE: '1', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      opts.onStdout?.(stdout, child);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      opts.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
    opts.onSpawn?.(child);
  });
}

export function parseJsonl(text: string): AgentEvent[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AgentEvent);
}

export interface ScriptedRunOptions {
  turns: ScriptTurn[];
  prompt?: string;
  cwd?: string;
  store?: SessionStore;
  tools?: ToolDefinition[];
  registry?: RegistryOptions;
  maxTurns?: number;
  signal?: AbortSignal;
  /** Sees every event, with the runner (to steer, follow up or abort from a listener). */
  onEvent?: (e: AgentEvent, runner: SessionRunner) => void;
  /** Retry policy and a fake clock for the retry wait. */
  retry?: RetryPolicy;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<boolean>;
  random?: () => number;
  idleTimeoutMs?: number;
  /** Compaction in the loop (and the runner's compact()). */
  compaction?: CompactionConfig;
  loopGuard?: LoopGuardSettings;
}

export interface ScriptedRun {
  result: RunResult;
  events: AgentEvent[];
  model: ScriptedModel;
  runner: SessionRunner;
  store: SessionStore;
  cwd: string;
}

/** One run of the real runner and loop on the scripted model, collecting every event. */
export async function scriptedRun(o: ScriptedRunOptions): Promise<ScriptedRun> {
  const cwd = o.cwd ?? tempDir();
  const store = o.store ?? SessionStore.inMemory({ cwd });
  const model = new ScriptedModel({ turns: o.turns });
  const tools = new ToolRegistry(o.tools ?? [createReadFileTool(), createWriteNoteTool()], o.registry);
  const runner = new SessionRunner({ store, model, tools, cwd, maxTurns: o.maxTurns, retry: o.retry, sleep: o.sleep, random: o.random, idleTimeoutMs: o.idleTimeoutMs, compaction: o.compaction, loopGuard: o.loopGuard });
  const events: AgentEvent[] = [];
  runner.subscribe((e) => {
    events.push(e);
    o.onEvent?.(e, runner);
  });
  const result = await runner.run(o.prompt ?? 'go', o.signal);
  return { result, events, model, store, cwd, runner };
}

/** What must be identical between a run and its replay. */
export function essence(events: AgentEvent[]) {
  const text: Record<number, string> = {};
  const out: unknown[] = [];
  for (const e of events) {
    if (e.type === 'text_delta') text[e.turn] = (text[e.turn] ?? '') + e.delta;
    else if (e.type === 'tool_start') out.push({ tool: e.name, id: e.toolCallId, args: e.arguments });
    else if (e.type === 'tool_end') out.push({ result: e.result.content.map((c) => (c.type === 'text' ? c.text : '')).join(''), isError: e.result.isError });
    else if (e.type === 'message_end') out.push({ stop: e.message.stopReason, usage: e.message.usage, text: text[e.turn] ?? '' });
    else if (e.type === 'run_settled') out.push({ settled: e.stopReason, turns: e.turns, usage: e.usage, error: e.error?.kind ?? null });
    else if (e.type !== 'toolcall_start' && e.type !== 'run_start') out.push({ type: e.type });
  }
  return out;
}
