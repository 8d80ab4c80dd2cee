// `mini-agent trace FILE`: a step-by-step, human-readable account of a --trace file.
// Reading only: it never needs or takes a lock.
import { readFileSync } from 'node:fs';
import { formatTrace, parseTrace } from '../app/trace-text.js';
import { EXIT } from '../app/exit-codes.js';
import { resolve } from 'node:path';
import type { FrontEndIo } from '../app/front-end-io.js';

export function traceCommand(args: { file: string; verbose: boolean }, io: FrontEndIo): number {
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, args.file), 'utf8');
  } catch (err) {
    io.stderr.write(`mini-agent: cannot read trace ${args.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return EXIT.usage;
  }
  const { events, problems } = parseTrace(text, args.file);
  for (const p of problems) io.stderr.write(`warning: ${p}\n`);
  if (events.length === 0) {
    io.stderr.write(`mini-agent: ${args.file} holds no events\n`);
    return EXIT.usage;
  }
  io.stdout.write(formatTrace(events, { width: args.verbose ? 2000 : 160 }));
  return EXIT.completed;
}
