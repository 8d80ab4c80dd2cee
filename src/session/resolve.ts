// Resolving what users type: SESSION (a path, a full id, a unique id prefix, or a name) and
// ENTRY (a full id, a unique prefix, or a label). Misses suggest the closest matches.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../core/types.js';
import { listAllSessionFiles, listSessionFiles, mostRecent, summarizeAll, type SessionSummary } from './catalog.js';
import { isContentEntry } from './entries.js';
import { readHeader } from './session-file.js';
import type { SessionStore } from './store.js';
import { allSessionsDir, type SessionPlace } from './paths.js';

/** A SESSION or ENTRY that names nothing, or more than one thing. */
export class ResolveError extends UsageError {
  constructor(
    override readonly kind: 'not_found' | 'ambiguous',
    message: string,
  ) {
    super(message, kind);
  }
}

/** Edit distance, for "did you mean". */
export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

function closest(spec: string, candidates: readonly string[], max = 3): string[] {
  return [...new Set(candidates)]
    .map((c) => ({ c, d: distance(spec.toLowerCase(), c.slice(0, Math.max(spec.length, 1)).toLowerCase()) + (c.toLowerCase().includes(spec.toLowerCase()) ? 0 : 1) }))
    .sort((x, y) => x.d - y.d)
    .slice(0, max)
    .map((x) => x.c);
}

const describe = (s: SessionSummary) => `  ${s.id.slice(0, 8)}  ${s.name ? JSON.stringify(s.name) + '  ' : ''}${s.lastUsed.slice(0, 16).replace('T', ' ')}  ${JSON.stringify((s.firstUserMessage ?? '').slice(0, 50))}`;

/** The session file SESSION names. Searches this workspace first, then every workspace. */
export function resolveSession(spec: string, place: SessionPlace): string {
  if (spec.includes('/') || spec.endsWith('.jsonl')) {
    const file = resolve(spec);
    if (!existsSync(file)) throw new ResolveError('not_found', `session file not found: ${spec}`);
    return file;
  }
  const here = summarizeAll(listSessionFiles(place.sessions));
  const found = match(spec, here);
  if (found) return found;
  const everywhere = summarizeAll(listAllSessionFiles(allSessionsDir(place.home)));
  const anywhere = match(spec, everywhere);
  if (anywhere) return anywhere;
  const near = closest(
    spec,
    everywhere.flatMap((s) => [s.id, ...(s.name ? [s.name] : [])]),
  );
  throw new ResolveError('not_found', `no session matches "${spec}"${near.length ? `; closest: ${near.join(', ')}` : ''} (run "mini-agent sessions --all" to list them)`);
}

function match(spec: string, sessions: SessionSummary[]): string | undefined {
  const exact = sessions.filter((s) => s.id === spec || s.name === spec);
  if (exact.length === 1) return exact[0].file;
  const byPrefix = exact.length > 1 ? exact : sessions.filter((s) => s.id.startsWith(spec));
  if (byPrefix.length === 1) return byPrefix[0].file;
  if (byPrefix.length > 1) {
    throw new ResolveError('ambiguous', `"${spec}" matches ${byPrefix.length} sessions; give more of the id:\n${byPrefix.slice(0, 10).map(describe).join('\n')}`);
  }
  return undefined;
}

/** The most recently used (last written) session of this workspace. */
export function continueSession(place: SessionPlace): string {
  // Files without a readable session header (left empty by a crash, or not sessions) are skipped.
  const file = mostRecent(listSessionFiles(place.sessions).filter((f) => readHeader(f)?.type === 'session'));
  if (!file) throw new ResolveError('not_found', `no session to continue in this workspace (${place.cwd}); start one without -c`);
  return file;
}

/** The entry ENTRY names in `store`: a full id, a unique id prefix, or a label. */
export function resolveEntry(store: SessionStore, spec: string): string {
  const e = store.get(spec);
  if (e) {
    if (!isContentEntry(e)) throw new UsageError(`entry ${spec} is a ${e.type} entry; name a message or compaction`);
    return spec;
  }
  const labelled = [...store.labels()].filter(([, label]) => label === spec).map(([id]) => id);
  if (labelled.length === 1) return labelled[0];
  if (labelled.length > 1) {
    throw new ResolveError('ambiguous', `"${spec}" is the label of ${labelled.length} entries of session ${store.id}: ${labelled.slice(0, 10).join(', ')}; give an id`);
  }
  const ids = store
    .entries()
    .filter(isContentEntry)
    .map((x) => x.id);
  const byPrefix = ids.filter((id) => id.startsWith(spec));
  if (byPrefix.length === 1) return byPrefix[0];
  if (byPrefix.length > 1) {
    throw new ResolveError('ambiguous', `"${spec}" matches ${byPrefix.length} entries of session ${store.id}: ${byPrefix.slice(0, 10).join(', ')}; give more of the id`);
  }
  const near = closest(spec, [...ids, ...store.labels().values()]);
  throw new ResolveError('not_found', `entry "${spec}" is not in session ${store.id}${near.length ? `; closest: ${near.join(', ')}` : ''}`);
}
