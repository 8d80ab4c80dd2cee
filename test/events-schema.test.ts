// The event schema is public: docs/events.schema.json must match the TypeBox schema in
// src/core/event-schema.ts, and every event real runs emit must validate against it.
// Regenerate the docs file with `npm run docs:schema` (UPDATE_SCHEMA=1).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventType } from '../src/core/events.js';
import { AgentEventSchema, eventJsonSchema } from '../src/core/event-schema.js';
import { createAgent } from '../src/app/agent.js';
import { SessionStore } from '../src/session/store.js';
import type { ToolDefinition } from '../src/tools/tool.js';
import { createReadFileTool } from '../src/tools/read-file.js';
import { createWriteNoteTool } from '../src/tools/write-note.js';
import { compactionFor, quotingSummarizer } from './support/compaction.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, scriptedRun, tempDir, writeScript } from './support/helpers.js';

const SCHEMA_FILE = fileURLToPath(new URL('../docs/events.schema.json', import.meta.url));

/** Event types no run can produce yet, and why. Remove an entry once something emits it. */
const NOT_YET_EMITTED: Partial<Record<AgentEventType, string>> = {};

const validator = Compile(AgentEventSchema);
type Branch = { properties: { type: { const: string } } };
const branches = (AgentEventSchema as unknown as { anyOf: Branch[] }).anyOf;
const schemaTypes = branches.map((b) => b.properties.type.const);

/** Checks one event; on failure the message lists the errors against the branch of its own type. */
function expectValid(event: unknown, where: string): void {
  if (validator.Check(event)) return;
  const type = (event as { type?: unknown })?.type;
  const branch = branches.find((b) => b.properties.type.const === type);
  const errors = branch ? [...Compile(branch as never).Errors(event)] : [...validator.Errors(event)];
  const detail = errors
    .filter((e) => e.keyword !== 'boolean')
    .slice(0, 10)
    .map((e) => `  ${e.instancePath || '(root)'}: ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('\n');
  expect.fail(`${where}: ${String(type)} event does not match docs/events.schema.json\n${detail}\nevent: ${JSON.stringify(event)}`);
}

/** Several real runs covering text, thinking, tools, failures, aborts, limits and load warnings. */
async function collectRuns(): Promise<Record<string, AgentEvent[]>> {
  const runs: Record<string, AgentEvent[]> = {};
  const cwd = tempDir();
  writeFileSync(join(cwd, 'notes.txt'), 'one\ntwo\nthree\n');

  runs.text = (await scriptedRun({ cwd, turns: [{ thinking: 'The user wants a greeting.', text: 'Hello there, friend.' }] })).events;

  const boom: ToolDefinition = {
    name: 'boom',
    description: 'fails',
    parameters: Type.Object({}),
    risk: 'read',
    async execute() {
      throw new Error('exploded');
    },
  };
  runs.tools = (
    await scriptedRun({
      cwd,
      tools: [createReadFileTool(), createWriteNoteTool(), boom],
      turns: [
        {
          text: 'Working on it.',
          toolCalls: [
            { name: 'read_file', arguments: { path: 'notes.txt' } },
            { name: 'read_file', arguments: { file: 'notes.txt' } },
            { name: 'read_file', arguments: {}, rawArguments: '{"path": ' },
            { name: 'nope', arguments: {} },
            { name: 'boom', arguments: {} },
            { name: 'write_note', arguments: { path: 'out/n.md', text: 'hi\n', mode: 'append' } },
          ],
          usage: { input: 10, output: 5, cacheRead: 2, cacheWrite: 1, cost: 0.25 },
        },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }], stopReason: 'length' },
        { text: 'Done.' },
      ],
    })
  ).events;

  runs.modelError = (await scriptedRun({ cwd, turns: [{ text: 'partial', error: { kind: 'overloaded', message: 'x', status: 529, retryAfterMs: 1000, retryable: false } }] })).events;
  runs.exhausted = (await scriptedRun({ cwd, turns: [] })).events;
  runs.retried = (
    await scriptedRun({
      cwd,
      sleep: async () => true,
      turns: [{ text: 'half', error: { kind: 'overloaded', message: 'busy', status: 529 } }, { text: 'whole answer' }],
    })
  ).events;

  runs.refused = (await scriptedRun({ cwd, turns: [{ refusal: { reason: 'refusal', category: 'cyber', explanation: 'no' } }] })).events;
  let sent = false;
  runs.queued = (
    await scriptedRun({
      cwd,
      turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'Steered.' }, { text: 'Followed up.' }],
      onEvent: (e, runner) => {
        if (e.type === 'tool_start' && !sent) {
          sent = true;
          runner.followUp('and then this');
          runner.steer('look here instead');
        }
      },
    })
  ).events;

  // A threshold compaction mid-run (a tiny window), then one that fails (ok: false).
  const long = 'x'.repeat(6000);
  const turnsOfWork = [{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }], text: long }, { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }], text: long }, { text: 'Done after compacting.' }];
  runs.compacted = (await scriptedRun({ cwd, turns: turnsOfWork, compaction: compactionFor(quotingSummarizer(), 4096, { reserveTokens: 1000, keepRecentTokens: 900 }) })).events;
  runs.compactionFailed = (
    await scriptedRun({
      cwd,
      turns: turnsOfWork,
      compaction: compactionFor(async () => '', 4096, { reserveTokens: 1000, keepRecentTokens: 900 }),
    })
  ).events;

  const midStream = new AbortController();
  runs.abortStream = (
    await scriptedRun({
      cwd,
      signal: midStream.signal,
      turns: [{ delayMs: 2, text: 'a b c d e f g h i j k l m n o p', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }],
      onEvent: (e) => {
        if (e.type === 'text_delta') midStream.abort();
      },
    })
  ).events;

  // A tool that reports its output while it runs (as bash does): tool_update.
  const talker: ToolDefinition = {
    name: 'talk',
    description: 'reports progress',
    parameters: Type.Object({}),
    risk: 'read',
    async execute(_args, ctx) {
      ctx.onOutput?.('step 1\n');
      return { content: 'step 1\nstep 2' };
    },
  };
  runs.streamed = (await scriptedRun({ cwd, tools: [talker], turns: [{ toolCalls: [{ name: 'talk', arguments: {} }] }, { text: 'talked' }] })).events;

  const midTool = new AbortController();
  const waiter: ToolDefinition = {
    name: 'wait',
    description: 'waits for the abort',
    parameters: Type.Object({}),
    risk: 'execute',
    execute: (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })),
  };
  runs.abortTool = (
    await scriptedRun({
      cwd,
      tools: [waiter],
      signal: midTool.signal,
      turns: [{ toolCalls: [{ name: 'wait', arguments: {} }] }],
      onEvent: (e) => {
        if (e.type === 'tool_start') setTimeout(() => midTool.abort(), 10);
      },
    })
  ).events;

  runs.maxTurns = (
    await scriptedRun({
      cwd,
      maxTurns: 1,
      turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'unused' }],
    })
  ).events;

  // The same call over and over: the loop guard stops the run.
  runs.loopDetected = (await scriptedRun({ cwd, loopGuard: { warnAfter: 2, stopAfter: 3 }, turns: Array.from({ length: 4 }, () => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] })) })).events;

  // A call the policy asks about (an execute tool), answered through the SDK: permission_request and permission_decision.
  const asked = await createAgent({
    cwd,
    home: tempDir('mini-agent-home-'),
    env: {},
    session: 'memory',
    tools: [{ ...waiter, name: 'run_it', execute: async () => ({ content: 'ran' }) }],
    onPermissionRequest: () => 'allow',
    script: writeScript(cwd, [{ toolCalls: [{ name: 'run_it', arguments: {} }] }, { text: 'done' }], 'asked.json'),
  });
  const askedEvents: AgentEvent[] = [];
  asked.subscribe((e) => askedEvents.push(e));
  await asked.prompt('go');
  await asked.close();
  runs.permissions = askedEvents;

  // A file-backed session with a corrupt line: run_start names the file, and a warning is emitted.
  const file = join(cwd, 'session.jsonl');
  const created = SessionStore.create(file, { cwd });
  created.close();
  writeFileSync(file, readFileSync(file, 'utf8') + 'not json at all\n');
  const store = SessionStore.open(file);
  try {
    runs.fileSession = (await scriptedRun({ cwd, store, turns: [{ text: 'ok' }] })).events;
  } finally {
    store.close();
  }
  return runs;
}

describe('docs/events.schema.json', () => {
  it('is generated from the TypeBox schema (run `npm run docs:schema` to update it)', () => {
    const expected = eventJsonSchema();
    if (process.env.UPDATE_SCHEMA) {
      mkdirSync(dirname(SCHEMA_FILE), { recursive: true });
      writeFileSync(SCHEMA_FILE, JSON.stringify(expected, null, 2) + '\n');
    }
    if (!existsSync(SCHEMA_FILE)) expect.fail('docs/events.schema.json is missing: run `npm run docs:schema`');
    const onDisk = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as unknown;
    expect(onDisk, 'docs/events.schema.json is out of date: run `npm run docs:schema`').toEqual(expected);
  });

  it('is a 2020-12 JSON Schema whose anyOf has one closed object per event type', () => {
    const doc = eventJsonSchema() as { $schema: string; anyOf: { type: string; additionalProperties: boolean; required: string[] }[] };
    expect(doc.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(new Set(schemaTypes).size).toBe(schemaTypes.length);
    for (const branch of doc.anyOf) {
      expect(branch.type).toBe('object');
      expect(branch.additionalProperties).toBe(false);
      expect(branch.required).toEqual(expect.arrayContaining(['type', 'schemaVersion', 'seq', 'time']));
    }
  });
});

describe('events of real runs', () => {
  it('validate against the schema, and every event type is emitted by some run', async () => {
    const runs = await collectRuns();
    const emitted = new Set<string>();
    for (const [name, events] of Object.entries(runs)) {
      expect(events.length, name).toBeGreaterThan(0);
      expect(events[0].type, name).toBe('run_start');
      expect(events.at(-1)?.type, name).toBe('run_settled');
      events.forEach((event, i) => {
        emitted.add(event.type);
        // As emitted in process, and as written to --json / --trace (JSON drops undefined fields).
        expectValid(event, `${name}[${i}]`);
        expectValid(JSON.parse(JSON.stringify(event)), `${name}[${i}] (JSON)`);
      });
    }
    // The runs ended the ways they were meant to.
    const stop = (name: string) => (runs[name].at(-1) as Extract<AgentEvent, { type: 'run_settled' }>).stopReason;
    expect(Object.fromEntries(Object.keys(runs).map((n) => [n, stop(n)]))).toEqual({
      text: 'completed',
      tools: 'completed',
      refused: 'refused',
      compacted: 'completed',
      compactionFailed: 'completed',
      queued: 'completed',
      modelError: 'error',
      exhausted: 'error',
      retried: 'completed',
      abortStream: 'aborted',
      abortTool: 'aborted',
      streamed: 'completed',
      maxTurns: 'max_turns',
      loopDetected: 'loop_detected',
      permissions: 'completed',
      fileSession: 'completed',
    });

    const exempt = Object.keys(NOT_YET_EMITTED);
    for (const t of exempt) expect(schemaTypes, `exemption ${t} is not an event type`).toContain(t);
    const missing = schemaTypes.filter((t) => !emitted.has(t) && !exempt.includes(t));
    expect(missing, 'event types in the schema that no run emitted').toEqual([]);
    // Keep the exemption list honest: once something emits an exempt type, drop the exemption.
    expect(
      exempt.filter((t) => emitted.has(t)),
      'exempt types that are now emitted',
    ).toEqual([]);
  });

  it('the validator rejects events that break the contract', () => {
    const good = { type: 'warning', message: 'm', schemaVersion: 1, seq: 0, time: 1 };
    expect(validator.Check(good)).toBe(true);
    expect(validator.Check({ ...good, extra: true })).toBe(false);
    expect(validator.Check({ ...good, seq: -1 })).toBe(false);
    expect(validator.Check({ ...good, type: 'mystery' })).toBe(false);
    expect(validator.Check({ type: 'run_end', turns: 1, stopReason: 'finished', schemaVersion: 1, seq: 3, time: 1 })).toBe(false);
  });

  it('the CLI --json output validates too', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.txt'), 'hello\n');
    const script = writeScript(cwd, [{ text: 'Reading.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'It says hello.' }]);
    const r = await cliInProcess(['--json', '--session', 'cli.jsonl', '--script', script, 'read notes'], { cwd });
    expect(r.code).toBe(0);
    const events = parseJsonl(r.stdout);
    expect(events[0]).toMatchObject({ type: 'run_start', session: { file: join(cwd, 'cli.jsonl') } });
    events.forEach((e, i) => expectValid(e, `cli[${i}]`));
  });
});
