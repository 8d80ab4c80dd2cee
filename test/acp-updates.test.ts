// The pure half of ACP mode: events → session/update, tools → kinds, titles and locations, prompt
// blocks → text, the client's MCP servers → our config, permission answers, stop reasons, the
// replay of a session, and the flags. Property tests where the input space is large.
import fc from 'fast-check';
import type { McpServer } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { parseAcpArgs } from '../src/acp/args.js';
import { replayUpdates } from '../src/acp/replay.js';
import { eventToUpdate, mcpServersConfig, permissionAnswer, promptText, serverName, stopReasonOf, toolKind, toolLocations, toolTitle } from '../src/acp/updates.js';
import type { AgentEvent, RunStopReason } from '../src/core/events.js';
import type { Message } from '../src/core/types.js';
import { UsageError } from '../src/core/types.js';

const stamp = { schemaVersion: 3, seq: 0, time: 0 };

describe('ACP mapping', () => {
  it('text and thinking deltas become message and thought chunks carrying the same text', () => {
    fc.assert(
      fc.property(fc.string(), (delta) => {
        expect(eventToUpdate({ type: 'text_delta', turn: 1, delta, ...stamp }, '/w')).toEqual({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: delta } });
        expect(eventToUpdate({ type: 'thinking_delta', turn: 1, delta, ...stamp }, '/w')).toEqual({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: delta } });
      }),
    );
  });

  it('a tool call opens pending, runs in_progress once allowed, and ends completed or failed with its text', () => {
    const start = eventToUpdate({ type: 'tool_start', turn: 1, toolCallId: 't1', name: 'grep', arguments: { pattern: 'TODO', path: 'src' }, ...stamp }, '/w');
    expect(start).toEqual({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Search "TODO" in src', kind: 'search', status: 'pending', locations: [{ path: '/w/src' }], rawInput: { pattern: 'TODO', path: 'src' } });
    const decision = (d: 'allow' | 'deny') => eventToUpdate({ type: 'permission_decision', toolCallId: 't1', tool: 'grep', decision: d, rule: null, source: 'default', asked: false, reason: '', ...stamp }, '/w');
    expect(decision('allow')).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'in_progress' });
    expect(decision('deny')).toBeNull();
    const end = (isError: boolean) =>
      eventToUpdate(
        {
          type: 'tool_end',
          turn: 1,
          toolCallId: 't1',
          name: 'grep',
          result: {
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
            isError,
          },
          entryId: 'e',
          durationMs: 1,
          ...stamp,
        },
        '/w',
      );
    expect(end(false)).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'ab' } }] });
    expect(end(true)).toMatchObject({ status: 'failed' });
    const quiet: AgentEvent[] = [
      { type: 'turn_end', turn: 1, toolCalls: 0, ...stamp },
      { type: 'warning', message: 'x', ...stamp },
    ];
    for (const e of quiet) expect(eventToUpdate(e, '/w')).toBeNull();
  });

  it('tools map to kinds; MCP tools are other; locations are absolute', () => {
    expect(['read_file', 'list_dir', 'grep', 'find', 'write_file', 'edit_file', 'write_note', 'bash', 'everything__echo'].map((name) => toolKind(name))).toEqual([
      'read',
      'read',
      'search',
      'search',
      'edit',
      'edit',
      'edit',
      'execute',
      'other',
    ]);
    expect(toolTitle('everything__get-sum', {})).toBe('everything: get-sum');
    expect(toolTitle('bash', { command: 'x'.repeat(200) }).length).toBeLessThanOrEqual(80);
    expect(toolLocations('read_file', { path: 'a/b.ts', offset: 40 }, '/w')).toEqual([{ path: '/w/a/b.ts', line: 40 }]);
    expect(toolLocations('edit_file', { path: '/abs/c.ts' }, '/w')).toEqual([{ path: '/abs/c.ts' }]);
    expect(toolLocations('find', { glob: '*.ts' }, '/w')).toEqual([{ path: '/w' }]);
    expect(toolLocations('bash', { command: 'ls', path: 'x' }, '/w')).toEqual([]);
    expect(toolLocations('srv__read', { path: 'x' }, '/w')).toEqual([]);
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (p) => {
        for (const l of toolLocations('read_file', { path: p }, '/w')) expect(l.path.startsWith('/')).toBe(true);
      }),
    );
  });

  it('every run stop reason has an ACP answer (a failed run is an error)', () => {
    const reasons: RunStopReason[] = ['completed', 'refused', 'aborted', 'error', 'max_turns', 'loop_detected'];
    expect(reasons.map(stopReasonOf)).toEqual(['end_turn', 'refusal', 'cancelled', 'error', 'max_turn_requests', 'max_turn_requests']);
  });

  it('prompt blocks become one text: text as is, resources fenced under their URI, links named', () => {
    const text = promptText([
      { type: 'text', text: 'Look at this:' },
      { type: 'resource', resource: { uri: 'file:///w/a.md', text: 'has ``` inside' } },
      { type: 'resource_link', uri: 'file:///w/b.ts', name: 'b.ts' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ]);
    // Images go with the prompt as images (promptImages; issue 23), not as a line of text.
    expect(text).toBe('Look at this:\n\nContext from file:///w/a.md:\n````\nhas ``` inside\n````\n\n[b.ts](file:///w/b.ts)');
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 6 }), (texts) => {
        const joined = promptText(texts.map((t) => ({ type: 'text' as const, text: t })));
        let at = 0;
        for (const t of texts) {
          const found = joined.indexOf(t, at);
          expect(found).toBeGreaterThanOrEqual(0);
          at = found + t.length;
        }
      }),
    );
  });

  it("the client's MCP servers become valid, unique config entries; SSE is left out with a warning", () => {
    const { servers, warnings } = mcpServersConfig([
      { name: 'my server', command: 'node', args: ['s.js'], env: [{ name: 'TOKEN', value: 't' }] },
      { type: 'http', name: 'my server', url: 'https://x/mcp', headers: [{ name: 'Authorization', value: 'Bearer y' }] },
      { type: 'sse', name: 'old', url: 'https://x/sse', headers: [] },
    ]);
    expect(servers).toEqual({
      'my-server': { command: 'node', args: ['s.js'], env: { TOKEN: 't' } },
      'my-server-2': { type: 'http', url: 'https://x/mcp', headers: { Authorization: 'Bearer y' } },
    });
    expect(warnings).toEqual([expect.stringContaining('"old" uses SSE')]);
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 8 }), (names) => {
        const list: McpServer[] = names.map((name) => ({ name, command: 'c', args: [], env: [] }));
        const keys = Object.keys(mcpServersConfig(list).servers);
        expect(keys).toHaveLength(names.length);
        for (const k of keys) {
          expect(k).toMatch(/^[A-Za-z0-9_-]+$/);
          expect(k).not.toContain('__');
        }
      }),
    );
    expect(serverName('__')).toBe('_');
    expect(serverName('***')).toBe('mcp');
  });

  it('permission answers: once, always, reject, reject always, cancelled', () => {
    expect(permissionAnswer({ outcome: 'selected', optionId: 'allow_once' })).toEqual({ decision: 'allow', rejectAlways: false });
    expect(permissionAnswer({ outcome: 'selected', optionId: 'allow_always' })).toEqual({ decision: 'always', rejectAlways: false });
    expect(permissionAnswer({ outcome: 'selected', optionId: 'reject_once' })).toEqual({ decision: 'deny', rejectAlways: false });
    expect(permissionAnswer({ outcome: 'selected', optionId: 'reject_always' })).toEqual({ decision: 'deny', rejectAlways: true });
    expect(permissionAnswer({ outcome: 'selected', optionId: 'something else' })).toEqual({ decision: 'deny', rejectAlways: false });
    expect(permissionAnswer({ outcome: 'cancelled' })).toEqual({ decision: 'deny', rejectAlways: false });
  });

  it('replay: messages in order, tool calls once with their final status; a call without a result is failed', () => {
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        stopReason: 'toolUse',
        usage,
        content: [
          { type: 'thinking', thinking: 'hmm' },
          { type: 'text', text: 'Reading.' },
          { type: 'toolCall', id: 'c1', name: 'read_file', arguments: { path: 'a' } },
          { type: 'toolCall', id: 'c2', name: 'bash', arguments: { command: 'false' } },
          { type: 'toolCall', id: 'c3', name: 'bash', arguments: { command: 'lost' } },
        ],
      },
      { role: 'toolResult', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'text', text: 'A' }], isError: false },
      { role: 'toolResult', toolCallId: 'c2', toolName: 'bash', content: [{ type: 'text', text: 'exit 1' }], isError: true },
    ];
    const updates = replayUpdates(messages, '/w');
    expect(updates.map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'agent_thought_chunk', 'agent_message_chunk', 'tool_call', 'tool_call', 'tool_call']);
    expect(updates.slice(3).map((u) => (u.sessionUpdate === 'tool_call' ? [u.toolCallId, u.status] : null))).toEqual([
      ['c1', 'completed'],
      ['c2', 'failed'],
      ['c3', 'failed'],
    ]);
    expect(updates[3]).toMatchObject({ kind: 'read', locations: [{ path: '/w/a' }], content: [{ type: 'content', content: { type: 'text', text: 'A' } }] });
  });
});

describe('ACP flags', () => {
  it('takes the shared flags and --verbose; --no-session keeps sessions in memory', () => {
    const opts = parseAcpArgs(['--acp', '--script', 's.json', '--verbose', '--no-session', '--max-turns', '3']);
    expect(opts).toMatchObject({ memory: true, verbose: true, agent: { script: 's.json', maxTurns: 3 } });
    expect(parseAcpArgs(['--acp', '-h'])).toBe('help');
  });

  it('refuses a prompt and the flags that pick a session', () => {
    expect(() => parseAcpArgs(['--acp', 'hello'])).toThrow(UsageError);
    for (const flags of [['--session', 'f.jsonl'], ['-c'], ['--resume', 'abc'], ['--resume', 'abc', '--branch', 'x']]) {
      expect(() => parseAcpArgs(['--acp', ...flags])).toThrow(/does not apply to --acp/);
    }
  });
});
