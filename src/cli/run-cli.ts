// The CLI as a function: `runCli(argv, io)` parses the arguments, runs the command against `io`
// (app/front-end-io.ts: workspace, environment, streams, signals) and resolves with the exit code. It loads
// the heavy parts only when needed, so `--version` and `--help` touch nothing but this file,
// args.ts and guard.ts. bin/mini-agent runs it through main.ts with the process's own io; tests
// run it in process. An error with a kind anywhere below becomes one stderr line and its kind's
// exit code (guard.ts; a usage error: 2).
import { parseCliArgs, USAGE, type CliArgs } from './args.js';
import { EXIT } from '../app/exit-codes.js';
import { guarded } from './guard.js';
import type { FrontEndIo } from '../app/front-end-io.js';

declare const __MINI_AGENT_VERSION__: string | undefined;
export const VERSION = typeof __MINI_AGENT_VERSION__ === 'string' ? __MINI_AGENT_VERSION__ : '0.0.0-dev';

export type { FrontEndIo, FrontEndSignal } from '../app/front-end-io.js';

/** Runs `mini-agent ARGV` against `io`; resolves with the exit code. */
export async function runCli(argv: string[], io: FrontEndIo): Promise<number> {
  const args = await guarded(io, () => parseCliArgs(argv), { hint: 'Run "mini-agent --help" for usage.' });
  if (typeof args === 'number') return args;
  return guarded(io, () => dispatch(args, argv, io));
}

async function dispatch(args: CliArgs, argv: string[], io: FrontEndIo): Promise<number> {
  switch (args.command) {
    case 'version':
      io.stdout.write(`mini-agent ${VERSION}\n`);
      return EXIT.completed;
    case 'help':
      io.stdout.write(USAGE + '\n');
      return EXIT.completed;
    case 'show-config': {
      const { showConfigCommand } = await import('./run.js');
      return showConfigCommand(args, io);
    }
    case 'sessions': {
      const { sessionsCommand } = await import('./session-commands.js');
      return sessionsCommand(args, io);
    }
    case 'tree': {
      const { treeCommand } = await import('./session-commands.js');
      return treeCommand(args, io);
    }
    case 'rewind': {
      const { rewindCommand } = await import('./rewind-command.js');
      return rewindCommand(args, io);
    }
    case 'diff': {
      const { diffCommand } = await import('./session-commands.js');
      return diffCommand(args, io);
    }
    case 'gc': {
      const { gcCommand } = await import('./gc-command.js');
      return gcCommand(args, io);
    }
    case 'label': {
      const { labelCommand } = await import('./session-commands.js');
      return labelCommand(args, io);
    }
    case 'name': {
      const { nameCommand } = await import('./session-commands.js');
      return nameCommand(args, io);
    }
    case 'compact': {
      const { compactCommand } = await import('./compact-command.js');
      return compactCommand(args, io);
    }
    case 'uncompact': {
      const { uncompactCommand } = await import('./compact-command.js');
      return uncompactCommand(args, io);
    }
    case 'eval': {
      const { evalCommand } = await import('./eval-command.js');
      return evalCommand(args, io);
    }
    case 'export': {
      const { exportCommand } = await import('./export-command.js');
      return exportCommand(args, io);
    }
    case 'trust': {
      const { trustCommand } = await import('./trust-command.js');
      return trustCommand(args, io);
    }
    case 'untrust': {
      const { untrustCommand } = await import('./trust-command.js');
      return untrustCommand(args, io);
    }
    case 'mcp-list': {
      const { mcpListCommand } = await import('./mcp-command.js');
      return mcpListCommand(args, io);
    }
    case 'trace': {
      const { traceCommand } = await import('./trace.js');
      return traceCommand(args, io);
    }
    case 'run': {
      if (wantsConversation(args, io)) {
        // No prompt, on a terminal: the interactive mode, a front end of its own (its own bundle,
        // as bin/mini-agent hands --rpc to the RPC bundle); print mode does not import it.
        const bundle = new URL('./interactive.mjs', import.meta.url).href;
        const { runInteractive } = (await import(bundle)) as { runInteractive(argv: string[]): Promise<number> };
        return runInteractive(argv);
      }
      const { runCommand } = await import('./run.js');
      return runCommand(args, io);
    }
  }
}

/** `mini-agent` with no prompt, stdin and stdout a terminal, and no flag that means print mode. */
function wantsConversation(args: Extract<CliArgs, { command: 'run' }>, io: FrontEndIo): boolean {
  return (
    args.prompt === undefined &&
    io.stdin.isTTY === true &&
    io.stdout.isTTY === true &&
    !args.json &&
    args.trace === undefined &&
    !args.summarizeLeft &&
    args.skills.length === 0 &&
    args.images.length === 0 &&
    args.agent.branch === undefined &&
    args.agent.fork === undefined
  );
}
