// Opt-in start-up timings (issue 14): with MINI_AGENT_TIMINGS=FILE the process appends, when it
// exits, one JSON line to FILE: { phase: ms since the process started, ..., origin }. It exists so
// that bench/first-turn.mjs can say where the time before and between requests goes; nothing reads
// it back. Without the variable every mark is one comparison (the variable is read once, here).
//
// It lives in core, not app, because the loop (agent/) and the provider adapters (model/) mark
// phases too, and they may import only core (test/architecture.test.ts).
//
// The phases of a print-mode run, in order (a missing one did not happen in that run):
//   main          cli/main.ts starts running (its own imports loaded; Node's start-up is before this)
//   modules       print mode's modules are loaded (run.ts, the app layer, the agent, the session code)
//   config        the configuration is resolved (files, env, flags)
//   model         the model adapter is built (for a new session, before the session is opened): the
//                 adapter's module is imported, not its SDK; also the workspace trust and the hooks
//   session       the session file is open and its lock taken
//   agent         createAgent returned: tools, extensions described, runner ready
//   prepared      the run began: the prompt is appended and the extensions prepared (context files,
//                 skills, MCP servers the run needs)
//   sdk           the provider SDK is imported (on the first request, before its client is built)
//   requestN      request N (retries count) is about to be handed to the SDK; N = 1, 2, ...
//   responseN_done  response N's stream ended
//   toolN_done    the tool calls of the Nth tool turn have all returned (their results are stored)
//   turnN_end     that tool turn's session lines are fsynced (the durability point), N as toolN_done
//   done          main() returned: the agent is closed, the exit code is set
//   exit          the process is exiting (Node's 'exit' event)
// and `origin`, performance.timeOrigin (ms since the epoch), so that another process can put the
// marks on its own clock. Times are performance.now(): ms since the process started.
import { appendFileSync } from 'node:fs';

const FILE = process.env.MINI_AGENT_TIMINGS || undefined;
const marks: Record<string, number> | undefined = FILE ? {} : undefined;
const counts: Record<string, number> = {};

if (FILE) {
  process.once('exit', () => {
    mark('exit');
    try {
      appendFileSync(FILE, JSON.stringify({ ...marks, origin: performance.timeOrigin }) + '\n');
    } catch (err) {
      // A diagnostic aid must never change the exit code; say why there is no line.
      process.stderr.write(`mini-agent: cannot write MINI_AGENT_TIMINGS file ${FILE}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    }
  });
}

/** Records `phase` at `at` (default: now), the first time only (a later mark of the same name keeps the first). */
export function mark(phase: string, at = performance.now()): void {
  if (marks === undefined || phase in marks) return;
  marks[phase] = at;
}

/** Records the next occurrence of a numbered phase: `#` in `pattern` becomes 1, 2, ... ('request#' → request1). */
export function markNext(pattern: string): void {
  if (marks === undefined) return;
  const n = (counts[pattern] = (counts[pattern] ?? 0) + 1);
  marks[pattern.replace('#', String(n))] = performance.now();
}
