// Which tool calls of one assistant message may run at the same time. Reads share; a call that
// changes a path waits for earlier calls on that path (or a folder holding it, or a file in it);
// an `exclusive` call (bash, by default) waits for every earlier call and every later call waits
// for it. Each call starts as soon as the earlier calls it conflicts with have finished, so the
// order of effects is the order the model wrote them in, and unrelated calls overlap.
import { relative, isAbsolute, sep } from 'node:path';
import type { CallAccess } from '../tools/registry.js';

/** One path is the other, or inside it. */
export function overlaps(a: string, b: string): boolean {
  if (a === b) return true;
  const within = (x: string, y: string) => {
    const rel = relative(y, x);
    return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
  };
  return within(a, b) || within(b, a);
}

export function conflicts(a: CallAccess, b: CallAccess): boolean {
  if (a.kind === 'exclusive' || b.kind === 'exclusive') return true;
  if (a.kind === 'read' && b.kind === 'read') return false;
  return a.paths.some((p) => b.paths.some((q) => overlaps(p, q)));
}

/**
 * Runs `run(i)` for every call, each once every earlier call it conflicts with has settled.
 * Resolves when all have settled (run must not reject: tools answer failures as results).
 */
export async function runScheduled(accesses: readonly CallAccess[], run: (index: number) => Promise<void>): Promise<void> {
  const done: Promise<void>[] = [];
  for (let i = 0; i < accesses.length; i++) {
    const before = done.filter((_, j) => conflicts(accesses[j], accesses[i]));
    done.push(Promise.all(before).then(() => run(i)));
  }
  await Promise.all(done);
}
