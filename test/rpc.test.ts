// RPC mode (runRpc in process, as `mini-agent --rpc` runs it): a full conversation, framing (5 MB
// lines, U+2028), errors that never stop the process; through a real child process: EOF and
// SIGTERM, stdout purity while a tool writes to stdout; and every stdout line validated against docs/rpc.schema.json and
// docs/events.schema.json (their TypeBox sources). docs/rpc.schema.json is checked here too.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { AgentEventSchema } from '../src/core/event-schema.js';
import { COMMANDS, ResponseSchema, rpcJsonSchema } from '../src/rpc/protocol.js';
import { HANDLERS } from '../src/rpc/commands.js';
import { SessionStore } from '../src/session/store.js';
import type { ScriptTurn } from '../src/model/script.js';
import { tempDir, writeScript } from './support/helpers.js';
import { RpcClient, type RpcLine, type RpcResponse } from './support/rpc-client.js';
import { EVENT_SCHEMA_VERSION } from '../src/core/events.js';

const SCHEMA_FILE = fileURLToPath(new URL('../docs/rpc.schema.json', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const responseValidator = Compile(ResponseSchema);
const eventValidator = Compile(AgentEventSchema);

/** Every stdout line is JSON and matches the response or the event schema. */
function expectPure(client: RpcClient): void {
  for (const [i, line] of client.lines.entries()) {
    expect(typeof line, `stdout line ${i} is not JSON: ${String(line).slice(0, 200)}`).toBe('object');
    const l = line as RpcLine;
    const ok = l.type === 'response' ? responseValidator.Check(l) : eventValidator.Check(l);
    const errors = l.type === 'response' ? [...responseValidator.Errors(l)] : [...eventValidator.Errors(l)];
    expect(
      ok,
      `line ${i} does not match the schema: ${JSON.stringify(l).slice(0, 300)}\n${errors
        .slice(0, 5)
        .map((e) => `${e.instancePath} ${e.message}`)
        .join('\n')}`,
    ).toBe(true);
  }
}

function start(turns: ScriptTurn[], more: string[] = [], opts: { cwd?: string; home?: string; process?: boolean } = {}): { client: RpcClient; cwd: string; home: string } {
  const cwd = opts.cwd ?? tempDir();
  const home = opts.home ?? tempDir('mini-agent-home-');
  const script = writeScript(cwd, turns, `rpc-${Math.random().toString(16).slice(2)}.json`);
  return { client: new RpcClient(['--script', script, ...more], { cwd, home, process: opts.process }), cwd, home };
}

const settled = (l: RpcLine) => l.type === 'run_settled';
const ok = (r: RpcResponse) => {
  expect(r.ok, JSON.stringify(r)).toBe(true);
  return r.result;
};

describe('docs/rpc.schema.json', () => {
  it('is generated from the protocol types (run `npm run docs:schema` to update it)', () => {
    const expected = JSON.stringify(rpcJsonSchema(), null, 2) + '\n';
    if (process.env.UPDATE_SCHEMA === '1') writeFileSync(SCHEMA_FILE, expected);
    expect(existsSync(SCHEMA_FILE), 'docs/rpc.schema.json is missing: run `npm run docs:schema`').toBe(true);
    expect(readFileSync(SCHEMA_FILE, 'utf8'), 'docs/rpc.schema.json is out of date: run `npm run docs:schema`').toBe(expected);
  });

  it('every command has a handler, and every handler a command', () => {
    expect(Object.keys(HANDLERS).sort()).toEqual(Object.keys(COMMANDS).sort());
  });
});

describe('RPC mode', () => {
  it('a full conversation: prompt and its events, a steer, an abort, a branch, a fork, a label, a name, an export', async () => {
    const { client, cwd } = start([
      { text: 'First answer.' },
      { text: 'one two three four five six seven eight', delayMs: 15 },
      { text: 'Steered as asked.' },
      { text: 'this will be aborted a b c d e f g h i j', delayMs: 40 },
      { text: 'On a branch now.' },
      { text: 'In the fork.' },
    ]);
    const state = ok(await client.send({ type: 'get_state' }));
    expect(state).toMatchObject({ protocolVersion: 1, eventSchemaVersion: EVENT_SCHEMA_VERSION, running: false, model: { provider: 'scripted' } });

    // A prompt is answered at once; its events follow; run_settled last.
    const started = ok(await client.send({ type: 'prompt', message: 'hello' }));
    expect(started).toEqual({ started: true });
    const first = await client.waitFor(settled);
    expect(first).toMatchObject({ stopReason: 'completed' });
    const firstAnswer = (client.events().find((e) => e.type === 'message_end') as { entryId: string }).entryId;

    // A steer during a run: delivered when the streaming answer ends, answered in the same run.
    ok(await client.send({ type: 'prompt', message: 'count slowly' }));
    await client.waitFor((l) => l.type === 'text_delta' && l.delta.includes('one'));
    const steer = ok(await client.send({ type: 'steer', message: 'now stop counting' }));
    expect(steer).toMatchObject({ started: false, item: { kind: 'steer', text: 'now stop counting' } });
    expect(await client.next(settled)).toMatchObject({ stopReason: 'completed', turns: 2 });
    expect(client.events().find((e) => e.type === 'steer_delivered')).toMatchObject({ id: steer.item.id });

    // A prompt while a run is in progress is refused; an abort ends it.
    ok(await client.send({ type: 'prompt', message: 'say the alphabet' }));
    await client.waitFor((l) => l.type === 'text_delta' && l.delta.includes('aborted'));
    expect(await client.send({ type: 'prompt', message: 'another' })).toMatchObject({ ok: false, error: { kind: 'busy' } });
    expect(await client.send({ type: 'branch', entry: firstAnswer })).toMatchObject({ ok: false, error: { kind: 'busy' } });
    const abort = ok(await client.send({ type: 'abort' }));
    expect(abort).toEqual({ aborted: true, undelivered: [] });
    expect(await client.next(settled)).toMatchObject({ stopReason: 'aborted' });

    // Branch back to the first answer and go on from there.
    expect(ok(await client.send({ type: 'branch', entry: firstAnswer }))).toEqual({ entryId: firstAnswer });
    ok(await client.send({ type: 'prompt', message: 'on a branch' }));
    await client.next(settled);
    const messages = ok(await client.send({ type: 'get_messages' })).messages as { role: string }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const tree = ok(await client.send({ type: 'get_tree' }));
    expect(tree.branches).toBeGreaterThanOrEqual(2);
    expect(ok(await client.send({ type: 'get_stats' })).session.turns).toBeGreaterThanOrEqual(4);

    // Label, name, fork, export.
    expect(ok(await client.send({ type: 'label', entry: firstAnswer, label: 'start' }))).toEqual({ entryId: firstAnswer });
    expect(ok(await client.send({ type: 'name', name: 'rpc session' })).session.name).toBe('rpc session');
    const parent = ok(await client.send({ type: 'get_state' })).session;
    const fork = ok(await client.send({ type: 'fork', entry: 'start' }));
    expect(fork.session.id).not.toBe(parent.id);
    ok(await client.send({ type: 'prompt', message: 'in the fork' }));
    await client.next(settled);
    expect(SessionStore.open(fork.session.file).header.parentSession).toMatchObject({ id: parent.id, entryId: firstAnswer });
    const exported = ok(await client.send({ type: 'export', format: 'md', path: 'fork.md' }));
    expect(exported.path).toBe(join(cwd, 'fork.md'));
    expect(readFileSync(exported.path, 'utf8')).toContain('In the fork.');
    expect(exported.bytes).toBe(readFileSync(exported.path).length);

    expect(await client.end()).toEqual({ code: 0, signal: null });
    expectPure(client);
    // Exactly one response per command.
    const ids = client.responses().map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a malformed line, an unknown command and bad arguments get error responses; the process goes on', async () => {
    const { client } = start([{ text: 'still here' }]);
    client.writeRaw('this is not json\n');
    client.writeRaw('[1, 2]\n');
    client.writeRaw('{"id": "n1"}\n');
    const badJson = (await client.waitFor((l) => l.type === 'response' && (l as RpcResponse).error?.message.includes('not valid JSON') === true)) as RpcResponse;
    expect(badJson).toMatchObject({ id: null, command: null, ok: false, error: { kind: 'parse_error' } });
    expect(await client.waitFor((l) => l.type === 'response' && (l as RpcResponse).error?.message.includes('must be a JSON object') === true)).toMatchObject({ error: { kind: 'parse_error' } });
    expect(await client.waitFor((l) => l.type === 'response' && (l as RpcResponse).id === 'n1')).toMatchObject({ ok: false, error: { kind: 'invalid_argument', message: 'the command has no "type"' } });
    expect(await client.send({ type: 'dance' })).toMatchObject({ ok: false, command: 'dance', error: { kind: 'unknown_command', message: expect.stringContaining('the commands are prompt, steer') } });
    expect(await client.send({ type: 'prompt' })).toMatchObject({ ok: false, error: { kind: 'invalid_argument', message: expect.stringContaining('message') } });
    expect(await client.send({ type: 'prompt', message: 'x', extra: 1 })).toMatchObject({ ok: false, error: { kind: 'invalid_argument', message: expect.stringContaining('extra') } });
    expect(await client.send({ type: 'export', format: 'pdf', path: 'x' })).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
    expect(await client.send({ type: 'branch', entry: 'nope' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    expect(await client.send({ type: 'switch_session', session: 'no-such-session' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    expect(await client.send({ type: 'cancel', item: 'q_none' })).toMatchObject({ ok: true, result: { cancelled: false } });
    expect(await client.send({ type: 'abort' })).toMatchObject({ ok: true, result: { aborted: false, undelivered: [] } });
    // Still working.
    ok(await client.send({ type: 'prompt', message: 'are you there?' }));
    expect(await client.waitFor(settled)).toMatchObject({ stopReason: 'completed' });
    expect(await client.end()).toMatchObject({ code: 0 });
    expectPure(client);
  });

  it('new_session, switch_session and set_model between runs', async () => {
    const { client } = start([{ text: 'in the first session' }, { text: 'in the second session' }]);
    const first = ok(await client.send({ type: 'get_state' })).session;
    ok(await client.send({ type: 'prompt', message: 'one' }));
    await client.waitFor(settled);
    const created = ok(await client.send({ type: 'new_session' })).session;
    expect(created.id).not.toBe(first.id);
    ok(await client.send({ type: 'prompt', message: 'two' }));
    await client.next(settled);
    expect(ok(await client.send({ type: 'get_messages' })).messages).toHaveLength(2);
    const back = ok(await client.send({ type: 'switch_session', session: first.id.slice(0, 8) })).session;
    expect(back).toEqual(first);
    expect((ok(await client.send({ type: 'get_messages' })).messages as { role: string }[]).length).toBe(2);
    expect(await client.send({ type: 'set_model', provider: 'no-such-provider' })).toMatchObject({ ok: false, error: { kind: 'invalid_argument', message: expect.stringContaining('unknown provider') } });
    expect(ok(await client.send({ type: 'set_model', provider: 'ollama', model: 'qwen3:8b' }))).toEqual({ model: { provider: 'ollama', id: 'qwen3:8b' } });
    expect(ok(await client.send({ type: 'get_state' })).model).toEqual({ provider: 'ollama', id: 'qwen3:8b' });
    expect(await client.end()).toMatchObject({ code: 0 });
    expectPure(client);
  });

  it('a 5 MB prompt line and a prompt holding U+2028 and U+2029 arrive whole', async () => {
    const { client, home } = start([{ text: 'got the big one' }, { text: 'got the separators' }], ['--session', 'rpc.jsonl']);
    const big = 'x'.repeat(5 * 1024 * 1024);
    ok(await client.send({ type: 'prompt', message: big }, 30_000));
    await client.waitFor(settled, 30_000);
    const odd = 'line one\u2028still one\u2029and \r the end';
    ok(await client.send({ type: 'prompt', message: odd }));
    await client.next(settled);
    const starts = client.events().filter((e) => e.type === 'run_start') as { prompt: string }[];
    expect(starts[0].prompt.length).toBe(big.length);
    expect(starts[1].prompt).toBe(odd);
    expect(await client.end()).toMatchObject({ code: 0 });
    expectPure(client);
    void home;
  }, 60_000);

  it('EOF mid-run: the run settles (its events are written), then the process exits 0', async () => {
    const { client } = start([{ text: 'a slow answer that keeps streaming for a while', delayMs: 10 }], [], { process: true });
    ok(await client.send({ type: 'prompt', message: 'go' }));
    await client.waitFor((l) => l.type === 'text_delta');
    const exit = await client.end();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(client.events().at(-1)).toMatchObject({ type: 'run_settled', stopReason: 'completed' });
    expectPure(client);
  });

  it('SIGTERM mid-run: the run is aborted, the session stays valid, exit 143', async () => {
    const cwd = tempDir();
    const { client } = start([{ text: 'a b c d e f g h i j k l m n o p q r s t u v w x y z', delayMs: 20 }, { text: 'resumed fine' }], ['--session', join(cwd, 's.jsonl')], { cwd, process: true });
    ok(await client.send({ type: 'prompt', message: 'go' }));
    await client.waitFor((l) => l.type === 'text_delta');
    client.child!.kill('SIGTERM');
    expect(await client.exited).toEqual({ code: 143, signal: null });
    expect(client.events().at(-1)).toMatchObject({ type: 'run_settled', stopReason: 'aborted' });
    expectPure(client);
    const store = SessionStore.open(join(cwd, 's.jsonl'));
    expect(store.warnings).toEqual([]);
    expect(existsSync(join(cwd, 's.jsonl.lock'))).toBe(false);
  });

  it('stdout stays pure while a tool writes to stdout and stderr (console.log, process.stdout.write)', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ toolCalls: [{ name: 'noisy', arguments: {} }] }, { text: 'done' }]);
    writeFileSync(
      join(cwd, 'rpc-with-tool.mjs'),
      `import { runRpcProcess } from ${JSON.stringify(join(DIST, 'rpc-mode.mjs'))};
const noisy = {
  name: 'noisy', description: 'writes everywhere', parameters: { type: 'object', properties: {} }, risk: 'read',
  async execute() {
    console.log('console.log from a tool');
    process.stdout.write('raw stdout from a tool\\n');
    console.error('console.error from a tool');
    process.stderr.write('raw stderr from a tool\\n');
    return { content: 'made some noise' };
  },
};
process.exitCode = await runRpcProcess({ cwd: process.cwd(), env: process.env, script: ${JSON.stringify(script)}, session: 'memory', extraTools: [noisy] });
`,
    );
    const client = new RpcClient([], { cwd, command: [process.execPath, join(cwd, 'rpc-with-tool.mjs')] });
    ok(await client.send({ type: 'prompt', message: 'make noise' }));
    await client.waitFor(settled);
    expect(client.events().find((e) => e.type === 'tool_end')).toMatchObject({ name: 'noisy', result: { isError: false } });
    await client.end();
    expectPure(client);
    for (const noise of ['console.log from a tool', 'raw stdout from a tool', 'console.error from a tool', 'raw stderr from a tool']) {
      expect(client.stderr).toContain(noise);
    }
  });

  it('a usage error at start is one stderr line and exit 2; --rpc takes no prompt', async () => {
    const cwd = tempDir();
    const noScript = new RpcClient(['--script', 'missing.json'], { cwd });
    expect(await noScript.end()).toMatchObject({ code: 2 });
    expect(noScript.stderr).toMatch(/^mini-agent: cannot read script missing\.json/);
    expect(noScript.lines).toEqual([]);
    const withPrompt = new RpcClient(['hello'], { cwd });
    expect(await withPrompt.end()).toMatchObject({ code: 2 });
    expect(withPrompt.stderr).toMatch(/--rpc takes no prompt/);
  });
});
