// Which paths the search tools (grep, find, list_dir) leave out: those a read deny rule covers.
// A deny rule covers a path for a search tool when it would refuse `read_file` of that path, or
// the search tool itself on that path: its tool is `read_file`, the search tool's own name, or a
// glob matching either (`*`, `read_*`), and its PATTERN matches the path as the policy sees it
// (workspace-relative, absolute outside the workspace; picomatch, dotfiles included, as in
// permissions.ts). A rule without a pattern covers every path. So `deny: ["*(secrets/**)"]` or
// `deny: ["read_file(.env*)"]` keeps those files' names and contents out of every search, not only
// out of read_file; `deny: ["grep(vendor/**)"]` leaves vendor/ out of grep alone. The tools learn
// it through ToolContext.hidden, set by the registry (RegistryOptions.hiddenPaths); the app builds
// it from the effective config's deny rules. Pure: nothing here reads the disk or the config.
import picomatch from 'picomatch';
import type { PermissionRule } from './permissions.js';
import { plural } from './walk.js';

/** Whether a search leaves out a path (as shown: workspace-relative, '/'-separated; absolute outside the workspace). */
export type HiddenPath = (path: string) => boolean;

/** The test of the paths that `deny` hides from `tool`; undefined when no rule can hide anything from it. */
export function searchDenyFilter(deny: readonly PermissionRule[], tool: string): HiddenPath | undefined {
  const rules = deny.filter((r) => toolMatches(r.tool, 'read_file') || toolMatches(r.tool, tool));
  if (rules.length === 0) return undefined;
  if (rules.some((r) => r.pattern === undefined)) return () => true;
  const tests = rules.map((r) => picomatch(r.pattern!, { dot: true }));
  return (path) => tests.some((t) => t(path));
}

/**
 * The per-tool filters of a set of deny rules, each compiled once, for RegistryOptions.hiddenPaths.
 * (The cache belongs to the one function returned: no state shared between registries.)
 */
export function searchDenyFilters(deny: readonly PermissionRule[]): (tool: string) => HiddenPath | undefined {
  const byTool = new Map<string, HiddenPath | undefined>();
  return (tool) => {
    if (!byTool.has(tool)) byTool.set(tool, searchDenyFilter(deny, tool));
    return byTool.get(tool);
  };
}

/** The notice of a search that left paths out, without naming them: "[3 paths left out by deny rules (permissions.deny).]". */
export function hiddenNote(count: number): string {
  return `[${plural(count, 'path')} left out by deny rules (permissions.deny).]`;
}

/** As permissions.ts decides: the tool's name, or a glob over tool names. */
function toolMatches(glob: string, tool: string): boolean {
  return glob === tool || (/[*?]/.test(glob) && picomatch(glob)(tool));
}
