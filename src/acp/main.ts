// The process entry of ACP mode (`mini-agent --acp`; bin/mini-agent picks this bundle when the
// flag is given). It parses the flags (args.ts) and hands over to runAcpProcess.
import { reportFailure } from '../app/exit-codes.js';
import { EXIT_ACP, runAcpProcess } from './acp-mode.js';
import { parseAcpArgs, USAGE } from './args.js';

async function main(): Promise<number> {
  let options;
  try {
    options = parseAcpArgs(process.argv.slice(2));
  } catch (err) {
    return reportFailure(err, undefined, 'Run "mini-agent --acp --help" for usage.');
  }
  if (options === 'help') {
    process.stdout.write(USAGE + '\n');
    return EXIT_ACP.ok;
  }
  return runAcpProcess(options);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`mini-agent: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
