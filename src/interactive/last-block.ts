// What Ctrl+O acts on: the last block printed, whichever it is. The scrollback is append-only
// (screen.ts), so a block already printed is never redrawn: expanding prints the block again
// below, in full; collapsing prints its preview again. The model's reasoning keeps its own rule
// (reasoning.ts): Ctrl+O switches how reasoning is shown and prints the last one in full.
import { describeToolCall, type DescribeCall } from '../tools/descriptions.js';
import type { Paint } from './view.js';
import type { ReasoningView } from './reasoning.js';
import { EXPAND_KEY, toolBlock, type ToolEnd } from './tool-block.js';

export class LastBlock {
  private last: { kind: 'tool'; e: ToolEnd; args: Record<string, unknown>; expanded: boolean } | { kind: 'reasoning' } | undefined;

  constructor(
    private readonly reasoning: ReasoningView,
    private readonly p: Paint,
    /** How calls are described (the agent's own tools first). */
    private readonly describe: DescribeCall = describeToolCall,
  ) {}

  /** A tool call finished: its block (collapsed) for the scrollback; it becomes the last block. */
  tool(e: ToolEnd, args: Record<string, unknown>, width: number): string[] {
    this.last = { kind: 'tool', e, args, expanded: false };
    return toolBlock(e, args, width, this.p, 'preview', this.describe);
  }

  /** Reasoning went to the scrollback (lines printed): it becomes the last block. */
  reasoningEnded(lines: string[]): string[] {
    if (lines.length > 0) this.last = { kind: 'reasoning' };
    return lines;
  }

  /** Ctrl+O: the lines to print for the last block, expanded or collapsed again. */
  toggle(width: number): string[] {
    const last = this.last;
    if (last?.kind !== 'tool') return this.reasoning.toggle(width);
    last.expanded = !last.expanded;
    const note = last.expanded ? `${last.e.name} in full (${EXPAND_KEY} to collapse):` : `${last.e.name} collapsed (${EXPAND_KEY} to expand):`;
    return [this.p.dim(note), ...toolBlock(last.e, last.args, width, this.p, last.expanded ? 'full' : 'preview', this.describe)];
  }
}
