// What a tool call is, by the tool's own declaration (its ToolDescriber), for whoever has only the
// call's name and arguments: an event, a session file. An agent describes calls by its own tools
// first (toolDescriptions: a caller's tool that declares `describe`); the built-in tools are known
// by name whether or not they are on (a session replayed with --tools still shows its calls the
// same); any other tool (MCP, a caller's own that declares nothing) is described generically.
import { bashDescriber } from './bash.js';
import { editFileDescriber } from './edit-file.js';
import { findDescriber } from './find.js';
import { grepDescriber } from './grep.js';
import { listDirDescriber } from './list-dir.js';
import { readFileDescriber } from './read-file.js';
import type { FilesTouched, ToolDescriber, ToolDescription } from './tool.js';
import { describeGeneric } from './tool-describe.js';
import { writeFileDescriber } from './write-file.js';
import { writeNoteDescriber } from './write-note.js';

/** The built-in tools' describers, by tool name (test/tool-descriptions.test.ts holds it equal to the tools themselves). */
export const BUILTIN_DESCRIBERS: Readonly<Record<string, ToolDescriber>> = {
  read_file: readFileDescriber,
  list_dir: listDirDescriber,
  grep: grepDescriber,
  find: findDescriber,
  write_file: writeFileDescriber,
  edit_file: editFileDescriber,
  write_note: writeNoteDescriber,
  bash: bashDescriber,
};

const describerOf = (name: string): ToolDescriber | undefined => (Object.hasOwn(BUILTIN_DESCRIBERS, name) ? BUILTIN_DESCRIBERS[name] : undefined);

/** How a call is described: its title, kind, locations, subject and the file it rewrites. */
export type DescribeCall = (name: string, args: Record<string, unknown>) => ToolDescription;

/** How calls are described and which files they touched, for one set of tools. */
export interface ToolDescriptions {
  describe: DescribeCall;
  files(name: string, args: Record<string, unknown>, result: { isError: boolean; details?: Record<string, unknown> } | undefined): FilesTouched;
}

/**
 * Descriptions by the tools at hand: `toolNamed` finds a tool (an agent's registry), and a tool's
 * own `describe` and `files` come first (a caller's tool, an MCP tool), then the built-in tool of
 * that name (a session replayed with fewer tools), then the generic description.
 */
export function toolDescriptions(toolNamed: (name: string) => Partial<ToolDescriber> | undefined): ToolDescriptions {
  return {
    describe: (name, args) => toolNamed(name)?.describe?.(args) ?? describeToolCall(name, args),
    files: (name, args, result) => toolNamed(name)?.files?.(args, result) ?? filesTouched(name, args, result),
  };
}

/** A call as its tool describes it, the built-in tools known by name, any other described generically. */
export function describeToolCall(name: string, args: Record<string, unknown>): ToolDescription {
  return describerOf(name)?.describe(args) ?? describeGeneric(name, args);
}

/** The files a call read or modified, as its tool declares them (none for a tool that declares nothing). */
export function filesTouched(name: string, args: Record<string, unknown>, result: { isError: boolean; details?: Record<string, unknown> } | undefined): FilesTouched {
  return describerOf(name)?.files?.(args, result) ?? {};
}
