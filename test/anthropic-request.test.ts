// The request body the Anthropic adapter sends: checked against the SDK's own request types
// at compile time (tsc -p tsconfig.test.json), and for the API's rules at run time.
import type Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyUsage, userMessage, type AssistantContent, type AssistantMessage, type Message, type ToolResultMessage } from '../src/core/types.js';
import type { ModelRequest, ToolSpec } from '../src/model/adapter.js';
import { INTERRUPTED_RESULT, toAnthropicRequest, type WireMessage } from '../src/model/anthropic-convert.js';

const CFG = { model: 'claude-test-1', maxOutputTokens: 2048 };
const assistant = (...content: AssistantContent[]): AssistantMessage => ({ role: 'assistant', content, stopReason: 'toolUse', usage: emptyUsage() });
const call = (id: string, args: Record<string, unknown> = {}): AssistantContent => ({ type: 'toolCall', id, name: 'read', arguments: args });
const result = (id: string, text = `result ${id}`, isError = false): ToolResultMessage => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: 'read',
  content: [{ type: 'text', text }],
  isError,
});
const TOOL: ToolSpec = { name: 'read', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };
const convert = (messages: Message[], more: Partial<ModelRequest> = {}) => toAnthropicRequest({ messages, tools: [TOOL], systemPrompt: 'sys', ...more }, CFG);

describe('compile-time fit with the SDK', () => {
  it('the body is a MessageCreateParamsStreaming; messages and tools are the SDK types', () => {
    const body: Anthropic.MessageCreateParamsStreaming = convert([userMessage('hi'), assistant({ type: 'thinking', thinking: 't', signature: 's' }, call('a')), result('a')]);
    const messages: Anthropic.MessageParam[] = body.messages;
    const tools: Anthropic.ToolUnion[] | undefined = body.tools;
    expect(messages).toHaveLength(3);
    expect(tools).toEqual([{ name: 'read', description: 'Reads a file.', input_schema: TOOL.parameters }]);
    expect(body).toMatchObject({ model: 'claude-test-1', max_tokens: 2048, system: 'sys', stream: true });
  });
});

describe('request body', () => {
  it('user text, assistant text and tool_use, tool_result', () => {
    const body = convert([userMessage('read a'), assistant({ type: 'text', text: 'Reading.' }, call('a', { path: 'a' })), result('a', 'contents')]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'read a' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'a', name: 'read', input: { path: 'a' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'contents' }], is_error: false }] },
    ]);
  });

  it('no system and no tools when there are none', () => {
    const body = toAnthropicRequest({ messages: [userMessage('hi')], tools: [], systemPrompt: '' }, CFG);
    expect(body).toEqual({ model: 'claude-test-1', max_tokens: 2048, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: true });
  });

  it('consecutive tool results and a following user message merge into one user message', () => {
    const body = convert([userMessage('go'), assistant(call('a'), call('b')), result('a'), result('b', 'bad', true), userMessage('and then?')]);
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'result a' }], is_error: false },
      { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'bad' }], is_error: true },
      { type: 'text', text: 'and then?' },
    ]);
  });

  it('results come in tool_use order, whatever order they were stored in', () => {
    const body = convert([userMessage('go'), assistant(call('a'), call('b')), result('b'), result('a')]);
    expect(body.messages[2].content.map((b) => (b as { tool_use_id: string }).tool_use_id)).toEqual(['a', 'b']);
  });

  it('a tool_use without a result gets a synthetic interrupted error result', () => {
    const body = convert([userMessage('go'), assistant(call('a'), call('b')), result('b'), userMessage('next')]);
    expect(body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: INTERRUPTED_RESULT }], is_error: true },
      { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'result b' }], is_error: false },
      { type: 'text', text: 'next' },
    ]);
    // Also when the conversation ends on the tool_use.
    const ending = convert([userMessage('go'), assistant(call('z'))]);
    expect(ending.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'z', content: [{ type: 'text', text: INTERRUPTED_RESULT }], is_error: true }] });
  });

  it('results whose tool_use is not in the preceding assistant message are dropped, and so are duplicates', () => {
    const body = convert([userMessage('go'), assistant(call('a')), result('a'), result('a', 'again'), result('stray'), assistant({ type: 'text', text: 'done' }), result('a'), userMessage('ok')]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'result a' }], is_error: false }] },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      { role: 'user', content: [{ type: 'text', text: 'ok' }] },
    ]);
  });

  it('thinking blocks are sent only with a signature; empty text and empty assistant messages are skipped', () => {
    const body = convert([
      userMessage('q'),
      assistant({ type: 'thinking', thinking: 'unsigned' }, { type: 'text', text: '' }),
      assistant(),
      assistant({ type: 'thinking', thinking: 'signed', signature: 'sig' }, { type: 'text', text: 'answer' }),
      userMessage(''),
      userMessage('next'),
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'signed', signature: 'sig' },
          { type: 'text', text: 'answer' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ]);
  });

  it('consecutive user messages merge; consecutive assistant messages merge', () => {
    const body = convert([userMessage('a'), userMessage('b'), assistant({ type: 'text', text: 'x' }), assistant({ type: 'text', text: 'y' }, call('c')), result('c')]);
    expect(body.messages.map((m) => [m.role, m.content.length])).toEqual([
      ['user', 2],
      ['assistant', 3],
      ['user', 1],
    ]);
  });

  it('an empty tool result still has content (the API rejects empty text blocks)', () => {
    const body = convert([userMessage('go'), assistant(call('a')), { ...result('a'), content: [{ type: 'text', text: '' }], isError: true }]);
    expect(body.messages[2].content[0]).toMatchObject({ content: [{ type: 'text', text: '(no output)' }], is_error: true });
  });

  it('any history becomes a valid conversation (property)', () => {
    const ids = fc.constantFrom('t1', 't2', 't3', 't4');
    const text = fc.constantFrom('', 'hello', 'x');
    const content: fc.Arbitrary<AssistantContent> = fc.oneof(
      text.map((t) => ({ type: 'text' as const, text: t })),
      fc.record({ type: fc.constant('thinking' as const), thinking: text, signature: fc.option(fc.constantFrom('s1', 's2'), { nil: undefined }) }),
    );
    const message: fc.Arbitrary<Message> = fc.oneof(
      text.map((t) => userMessage(t)),
      fc.tuple(fc.array(content, { maxLength: 3 }), fc.uniqueArray(ids, { maxLength: 3 })).map(([c, calls]) => assistant(...c, ...calls.map((id) => call(id)))),
      ids.map((id) => result(id)),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 14 }), (history) => {
        const messages = convert(history).messages;
        checkConversation(messages);
        // Nothing the model should see is lost: every non-empty user text, in order.
        const texts = (ms: readonly { role: string; content: readonly { type: string; text?: string }[] }[], role: string) =>
          ms.filter((m) => m.role === role).flatMap((m) => m.content.filter((c) => c.type === 'text' && c.text).map((c) => c.text));
        expect(texts(messages, 'user')).toEqual(texts(history, 'user'));
      }),
      { numRuns: 500 },
    );
  });
});

/** The API's rules: alternating roles, nothing empty, each tool_use answered right after, no orphan results. */
function checkConversation(messages: WireMessage[]): void {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (i > 0) expect(m.role).not.toBe(messages[i - 1].role);
    expect(m.content.length).toBeGreaterThan(0);
    for (const b of m.content) {
      if (b.type === 'text') expect(b.text).not.toBe('');
      if (b.type === 'thinking') expect(b.signature).toBeTruthy();
    }
    if (m.role === 'assistant') {
      const uses = m.content.filter((b) => b.type === 'tool_use').map((b) => b.id);
      if (uses.length === 0) continue;
      const next = messages[i + 1];
      expect(next?.role).toBe('user');
      const results = next!.content.slice(0, uses.length);
      expect(results.map((b) => (b.type === 'tool_result' ? b.tool_use_id : b.type))).toEqual(uses);
    } else {
      const prev = messages[i - 1];
      const uses = new Set(prev?.role === 'assistant' ? prev.content.filter((b) => b.type === 'tool_use').map((b) => b.id) : []);
      const results = m.content.filter((b) => b.type === 'tool_result');
      expect(results.every((b) => uses.has(b.tool_use_id))).toBe(true);
      expect(new Set(results.map((b) => b.tool_use_id)).size).toBe(results.length);
      // Results first, then text.
      const firstText = m.content.findIndex((b) => b.type === 'text');
      if (firstText >= 0) expect(m.content.slice(firstText).every((b) => b.type === 'text')).toBe(true);
    }
  }
}
