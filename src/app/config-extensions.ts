// The extensions' settings: MCP servers (`mcpServers` in either config file, and `--mcp-config
// FILE`) and context files (`contextFiles`, `--no-context-files`). Servers keep where they were
// configured: the workspace's own ones start only in a trusted workspace. A server named in a
// later layer (user, then project, then --mcp-config) replaces one of the same name.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { flagSource } from '../core/config-table.js';
import { isPlainObject, UsageError } from '../core/types.js';
import { mergeMcpServers, parseMcpServers, type McpServerSpec } from '../extensions/mcp-config.js';

export interface ExtensionSettings {
  mcpServers: McpServerSpec[];
  /** AGENTS.md / CLAUDE.md in the system prompt (off: --no-context-files), and the cap on their total size. */
  contextFiles: { enabled: boolean; maxBytes: number };
}

export interface ExtensionInputs {
  cwd: string;
  /** For ${VAR} in the servers' settings. */
  env: NodeJS.ProcessEnv;
  /** The home folder: the user config's servers' relative paths start there. */
  home: string;
  user?: { file: string; data: { mcpServers?: unknown } };
  project?: { file: string; data: { mcpServers?: unknown } };
  /** --mcp-config FILE (repeatable). */
  mcpConfig?: readonly string[];
  /** Servers given in code (the SDK's `mcpServers`, an editor's over ACP), in the config's shape. */
  mcpServers?: Record<string, unknown>;
  /** false: --no-context-files. */
  contextFiles?: boolean;
  /** The merged `contextFiles` of the layers (the table's defaults, then the config files). */
  merged: unknown;
}

export function extensionSettings(inputs: ExtensionInputs, sources: Record<string, string>): ExtensionSettings {
  const { cwd, env, home } = inputs;
  const layers: McpServerSpec[][] = [];
  if (inputs.user?.data.mcpServers !== undefined) {
    layers.push(parseMcpServers(inputs.user.data.mcpServers, { source: `user config ${inputs.user.file}`, scope: 'user', env, baseDir: home }));
  }
  if (inputs.project?.data.mcpServers !== undefined) {
    layers.push(parseMcpServers(inputs.project.data.mcpServers, { source: `project config ${inputs.project.file}`, scope: 'project', env, baseDir: cwd }));
  }
  for (const file of inputs.mcpConfig ?? []) {
    const path = resolve(cwd, file);
    layers.push(parseMcpServers(readMcpConfigFile(path), { source: `--mcp-config ${path}`, scope: 'flag', env, baseDir: dirname(path) }));
  }
  if (inputs.mcpServers !== undefined) {
    layers.push(parseMcpServers(inputs.mcpServers, { source: 'the mcpServers option', scope: 'flag', env, baseDir: cwd }));
  }
  // contextFiles follows the usual precedence: `merged` is the layers already merged, the table's
  // defaults first (mergeLayers in config.ts, with each value's source), and the flag comes on top.
  const files = inputs.merged as { enabled: boolean; maxBytes: number };
  const enabled = inputs.contextFiles === false ? false : files.enabled;
  if (inputs.contextFiles === false) sources['contextFiles.enabled'] = flagSource('contextFiles.enabled');
  const maxBytes = files.maxBytes;
  return { mcpServers: mergeMcpServers(layers), contextFiles: { enabled, maxBytes } };
}

/** A `--mcp-config` file: `{"mcpServers": {...}}`, the block other agents use. */
function readMcpConfigFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --mcp-config ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--mcp-config ${file}: not valid JSON (${(err as Error).message})`);
  }
  if (!isPlainObject(data) || !isPlainObject(data.mcpServers)) throw new UsageError(`--mcp-config ${file}: must be {"mcpServers": {"NAME": {...}}}`);
  return data.mcpServers;
}
