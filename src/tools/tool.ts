// What a tool is. Tools run only through the ToolRegistry.
import type { TextContent } from '../core/types.js';

/** What running a tool may do: read only, change files, or run arbitrary commands. */
export type ToolRisk = 'read' | 'write' | 'execute';

export interface ToolContext {
  /** The workspace root; tools must not reach outside it (see workspace.ts). */
  cwd: string;
  /** Folders outside the workspace that the user allowed (`--allow-path DIR`). */
  allowedPaths?: readonly string[];
  /** Folders outside the workspace that may be read, never written (the user's skills). */
  readOnlyPaths?: readonly string[];
  /** Aborted when the user stops the run; long work must watch it. */
  signal: AbortSignal;
  toolCallId: string;
}

export interface ToolOutput {
  content: string | TextContent[];
  isError?: boolean;
  details?: Record<string, unknown>;
}

export interface ToolDefinition<Args = any> {
  name: string;
  description: string;
  /** JSON Schema of the arguments (written with TypeBox); validated before execute is called. */
  parameters: object;
  risk: ToolRisk;
  /** Where the tool comes from when it is not built in, e.g. `mcp:SERVER` (the system prompt lists such tools by source). */
  source?: string;
  /**
   * The real paths a call reads or changes (resolved through the workspace boundary; may throw
   * a ToolError for a path outside it), for the loop's scheduler: a call that changes a path
   * waits for earlier calls on that path, and calls on other paths run meanwhile. Absent: a read
   * tool is taken to read the workspace root, a write tool to change it.
   */
  paths?(args: Args, ctx: { cwd: string; allowedPaths?: readonly string[]; readOnlyPaths?: readonly string[] }): string[];
  /** Truncates its own output (with a continuation hint), so the registry leaves it alone below the hard cap. */
  selfTruncating?: boolean;
  execute(args: Args, ctx: ToolContext): Promise<ToolOutput>;
}

/** What a tool call turns into, always: success or an error the model can read. */
export interface ToolResult {
  content: TextContent[];
  isError: boolean;
  details?: Record<string, unknown>;
}

/** Thrown by tools for an expected failure; the message goes to the model as is. */
export class ToolError extends Error {
  override name = 'ToolError';
}
