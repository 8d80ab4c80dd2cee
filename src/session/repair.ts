// Repairing a path whose last assistant message has tool calls without results (a run killed
// mid-turn, or a branch taken from such a message): each call is answered, by appending, with an
// error result, so the next request is valid for every provider. Nothing is edited.
import type { ToolCall } from '../core/types.js';
import { unansweredToolCalls } from './projector.js';
import type { SessionStore } from './store.js';

export function interruptedResultText(name: string): string {
  return `Tool "${name}" was interrupted before completion (the run stopped, or the conversation was branched, before its result was stored); its effects are unknown.`;
}

/** Answers the unanswered calls at the end of the active path; returns them (empty when there were none). */
export function answerInterruptedCalls(store: SessionStore): ToolCall[] {
  const interrupted = unansweredToolCalls(store.activePath());
  for (const call of interrupted) {
    store.appendMessage({
      role: 'toolResult',
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: 'text', text: interruptedResultText(call.name) }],
      isError: true,
      details: { reason: 'interrupted' },
    });
  }
  return interrupted;
}
