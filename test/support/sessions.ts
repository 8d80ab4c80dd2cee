// Helpers shared by the session behaviour tests (durability, navigation, listing):
// scripted CLI runs that return their events, the same runs in process (createAgent, what the
// CLI's print mode runs), session-file checks, a seeded PRNG.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { createAgent, type RunResult, type SessionChoice } from '../../src/app/agent.js';
import type { AgentEvent } from '../../src/core/events.js';
import { UsageError } from '../../src/core/types.js';
import type { ScriptTurn } from '../../src/model/script.js';
import type { MessageEntry, SessionEntry } from '../../src/session/entries.js';
import { sessionPlace } from '../../src/session/paths.js';
import { continueSession, resolveSession } from '../../src/session/resolve.js';
import { SessionFileError } from '../../src/session/session-file.js';
import { sessionStats } from '../../src/session/stats.js';
import { SessionStore } from '../../src/session/store.js';
import { treeJson } from '../../src/session/tree-json.js';
import { cliInProcess, type InProcessOptions } from './cli-in-process.js';
import { parseJsonl, runCli, writeScript, type CliOptions, type CliResult } from './helpers.js';

export type Ev<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;

export interface JsonRun extends CliResult {
  events: AgentEvent[];
  start: Ev<'run_start'> | undefined;
  settled: Ev<'run_settled'> | undefined;
}

let scriptCounter = 0;

/** `mini-agent --json [args] --script <turns> PROMPT` in `cwd`, as a process; events parsed from stdout. */
export function jsonRun(args: string[], turns: ScriptTurn[], prompt: string | undefined, opts: CliOptions): Promise<JsonRun> {
  return jsonRunWith(runCli, args, turns, prompt, opts);
}

/** The same run through the CLI in process (test/support/cli-in-process.ts). */
export function jsonRunInProcess(args: string[], turns: ScriptTurn[], prompt: string | undefined, opts: InProcessOptions): Promise<JsonRun> {
  return jsonRunWith(cliInProcess, args, turns, prompt, opts);
}

async function jsonRunWith<O extends InProcessOptions>(run: (args: string[], opts: O) => Promise<CliResult>, args: string[], turns: ScriptTurn[], prompt: string | undefined, opts: O): Promise<JsonRun> {
  const script = writeScript(opts.cwd, turns, `script-${process.pid}-${++scriptCounter}.json`);
  const r = await run(['--json', ...args, '--script', script, ...(prompt === undefined ? [] : [prompt])], opts);
  const events = completeLines(r.stdout);
  return {
    ...r,
    events,
    start: events.find((e): e is Ev<'run_start'> => e.type === 'run_start'),
    settled: events.find((e): e is Ev<'run_settled'> => e.type === 'run_settled'),
  };
}

/** Where a session is, as the CLI's flags say it: --session FILE, --resume SESSION, -c, -- none (new); --branch, --fork. */
export interface AgentOpenOptions {
  cwd: string;
  home: string;
  session?: SessionChoice;
  branch?: string;
  fork?: string;
}

export interface AgentRun {
  result: RunResult;
  events: AgentEvent[];
  start: Ev<'run_start'> | undefined;
  settled: Ev<'run_settled'> | undefined;
  /** What the CLI prints as `mini-agent: NOTE` on stderr (a migration, a fork). */
  notes: readonly string[];
}

function openAgent(o: AgentOpenOptions, turns: ScriptTurn[]) {
  const script = writeScript(o.cwd, turns, `script-${process.pid}-${++scriptCounter}.json`);
  return createAgent({ cwd: o.cwd, home: o.home, env: { HOME: o.home }, script, session: o.session, branch: o.branch, fork: o.fork });
}

/** In process, what `mini-agent --json [session flags] --script <turns> PROMPT` runs: one prompt, then the agent closes. */
export async function agentRun(turns: ScriptTurn[], prompt: string, o: AgentOpenOptions): Promise<AgentRun> {
  const agent = await openAgent(o, turns);
  const events: AgentEvent[] = [];
  agent.subscribe((e) => void events.push(e));
  try {
    const result = await agent.prompt(prompt);
    return {
      result,
      events,
      start: events.find((e): e is Ev<'run_start'> => e.type === 'run_start'),
      settled: events.find((e): e is Ev<'run_settled'> => e.type === 'run_settled'),
      notes: agent.notes,
    };
  } finally {
    await agent.close();
  }
}

/** In process, `mini-agent [session flags]` with no prompt (--branch moves the leaf, --fork makes the fork): the session it left, and the notes. */
export async function agentOpen(o: AgentOpenOptions): Promise<{ id: string; file: string | null; notes: readonly string[] }> {
  const agent = await openAgent(o, []);
  const { id, file } = agent.session;
  await agent.close();
  return { id, file, notes: agent.notes };
}

/** In process, `mini-agent label SESSION ENTRY TEXT` (null: --clear): the entry labelled. */
export async function agentLabel(o: { cwd: string; home: string }, session: string, entry: string, label: string | null): Promise<string> {
  const agent = await openAgent({ ...o, session: { resume: session } }, []);
  try {
    return agent.session.label(entry, label);
  } finally {
    await agent.close();
  }
}

/** In process, `mini-agent name SESSION NAME`. */
export async function agentName(o: { cwd: string; home: string }, session: string, name: string): Promise<void> {
  const agent = await openAgent({ ...o, session: { resume: session } }, []);
  try {
    agent.session.setName(name);
  } finally {
    await agent.close();
  }
}

/** In process, what `mini-agent tree [SESSION] --json` prints (it reads without the lock). */
export function treeOf(session: string | undefined, o: { cwd: string; home: string }): ReturnType<typeof treeJson> {
  const place = sessionPlace(o.home, o.cwd);
  return withStore(session === undefined ? continueSession(place) : resolveSession(session, place), (store) => treeJson(store, sessionStats(store)));
}

/**
 * The message of the usage error `body` throws: what the CLI prints as `mini-agent: MESSAGE` and
 * exits 2 for (a UsageError or a SessionFileError, src/cli/guard.ts). Fails if it does not throw one.
 */
export async function usageError(body: () => unknown): Promise<string> {
  try {
    await body();
  } catch (err) {
    if (err instanceof UsageError || err instanceof SessionFileError) return err.message;
    throw err;
  }
  throw new Error('expected a usage error; nothing was thrown');
}

/** The events of the complete lines of a --json stdout (a killed process may leave half a line). */
export function completeLines(stdout: string): AgentEvent[] {
  return parseJsonl(stdout.slice(0, stdout.lastIndexOf('\n') + 1));
}

/** One line of every JSON line of a session file (throws on a line that does not parse). */
export function fileLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Opens a session file read-only, runs `body`, closes it. */
export function withStore<T>(file: string, body: (store: SessionStore) => T): T {
  const store = SessionStore.open(file);
  try {
    return body(store);
  } finally {
    store.close();
  }
}

/**
 * Every tool call of an assistant message on the active path has exactly one result on the
 * path after it, and those results directly follow the message, in call order.
 */
export function expectValidActivePath(store: SessionStore, context = ''): void {
  const path = store.activePath();
  const messages = path.flatMap((e) => (e.type === 'message' ? [e.message] : []));
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const ids = m.content.flatMap((c) => (c.type === 'toolCall' ? [c.id] : []));
    const after = messages.slice(i + 1);
    for (const id of ids) {
      expect(
        after.filter((f) => f.role === 'toolResult' && f.toolCallId === id),
        `${context}: results of call ${id}`,
      ).toHaveLength(1);
    }
    const following = messages.slice(i + 1, i + 1 + ids.length).map((f) => (f.role === 'toolResult' ? f.toolCallId : `<${f.role}>`));
    expect(following, `${context}: results right after the assistant message`).toEqual(ids);
  });
  const calls = messages.flatMap((m) => (m.role === 'assistant' ? m.content.filter((c) => c.type === 'toolCall') : []));
  expect(
    messages.filter((m) => m.role === 'toolResult'),
    `${context}: no orphan results`,
  ).toHaveLength(calls.length);
}

export function userText(e: SessionEntry | undefined): string | undefined {
  if (e?.type !== 'message' || e.message.role !== 'user') return undefined;
  return e.message.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

export function isMessage(e: SessionEntry, role?: MessageEntry['message']['role']): e is MessageEntry {
  return e.type === 'message' && (role === undefined || e.message.role === role);
}

/** mulberry32: a small seeded PRNG, so a failing random schedule can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `tasks` with at most `width` in flight; results in task order. */
export async function pool<T>(width: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  return results;
}
