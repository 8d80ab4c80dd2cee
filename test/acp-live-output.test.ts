// ACP mode shows a running command's output as it comes (issue 24 §1): each `tool_update` event
// (bash's latest lines) becomes a `tool_call_update` of that call, status in_progress, its content
// the tail so far; the completed update with the whole result comes last. ACP mode in process
// (runAcp) on the scripted model, driven by the official SDK's client.
import { afterEach, describe, expect, it } from 'vitest';
import { type AcpChild, INIT, startAcp } from './support/acp-client.js';
import { tempDir, writeScript } from './support/helpers.js';

const children: AcpChild[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    expect(c.impureLines(), `stdout lines that are not JSON-RPC; stderr:\n${c.stderr}`).toEqual([]);
    if (!c.done) await c.end();
  }
});

const textOf = (content: unknown): string => ((content ?? []) as { type: string; content?: { type: string; text?: string } }[]).map((c) => (c.type === 'content' && c.content?.type === 'text' ? c.content.text : '')).join('');

describe('ACP: a running bash command', () => {
  it('its output so far arrives as in_progress tool_call_updates before the completed one', async () => {
    const cwd = tempDir();
    const command = 'for i in 1 2 3 4; do echo line$i; sleep 0.4; done';
    const script = writeScript(tempDir('acp-script-'), [{ toolCalls: [{ id: 'b1', name: 'bash', arguments: { command } }] }, { text: 'printed four lines' }]);
    const acp = startAcp(['--script', script], { cwd });
    children.push(acp);
    await acp.run(async (ctx) => {
      await ctx.request('initialize', INIT);
      const { sessionId } = await ctx.request('session/new', { cwd, mcpServers: [] });
      expect(await ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'count' }] })).toEqual({ stopReason: 'end_turn' });
      const updates = acp.of(sessionId, 'tool_call_update').filter((u) => u.toolCallId === 'b1');
      const live = updates.filter((u) => u.status === 'in_progress' && textOf(u.content).includes('line'));
      expect(live.length, JSON.stringify(updates)).toBeGreaterThanOrEqual(1);
      // Each live update carries the tail so far: lines in order, never one that was not printed.
      for (const u of live) expect(textOf(u.content)).toMatch(/^(line\d\n)+$/);
      const last = updates.at(-1)!;
      expect(last.status).toBe('completed');
      expect(textOf(last.content)).toContain('line4');
      expect(updates.indexOf(live[0])).toBeLessThan(updates.indexOf(last));
    });
  }, 60_000);
});
