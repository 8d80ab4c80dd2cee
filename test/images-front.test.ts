// Images through the other front ends (issue 23 §3): RPC `prompt` with `images`, ACP image
// content blocks (and `promptCapabilities.image: true`), the SDK's `prompt(text, {images})`, and
// server-everything's get-tiny-image through MCP reaching the model; plus what an image costs in
// the token estimate (a fixed amount by its size in pixels, not its base64 text).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Jimp } from 'jimp';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import { AgentError } from '../src/app/errors.js';
import type { ImageContent, Message } from '../src/core/types.js';
import { toAnthropicRequest } from '../src/model/anthropic-convert.js';
import { toOpenAIRequest } from '../src/model/openai-convert.js';
import { ScriptedModel } from '../src/model/scripted.js';
import { projectMessages } from '../src/session/projector.js';
import { SessionStore } from '../src/session/store.js';
import { estimateMessageTokens, MESSAGE_OVERHEAD_TOKENS } from '../src/session/tokens.js';
import { type AcpChild, INIT, startAcp } from './support/acp-client.js';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir, writeScript } from './support/helpers.js';
import { RpcClient, type RpcLine, type RpcResponse } from './support/rpc-client.js';

const EVERYTHING = join(process.cwd(), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** The most an image is estimated to cost (README: at most 1,600). */
const IMAGE_TOKENS_MAX = 1_600;

async function png(width: number, height: number): Promise<Buffer> {
  return new Jimp({ width, height, color: 0x22aa44ff }).getBuffer('image/png');
}

const children: AcpChild[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (!c.done) await c.end();
});

describe('RPC: prompt with images', () => {
  it('the images are stored after the text of the prompt; a bad image is an error answer and starts no run', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const script = writeScript(cwd, [{ text: 'a green square' }]);
    const client = new RpcClient(['--script', script], { cwd, home });
    const data = (await png(16, 16)).toString('base64');
    const bad = (await client.send({ type: 'prompt', message: 'what is it?', images: [{ data: Buffer.from('not an image').toString('base64'), mimeType: 'image/png' }] })) as RpcResponse;
    expect(bad).toMatchObject({ ok: false, error: { kind: 'invalid_argument', message: 'image 1 is not a PNG, JPEG, GIF or WebP image (by its first bytes)' } });
    const started = await client.send({ type: 'prompt', message: 'what is it?', images: [{ data, mimeType: 'image/png' }] });
    expect(started).toMatchObject({ ok: true, result: { started: true } });
    await client.waitFor((l: RpcLine) => l.type === 'run_settled');
    const messages = ((await client.send({ type: 'get_messages' })) as RpcResponse).result.messages as Message[];
    expect(messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is it?' },
        { type: 'image', data, mimeType: 'image/png' },
      ],
    });
    expect(client.events().filter((e) => e.type === 'run_start')).toHaveLength(1); // the bad prompt started nothing
    await client.end();
  });
});

describe('ACP: image content blocks', () => {
  it('initialize announces image prompts; an image block goes into the prompt message, and session/load replays it', async () => {
    const cwd = tempDir();
    const script = writeScript(tempDir('acp-script-'), [{ text: 'a green square' }]);
    const acp = startAcp(['--script', script], { cwd });
    children.push(acp);
    const data = (await png(8, 8)).toString('base64');
    let sessionId = '';
    await acp.run(async (ctx) => {
      const init = await ctx.request('initialize', INIT);
      expect(init).toMatchObject({ agentCapabilities: { promptCapabilities: { image: true, audio: false } } });
      sessionId = (await ctx.request('session/new', { cwd, mcpServers: [] })).sessionId;
      const prompt = [
        { type: 'text' as const, text: 'what is this?' },
        { type: 'image' as const, data, mimeType: 'image/png' },
      ];
      expect(await ctx.request('session/prompt', { sessionId, prompt })).toEqual({ stopReason: 'end_turn' });
    });
    expect(await acp.end()).toEqual({ code: 0, signal: null });
    const listed = JSON.parse((await cliInProcess(['sessions', '--json'], { cwd, home: acp.home })).stdout) as { id: string; file: string }[];
    const file = listed.find((s) => s.id === sessionId)!.file;
    const [user] = projectMessages(SessionStore.open(file).activePath());
    expect(user).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', data, mimeType: 'image/png' },
      ],
    });

    const again = startAcp(['--script', script], { cwd, home: acp.home });
    children.push(again);
    await again.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      await ctx.request('session/load', { sessionId, cwd, mcpServers: [] });
    });
    const replayed = again.updates.filter((u) => u.update.sessionUpdate === 'user_message_chunk').map((u) => (u.update as { content: unknown }).content);
    expect(replayed).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image', data, mimeType: 'image/png' },
    ]);
  });
});

describe("ACP: read_file on an image with the editor's file system on", () => {
  it('the image is read from the disk (an editor buffer holds text), and its tool_call_update carries it', async () => {
    const cwd = tempDir();
    const shot = await png(12, 9);
    writeFileSync(join(cwd, 'shot.png'), shot);
    const script = writeScript(tempDir('acp-script-'), [{ toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'shot.png' } }] }, { text: 'green' }]);
    const acp = startAcp(['--script', script], { cwd, files: new Map() });
    children.push(acp);
    await acp.run(async (ctx) => {
      await ctx.request('initialize', { ...INIT, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      expect(await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'look at shot.png' }] })).toEqual({ stopReason: 'end_turn' });
    });
    expect(acp.reads).toEqual([]); // not asked of the editor
    const done = acp.updates.map((u) => u.update).find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed') as { content: unknown[] };
    expect(done.content).toEqual([
      { type: 'content', content: { type: 'text', text: expect.stringMatching(/^Image shot\.png: 12×9 PNG, \d+ B$/) } },
      { type: 'content', content: { type: 'image', data: shot.toString('base64'), mimeType: 'image/png' } },
    ]);
  });
});

describe('SDK: prompt(text, { images })', () => {
  it('takes base64 images and files, alone or with @path tokens; bad ones are invalid_argument errors', async () => {
    const cwd = tempDir();
    const shot = await png(20, 10);
    writeFileSync(join(cwd, 'shot.png'), shot);
    const model = new ScriptedModel({ turns: [{ text: 'one' }, { text: 'two' }] });
    const agent = await createAgent({ cwd, home: tempDir('mini-agent-home-'), env: {}, modelAdapter: model });
    const data = shot.toString('base64');
    expect((await agent.prompt('', { images: [{ data, mimeType: 'image/png' }] })).stopReason).toBe('completed');
    expect(model.requests[0].messages[0].content).toEqual([
      { type: 'text', text: '' },
      { type: 'image', data, mimeType: 'image/png' },
    ]);
    expect((await agent.prompt('and @shot.png again', { images: [{ path: 'shot.png' }] })).stopReason).toBe('completed');
    expect(model.requests[1].messages.at(-1)!.content.filter((c) => c.type === 'image')).toHaveLength(2);
    const refused = (images: never) =>
      agent.prompt('look', { images }).then(
        () => 'ran',
        (err: unknown) => err,
      );
    expect(await refused([{ data: 'not base64!', mimeType: 'image/png' }] as never)).toMatchObject({ kind: 'invalid_argument', message: 'image 1: data is not base64 (give the bytes in base64, without a "data:" prefix)' });
    expect(await refused([{ data, mimeType: 'image/bmp' }] as never)).toBeInstanceOf(AgentError);
    expect(await refused([{ path: 'missing.png' }] as never)).toMatchObject({ kind: 'invalid_argument', message: expect.stringContaining('missing.png: cannot read it (ENOENT)') });
    await expect(agent.prompt('')).rejects.toMatchObject({ kind: 'invalid_argument' }); // no text and no image
    await agent.close();
  });
});

describe('MCP: image results reach the model', () => {
  it("server-everything's get-tiny-image: the tool result holds the image, and both dialects send it", async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], risk: 'read' } } }));
    const model = new ScriptedModel({ turns: [{ toolCalls: [{ id: 'c1', name: 'everything__get-tiny-image', arguments: {} }] }, { text: 'the MCP logo' }] });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model });
    try {
      expect((await agent.prompt('show me the tiny image')).stopReason).toBe('completed');
    } finally {
      await agent.close();
    }
    const history = model.requests[1].messages;
    const result = history.find((m) => m.role === 'toolResult')!;
    expect(result.content.map((c) => c.type)).toEqual(['text', 'image', 'text']);
    const image = result.content[1] as ImageContent;
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) });
    const anthropic = toAnthropicRequest({ messages: history, tools: [], systemPrompt: '' }, { model: 'm', maxOutputTokens: 100 });
    const block = anthropic.messages.at(-1)!.content[0];
    expect(block.type === 'tool_result' && block.content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image.data } });
    const openai = toOpenAIRequest({ messages: history, tools: [], systemPrompt: '' }, { provider: 'openai', model: 'm', maxOutputTokens: 100 });
    expect(openai.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Image from the result of everything__get-tiny-image (call c1):' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${image.data}` } },
      ],
    });
  });
});

describe('the token estimate of an image', () => {
  it('is (width × height) / 750, at most IMAGE_TOKENS_MAX, whatever the size of its base64; text-only messages are unchanged', async () => {
    const small = (await png(60, 50)).toString('base64');
    const big = (await png(2000, 1500)).toString('base64');
    const msg = (data: string): Message => ({ role: 'user', content: [{ type: 'image', data, mimeType: 'image/png' }] });
    expect(estimateMessageTokens(msg(small))).toBe(MESSAGE_OVERHEAD_TOKENS + 4); // 3000 px / 750
    expect(estimateMessageTokens(msg(big))).toBe(MESSAGE_OVERHEAD_TOKENS + IMAGE_TOKENS_MAX);
    expect(estimateMessageTokens(msg('AAAA'.repeat(100_000)))).toBe(MESSAGE_OVERHEAD_TOKENS + IMAGE_TOKENS_MAX); // not an image it can read: the most
    expect(estimateMessageTokens({ role: 'user', content: [{ type: 'text', text: 'hello world' }] })).toBeLessThan(MESSAGE_OVERHEAD_TOKENS + 5);
  });
});
