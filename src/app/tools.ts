// The tool set of an agent: the built-in tools (or the caller's own), extra tools, and the
// permission policy (read-only, and the caller's hook) in front of them.
import { ToolRegistry, type PermissionCheck } from '../tools/registry.js';
import { createReadFileTool } from '../tools/read-file.js';
import type { ToolDefinition } from '../tools/tool.js';
import { createWriteNoteTool } from '../tools/write-note.js';

export interface ToolOptions {
  /** Replaces the built-in tools. */
  tools?: readonly ToolDefinition[];
  /** Added to the built-in tools (or to `tools`). */
  extraTools?: readonly ToolDefinition[];
  /** Deny every tool that is not read-only. */
  readOnly?: boolean;
  /** Asked before every tool call that the read-only policy allows. */
  permission?: PermissionCheck;
}

export function builtinTools(): ToolDefinition[] {
  return [createReadFileTool(), createWriteNoteTool()];
}

export function createToolRegistry(opts: ToolOptions): ToolRegistry {
  const hook = opts.permission;
  const permission: PermissionCheck | undefined =
    opts.readOnly || hook
      ? (call, tool) => {
          if (opts.readOnly && tool.risk !== 'read') return { allow: false, reason: 'mini-agent runs read-only; this tool changes files' };
          return hook ? hook(call, tool) : { allow: true };
        }
      : undefined;
  return new ToolRegistry([...(opts.tools ?? builtinTools()), ...(opts.extraTools ?? [])], { permission });
}
