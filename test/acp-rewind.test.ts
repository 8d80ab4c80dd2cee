// ACP mode's slash commands over the file checkpoints (issue 26): /diff and /rewind advertised by
// available_commands_update, /diff's unified diff as a message, /rewind's plan, its question
// (rewind / cancel; overwriting a file changed outside the agent as its own option), the files
// restored on disk and the leaf moved in the session file, a refusal during a run, and the plain
// message when the editor owns the files. In process (runAcp), driven by the SDK's own client.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientContext, RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ScriptTurn } from '../src/model/script.js';
import { checkpointDirOf } from '../src/session/checkpoint-store.js';
import { SessionStore } from '../src/session/store.js';
import { type AcpChild, INIT, startAcp } from './support/acp-client.js';
import { messageId } from './support/checkpoint-session.js';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir, writeScript } from './support/helpers.js';

const children: AcpChild[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    expect(c.impureLines(), `stdout lines that are not JSON-RPC; stderr:\n${c.stderr}`).toEqual([]);
    if (!c.done) await c.end();
  }
});

type Answer = (r: RequestPermissionRequest) => RequestPermissionResponse['outcome'] | Promise<RequestPermissionResponse['outcome']>;

/** Two runs: write_file a.txt ("one"), then edit it to "two". */
const EDITS: ScriptTurn[] = [
  { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } }] },
  { text: 'written' },
  { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { path: 'a.txt', edits: [{ oldText: 'one', newText: 'two' }] } }] },
  { text: 'edited' },
];

function start(turns: ScriptTurn[], opts: { permission?: Answer; files?: Map<string, string>; args?: string[] } = {}): { acp: AcpChild; cwd: string } {
  const cwd = tempDir();
  const script = writeScript(tempDir('acp-script-'), turns);
  const acp = startAcp(['--script', script, ...(opts.args ?? [])], { cwd, ...(opts.permission ? { permission: opts.permission } : {}), ...(opts.files ? { files: opts.files } : {}) });
  children.push(acp);
  return { acp, cwd };
}

const ask = (text: string) => [{ type: 'text' as const, text }];
const choose = (optionId: string) => ({ outcome: 'selected' as const, optionId });

async function sessionFile(acp: AcpChild, cwd: string, id: string): Promise<string> {
  const listed = await cliInProcess(['sessions', '--json'], { cwd, home: acp.home });
  const found = (JSON.parse(listed.stdout) as { id: string; file: string }[]).find((s) => s.id === id);
  if (!found) throw new Error(`session ${id} is not listed: ${listed.stdout}${listed.stderr}`);
  return found.file;
}

/** initialize, session/new, then the script's two runs (write a.txt, edit it): the session, its file and the answer after the write. */
async function writtenAndEdited(ctx: ClientContext, acp: AcpChild, cwd: string): Promise<{ sessionId: string; file: string; target: string }> {
  await ctx.request('initialize', INIT);
  const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
  await ctx.request('session/prompt', { sessionId, prompt: ask('write') });
  await ctx.request('session/prompt', { sessionId, prompt: ask('edit') });
  const file = await sessionFile(acp, cwd, sessionId);
  return { sessionId, file, target: messageId(file, 'assistant', 'written') };
}

/** The text of the agent messages sent since `from` updates of the session had been recorded. */
const textSince = (acp: AcpChild, sessionId: string, from: number) =>
  acp
    .of(sessionId)
    .slice(from)
    .flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []))
    .join('');

describe('ACP /diff and /rewind', () => {
  it('advertises both commands after session/new and after session/load', async () => {
    const { acp, cwd } = start([{ text: 'hi' }]);
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      const advertised = await acp.waitFor((u) => u.sessionUpdate === 'available_commands_update');
      expect(advertised.sessionUpdate === 'available_commands_update' && advertised.availableCommands.map((c) => [c.name, c.input?.hint])).toEqual([
        ['diff', 'ENTRY (id, prefix or label; optional)'],
        ['rewind', 'ENTRY (id, prefix or label) [--files-only | --conversation-only]'],
      ]);
      // On stdout, right after the answer that told the client the session's id.
      const answer = acp.stdoutLines.findIndex((l) => l.includes(`"result":{"sessionId":"${sessionId}"`));
      expect(answer).toBeGreaterThanOrEqual(0);
      expect(JSON.parse(acp.stdoutLines[answer + 1])).toMatchObject({ method: 'session/update', params: { sessionId, update: { sessionUpdate: 'available_commands_update' } } });
      await ctx.request('session/prompt', { sessionId, prompt: ask('hello') });
      const before = acp.of(sessionId, 'available_commands_update').length;
      await ctx.request('session/load', { sessionId, cwd, mcpServers: [] });
      // Sent before the answer to session/load, after the replayed history.
      expect(acp.of(sessionId, 'available_commands_update').length).toBe(before + 1);
      expect(acp.of(sessionId).at(-1)?.sessionUpdate).toBe('available_commands_update');
    });
  });

  it('/diff shows what the agent wrote as a diff block, asks the model nothing and appends nothing', async () => {
    const { acp, cwd } = start(EDITS);
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      let from = acp.of(sessionId).length;
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('/diff') })).toEqual({ stopReason: 'end_turn' });
      expect(textSince(acp, sessionId, from)).toBe('No files changed in this session yet (from the file checkpoints).');
      await ctx.request('session/prompt', { sessionId, prompt: ask('write') });
      const file = await sessionFile(acp, cwd, sessionId);
      const written = readFileSync(file, 'utf8');
      from = acp.of(sessionId).length;
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('/diff') })).toEqual({ stopReason: 'end_turn' });
      expect(textSince(acp, sessionId, from)).toBe('1 file changed in this session:\n\n```diff\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,1 @@\n+one\n```');
      expect(readFileSync(file, 'utf8')).toBe(written);
      // The next prompt gets the script's next turn: the model was not asked for /diff.
      await ctx.request('session/prompt', { sessionId, prompt: ask('edit') });
      expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('two\n');
      from = acp.of(sessionId).length;
      await ctx.request('session/prompt', { sessionId, prompt: ask(`/diff ${messageId(file, 'assistant', 'written')}`) });
      expect(textSince(acp, sessionId, from)).toContain('-one\n+two\n```');
      from = acp.of(sessionId).length;
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('/diff nosuchentry') })).toEqual({ stopReason: 'end_turn' });
      expect(textSince(acp, sessionId, from)).toMatch(/^\/diff: entry "nosuchentry" is not in session/);
    });
  });

  it('/rewind ENTRY: the plan, the question; allowed, the file is restored and the leaf moves; rejected, nothing changes', async () => {
    const answers = ['cancel', 'rewind'];
    const { acp, cwd } = start(EDITS, { permission: () => choose(answers.shift()!) });
    await acp.run(async (ctx) => {
      const { sessionId, file, target } = await writtenAndEdited(ctx, acp, cwd);
      const leaf = SessionStore.open(file).leafId;

      // /rewind alone lists the branch's prompts with their ids.
      let from = acp.of(sessionId).length;
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('/rewind') })).toEqual({ stopReason: 'end_turn' });
      const list = textSince(acp, sessionId, from);
      expect(list.indexOf(`\`${messageId(file, 'user', 'edit')}\``)).toBeLessThan(list.indexOf(`\`${messageId(file, 'user', 'write')}\``));
      expect(acp.permissions).toHaveLength(0);

      // Rejected: nothing changes.
      const unchanged = readFileSync(file, 'utf8');
      from = acp.of(sessionId).length;
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask(`/rewind ${target}`) })).toEqual({ stopReason: 'end_turn' });
      expect(textSince(acp, sessionId, from)).toContain(`- restore a.txt\n- the conversation continues from ${target}`);
      expect(acp.permissions[0].options.map((o) => [o.optionId, o.name, o.kind])).toEqual([
        ['rewind', 'Rewind', 'allow_once'],
        ['cancel', 'Cancel', 'reject_once'],
      ]);
      expect(acp.permissions[0].toolCall).toMatchObject({ title: `Rewind to ${target}`, kind: 'edit', locations: [{ path: join(cwd, 'a.txt') }] });
      expect(textSince(acp, sessionId, from)).toContain('Not rewound: nothing was changed.');
      expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('two\n');
      expect(readFileSync(file, 'utf8')).toBe(unchanged);

      // Allowed: the file as it was at the entry, the leaf there (in the session file), the tool call completed.
      from = acp.of(sessionId).length;
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask(`/rewind ${target}`) })).toEqual({ stopReason: 'end_turn' });
      expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('one\n');
      expect(SessionStore.open(file).leafId).toBe(target);
      const said = textSince(acp, sessionId, from);
      expect(said).toContain(`Rewound to ${target}: restored a.txt. The conversation continues from ${target}`);
      expect(said).toContain('reopen this session');
      const call = acp.permissions[1].toolCall.toolCallId;
      expect(
        acp
          .of(sessionId, 'tool_call_update')
          .filter((u) => u.toolCallId === call)
          .at(-1)?.status,
      ).toBe('completed');
      // Reopening (session/load) replays the branch as it now is: it ends with the answer rewound to.
      from = acp.of(sessionId).length;
      await ctx.request('session/load', { sessionId, cwd, mcpServers: [] });
      expect(textSince(acp, sessionId, from)).toBe('written');
      // Rewinding to the entry left undoes it.
      answers.push('rewind');
      await ctx.request('session/prompt', { sessionId, prompt: ask(`/rewind ${leaf}`) });
      expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('two\n');
      expect(SessionStore.open(file).leafId).toBe(leaf);
    });
  });

  it('a file changed outside the agent is overwritten only through its own option, which says where the change is kept', async () => {
    const answers = ['cancel', 'force'];
    const { acp, cwd } = start(EDITS, { permission: () => choose(answers.shift()!) });
    await acp.run(async (ctx) => {
      const { sessionId, file, target } = await writtenAndEdited(ctx, acp, cwd);
      writeFileSync(join(cwd, 'a.txt'), 'the user typed this\n');

      let from = acp.of(sessionId).length;
      await ctx.request('session/prompt', { sessionId, prompt: ask(`/rewind ${target} --files-only`) });
      expect(textSince(acp, sessionId, from)).toContain('- restore a.txt (changed outside the agent since)\n- the conversation stays where it is');
      expect(acp.permissions[0].options.map((o) => [o.optionId, o.name])).toEqual([
        ['force', 'Rewind and overwrite a.txt (the changes made outside the agent are kept at the entry left)'],
        ['cancel', 'Cancel'],
      ]);
      expect(JSON.stringify(acp.permissions[0].toolCall.content)).toContain('what was changed outside the agent is kept at the entry left');
      expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('the user typed this\n');

      const leaf = SessionStore.open(file).leafId;
      from = acp.of(sessionId).length;
      await ctx.request('session/prompt', { sessionId, prompt: ask(`/rewind ${target} --files-only`) });
      expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('one\n');
      expect(SessionStore.open(file).leafId).toBe(leaf);
      expect(textSince(acp, sessionId, from)).toContain(`Rewound to ${target}: restored a.txt. The conversation stays where it is.`);

      // Without --files-only, moving the conversation alone is offered too.
      writeFileSync(join(cwd, 'a.txt'), 'typed again\n');
      answers.push('conversation');
      await ctx.request('session/prompt', { sessionId, prompt: ask(`/rewind ${messageId(file, 'user', 'write')}`) });
      expect(acp.permissions[2].options.map((o) => o.optionId)).toEqual(['force', 'conversation', 'cancel']);
      expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('typed again\n');
      expect(SessionStore.open(file).leafId).toBe(messageId(file, 'user', 'write'));
    });
  });

  it('/rewind during a run is refused with a message; an unknown entry is a message, not a protocol error', async () => {
    const { acp, cwd } = start([...EDITS.slice(0, 2), { toolCalls: [{ id: 's1', name: 'bash', arguments: { command: 'sleep 5' } }] }, { text: 'slept' }]);
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      await ctx.request('session/prompt', { sessionId, prompt: ask('write') });
      const file = await sessionFile(acp, cwd, sessionId);
      const target = messageId(file, 'user', 'write');
      let from = acp.of(sessionId).length;
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('/rewind nosuchentry') })).toEqual({ stopReason: 'end_turn' });
      expect(textSince(acp, sessionId, from)).toMatch(/^\/rewind: entry "nosuchentry" is not in session/);

      const run = ctx.request('session/prompt', { sessionId, prompt: ask('wait') });
      await acp.waitFor((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 's1' && u.status === 'in_progress');
      from = acp.of(sessionId).length;
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask(`/rewind ${target}`) })).toEqual({ stopReason: 'end_turn' });
      expect(textSince(acp, sessionId, from)).toContain('/rewind: a run is in progress');
      expect(acp.permissions.filter((p) => p.toolCall.title?.startsWith('Rewind'))).toHaveLength(0);
      await ctx.notify('session/cancel', { sessionId });
      expect(await run).toEqual({ stopReason: 'cancelled' });
      expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('one\n');
      // Checkpoint objects gone (gc, or by hand): a message naming the problem.
      rmSync(checkpointDirOf(file), { recursive: true });
      from = acp.of(sessionId).length;
      expect(await ctx.request('session/prompt', { sessionId, prompt: ask('/diff') })).toEqual({ stopReason: 'end_turn' });
      expect(textSince(acp, sessionId, from)).toMatch(/^\/diff: checkpoint object \w+ is missing from .*removed by `mini-agent gc` or by hand/);
    });
  });

  it('session/cancel while the rewind is asked about answers cancelled and changes nothing', async () => {
    const { acp, cwd } = start(EDITS, { permission: (r) => (r.toolCall.title?.startsWith('Rewind') ? new Promise(() => undefined) : choose('allow_once')) });
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      await ctx.request('session/prompt', { sessionId, prompt: ask('write') });
      const file = await sessionFile(acp, cwd, sessionId);
      const unchanged = readFileSync(file, 'utf8');
      const rewinding = ctx.request('session/prompt', { sessionId, prompt: ask(`/rewind ${messageId(file, 'user', 'write')}`) });
      while (acp.permissions.length === 0) await new Promise((r) => setTimeout(r, 10));
      await ctx.notify('session/cancel', { sessionId });
      expect(await rewinding).toEqual({ stopReason: 'cancelled' });
      expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('one\n');
      expect(readFileSync(file, 'utf8')).toBe(unchanged);
      const call = acp.permissions[0].toolCall.toolCallId;
      expect(
        acp
          .of(sessionId, 'tool_call_update')
          .filter((u) => u.toolCallId === call)
          .at(-1)?.status,
      ).toBe('failed');
    });
  });

  it('when the editor owns the files (its fs methods), or the session is in memory, both commands say there are no checkpoints', async () => {
    const files = new Map<string, string>();
    const { acp, cwd } = start(EDITS, { files });
    await acp.run(async (ctx) => {
      await ctx.request('initialize', { ...INIT, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      await ctx.request('session/prompt', { sessionId, prompt: ask('write') });
      expect(files.get(join(cwd, 'a.txt'))).toBe('one\n');
      expect(existsSync(join(cwd, 'a.txt'))).toBe(false);
      for (const command of ['/diff', '/rewind abc']) {
        const from = acp.of(sessionId).length;
        expect(await ctx.request('session/prompt', { sessionId, prompt: ask(command) })).toEqual({ stopReason: 'end_turn' });
        expect(textSince(acp, sessionId, from)).toContain(`${command.split(' ')[0]}: the editor owns the files in this session`);
        expect(textSince(acp, sessionId, from)).toContain('mini-agent takes no file checkpoints');
      }
      expect(acp.permissions).toHaveLength(0);
    });
    const memory = start(EDITS, { args: ['--no-session'] });
    await memory.acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd: memory.cwd, mcpServers: [] });
      await ctx.request('session/prompt', { sessionId, prompt: ask('/diff') });
      expect(memory.acp.text(sessionId)).toContain('/diff: this session is kept in memory (--no-session): it has no file checkpoints');
    });
  });
});
