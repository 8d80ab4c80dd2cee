// The pieces tools describe their calls with (tool.ts's ToolDescriber), and the description of a
// tool that declares none (MCP tools, a caller's own): its name as the title, its key argument.
// Arguments are typed by each tool but come from a model or a session file: every read is checked.
import type { FilesTouched, ToolDescription } from './tool.js';

/** A non-empty string, or undefined. */
export const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** One line, at most `max` characters: titles show in a narrow panel. */
export function oneLine(line: string, max = 80): string {
  const flat = line.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : flat.slice(0, max - 1) + '…';
}

/** The argument that says what a call is about, guessed from common names: a command, a path, a pattern; else the arguments as JSON. */
export function argumentSubject(args: Record<string, unknown>): string {
  for (const k of ['command', 'path', 'pattern', 'glob', 'query', 'url']) {
    const v = args[k];
    if (typeof v === 'string' && v !== '') return k === 'pattern' && typeof args.path === 'string' ? `${v} in ${args.path}` : v;
  }
  const json = JSON.stringify(args);
  return json === '{}' ? '' : json;
}

/** A call of a tool that describes nothing: `SERVER: TOOL` for an MCP tool (SERVER__TOOL), else its name; kind `other`; no locations (its arguments mean what its server says). */
export function describeGeneric(name: string, args: Record<string, unknown>): ToolDescription {
  const sep = name.indexOf('__');
  return { title: sep > 0 ? `${name.slice(0, sep)}: ${name.slice(sep + 2)}` : name, kind: 'other', locations: [], subject: argumentSubject(args) };
}

/** The files of a call that touches its `path` argument (the path the tool reported wins): none when it failed. */
export function pathTouched(how: keyof FilesTouched, path: unknown, result: { isError: boolean; details?: { path?: unknown } } | undefined): FilesTouched {
  if (result?.isError) return {};
  const reported = result?.details?.path;
  return { [how]: [typeof reported === 'string' ? reported : path] };
}
