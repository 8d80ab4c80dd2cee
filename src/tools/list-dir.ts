// list_dir: lists a folder of the workspace, one entry per line, down to a given depth: folders
// end with '/', a symbolic link shows where it points (and is never followed), every path is
// relative to the workspace root, and the order is byte order of the paths (so a folder comes
// right before its contents). Skips .git and what .gitignore ignores, and says how many
// entries that hid; caps the listing with a notice giving the total.
import { readlinkSync } from 'node:fs';
import { Type } from '../core/type-builders.js';
import type { Static } from 'typebox';
import { CappedLines } from './capped-lines.js';
import { ToolError, type ToolDefinition, type ToolDescriber } from './tool.js';
import { argumentSubject, nonEmpty } from './tool-describe.js';
import { DEFAULT_LIMITS, type TruncateLimits } from './truncate.js';
import { hiddenNote } from './search-deny.js';
import { newWalkStats, openSearchRoot, Pacer, plural, walkTree, type WalkEntry } from './walk.js';
import { resolveForRead } from './workspace.js';

export const LIST_MAX_DEPTH = 5;
/** The most entries one listing shows (the byte and line caps may stop it earlier). */
export const LIST_MAX_ENTRIES = 1000;

const Params = Type.Object(
  {
    path: Type.Optional(Type.String({ description: 'Default "."' })),
    depth: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX_DEPTH, description: "Levels to list (default 1: the folder's own entries)" })),
  },
  { additionalProperties: false },
);

type Args = Static<typeof Params>;

export interface ListDirToolOptions {
  /** The byte and line caps of one result (default DEFAULT_LIMITS). */
  limits?: TruncateLimits;
  /** The most entries shown (default LIST_MAX_ENTRIES). */
  maxEntries?: number;
}

/** A list_dir call: the folder listed (the workspace by default). */
export const listDirDescriber: ToolDescriber<Args> = {
  describe: (a) => ({ title: `List ${nonEmpty(a.path) ?? '.'}`, kind: 'read', locations: [{ path: nonEmpty(a.path) ?? '.' }], subject: nonEmpty(a.path) ?? argumentSubject(a) }),
};

export function createListDirTool(opts: ListDirToolOptions = {}): ToolDefinition<Args> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const maxEntries = opts.maxEntries ?? LIST_MAX_ENTRIES;
  return {
    name: 'list_dir',
    ...listDirDescriber,
    description:
      'List a folder: one path per line from the workspace root, sorted; folders end with "/", symbolic links show "link -> target" (not followed). ' +
      `Skips .gitignored entries and .git. At most ${maxEntries} entries; a last line says how many were left out.`,
    parameters: Params,
    risk: 'read',
    selfTruncating: true,
    paths: (args, ctx) => [resolveForRead(ctx, args.path ?? '.')],
    async execute(args, ctx) {
      const depth = args.depth ?? 1;
      const root = openSearchRoot(ctx, args.path);
      if (!root.isDir) throw new ToolError(`${root.shown} is not a folder${root.isFile ? '; read it with read_file' : ''}`);
      const stats = newWalkStats();
      const pacer = new Pacer(ctx.signal);
      const out = new CappedLines(maxEntries, limits);
      let total = 0;
      for (const e of walkTree(ctx, root, { signal: ctx.signal, maxDepth: depth }, stats)) {
        if (pacer.due()) await pacer.pause();
        total++;
        if (!out.full) out.add(entryLine(e));
      }
      const lines = out.lines;
      const notes: string[] = [];
      if (total > lines.length) {
        const why = out.why(`${maxEntries} entries`);
        const smaller = depth > 1 ? ', or a smaller depth' : '';
        notes.push(`[Showing ${lines.length} of ${total} entries (depth ${depth}); ${total - lines.length} more not shown, stopped at ${why}. ` + `List a subfolder${smaller}, or use find with a glob.]`);
      }
      if (stats.ignored > 0) {
        const more = stats.ignored - stats.ignoredSamples.length;
        notes.push(`[Not listed, ignored by .gitignore: ${stats.ignoredSamples.join(', ')}${more > 0 ? ` and ${more} more` : ''}.]`);
      }
      if (stats.unreadable > 0) notes.push(`[${plural(stats.unreadable, 'folder')} could not be read.]`);
      if (stats.hidden > 0) notes.push(hiddenNote(stats.hidden));
      const body = total === 0 ? `(${root.shown} is empty${stats.ignored > 0 ? ' apart from ignored entries' : ''})` : lines.join('\n');
      return {
        content: [body, ...notes].join('\n\n'),
        details: { path: root.shown, depth, entries: total, shown: lines.length, ignored: stats.ignored, hidden: stats.hidden, truncated: total > lines.length },
      };
    },
  };
}

function entryLine(e: WalkEntry): string {
  if (e.kind === 'dir') return e.shown + '/';
  if (e.kind === 'symlink') {
    let target: string;
    try {
      target = readlinkSync(e.abs);
    } catch {
      target = '(unreadable link)';
    }
    return `${e.shown} -> ${target}`;
  }
  return e.kind === 'other' ? `${e.shown} (special file)` : e.shown;
}
