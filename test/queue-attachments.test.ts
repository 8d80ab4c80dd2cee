// A steer or a follow-up carries what a prompt carries (issue 24 §2): the text files its `@path`
// tokens name, as <file> blocks, and images (given, or named by `@path`), read when it is queued
// and stored in its user message as a prompt's are. Through the SDK and RPC. The queue stays as
// it was: listings and hand-backs show the item (id, kind, text) alone.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Jimp } from 'jimp';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import type { AgentEvent } from '../src/core/events.js';
import type { Message, QueueItem } from '../src/core/types.js';
import { ScriptedModel } from '../src/model/scripted.js';
import type { ToolDefinition } from '../src/tools/tool.js';
import { tempDir, writeScript } from './support/helpers.js';
import { RpcClient, type RpcLine, type RpcResponse } from './support/rpc-client.js';

async function png(width: number, height: number): Promise<string> {
  return (await new Jimp({ width, height, color: 0x22aa44ff }).getBuffer('image/png')).toString('base64');
}

/** A tool that waits until released, so messages can be queued while it runs. */
function gateTool(): { tool: ToolDefinition; release(): void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const tool: ToolDefinition = {
    name: 'wait',
    description: 'waits',
    parameters: Type.Object({}),
    risk: 'read',
    async execute() {
      await gate;
      return { content: 'waited' };
    },
  };
  return { tool, release };
}

const fileBlock = (path: string, body: string) => ({ type: 'text', text: `\n<file path="${path}">\n${body}</file>` });

async function workspace() {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'notes.md'), 'the launch code is 4242\n');
  const shot = await png(12, 8);
  writeFileSync(join(cwd, 'shot.png'), Buffer.from(shot, 'base64'));
  return { cwd, shot, home: tempDir('mini-agent-home-') };
}

describe('SDK: steer and followUp carry attachments', () => {
  it('a steer sent while a tool runs: the next request holds its text, its images and the <file> block as they were when it was queued', async () => {
    const { cwd, shot, home } = await workspace();
    const given = await png(6, 6);
    const gate = gateTool();
    const model = new ScriptedModel({ turns: [{ toolCalls: [{ name: 'wait', arguments: {} }] }, { text: 'read them' }] });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model, extraTools: [gate.tool] });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => events.push(e));
    let item: QueueItem | undefined;
    agent.subscribe((e) => {
      if (e.type !== 'tool_start' || item) return;
      item = agent.steer('look at @notes.md and @shot.png', { images: [{ data: given, mimeType: 'image/png' }] });
      writeFileSync(join(cwd, 'notes.md'), 'changed after the steer was queued\n'); // read when queued: this is not sent
      setTimeout(() => gate.release(), 20);
    });
    expect((await agent.prompt('go')).stopReason).toBe('completed');
    const expected = [
      { type: 'text', text: 'look at @notes.md and @shot.png' },
      { type: 'image', data: given, mimeType: 'image/png' },
      { type: 'image', data: shot, mimeType: 'image/png' },
      fileBlock('notes.md', 'the launch code is 4242\n'),
    ];
    const last = model.requests[1].messages.at(-1)!;
    expect(last).toEqual({ role: 'user', content: expected });
    // The session entry records them, as a prompt's would; the item and its event show the text alone.
    expect(
      agent
        .messages()
        .filter((m) => m.role === 'user')
        .at(-1),
    ).toEqual({ role: 'user', content: expected });
    expect(item).toEqual({ id: expect.any(String), kind: 'steer', text: 'look at @notes.md and @shot.png' });
    expect(events.find((e) => e.type === 'steer_delivered')).toMatchObject({ id: item!.id, text: 'look at @notes.md and @shot.png' });
    const updates = events.filter((e): e is Extract<AgentEvent, { type: 'queue_update' }> => e.type === 'queue_update');
    expect(updates[0].items).toEqual([item]);
    await agent.close();
  });

  it('a follow-up, during a run and while idle (it starts a run of its own), carries its <file> block and images', async () => {
    const { cwd, shot, home } = await workspace();
    const model = new ScriptedModel({ turns: [{ text: 'one two three four five', delayMs: 10 }, { text: 'followed' }, { text: 'idle follow-up' }] });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model });
    let sent = false;
    agent.subscribe((e) => {
      if (e.type === 'text_delta' && !sent) {
        sent = true;
        agent.followUp('then summarize @notes.md');
      }
    });
    expect(await agent.prompt('count')).toMatchObject({ stopReason: 'completed', turns: 2 });
    expect(model.requests[1].messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'then summarize @notes.md' }, fileBlock('notes.md', 'the launch code is 4242\n')] });
    agent.followUp('and @shot.png');
    await agent.idle();
    expect(model.requests[2].messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'and @shot.png' },
        { type: 'image', data: shot, mimeType: 'image/png' },
      ],
    });
    await agent.close();
  });

  it('abort hands back a queued steer with its text; a bad image throws at once and queues nothing', async () => {
    const { cwd, home } = await workspace();
    const gate = gateTool();
    const model = new ScriptedModel({ turns: [{ toolCalls: [{ name: 'wait', arguments: {} }] }, { text: 'never' }] });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model, extraTools: [gate.tool] });
    let handedBack: QueueItem[] = [];
    let refused: unknown;
    agent.subscribe((e) => {
      if (e.type !== 'tool_start') return;
      agent.steer('read @notes.md first', { images: [{ path: 'shot.png' }] });
      try {
        agent.steer('and this', { images: [{ data: Buffer.from('not an image').toString('base64'), mimeType: 'image/png' }] });
      } catch (err) {
        refused = err;
      }
      handedBack = agent.abort();
      gate.release();
    });
    const result = await agent.prompt('go');
    expect(result.stopReason).toBe('aborted');
    expect(refused).toMatchObject({ kind: 'invalid_argument', message: 'image 1 is not a PNG, JPEG, GIF or WebP image (by its first bytes)' });
    expect(handedBack).toEqual([{ id: expect.any(String), kind: 'steer', text: 'read @notes.md first' }]);
    expect(result.undelivered).toEqual(handedBack); // and the run's result holds them too
    expect(agent.messages().filter((m) => m.role === 'user')).toHaveLength(1); // never delivered
    await agent.close();
  });
});

describe('RPC: steer and follow_up with images', () => {
  it('the images and the @path file are stored in the delivered message; a bad image is an error answer and queues nothing', async () => {
    const { cwd, home } = await workspace();
    const script = writeScript(tempDir('rpc-script-'), [{ text: 'one two three four five six seven eight', delayMs: 15 }, { text: 'steered' }, { text: 'followed' }]);
    const client = new RpcClient(['--script', script], { cwd, home });
    const data = await png(10, 10);
    const ok = (r: RpcLine) => {
      expect(r).toMatchObject({ ok: true });
      return (r as RpcResponse).result;
    };
    ok(await client.send({ type: 'prompt', message: 'count' }));
    await client.waitFor((l) => l.type === 'text_delta');
    const bad = await client.send({ type: 'steer', message: 'see', images: [{ data: Buffer.from('nope').toString('base64'), mimeType: 'image/png' }] });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
    const steer = ok(await client.send({ type: 'steer', message: 'see @notes.md', images: [{ data, mimeType: 'image/png' }] }));
    expect(steer).toMatchObject({ started: false, item: { kind: 'steer', text: 'see @notes.md' } });
    await client.waitFor((l) => l.type === 'run_settled');
    const follow = ok(await client.send({ type: 'follow_up', message: 'and again', images: [{ data, mimeType: 'image/png' }] }));
    expect(follow).toMatchObject({ started: true });
    await client.next((l) => l.type === 'run_settled');
    const messages = ok(await client.send({ type: 'get_messages' })).messages as Message[];
    const users = messages.filter((m) => m.role === 'user');
    expect(users).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'count' }] },
      { role: 'user', content: [{ type: 'text', text: 'see @notes.md' }, { type: 'image', data, mimeType: 'image/png' }, fileBlock('notes.md', 'the launch code is 4242\n')] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and again' },
          { type: 'image', data, mimeType: 'image/png' },
        ],
      },
    ]);
    expect(client.events().filter((e) => e.type === 'steer_delivered')).toHaveLength(1);
    await client.end();
  }, 60_000);
});
