// The `message` entry: a message of the conversation, a node of the tree.
import type { Static } from 'typebox';
import { Type } from '../../core/type-builders.js';
import { MessageSchema } from '../../core/message-schema.js';
import { preview, textOf, type AssistantMessage, type ToolCall, type ToolResultMessage as ToolResult } from '../../core/types.js';
import { codeSpan, escapeInline, fencedExcerpt, safeText } from '../markdown-text.js';
import { base, NodeParent, entryKind } from './parts.js';
import { anyString, anything, indexable } from './reading.js';

export const MessageEntrySchema = Type.Object({ type: Type.Literal('message'), ...base, parentId: NodeParent, message: MessageSchema }, { description: 'A message: a node of the tree.' });
/** A message of the conversation: a node of the tree. */
export type MessageEntry = Static<typeof MessageEntrySchema>;

export const messageKind = entryKind({
  type: 'message',
  schema: MessageEntrySchema,
  node: true,
  // What older versions' readers did not need (and so accepted): the tool result's name and error
  // flag, the usage's fields, any stop reason, a block's fields other than a text's text and a
  // tool call's id and name.
  reading: {
    'message.toolName': anything,
    'message.isError': anything,
    'message.usage': indexable,
    'message.stopReason': anyString,
    'message.content[].thinking': anything,
    'message.content[].data': anything,
    'message.content[].mimeType': anything,
    'message.content[].arguments': anything,
  },
  // An empty assistant message (a failed request) is not sent.
  project: (e) => (e.message.role === 'assistant' && e.message.content.length === 0 ? undefined : e.message),
  describe(e) {
    const m = e.message;
    if (m.role === 'user') return { kind: 'user', text: textOf(m.content) };
    if (m.role === 'toolResult') return { kind: `result`, text: `${m.isError ? '✗' : '✓'} ${m.toolName}: ${textOf(m.content)}` };
    // (filter and map, not flatMap: the export page's script, checked against ES2017, sees this module's types)
    const calls = m.content.filter((c): c is ToolCall => c.type === 'toolCall').map((c) => (c.argumentsError ? `→ ${c.name}(✗ ${preview(c.rawArguments ?? '', 40)})` : `→ ${c.name}(${preview(JSON.stringify(c.arguments) ?? '', 40)})`));
    const text = textOf(m.content);
    const failed = m.stopReason === 'error' || m.stopReason === 'aborted' ? ` [${m.stopReason}${m.errorMessage ? `: ${m.errorMessage}` : ''}]` : '';
    return { kind: 'assistant', text: [text, ...calls].filter(Boolean).join(' ') + failed };
  },
  markdown(e, contentText) {
    const m = e.message;
    if (m.role === 'user') {
      const text = contentText(m.content);
      return { level: '##', title: 'User', body: [text.trim() === '' ? '_(empty message)_' : safeText(text)] };
    }
    if (m.role === 'toolResult') return { level: '###', title: m.isError ? `✗ ${escapeInline(m.toolName)} failed` : `✓ ${escapeInline(m.toolName)} result`, body: resultBlock(m, contentText) };
    return { level: '##', title: 'Assistant', body: assistantBlock(m) };
  },
});

/** Tool arguments up to this many characters print inline; longer ones get a block. */
const INLINE_ARGS = 120;

function assistantBlock(m: AssistantMessage): string[] {
  const out: string[] = [];
  for (const c of m.content) {
    if (c.type === 'text') {
      if (c.text.trim() !== '') out.push(safeText(c.text));
    } else if (c.type === 'thinking') {
      const n = c.thinking.length;
      if (n === 0) {
        out.push('_Thinking (redacted)_');
        continue;
      }
      out.push(`<details><summary>Thinking (${n} ${n === 1 ? 'char' : 'chars'})</summary>`, safeText(c.thinking), '</details>');
    } else if (c.type === 'toolCall') {
      out.push(...toolCallBlock(c));
    }
  }
  if (m.stopReason === 'error' || m.stopReason === 'aborted') {
    out.push(`> ✗ **${m.stopReason}**${m.errorMessage ? `: ${escapeInline(m.errorMessage)}` : ''}`);
  } else if (m.stopReason === 'length' || m.stopReason === 'contentFilter') {
    out.push(`_(stopped: ${m.stopReason === 'length' ? 'output length limit' : 'content filter'})_`);
  }
  if (out.length === 0) out.push('_(empty response)_');
  return out;
}

function toolCallBlock(c: ToolCall): string[] {
  const name = `**→ ${escapeInline(c.name)}**`;
  if (c.argumentsError) {
    const head = `${name} ✗ invalid arguments: ${escapeInline(c.argumentsError)}`;
    return c.rawArguments ? [`${head}; as sent by the model:`, ...fencedExcerpt(c.rawArguments, '')] : [head];
  }
  const json = JSON.stringify(c.arguments ?? {});
  if (json.length <= INLINE_ARGS) return [`${name} ${codeSpan(json)}`];
  return [name, ...fencedExcerpt(JSON.stringify(c.arguments, null, 2), 'json')];
}

function resultBlock(m: ToolResult, contentText: (content: ToolResult['content']) => string): string[] {
  const text = contentText(m.content);
  return text === '' ? ['_(no output)_'] : fencedExcerpt(text, '');
}
