// `mini-agent trace FILE`: a step-by-step, human-readable account of a --trace file.
// Reading only: it never needs or takes a lock.
import { readFileSync } from 'node:fs';
import { formatTrace, parseTrace } from '../app/trace-text.js';
import { EXIT } from '../app/exit-codes.js';

export function traceCommand(args: { file: string; verbose: boolean }): number {
  let text: string;
  try {
    text = readFileSync(args.file, 'utf8');
  } catch (err) {
    process.stderr.write(`mini-agent: cannot read trace ${args.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return EXIT.usage;
  }
  const { events, problems } = parseTrace(text, args.file);
  for (const p of problems) process.stderr.write(`warning: ${p}\n`);
  if (events.length === 0) {
    process.stderr.write(`mini-agent: ${args.file} holds no events\n`);
    return EXIT.usage;
  }
  process.stdout.write(formatTrace(events, { width: args.verbose ? 2000 : 160 }));
  return EXIT.completed;
}
