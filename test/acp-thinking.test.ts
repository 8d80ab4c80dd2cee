// The thinking level over ACP: a session config option of category "thought_level", announced
// by session/new and session/load, set by session/set_config_option (echoed as a
// config_option_update), and sent with the next model request (a local Anthropic server logs it).
import { afterEach, describe, expect, it } from 'vitest';
import { type AcpChild, INIT, startAcp } from './support/acp-client.js';
import { tempDir } from './support/helpers.js';
import { sse, servePerTest } from './support/http-server.js';

const serve = servePerTest();
const children: AcpChild[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    expect(c.impureLines(), `stdout lines that are not JSON-RPC; stderr:\n${c.stderr}`).toEqual([]);
    if (!c.done) await c.end();
  }
});

const answer = sse(
  [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Done.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  ],
  { named: true },
);

describe('ACP: the thinking level as a session config option', () => {
  it('is announced with its levels, set by session/set_config_option, and applies to the next request', async () => {
    const server = await serve([{ body: answer }]);
    const cwd = tempDir();
    const acp = startAcp(['--provider', 'anthropic', '--base-url', server.url, '--model', 'claude-haiku-4-5', '--thinking', 'low'], { cwd, env: { ANTHROPIC_API_KEY: 'sk-ant-test' } });
    children.push(acp);
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const created = await ctx.request('session/new', { cwd, mcpServers: [] });
      expect(created.configOptions).toEqual([
        expect.objectContaining({ id: 'thought_level', category: 'thought_level', type: 'select', currentValue: 'low', options: ['off', 'low', 'medium', 'high'].map((value) => expect.objectContaining({ value })) }),
      ]);
      const { sessionId } = created;
      await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] });
      const set = await ctx.request('session/set_config_option', { sessionId, configId: 'thought_level', value: 'high' });
      expect(set.configOptions[0]).toMatchObject({ id: 'thought_level', currentValue: 'high' });
      await acp.waitFor((u) => u.sessionUpdate === 'config_option_update');
      await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] });
      await expect(ctx.request('session/set_config_option', { sessionId, configId: 'thought_level', value: 'max' })).rejects.toMatchObject({ code: -32602 });
      await expect(ctx.request('session/set_config_option', { sessionId, configId: 'color', value: 'red' })).rejects.toMatchObject({ code: -32602 });
    });
    expect(server.requests.map((q) => q.body.thinking)).toEqual([
      { type: 'enabled', budget_tokens: 2048 },
      { type: 'enabled', budget_tokens: 24576 },
    ]);
  });
});
