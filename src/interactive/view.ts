// What the interactive mode shows besides the answer, pure: one compact line per tool call (tool,
// key argument, status, duration, a few lines of the result), the spinner, the queue, the status
// line after a run, notices. Text from tools and models is sanitized: it never drives the terminal.
import stringWidth from 'string-width';
import type { AgentEvent } from '../core/events.js';
import type { QueueItem } from '../core/types.js';
import { sanitizeForTerminal } from './terminal-text.js';
import { costText } from '../core/cost-text.js';
import { describeToolCall, type DescribeCall } from '../tools/descriptions.js';

export interface Paint {
  dim(s: string): string;
  bold(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

export function paint(color: boolean): Paint {
  const sgr = (open: string) => (s: string) => (color ? `\x1b[${open}m${s}\x1b[0m` : s);
  return { dim: sgr('2'), bold: sgr('1'), red: sgr('31'), green: sgr('32'), yellow: sgr('33'), cyan: sgr('36') };
}

/** Text from outside (tools, models, files) made safe to print: escape sequences and control characters removed, tabs expanded. */
export function clean(text: string): string {
  return sanitizeForTerminal(text, 2);
}

/** Cuts text to `width` cells on one line, with an ellipsis. */
export function cut(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (stringWidth(flat) <= width) return flat;
  let out = '';
  for (const ch of flat) {
    if (stringWidth(out + ch) > width - 1) break;
    out += ch;
  }
  return out + '…';
}

/** What a call is about, as its tool declares it: a path, a command. */
const subjectOf = (name: string, args: Record<string, unknown>, describe: DescribeCall): string => describe(name, args).subject;

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A running tool call, in the live region. */
export function runningToolLine(name: string, args: Record<string, unknown>, elapsedMs: number, width: number, p: Paint, describe: DescribeCall = describeToolCall): string {
  const frame = SPINNER[Math.floor(elapsedMs / 80) % SPINNER.length];
  const head = `${frame} ${name} `;
  const tail = ` ${formatDuration(elapsedMs)}`;
  return p.cyan(frame) + ' ' + p.bold(name) + ' ' + cut(clean(subjectOf(name, args, describe)), Math.max(10, width - stringWidth(head) - stringWidth(tail))) + p.dim(tail);
}

/** A finished tool call's first line: mark, tool, key argument, duration (its body: tool-block.ts). */
export function toolHeaderLine(e: Extract<AgentEvent, { type: 'tool_end' }>, args: Record<string, unknown>, width: number, p: Paint, describe: DescribeCall = describeToolCall): string {
  const mark = e.result.isError ? p.red('✗') : p.green('✓');
  const name = e.result.isError ? p.red(e.name) : p.bold(e.name);
  const time = ` ${formatDuration(e.durationMs)}`;
  const room = Math.max(10, width - stringWidth(`✓ ${e.name} `) - stringWidth(time));
  return `${mark} ${name} ${cut(clean(subjectOf(e.name, args, describe)), room)}${p.dim(time)}`;
}

/** The spinner while the model works: what it is doing, how long, and a retry notice when there is one. */
export function waitingLine(elapsedMs: number, doing: string, note: string | undefined, p: Paint): string {
  const frame = SPINNER[Math.floor(elapsedMs / 80) % SPINNER.length];
  return `${p.cyan(frame)} ${doing} ${p.dim(formatDuration(elapsedMs))}${note ? ' ' + p.yellow(note) : ''}  ${p.dim('(Esc to stop)')}`;
}

/** Steers and follow-ups waiting, under the input. */
export function queueLines(items: readonly QueueItem[], width: number, p: Paint): string[] {
  if (items.length === 0) return [];
  const lines = items.map((i, n) => p.dim(`  ${i.kind === 'steer' ? 'steer' : 'follow-up'} ${n + 1}: `) + cut(clean(i.text), width - 30) + p.dim(` (${i.id.slice(0, 6)})`));
  return [...lines, p.dim('  (Esc stops the run and returns them to the editor; /cancel N drops one)')];
}

export interface StatusFacts {
  model: string;
  input: number;
  output: number;
  cost: number;
  costUnknown?: boolean;
  contextFraction: number | null;
  session: string;
}

/** After each run: model, tokens in and out, cost, context use, session. */
export function statusLine(s: StatusFacts, p: Paint): string {
  const tokens = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));
  const parts = [s.model, `↑${tokens(s.input)} ↓${tokens(s.output)}`, costText(s), s.contextFraction === null ? 'context ?' : `context ${Math.round(s.contextFraction * 100)}%`, s.session];
  return p.dim(parts.join(' · '));
}

/** Did you mean…: the known command nearest to what was typed (edit distance), if close enough. */
export function nearest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = distance(word, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j];
      row[j] = next;
    }
  }
  return row[b.length];
}

export interface ConversationOptions {
  color: boolean;
  env: NodeJS.ProcessEnv;
  /** Called when the user leaves (/exit, Ctrl+D, a second Ctrl+C). */
  onExit: () => void;
  now?: () => number;
  /** --verbose: the model's reasoning is shown in full from the start (Ctrl+O still collapses it). */
  verbose?: boolean;
}

/** A user message longer than this (a paste) shows this many lines in the scrollback, then a count. */
const USER_LINES_SHOWN = 8;

/** A message of the user's, for the scrollback; a long one (a paste) shows its first lines and a count. */
export function userLines(text: string, kind: string | undefined, width: number, p: Paint): string[] {
  const all = clean(text).split('\n');
  const lines = all.length > USER_LINES_SHOWN + 2 ? [...all.slice(0, USER_LINES_SHOWN), p.dim(`[… ${all.length - USER_LINES_SHOWN} more lines]`)] : all;
  const mark = kind ? p.dim(`↳ ${kind}: `) : p.cyan('❯ ');
  return ['', ...lines.map((l, i) => (i === 0 ? mark : '  ') + cut(l, width - 4)), ''];
}
