// The model's reasoning in the interactive mode (thinking_delta events: Anthropic thinking,
// DeepSeek and vLLM reasoning_content). While it streams, the live region shows its last lines,
// dimmed. When the answer (or a tool call) starts, it goes to the scrollback: one dimmed line
// "thinking… (N lines, Ctrl+O to expand)", or, expanded, every line dimmed. Ctrl+O (or
// /reasoning) switches between the two (--verbose starts expanded); switching to expanded also
// prints the last collapsed reasoning in full. Pure but for its own state; text from the model
// is sanitized.
import { wrapSpans } from './terminal-text.js';
import { clean, type Paint } from './view.js';

/** The live region shows at most this many lines of the reasoning being streamed. */
export const LIVE_REASONING_LINES = 6;
export const REASONING_KEY = 'Ctrl+O';

export class ReasoningView {
  private text = '';
  /** The last reasoning that went to the scrollback collapsed (what expanding shows). */
  private lastCollapsed: string | undefined;

  constructor(
    private readonly p: Paint,
    /** Shown in full (--verbose, or after Ctrl+O) rather than as one line. */
    private expanded = false,
  ) {}

  push(delta: string): void {
    this.text += delta;
  }

  /** The reasoning being streamed, if any (dimmed, the last lines only). */
  live(width: number): string[] {
    if (this.text.trim() === '') return [];
    const lines = this.lines(this.text, width);
    const shown = lines.slice(-LIVE_REASONING_LINES);
    const head = this.p.dim(`thinking… (${count(lines.length)}${lines.length > shown.length ? `, the last ${shown.length}` : ''})`);
    return [head, ...shown.map((l) => this.p.dim(`  ${l}`))];
  }

  /** The reasoning is over (the answer or a tool call starts, the message ends): its lines for the scrollback. */
  end(width: number): string[] {
    const text = this.text;
    this.text = '';
    if (text.trim() === '') return [];
    const lines = this.lines(text, width);
    if (this.expanded) return [this.p.dim(`thinking (${count(lines.length)}):`), ...lines.map((l) => this.p.dim(`  ${l}`))];
    this.lastCollapsed = text;
    return [this.p.dim(`thinking… (${count(lines.length)}, ${REASONING_KEY} to expand)`)];
  }

  /** A retried request: its reasoning is dropped with its partial answer. */
  discard(): void {
    this.text = '';
  }

  /** Ctrl+O, /reasoning: expanded ↔ collapsed, for the reasoning to come (and the one streaming); the lines to print. */
  toggle(width: number): string[] {
    this.expanded = !this.expanded;
    if (!this.expanded) return [this.p.dim(`reasoning collapsed: one line each (${REASONING_KEY} to expand)`)];
    const last = this.lastCollapsed;
    this.lastCollapsed = undefined;
    const note = this.p.dim(`reasoning expanded: shown in full (${REASONING_KEY} to collapse)`);
    if (last === undefined) return [note];
    const lines = this.lines(last, width);
    return [note, this.p.dim(`the last thinking (${count(lines.length)}):`), ...lines.map((l) => this.p.dim(`  ${l}`))];
  }

  private lines(text: string, width: number): string[] {
    const rows = wrapSpans([{ text: clean(text.trim()), style: '' }], Math.max(10, width - 2));
    return rows.map((row) => row.map((s) => s.text).join(''));
  }
}

function count(n: number): string {
  return `${n} ${n === 1 ? 'line' : 'lines'}`;
}

/** The lines that confirm a change of thinking level (/thinking, Shift+Tab), with the note (wrapped) when the model cannot take it. */
export function thinkingLines(change: { level: string; note: string | null }, p: Paint, width: number): string[] {
  const note = change.note ? wrapSpans([{ text: `note: ${clean(change.note)}`, style: '' }], Math.max(20, width - 1)).map((row) => p.yellow(row.map((s) => s.text).join(''))) : [];
  return [p.dim(`thinking: ${change.level} (from the next request)`), ...note];
}
