// The interactive mode's entry: `mini-agent` with no prompt on a terminal (print mode hands the
// terminal over to this bundle). It parses the shared flags, creates the agent, and runs the
// conversation until the user leaves; the terminal is put back on every way out (exit, crash,
// SIGTERM, SIGHUP).
import { parseArgs } from 'node:util';
import { createAgent } from '../app/agent.js';
import { reportFailure } from '../app/exit-codes.js';
import { AGENT_FLAGS, agentFlagsFrom, cleanParseError } from '../app/flags.js';
import type { PermissionAsker } from '../app/permission-gate.js';
import { UsageError } from '../core/types.js';
import { Conversation } from './conversation.js';
import { firstStartIfNeeded } from './first-start.js';
import { KeyParser } from './keys.js';
import { Screen } from './screen.js';
import { Terminal } from './terminal.js';
import { routeConsole } from './console-route.js';
import { paint } from './view.js';
import { wrapText } from './wrap.js';

/** How long a lone ESC waits for the rest of a sequence before it counts as the Escape key. */
const ESC_WAIT_MS = 40;

export async function runInteractive(argv: string[]): Promise<number> {
  let flags;
  let verbose = false; // the model's reasoning shown in full from the start
  try {
    const parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { ...AGENT_FLAGS, verbose: { type: 'boolean', default: false } } });
    if (parsed.positionals.length > 0) throw new UsageError('the interactive mode takes no prompt');
    flags = agentFlagsFrom(parsed.values);
    verbose = parsed.values.verbose === true;
  } catch (err) {
    return reportFailure(err instanceof UsageError ? err : new UsageError(cleanParseError((err as Error).message)));
  }
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
  let ask: PermissionAsker = () => 'deny';
  let agent;
  for (let attempt = 0; ; attempt++) {
    try {
      agent = await createAgent({ cwd: process.cwd(), env: process.env, ...flags, onPermissionRequest: (r) => ask(r) });
      break;
    } catch (err) {
      // No key for the configured provider: the first screen helps pick one (first-start.ts).
      const first: Awaited<ReturnType<typeof firstStartIfNeeded>> = attempt === 0 && err instanceof UsageError ? await firstStartIfNeeded(flags, process.env, color) : undefined;
      if (first && 'exit' in first) return first.exit;
      if (first) {
        flags = first.flags;
        continue;
      }
      return reportFailure(err);
    }
  }
  const terminal = new Terminal({ input: process.stdin, output: process.stdout });
  const screen = new Screen(terminal);
  const unrouteConsole = routeConsole((text) => screen.print(wrapText(`warning: ${text}`, screen.width, { indent: '  ', style: paint(color).yellow })));
  for (const w of agent.warnings) screen.print([`warning: ${w}`]);
  for (const note of agent.notes) screen.print([note]);
  for (const w of agent.session.warnings) screen.print([`warning: ${w}`]);

  return new Promise<number>((resolve) => {
    let leaving = false;
    const conversation = new Conversation(agent, screen, { color, env: process.env, verbose, onExit: () => void leave(0) });
    ask = conversation.ask;
    const parser = new KeyParser();
    let escTimer: NodeJS.Timeout | undefined;
    const onInput = (chunk: string) => {
      if (escTimer) clearTimeout(escTimer);
      for (const key of parser.feed(chunk)) conversation.key(key);
      if (parser.hasPending) {
        escTimer = setTimeout(() => {
          for (const key of parser.flush()) conversation.key(key);
        }, ESC_WAIT_MS);
      }
    };
    const leave = async (code: number) => {
      if (leaving) return;
      leaving = true;
      if (escTimer) clearTimeout(escTimer);
      conversation.close();
      unrouteConsole();
      screen.close();
      terminal.restore();
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
      await agent.close(); // aborts a run in progress and waits for it: the session stays consistent
      resolve(code);
    };
    const onSignal = (signal: NodeJS.Signals) => void leave(signal === 'SIGTERM' ? 143 : 129);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
    process.on('uncaughtException', (err) => {
      terminal.restore();
      process.stderr.write(`mini-agent: internal error: ${err?.stack ?? String(err)}\n`);
      process.exit(1);
    });
    terminal.start(onInput, () => conversation.resize());
    conversation.start();
  });
}
