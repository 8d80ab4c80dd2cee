// ACP mode on the scripted model, driven by the official SDK's client: initialize and streaming,
// tool calls with kinds, locations, statuses and diffs, permissions (allow/reject, once/always),
// cancel, session/load of a CLI session (and the lock), the client's file system, an MCP server
// given by the client, modes, stdout purity, an unknown method, EOF and signals. In process
// (runAcp) but for EOF and SIGTERM, which a real child process (`mini-agent --acp`) answers.
// Every test also checks that stdout carried only JSON-RPC.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../src/model/script.js';
import { projectMessages } from '../src/session/projector.js';
import { SessionStore } from '../src/session/store.js';
import { type AcpChild, INIT, startAcp } from './support/acp-client.js';
import { cliInProcess } from './support/cli-in-process.js';
import { runCli, tempDir, writeScript } from './support/helpers.js';

const EVERYTHING = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

const children: AcpChild[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    expect(c.impureLines(), `stdout lines that are not JSON-RPC; stderr:\n${c.stderr}`).toEqual([]);
    if (!c.done) await c.end();
  }
});

function start(turns: ScriptTurn[], opts: Parameters<typeof startAcp>[1] & { args?: string[] } = {}): { acp: AcpChild; cwd: string } {
  const cwd = opts.cwd ?? tempDir();
  const script = writeScript(tempDir('acp-script-'), turns);
  const acp = startAcp(['--script', script, ...(opts.args ?? [])], { ...opts, cwd });
  children.push(acp);
  return { acp, cwd };
}

const ask = (text: string) => [{ type: 'text' as const, text }];

async function sessionFile(cwd: string, home: string, id: string): Promise<string> {
  const listed = await cliInProcess(['sessions', '--json'], { cwd, home });
  const found = (JSON.parse(listed.stdout) as { id: string; file: string }[]).find((s) => s.id === id);
  if (!found) throw new Error(`session ${id} is not listed: ${listed.stdout}${listed.stderr}`);
  return found.file;
}

describe('ACP mode', () => {
  it('initialize, session/new, and a prompt whose answer streams as chunks', async () => {
    const answer = 'Hello from mini-agent, streamed in pieces.';
    const { acp, cwd } = start([{ thinking: 'The user says hi.', text: answer }]);
    await acp.run(async (ctx) => {
      const init = await ctx.request('initialize', INIT);
      expect(init).toMatchObject({
        protocolVersion: 1,
        agentCapabilities: { loadSession: true, promptCapabilities: { embeddedContext: true, image: true }, mcpCapabilities: { http: true } },
        agentInfo: { name: 'mini-agent' },
        authMethods: [],
      });
      const session = await ctx.request('session/new', { cwd, mcpServers: [] });
      expect(session.modes).toMatchObject({ currentModeId: 'default', availableModes: [{ id: 'default' }, { id: 'accept-edits' }, { id: 'read-only' }] });
      expect(await ctx.request('session/prompt', { sessionId: session.sessionId, prompt: ask('hi') })).toEqual({ stopReason: 'end_turn' });
      expect(acp.of(session.sessionId, 'agent_message_chunk').length).toBeGreaterThan(1);
      expect(acp.text(session.sessionId)).toBe(answer);
      expect(
        acp
          .of(session.sessionId, 'agent_thought_chunk')
          .map((u) => (u.content.type === 'text' ? u.content.text : ''))
          .join(''),
      ).toBe('The user says hi.');
      // The ACP session id is ours: the terminal finds the same session.
      expect(await sessionFile(cwd, acp.home, session.sessionId)).toContain(session.sessionId);
      // Several sessions in one process, each with its own file.
      const other = await ctx.request('session/new', { cwd, mcpServers: [] });
      expect(other.sessionId).not.toBe(session.sessionId);
      expect(await ctx.request('session/prompt', { sessionId: other.sessionId, prompt: ask('and you?') })).toEqual({ stopReason: 'end_turn' });
      // Each session has its own agent (and scripted model, replayed from its start); updates name their session.
      expect(acp.text(other.sessionId)).toBe(answer);
      expect(acp.text(session.sessionId)).toBe(answer);
      expect(await sessionFile(cwd, acp.home, other.sessionId)).toContain(other.sessionId);
    });
    expect(await acp.end()).toEqual({ code: 0, signal: null });
  });

  it('negotiates the protocol version: a newer client gets ours, one older than any we speak is refused', async () => {
    const { acp } = start([]);
    await acp.run(async (ctx) => {
      await expect(ctx.request('initialize', { ...INIT, protocolVersion: 0 })).rejects.toMatchObject({ code: -32022 });
      expect(await ctx.request('initialize', { ...INIT, protocolVersion: 7 })).toMatchObject({ protocolVersion: 1 });
    });
  });

  it('read_file and edit_file calls carry a kind, locations, statuses and, for the edit, a diff', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), '# Notes\nold line\n');
    const { acp } = start(
      [
        { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'notes.md' } }] },
        {
          toolCalls: [
            { id: 'e1', name: 'edit_file', arguments: { path: 'notes.md', edits: [{ oldText: 'old line', newText: 'new line' }] } },
            { id: 'w1', name: 'write_file', arguments: { path: 'sub/new.txt', content: 'fresh\n' } },
          ],
        },
        { text: 'Edited.' },
      ],
      { cwd },
    );
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('fix the notes') })).toEqual({ stopReason: 'end_turn' });
      const calls = acp.of(sessionId, 'tool_call');
      expect(calls.map((c) => [c.toolCallId, c.kind, c.status, c.locations])).toEqual([
        ['r1', 'read', 'pending', [{ path: join(cwd, 'notes.md') }]],
        ['e1', 'edit', 'pending', [{ path: join(cwd, 'notes.md') }]],
        ['w1', 'edit', 'pending', [{ path: join(cwd, 'sub/new.txt') }]],
      ]);
      expect(calls[0]).toMatchObject({ title: 'Read notes.md', rawInput: { path: 'notes.md' } });
      const updates = (id: string) => acp.of(sessionId, 'tool_call_update').filter((u) => u.toolCallId === id);
      expect(updates('r1').map((u) => u.status)).toEqual(['in_progress', 'completed']);
      expect(updates('r1')[1].content).toEqual([{ type: 'content', content: { type: 'text', text: expect.stringContaining('old line') } }]);
      expect(updates('e1').map((u) => u.status)).toEqual(['in_progress', 'completed']);
      expect(updates('e1')[1].content).toContainEqual({ type: 'diff', path: join(cwd, 'notes.md'), oldText: '# Notes\nold line\n', newText: '# Notes\nnew line\n' });
      expect(updates('w1')[1].content).toContainEqual({ type: 'diff', path: join(cwd, 'sub/new.txt'), oldText: null, newText: 'fresh\n' });
    });
    expect(readFileSync(join(cwd, 'notes.md'), 'utf8')).toBe('# Notes\nnew line\n');
  });

  it('permissions: allow once, reject once, reject always (not asked again), allow always (not asked again)', async () => {
    const cwd = tempDir();
    const answers = ['allow_once', 'reject_once', 'reject_always', 'allow_always'];
    const bash = (id: string, command: string): ScriptTurn => ({ toolCalls: [{ id, name: 'bash', arguments: { command } }] });
    const { acp } = start(
      [
        bash('b1', 'echo run >> ran.txt'),
        { text: 'one' },
        bash('b2', 'echo run >> ran.txt'),
        { text: 'two' },
        bash('b3', 'echo run >> ran.txt'),
        { text: 'three' },
        bash('b4', 'echo run >> ran.txt'),
        { text: 'four' },
        bash('b5', 'echo other >> ran.txt'),
        { text: 'five' },
        bash('b6', 'echo other >> ran.txt'),
        { text: 'six' },
      ],
      { cwd, permission: () => ({ outcome: 'selected', optionId: answers.shift()! }) },
    );
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      for (let i = 0; i < 6; i++) expect(await ctx.request('session/prompt', { sessionId, prompt: ask(`go ${i}`) })).toEqual({ stopReason: 'end_turn' });
      // Asked for b1, b2, b3 and b5; b4 was refused by the earlier "reject always", b6 allowed by "allow always".
      expect(acp.permissions.map((p) => p.toolCall.toolCallId)).toEqual(['b1', 'b2', 'b3', 'b5']);
      expect(acp.permissions[0]).toMatchObject({ sessionId, toolCall: { title: 'Run `echo run >> ran.txt`', kind: 'execute', rawInput: { command: 'echo run >> ran.txt' } } });
      expect(acp.permissions[0].options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once', 'reject_always']);
      const final = (id: string) =>
        acp
          .of(sessionId, 'tool_call_update')
          .filter((u) => u.toolCallId === id)
          .at(-1)!;
      expect(['b1', 'b2', 'b3', 'b4', 'b5', 'b6'].map((id) => final(id).status)).toEqual(['completed', 'failed', 'failed', 'failed', 'completed', 'completed']);
      expect(JSON.stringify(final('b4').content)).toContain('reject always');
    });
    expect(readFileSync(join(cwd, 'ran.txt'), 'utf8')).toBe('run\nother\nother\n');
  });

  it('session/cancel during a slow tool answers cancelled and leaves a valid session that goes on', async () => {
    const { acp, cwd } = start([{ toolCalls: [{ id: 's1', name: 'bash', arguments: { command: 'sleep 5' } }] }, { text: 'After the cancel.' }]);
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      const prompt = ctx.request('session/prompt', { sessionId, prompt: ask('wait a while') });
      await acp.waitFor((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 's1' && u.status === 'in_progress');
      await ctx.notify('session/cancel', { sessionId });
      expect(await prompt).toEqual({ stopReason: 'cancelled' });
      expect(
        acp
          .of(sessionId, 'tool_call_update')
          .filter((u) => u.toolCallId === 's1')
          .at(-1)!.status,
      ).toBe('failed');
      // The aborted run asked the model nothing more: the next prompt gets the script's next turn.
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('again') })).toEqual({ stopReason: 'end_turn' });
      expect(acp.text(sessionId)).toBe('After the cancel.');
      // Valid: every tool call on the active path has its result.
      const store = SessionStore.open(await sessionFile(cwd, acp.home, sessionId));
      const messages = projectMessages(store.activePath());
      const calls = messages.flatMap((m) => (m.role === 'assistant' ? m.content.filter((c) => c.type === 'toolCall').map((c) => c.id) : []));
      const results = messages.flatMap((m) => (m.role === 'toolResult' ? [m.toolCallId] : []));
      expect(calls).toEqual(['s1']);
      expect(results).toEqual(['s1']);
      const tree = await cliInProcess(['tree', sessionId], { cwd, home: acp.home });
      expect(tree.code, tree.stderr).toBe(0);
    });
  });

  it('a cancel while the client is asked about a call refuses the call and answers cancelled', async () => {
    let answer: (o: { outcome: 'cancelled' }) => void = () => undefined;
    const { acp, cwd } = start([{ toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: 'echo no >> ran.txt' } }] }, { text: 'next' }], {
      permission: () => new Promise((resolve) => (answer = resolve)),
    });
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      const prompt = ctx.request('session/prompt', { sessionId, prompt: ask('try it') });
      await acp.waitFor((u) => u.sessionUpdate === 'tool_call' && u.toolCallId === 'b1');
      while (acp.permissions.length === 0) await new Promise((r) => setTimeout(r, 10));
      await ctx.notify('session/cancel', { sessionId });
      expect(await prompt).toEqual({ stopReason: 'cancelled' });
      answer({ outcome: 'cancelled' }); // as ACP asks of a client after session/cancel (too late to matter)
      expect(
        acp
          .of(sessionId, 'tool_call_update')
          .filter((u) => u.toolCallId === 'b1')
          .at(-1)!.status,
      ).toBe('failed');
    });
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false);
  });

  it('session/load replays a session written by the CLI, continues it, and holds its lock', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    writeFileSync(join(cwd, 'a.txt'), 'alpha\n');
    const cliScript = writeScript(tempDir('acp-script-'), [{ thinking: 'look first', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'It says alpha.' }]);
    const printed = await cliInProcess(['--script', cliScript, 'what is in a.txt?'], { cwd, home });
    expect(printed.code, printed.stderr).toBe(0);
    const listed = JSON.parse((await cliInProcess(['sessions', '--json'], { cwd, home })).stdout) as { id: string }[];
    const id = listed[0].id;

    const { acp } = start([{ text: 'Continued.' }], { cwd, home });
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const loaded = await ctx.request('session/load', { sessionId: id, cwd, mcpServers: [] });
      expect(loaded).toMatchObject({ modes: { currentModeId: 'default' } });
      expect(acp.of(id).map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'agent_thought_chunk', 'tool_call', 'agent_message_chunk', 'available_commands_update']);
      expect(acp.of(id, 'user_message_chunk')[0].content).toEqual({ type: 'text', text: 'what is in a.txt?' });
      expect(acp.of(id, 'tool_call')[0]).toMatchObject({
        toolCallId: 'c1',
        kind: 'read',
        status: 'completed',
        locations: [{ path: join(cwd, 'a.txt') }],
        content: [{ type: 'content', content: { type: 'text', text: expect.stringContaining('alpha') } }],
      });
      expect(acp.text(id)).toBe('It says alpha.');
      // Another process cannot open it meanwhile (a real one: the CLI as a child).
      const other = await runCli(['--script', cliScript, '--resume', id, 'hello'], { cwd, home });
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(/in use|lock/i);
      expect(await ctx.request('session/prompt', { sessionId: id, prompt: ask('go on') })).toEqual({ stopReason: 'end_turn' });
      await expect(ctx.request('session/load', { sessionId: 'no-such-session', cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
    });
    expect(await acp.end()).toEqual({ code: 0, signal: null });
    const store = SessionStore.open(await sessionFile(cwd, home, id));
    expect(JSON.stringify(projectMessages(store.activePath()))).toContain('Continued.');
  });

  it("the client's file system: reads see the editor's buffer, and an edit lands through fs/write_text_file, not on disk", async () => {
    const cwd = tempDir();
    const file = join(cwd, 'app.ts');
    writeFileSync(file, 'const a = 1;\n');
    const files = new Map([[file, 'const a = 1; // unsaved\n']]);
    const { acp } = start(
      [
        {
          toolCalls: [
            { id: 'r1', name: 'read_file', arguments: { path: 'app.ts' } },
            { id: 'e1', name: 'edit_file', arguments: { path: 'app.ts', edits: [{ oldText: 'a = 1', newText: 'a = 2' }] } },
          ],
        },
        { text: 'ok' },
      ],
      { cwd, files },
    );
    await acp.run(async (ctx) => {
      await ctx.request('initialize', { ...INIT, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('bump a') })).toEqual({ stopReason: 'end_turn' });
      const final = (id: string) =>
        acp
          .of(sessionId, 'tool_call_update')
          .filter((u) => u.toolCallId === id)
          .at(-1)!;
      expect(JSON.stringify(final('r1').content)).toContain('unsaved');
      expect(final('e1').status).toBe('completed');
      expect(acp.writes).toEqual([{ path: file, content: 'const a = 2; // unsaved\n' }]);
      expect(final('e1').content).toContainEqual({ type: 'diff', path: file, oldText: 'const a = 1; // unsaved\n', newText: 'const a = 2; // unsaved\n' });
    });
    expect(readFileSync(file, 'utf8')).toBe('const a = 1;\n');
  });

  it('an MCP server passed in session/new is started and its tools called (a tool that does not say it is read-only, after the permission)', async () => {
    const { acp, cwd } = start([
      {
        toolCalls: [
          { id: 'm1', name: 'everything__echo', arguments: { message: 'hello over acp' } },
          { id: 'm2', name: 'everything__toggle-simulated-logging', arguments: {} },
        ],
      },
      { text: 'echoed' },
    ]);
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [{ name: 'everything', command: process.execPath, args: [EVERYTHING], env: [] }] });
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('echo it') })).toEqual({ stopReason: 'end_turn' });
      // echo says it is read-only (readOnlyHint), so it runs without a question; the other asks.
      expect(acp.permissions.map((p) => [p.toolCall.toolCallId, p.toolCall.kind, p.toolCall.title])).toEqual([['m2', 'other', 'everything: toggle-simulated-logging']]);
      const final = acp
        .of(sessionId, 'tool_call_update')
        .filter((u) => u.toolCallId === 'm1')
        .at(-1)!;
      expect(final.status).toBe('completed');
      expect(JSON.stringify(final.content)).toContain('Echo: hello over acp');
      expect(
        acp
          .of(sessionId, 'tool_call_update')
          .filter((u) => u.toolCallId === 'm2')
          .at(-1)!.status,
      ).toBe('completed');
    });
  }, 30_000);

  it('modes: read-only refuses an edit, accept-edits is accepted, an unknown mode is invalid params', async () => {
    const { acp, cwd } = start([{ toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] }, { text: 'refused' }]);
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      await ctx.request('session/set_mode', { sessionId, modeId: 'read-only' });
      await acp.waitFor((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'read-only');
      await ctx.request('session/prompt', { sessionId, prompt: ask('write x') });
      expect(
        acp
          .of(sessionId, 'tool_call_update')
          .filter((u) => u.toolCallId === 'w1')
          .at(-1)!.status,
      ).toBe('failed');
      await ctx.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
      await expect(ctx.request('session/set_mode', { sessionId, modeId: 'yolo' })).rejects.toMatchObject({ code: -32602 });
      expect(acp.of(sessionId, 'current_mode_update').map((u) => u.currentModeId)).toEqual(['read-only', 'accept-edits']);
    });
  });

  it('stdout stays pure with --verbose (the log goes to stderr); an unknown method is an error and the process goes on', async () => {
    const { acp, cwd } = start([{ text: 'still here' }], { args: ['--verbose'] });
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      await expect(ctx.request('session/fly', { to: 'the moon' })).rejects.toMatchObject({ code: -32601 });
      await expect(ctx.request('session/prompt', { sessionId: 'nope', prompt: ask('x') })).rejects.toMatchObject({ code: -32002 });
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('are you there?') })).toEqual({ stopReason: 'end_turn' });
    });
    expect(await acp.end()).toEqual({ code: 0, signal: null });
    expect(acp.stdoutLines.length).toBeGreaterThan(4);
    expect(acp.stderr).toContain('← initialize');
    expect(acp.stderr).toContain('session/fly');
  });

  it('EOF during a run lets it settle, then exits 0; SIGTERM aborts a run and exits 143 (child processes)', async () => {
    const { acp, cwd } = start([{ text: 'a slow answer that is still written whole', delayMs: 40 }], { process: true });
    let sessionId = '';
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      sessionId = (await ctx.request('session/new', { cwd, mcpServers: [] })).sessionId;
      void ctx.request('session/prompt', { sessionId, prompt: ask('slowly') }).catch(() => undefined);
      await acp.waitFor((u) => u.sessionUpdate === 'agent_message_chunk');
    });
    expect(await acp.end()).toEqual({ code: 0, signal: null });
    const store = SessionStore.open(await sessionFile(cwd, acp.home, sessionId));
    expect(JSON.stringify(projectMessages(store.activePath()))).toContain('a slow answer that is still written whole');

    let secondId = '';
    const second = start([{ toolCalls: [{ id: 's1', name: 'bash', arguments: { command: 'sleep 5' } }] }], { process: true });
    await second.acp
      .run(async (ctx) => {
        await ctx.request('initialize', INIT);
        const { sessionId: id } = await ctx.request('session/new', { cwd: second.cwd, mcpServers: [] });
        secondId = id;
        void ctx.request('session/prompt', { sessionId: id, prompt: ask('sleep') }).catch(() => undefined);
        await second.acp.waitFor((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress');
        second.acp.child.kill('SIGTERM');
        await second.acp.exited; // the connection closes with the child's stdout
      })
      .catch(() => undefined);
    expect(await second.acp.exited).toEqual({ code: 143, signal: null });
    const killed = SessionStore.open(await sessionFile(second.cwd, second.acp.home, secondId));
    expect(projectMessages(killed.activePath()).map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult']);
  });

  it("a failed run is a JSON-RPC error with the model's message, and the session goes on", async () => {
    const { acp, cwd } = start([{ error: { kind: 'auth', message: 'the key was revoked' } }, { text: 'Back.' }]);
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      await expect(ctx.request('session/prompt', { sessionId, prompt: ask('hi') })).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('the key was revoked'), data: { kind: 'auth' } });
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('again') })).toEqual({ stopReason: 'end_turn' });
    });
  });

  it('a missing API key fails neither initialize nor session/new: the first prompt reports it, naming the variable to set', async () => {
    const cwd = tempDir();
    const acp = startAcp(['--provider', 'openai'], { cwd });
    children.push(acp);
    await acp.run(async (ctx) => {
      expect(await ctx.request('initialize', INIT)).toMatchObject({ protocolVersion: 1, authMethods: [] });
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      await expect(ctx.request('session/prompt', { sessionId, prompt: ask('hi') })).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining('no API key; set OPENAI_API_KEY'),
        data: { kind: 'auth' },
      });
    });
  });

  it('refuses the flags that pick a session: the editor does', async () => {
    const acp = startAcp(['--resume', 'abc']);
    expect(await acp.exited).toEqual({ code: 2, signal: null });
    expect(acp.stderr).toContain('--resume does not apply to --acp');
  });

  it('in process, a signal through io.onSignal aborts the run (143, SIGINT 130), and no listener is left behind', async () => {
    const listeners = () => ({ term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT'), exit: process.listenerCount('exit') });
    const before = listeners();
    for (const [signal, code] of [
      ['SIGTERM', 143],
      ['SIGINT', 130],
    ] as const) {
      const { acp, cwd } = start([{ toolCalls: [{ id: 's1', name: 'bash', arguments: { command: 'sleep 5' } }] }]);
      let sessionId = '';
      await acp
        .run(async (ctx) => {
          await ctx.request('initialize', INIT);
          sessionId = (await ctx.request('session/new', { cwd, mcpServers: [] })).sessionId;
          void ctx.request('session/prompt', { sessionId, prompt: ask('sleep') }).catch(() => undefined);
          await acp.waitFor((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress');
          expect(acp.signalListenerCount).toBe(1);
          acp.signal(signal);
          await acp.exited;
        })
        .catch(() => undefined);
      expect(await acp.exited).toEqual({ code, signal: null });
      expect(acp.stderr).toContain(`${signal} received, stopping`);
      expect(acp.signalListenerCount).toBe(0);
      const killed = SessionStore.open(await sessionFile(cwd, acp.home, sessionId));
      expect(projectMessages(killed.activePath()).map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult']);
    }
    expect(listeners()).toEqual(before);
  });
});
