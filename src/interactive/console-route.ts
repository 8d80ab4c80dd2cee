// While the interactive screen is up, what libraries print with console.warn / console.error /
// console.log / console.info (the Anthropic SDK's deprecation warning, say) would land over the
// live region and the input line. They go to the scrollback as warning lines instead (issue 24).
import { format } from 'node:util';

type Method = 'log' | 'info' | 'warn' | 'error' | 'debug';
const METHODS: readonly Method[] = ['log', 'info', 'warn', 'error', 'debug'];

/** Sends the console's output to `show` (one call per console call, formatted as console would); returns the undo. */
export function routeConsole(show: (text: string) => void, target: Pick<Console, Method> = console): () => void {
  const saved = METHODS.map((m) => [m, target[m]] as const);
  for (const m of METHODS) target[m] = (...args: unknown[]) => show(format(...args));
  return () => {
    for (const [m, fn] of saved) target[m] = fn;
  };
}
