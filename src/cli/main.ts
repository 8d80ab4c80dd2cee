// The CLI entry. It parses arguments and loads the heavy parts only when needed,
// so `--version` and `--help` touch nothing but this file, args.ts and guard.ts.
// An error with a kind anywhere below becomes one stderr line and its kind's exit code (guard.ts;
// a usage error: 2).
import { parseCliArgs, USAGE, type CliArgs } from './args.js';
import { EXIT } from '../app/exit-codes.js';
import { guarded } from './guard.js';

// MINI_AGENT_TIMINGS=FILE (core/timings.ts): start-up marks. Their module loads only when asked
// for, so that without the variable (and for --version) the cost is this one check.
const startedAt = performance.now();
const timings = process.env.MINI_AGENT_TIMINGS ? await import('../core/timings.js') : undefined;
timings?.mark('main', startedAt);

declare const __MINI_AGENT_VERSION__: string | undefined;
export const VERSION = typeof __MINI_AGENT_VERSION__ === 'string' ? __MINI_AGENT_VERSION__ : '0.0.0-dev';

async function main(argv: string[]): Promise<number> {
  const args = await guarded(() => parseCliArgs(argv), { hint: 'Run "mini-agent --help" for usage.' });
  if (typeof args === 'number') return args;
  return guarded(() => dispatch(args));
}

async function dispatch(args: CliArgs): Promise<number> {
  switch (args.command) {
    case 'version':
      process.stdout.write(`mini-agent ${VERSION}\n`);
      return EXIT.completed;
    case 'help':
      process.stdout.write(USAGE + '\n');
      return EXIT.completed;
    case 'show-config': {
      const { showConfigCommand } = await import('./run.js');
      return showConfigCommand(args);
    }
    case 'sessions': {
      const { sessionsCommand } = await import('./session-commands.js');
      return sessionsCommand(args);
    }
    case 'tree': {
      const { treeCommand } = await import('./session-commands.js');
      return treeCommand(args);
    }
    case 'label': {
      const { labelCommand } = await import('./session-commands.js');
      return labelCommand(args);
    }
    case 'name': {
      const { nameCommand } = await import('./session-commands.js');
      return nameCommand(args);
    }
    case 'compact': {
      const { compactCommand } = await import('./compact-command.js');
      return compactCommand(args);
    }
    case 'uncompact': {
      const { uncompactCommand } = await import('./compact-command.js');
      return uncompactCommand(args);
    }
    case 'eval': {
      const { evalCommand } = await import('./eval-command.js');
      return evalCommand(args);
    }
    case 'export': {
      const { exportCommand } = await import('./export-command.js');
      return exportCommand(args);
    }
    case 'trust': {
      const { trustCommand } = await import('./trust-command.js');
      return trustCommand(args);
    }
    case 'untrust': {
      const { untrustCommand } = await import('./trust-command.js');
      return untrustCommand(args);
    }
    case 'mcp-list': {
      const { mcpListCommand } = await import('./mcp-command.js');
      return mcpListCommand(args);
    }
    case 'trace': {
      const { traceCommand } = await import('./trace.js');
      return traceCommand(args);
    }
    case 'run': {
      if (wantsConversation(args)) {
        // No prompt, on a terminal: the interactive mode, a front end of its own (its own bundle,
        // as bin/mini-agent hands --rpc to the RPC bundle); print mode does not import it.
        const bundle = new URL('./interactive.mjs', import.meta.url).href;
        const { runInteractive } = (await import(bundle)) as { runInteractive(argv: string[]): Promise<number> };
        return runInteractive(process.argv.slice(2));
      }
      const { runCommand } = await import('./run.js');
      return runCommand(args);
    }
  }
}

/** `mini-agent` with no prompt, stdin and stdout a terminal, and no flag that means print mode. */
function wantsConversation(args: Extract<CliArgs, { command: 'run' }>): boolean {
  return args.prompt === undefined && process.stdin.isTTY === true && process.stdout.isTTY === true && !args.json && args.trace === undefined && !args.summarizeLeft && args.skills.length === 0 && args.images.length === 0 && args.agent.branch === undefined && args.agent.fork === undefined;
}

/** Resolves once what was written to `stream` has been handed to the OS (at most 2 s: a reader that went away must not keep us). */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 2000);
    timer.unref();
    stream.write('', () => (clearTimeout(timer), resolve()));
  });
}

main(process.argv.slice(2)).then(
  async (code) => {
    timings?.mark('done');
    // Exit as soon as the output is out. Waiting for the event loop to empty costs ~170 ms after
    // a run: V8 keeps optimizing undici's WebAssembly HTTP parser (fetch's) in the background, and
    // Node waits for it. Everything of ours is closed by now (the session, its lock, MCP servers).
    process.exitCode = code;
    await Promise.all([drained(process.stdout), drained(process.stderr)]);
    process.exit(code);
  },
  (err: unknown) => {
    const verbose = process.argv.includes('--verbose');
    process.stderr.write(`mini-agent: internal error: ${verbose && err instanceof Error ? err.stack : (err as Error)?.message ?? String(err)}\n`);
    process.exitCode = EXIT.error;
  },
);
