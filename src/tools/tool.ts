// What a tool is. Tools run only through the ToolRegistry.
import type { ImageContent, TextContent } from '../core/types.js';

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
  /**
   * Set when a client (an editor over ACP) holds the files: the file tools read and write its
   * buffers through it instead of the disk, after the workspace boundary has resolved the path.
   */
  files?: FileAccess;
  /**
   * Paths the search tools (list_dir, grep, find) leave out and count, as shown (workspace-relative,
   * '/'-separated; absolute outside the workspace): those a read deny rule covers (search-deny.ts).
   * A folder it covers is left out with everything in it.
   */
  hidden?: (path: string) => boolean;
  /**
   * Whether the model takes images: false, read_file answers an image file with a text note
   * saying what it is instead of the image. Absent: images are returned.
   */
  images?: boolean;
  /** A long-running tool's latest output so far (bash: its last lines), for a live view; absent: nobody watches. */
  onOutput?: (tail: string) => void;
  /**
   * Called by a tool that changes files, before it changes `path` (the real path the workspace
   * boundary resolved), inside its path queue: the file's state is kept so that the session can
   * show and undo the change (issue 26). Absent: nobody keeps checkpoints (no session file, or the
   * files are a client's). Never throws.
   */
  checkpoint?: (path: string) => Promise<void>;
}

/**
 * Files as a client sees them (ACP's fs/read_text_file and fs/write_text_file): unsaved editor
 * buffers included. Paths are absolute: the real paths the workspace boundary resolved. A file
 * the client cannot read (missing, refused) is a rejected promise, whose message is shown.
 */
export interface FileAccess {
  /** The whole text, or `limit` lines from 1-based `line`; the file tools always ask for the whole text. */
  readTextFile(path: string, opts?: { line?: number; limit?: number }): Promise<string>;
  /** Replaces the file's whole text (the client creates the file if needed). */
  writeTextFile(path: string, content: string): Promise<void>;
}

export interface ToolOutput<Details extends object = Record<string, unknown>> {
  content: string | (TextContent | ImageContent)[];
  isError?: boolean;
  details?: Details;
}

/** The sort of work a call does, in ACP's words (an editor's icon and grouping). */
export type ToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'other';

/** A file or folder a call touches, as its arguments name it: workspace-relative or absolute; `.` is the workspace. */
export interface ToolLocation {
  path: string;
  /** 1-based, when the call starts at a line. */
  line?: number;
}

/** What a call is, for the front ends (ACP's tool calls, the interactive mode's tool lines): declared by its tool. */
export interface ToolDescription {
  /** A short human title, e.g. "Read src/a.ts", "Run `npm test`", "everything: echo". */
  title: string;
  kind: ToolKind;
  locations: ToolLocation[];
  /** What the call is about, for a one-line display: a path, a command; '' for nothing. */
  subject: string;
  /** The one file the call rewrites (its diff is shown), with its whole new text when the arguments hold it. */
  rewrites?: { path: string; newText?: string };
}

/** The files a finished call read or modified (workspace-relative or absolute), for compaction's file lists. */
export interface FilesTouched {
  read?: readonly unknown[];
  modified?: readonly unknown[];
}

/** How a call's tool describes it: built-in tools declare both, typed by their arguments and details. */
// biome-ignore lint/suspicious/noExplicitAny: a list of tools holds each with its own arguments (variance)
export interface ToolDescriber<Args = any, Details extends object = Record<string, unknown>> {
  describe(args: Args): ToolDescription;
  /** The files a call touched; `result` is undefined for a call without a result. Absent: none. */
  files?(args: Args, result: { isError: boolean; details?: Details } | undefined): FilesTouched;
}

// biome-ignore lint/suspicious/noExplicitAny: as above
export interface ToolDefinition<Args = any, Details extends object = Record<string, unknown>> extends Partial<ToolDescriber<Args, Details>> {
  name: string;
  description: string;
  /** JSON Schema of the arguments (written with TypeBox); validated before execute is called. */
  parameters: object;
  risk: ToolRisk;
  /**
   * Where `risk` came from, for tools whose risk is not their own (MCP tools; built-in tools leave
   * it unset): the server's annotations (readOnlyHint, destructiveHint), the user's per-tool
   * setting, or the user's per-server risk, which only sets a default. See runsReadOnly.
   */
  riskBasis?: RiskBasis;
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
  execute(args: Args, ctx: ToolContext): Promise<ToolOutput<Details>>;
}

export type RiskBasis = 'annotation' | 'tool-setting' | 'server-default';

/**
 * Whether a tool may run under --read-only (and the read-only mode): a read tool, unless it is
 * read only by a server-wide default. A server the user marked "read" may still have write tools;
 * only the tool itself (its annotations) or the user's word for that tool makes it read-only.
 */
export function runsReadOnly(tool: Pick<ToolDefinition, 'risk' | 'riskBasis'>): boolean {
  return tool.risk === 'read' && tool.riskBasis !== 'server-default';
}

/** What a tool that may not run read-only does, for the refusal: "changes files", "runs commands", … */
export function readOnlyRefusal(tool: Pick<ToolDefinition, 'risk' | 'riskBasis'>): string {
  if (tool.risk === 'read') return "is read-only only by its MCP server's default risk, not by its annotations or a per-tool setting";
  const what = tool.risk === 'write' ? 'changes files' : 'runs commands';
  return tool.riskBasis === 'annotation' ? `${what} (its MCP annotations do not say read-only)` : what;
}

/** What a tool call turns into, always: success or an error the model can read. */
export interface ToolResult {
  content: (TextContent | ImageContent)[];
  isError: boolean;
  details?: Record<string, unknown>;
}

/** Thrown by tools for an expected failure; the message goes to the model as is. */
export class ToolError extends Error {
  override name = 'ToolError';
}
