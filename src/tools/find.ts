// find: lists the files and folders of the workspace whose path matches a glob, in byte order
// of their paths (folders end with '/'). The glob is matched against the path as shown (relative
// to the workspace root); one without '/' is matched against the name alone. A glob ending with
// '/' matches folders only. Skips .git and what .gitignore ignores, never follows a symbolic
// link (a link is listed as an entry of its own), and caps the list with a notice giving the total.
import { Type } from '../core/type-builders.js';
import type { Static } from 'typebox';
import { CappedLines } from './capped-lines.js';
import { ToolError, type ToolDefinition, type ToolDescriber } from './tool.js';
import { argumentSubject, nonEmpty, oneLine } from './tool-describe.js';
import { DEFAULT_LIMITS, type TruncateLimits } from './truncate.js';
import { hiddenNote } from './search-deny.js';
import { globMatcher, newWalkStats, openSearchRoot, Pacer, plural, walkTree } from './walk.js';
import { resolveForRead } from './workspace.js';

export const FIND_DEFAULT_LIMIT = 200;
export const FIND_MAX_LIMIT = 2000;

const Params = Type.Object(
  {
    glob: Type.String({
      minLength: 1,
      description: '"*.ts" (no "/": the name, at any depth), "src/**/*.test.ts" (the path), "**/fixtures/" (final "/": folders only)',
    }),
    path: Type.Optional(Type.String({ description: 'Folder to search (default ".")' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FIND_MAX_LIMIT, description: `Most paths (default ${FIND_DEFAULT_LIMIT})` })),
  },
  { additionalProperties: false },
);

type Args = Static<typeof Params>;

export interface FindToolOptions {
  /** The byte and line caps of one result (default DEFAULT_LIMITS). */
  limits?: TruncateLimits;
}

/** A find call: the glob, and the folder searched (the workspace by default). */
export const findDescriber: ToolDescriber<Args> = {
  describe: (a) => ({ title: oneLine(`Find ${nonEmpty(a.glob) ?? 'files'}${nonEmpty(a.path) ? ` in ${a.path}` : ''}`), kind: 'search', locations: [{ path: nonEmpty(a.path) ?? '.' }], subject: nonEmpty(a.path) ?? argumentSubject(a) }),
};

export function createFindTool(opts: FindToolOptions = {}): ToolDefinition<Args> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  return {
    name: 'find',
    ...findDescriber,
    description:
      'Find files and folders by a glob over their paths from the workspace root. One path per line, sorted; folders end with "/". ' + 'Skips .gitignored entries and .git. At most limit paths; a last line says how many were left out.',
    parameters: Params,
    risk: 'read',
    selfTruncating: true,
    paths: (args, ctx) => [resolveForRead(ctx, args.path ?? '.')],
    async execute(args, ctx) {
      const foldersOnly = /[^/]\/+$/.test(args.glob);
      const matches = globMatcher(foldersOnly ? args.glob.replace(/\/+$/, '') : args.glob);
      const root = openSearchRoot(ctx, args.path);
      if (!root.isDir) throw new ToolError(`${root.shown} is not a folder; give the folder to search in as path`);
      const limit = args.limit ?? FIND_DEFAULT_LIMIT;
      const stats = newWalkStats();
      const pacer = new Pacer(ctx.signal);
      const out = new CappedLines(limit, limits);
      let total = 0;
      let seen = 0;
      for (const e of walkTree(ctx, root, { signal: ctx.signal }, stats)) {
        if (pacer.due()) await pacer.pause();
        seen++;
        if (foldersOnly && e.kind !== 'dir') continue;
        if (!matches(e.shown, e.name)) continue;
        total++;
        out.add(e.kind === 'dir' ? e.shown + '/' : e.shown);
      }
      const lines = out.lines;
      const notes: string[] = [];
      if (total > lines.length) {
        const why = out.why(`limit ${limit}`);
        const raise = out.full === 'limit' && limit < FIND_MAX_LIMIT ? `, or raise limit (at most ${FIND_MAX_LIMIT})` : '';
        notes.push(`[Showing ${lines.length} of ${total} matching paths; ${total - lines.length} more not shown, stopped at ${why}. ` + `Narrow the search with a more specific glob (e.g. "src/**/*.ts") or a path${raise}.]`);
      }
      if (stats.unreadable > 0) notes.push(`[${plural(stats.unreadable, 'folder')} could not be read.]`);
      if (stats.hidden > 0) notes.push(hiddenNote(stats.hidden));
      if (stats.rootIgnored) notes.push(`[${root.shown} is ignored by a .gitignore above it; it was searched anyway, with only the .gitignore files inside it.]`);
      const ignored = stats.ignored > 0 ? `; ${stats.ignored} ignored by .gitignore not searched` : '';
      const body = total === 0 ? `No ${foldersOnly ? 'folders' : 'paths'} match ${JSON.stringify(args.glob)} in ${root.shown} (${plural(seen, 'entry', 'entries')} looked at${ignored}).` : lines.join('\n');
      return {
        content: [body, ...notes].join('\n\n'),
        details: { matches: total, shown: lines.length, entriesSeen: seen, ignored: stats.ignored, hidden: stats.hidden, truncated: total > lines.length },
      };
    },
  };
}
