// `!cmd` at the start of the input (issue 24 §4): the command runs through the agent's bash tool
// (agent.session.shell: permissions, sandbox and hooks apply) and its output joins the
// conversation as a user message the model sees next turn. Shown like a tool call: a spinner while
// it runs (Esc or Ctrl+C aborts it), then the command and the tail of its output.
import type { Agent } from '../app/agent.js';
import { clean, cut, formatDuration, waitingLine, type Paint } from './view.js';
import { wrapText, wrapVerbatim } from './wrap.js';

/** Lines of output shown in the scrollback (the tail: where errors are); the model gets it all. */
const SHOWN = 12;

/** A line that is a shell command: `!` then the command. */
export function shellCommandOf(text: string): string | undefined {
  const m = /^\s*!(?!\s*$)([\s\S]*)$/.exec(text);
  return m ? m[1].trim() : undefined;
}

export interface ShellRun {
  readonly controller: AbortController;
  readonly command: string;
  readonly started: number;
}

export interface ShellLineContext {
  agent: Agent;
  p: Paint;
  width: () => number;
  now: () => number;
  print(lines: string[]): void;
  /** The command in progress (for the live line and for Esc), or undefined when it ended. */
  setRun(run: ShellRun | undefined): void;
  redraw(): void;
}

/** The live line while a command runs. */
export function shellRunLine(run: ShellRun, now: number, width: number, p: Paint): string {
  return waitingLine(now - run.started, `running !${cut(clean(run.command), Math.max(10, width - 40))}`, undefined, p);
}

export async function runShellLine(command: string, ctx: ShellLineContext): Promise<void> {
  const { p } = ctx;
  const width = ctx.width();
  ctx.print(['', ...wrapText(`! ${command}`, width, { indent: '  ', style: p.cyan })]);
  if (ctx.agent.running) {
    ctx.print([p.yellow('a shell command runs between runs: Esc stops this one first'), '']);
    return;
  }
  const run: ShellRun = { controller: new AbortController(), command, started: ctx.now() };
  ctx.setRun(run);
  const ticker = setInterval(() => ctx.redraw(), 100);
  ctx.redraw();
  try {
    const r = await ctx.agent.session.shell(command, { signal: run.controller.signal });
    const lines = clean(r.output).replace(/\n+$/, '').split('\n');
    const w = ctx.width();
    // Each line whole, wrapped at the edge with its spaces kept (the user's own command: nothing is cut).
    const row = (l: string) => (l.trim() === '' ? [''] : wrapVerbatim(l, Math.max(10, w - 4))).map((part) => (r.isError ? p.red : p.dim)(`  │ ${part}`));
    const tail = lines.length > SHOWN ? [p.dim(`  │ … ${lines.length - SHOWN} earlier lines`), ...lines.slice(-SHOWN).flatMap(row)] : lines.flatMap(row);
    const took = formatDuration(ctx.now() - run.started);
    const note = r.entryId ? `(${took}; added to the conversation)` : `(${took}; not added to the conversation)`;
    ctx.print([...tail, ...wrapText(note, w, { style: p.dim }), '']);
  } catch (err) {
    ctx.print([...wrapText(`error: ${(err as Error)?.message ?? String(err)}`, ctx.width(), { indent: '  ', style: p.red }), '']);
  } finally {
    clearInterval(ticker);
    ctx.setRun(undefined);
    ctx.redraw();
  }
}
