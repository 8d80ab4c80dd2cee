// The tool set of an agent: the built-in tools (or the caller's own), extra tools, the ones that
// are on (--tools), and in front of them the permission gate and the hooks.
import { createBashTool, type BashSandbox } from '../tools/bash.js';
import { createEditFileTool } from '../tools/edit-file.js';
import { PathQueue } from '../tools/file-io.js';
import { createFindTool } from '../tools/find.js';
import { LeftoverJournal, RunTempDirs, sweepLeftovers } from '../tools/leftovers.js';
import { createGrepTool } from '../tools/grep.js';
import { createListDirTool } from '../tools/list-dir.js';
import { createReadFileTool } from '../tools/read-file.js';
import type { PermissionRule } from '../tools/permissions.js';
import { searchDenyFilters } from '../tools/search-deny.js';
import { ToolRegistry, type PermissionCheck, type RegistryOptions, type ToolHooks } from '../tools/registry.js';
import type { FileAccess, ToolDefinition } from '../tools/tool.js';
import { createWriteFileTool } from '../tools/write-file.js';
import { createWriteNoteTool } from '../tools/write-note.js';
import { UsageError } from '../core/types.js';
import { agentHome } from '../session/paths.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BuiltinToolOptions {
  bash?: { timeoutSeconds: number; maxTimeoutSeconds: number; envAllowlist: readonly string[] };
  /** Variables that hold secrets beyond the usual names (the provider's key variable). */
  secretEnvNames?: readonly string[];
  /** The environment bash commands start from, before the scrub (absent: the process's). */
  env?: NodeJS.ProcessEnv;
  /**
   * The state home whose `tmp-journal/` records the temp files and folders a killed run could
   * leave behind (leftovers.ts): what dead runs left is removed when the tools are made. An agent
   * gives its own; absent, the home `env` names (MINI_AGENT_HOME, else ~/.mini-agent) when `env`
   * is given, and no journal without either.
   */
  home?: string;
  /** Where bash keeps full outputs: the session's own folder (undefined: a private temp folder). */
  outputDir?: () => string | undefined;
  /** The OS sandbox for bash (app/bash-sandbox.ts); absent: none. */
  sandbox?: BashSandbox;
}

/** Every built-in tool. The tools that write files share one queue, so writes to a path never interleave. */
export function builtinTools(opts: BuiltinToolOptions = {}): ToolDefinition[] {
  const home = opts.home ?? (opts.env ? agentHome(opts.env) : undefined);
  const journal = home !== undefined ? new LeftoverJournal(join(home, 'tmp-journal')) : undefined;
  if (journal) sweepLeftovers(journal.dir);
  const queue = new PathQueue(journal);
  const outputs = new RunTempDirs(tmpdir(), journal);
  return [
    createReadFileTool(),
    createListDirTool(),
    createGrepTool(),
    createFindTool(),
    createWriteFileTool({ queue }),
    createEditFileTool({ queue }),
    createWriteNoteTool(undefined, queue),
    createBashTool({
      timeoutSeconds: opts.bash?.timeoutSeconds,
      maxTimeoutSeconds: opts.bash?.maxTimeoutSeconds,
      envAllowlist: opts.bash?.envAllowlist ? [...opts.bash.envAllowlist] : undefined,
      secretEnvNames: opts.secretEnvNames ? [...opts.secretEnvNames] : undefined,
      env: opts.env,
      outputDir: opts.outputDir,
      privateDir: () => outputs.make(),
      trackGitChanges: true,
      sandbox: opts.sandbox,
    }),
  ];
}

export interface ToolOptions extends BuiltinToolOptions {
  /** Replaces the built-in tools. */
  tools?: readonly ToolDefinition[];
  /** Added to the built-in tools (or to `tools`). */
  extraTools?: readonly ToolDefinition[];
  /** Only these tools are on (by name); unknown names are a usage error. */
  enabled?: readonly string[] | null;
  /** The permission gate in front of every call. */
  permission?: PermissionCheck;
  hooks?: readonly ToolHooks[];
  allowedPaths?: readonly string[];
  /** bash may run beside other calls (config bash.parallel). */
  parallelExecute?: boolean;
  readOnlyPaths?: readonly string[];
  /** Tools that come and go (MCP), asked afresh by the registry. */
  dynamicTools?: () => readonly ToolDefinition[];
  /** Names in `enabled` that start with one of these belong to dynamic tools (`server__tool`, `server__*`): not unknown. */
  dynamicPrefixes?: readonly string[];
  resultNote?: RegistryOptions['resultNote'];
  /** Files as a client sees them (an editor's buffers, over ACP): the file tools read and write through it. */
  files?: FileAccess;
  /** The deny rules of the policy: the search tools leave out the paths a read deny rule covers (search-deny.ts). */
  deny?: readonly PermissionRule[];
  /** Whether the model takes images now: read_file answers an image with a text note when not. */
  images?: () => boolean;
}

export function createToolRegistry(opts: ToolOptions): ToolRegistry {
  let tools = [...(opts.tools ?? builtinTools(opts)), ...(opts.extraTools ?? [])];
  if (opts.enabled) {
    const known = new Set(tools.map((t) => t.name));
    const dynamic = opts.dynamicPrefixes ?? [];
    const unknown = opts.enabled.filter((n) => !known.has(n) && !dynamic.some((p) => n.startsWith(p)));
    if (unknown.length > 0) throw new UsageError(`unknown tool${unknown.length > 1 ? 's' : ''} in the tool list: ${unknown.join(', ')} (the tools are ${[...known].join(', ')})`);
    const on = new Set(opts.enabled);
    tools = tools.filter((t) => on.has(t.name));
  }
  return new ToolRegistry(tools, {
    permission: opts.permission,
    hooks: opts.hooks,
    allowedPaths: opts.allowedPaths,
    readOnlyPaths: opts.readOnlyPaths,
    parallelExecute: opts.parallelExecute,
    dynamicTools: opts.dynamicTools,
    resultNote: opts.resultNote,
    files: opts.files,
    ...(opts.images ? { images: opts.images } : {}),
    ...(opts.deny?.length ? { hiddenPaths: searchDenyFilters(opts.deny) } : {}),
  });
}
