// edit_file: replaces text in an existing text file inside the workspace. Inside the path's queue
// slot (shared with every tool that writes files) the file is read afresh, every edit is located in
// that original content (edit-match.ts), and the new file is the old file's bytes with only the
// matched spans replaced (so its byte order mark, line endings and every other byte stay), written
// atomically with the file's mode. All edits land together or none does. The result is a compact
// diff (diff.ts); a failed edit explains itself (the closest region, line-number prefixes).
// With a client file access (an editor over ACP), the text is the client's buffer, edited the same
// way (only the matched spans change) and written back through the client, in the same queue slot.
import { isUtf8 } from 'node:buffer';
import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { Type } from '../core/type-builders.js';
import type { Static } from 'typebox';
import { spanDiff } from './diff.js';
import { closestRegion, hasLineNumberPrefixes, lineNumbers, locateEdits, stripLineNumberPrefixes, type Edit, type EditProblem, type Replacement, type Tolerance } from './edit-match.js';
import { atomicWrite, clientRead, clientWrite, PathQueue } from './file-io.js';
import type { LeftoverJournal } from './leftovers.js';
import { ToolError, type FileAccess, type ToolDefinition, type ToolDescriber } from './tool.js';
import { argumentSubject, nonEmpty, pathTouched } from './tool-describe.js';
import { formatBytes } from './truncate.js';
import { displayPath, resolveForWrite } from './workspace.js';

const EditSchema = Type.Object(
  {
    oldText: Type.String({ description: 'Exact text from the file, unique in it' }),
    newText: Type.String({ description: 'Replacement' }),
  },
  { additionalProperties: false },
);
const EditList = Type.Array(EditSchema, { minItems: 1 });

const Params = Type.Object(
  {
    path: Type.String(),
    edits: Type.Union([EditList, Type.String({ description: 'The array as JSON' })], {
      description: 'Array of {oldText, newText}, even for one edit',
    }),
    replaceAll: Type.Optional(Type.Boolean({ description: 'Replace every occurrence of each oldText (default: it must occur once)' })),
  },
  { additionalProperties: false },
);

type Args = Static<typeof Params>;

export const MAX_EDIT_BYTES = 20 * 1024 * 1024;

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/** The file as text: its content after the byte order mark (`bom` bytes long), and its encoding. */
interface TextFile {
  text: string;
  bom: number;
  encoding: Encoding;
}

/** The file to edit, from the disk or from the client: its text, and how to write an edited version back. */
interface Target {
  file: TextFile;
  /** The write of the content with `replacements` applied; undefined when that content is the old one. */
  apply(replacements: readonly Replacement[]): (() => Promise<void>) | undefined;
}

/** The `details` of an edit_file result. `tolerant`: the edits matched other than exactly (1-based), null when none. */
export type EditFileDetails = {
  path: string;
  edits: number;
  replacements: number;
  tolerant: { edit: number; kind: string }[] | null;
  firstChangedLine: number;
  linesAdded: number;
  linesRemoved: number;
  via?: 'client';
};

/** An edit_file call: the file it rewrites (its result holds the diff). */
export const editFileDescriber: ToolDescriber<Args, EditFileDetails> = {
  describe: (a) => ({
    title: `Edit ${nonEmpty(a.path) ?? 'a file'}`,
    kind: 'edit',
    locations: nonEmpty(a.path) ? [{ path: a.path }] : [],
    subject: nonEmpty(a.path) ?? argumentSubject(a),
    ...(typeof a.path === 'string' ? { rewrites: { path: a.path } } : {}),
  }),
  files: (a, result) => pathTouched('modified', a.path, result),
};

/** `queue`: the per-path queue shared by every tool that writes files; `maxBytes`: the largest file edited. */
export function createEditFileTool(opts: { queue?: PathQueue; maxBytes?: number } = {}): ToolDefinition<Args, EditFileDetails> {
  const queue = opts.queue ?? new PathQueue();
  const maxBytes = opts.maxBytes ?? MAX_EDIT_BYTES;
  return {
    name: 'edit_file',
    ...editFileDescriber,
    description:
      'Replace text in an existing file. Each oldText must be copied exactly from the file, whitespace and indentation included ' +
      '(read_file shows no line numbers; never add any), and occur exactly once: include surrounding lines to single it out, or set replaceAll. ' +
      'Edits are located in the original file, must not overlap, and apply all or none. Line endings and BOM are kept. ' +
      'Without an exact match, a match ignoring whitespace or quote/dash styles is tried and reported. Returns a diff.',
    parameters: Params,
    risk: 'write',
    paths: (args, ctx) => [resolveForWrite(ctx, args.path)],
    async execute(args, ctx) {
      const edits = await parseEdits(args.edits);
      const target = resolveForWrite(ctx, args.path);
      const shown = displayPath(ctx, target);
      return queue.run(target, async () => {
        if (ctx.signal.aborted) throw new ToolError(`aborted before editing; ${shown} was not changed`);
        await ctx.checkpoint?.(target);
        const source = ctx.files ? await fromClient(ctx.files, target, shown, maxBytes) : await fromDisk(target, shown, maxBytes, queue.journal);
        const { file } = source;
        const replaceAll = args.replaceAll ?? false;
        const located = locateEdits(file.text, edits, replaceAll);
        if (!located.ok) throw new ToolError(failureText(located.problems, edits, file.text, shown, replaceAll));
        const write = source.apply(located.replacements);
        if (!write) throw new ToolError(`the edits would leave ${shown} exactly as it is; nothing was written`);
        const diff = spanDiff(file.text, located.replacements);
        if (ctx.signal.aborted) throw new ToolError(`aborted before writing; ${shown} was not changed`);
        await write();
        const count = located.replacements.length;
        const summary =
          `Edited ${shown}${ctx.files ? ' through the client' : ''}: ${count} ${count === 1 ? 'replacement' : 'replacements'}` +
          `${edits.length > 1 ? ` from ${edits.length} edits` : ''}, +${diff.added} -${diff.removed} lines, first change at line ${diff.firstChangedLine}.`;
        const notes = located.tolerant.map((t) => toleranceNote(t.edit, t.kind, edits.length));
        return {
          content: [summary, ...notes].join('\n') + (diff.text ? `\n\n${diff.text}` : ''),
          details: {
            path: shown,
            edits: edits.length,
            replacements: count,
            tolerant: located.tolerant.length ? located.tolerant.map((t) => ({ edit: t.edit + 1, kind: t.kind })) : null,
            firstChangedLine: diff.firstChangedLine,
            linesAdded: diff.added,
            linesRemoved: diff.removed,
            ...(ctx.files ? { via: 'client' as const } : {}),
          },
        };
      });
    },
  };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The edits as an array: given as one, or as the JSON-encoded array. */
async function parseEdits(value: Edit[] | string): Promise<Edit[]> {
  let edits: unknown = value;
  if (typeof value === 'string') {
    const shape = 'Pass the array itself: "edits": [{"oldText": "…", "newText": "…"}].';
    try {
      edits = JSON.parse(value);
    } catch (err) {
      throw new ToolError(`edits is a string, so it must be the JSON-encoded array of {oldText, newText} objects, but it is not valid JSON (${(err as Error).message}). ${shape}`);
    }
    // The compiler loads only on this rare path (issue 14: nothing heavy at start-up).
    const checkEditList = (await import('./schema-validator.js')).compileValidator(EditList);
    if (!checkEditList.check(edits)) {
      const first = checkEditList.errors(edits)[0];
      const where = first ? ` (${first.instancePath ? `at ${first.instancePath}: ` : ''}${first.message})` : '';
      throw new ToolError(`edits is a string holding JSON, but not the array of {oldText, newText} objects it must encode${where}. ${shape}`);
    }
  }
  const list = edits as Edit[];
  list.forEach((e, i) => {
    if (LONE_SURROGATE.test(e.oldText) || LONE_SURROGATE.test(e.newText)) {
      throw new ToolError(`${who(i, list.length)}: oldText or newText holds an unpaired UTF-16 surrogate (an invalid character); send valid text`);
    }
  });
  return list;
}

const DOES_NOT_EXIST = 'edit_file only changes existing files. To create it, use write_file';

/** The file on disk (undefined: there is none); a folder or a special file is refused. */
async function statTarget(target: string, shown: string): Promise<Stats | undefined> {
  const st = await stat(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw new ToolError(`cannot open ${shown}: ${err.message}`);
  });
  if (st?.isDirectory()) throw new ToolError(`${shown} is a folder, not a file`);
  if (st && !st.isFile()) throw new ToolError(`${shown} is not a regular file (a special file)`);
  return st;
}

function tooBig(shown: string, size: number, maxBytes: number): ToolError {
  return new ToolError(`${shown} is ${formatBytes(size)} (${size} bytes), over edit_file's limit of ${formatBytes(maxBytes)}; it was not changed`);
}

/** The file on disk; the edited bytes are written atomically, with its mode. */
async function fromDisk(target: string, shown: string, maxBytes: number, journal?: LeftoverJournal): Promise<Target> {
  const st = await statTarget(target, shown);
  if (!st) throw new ToolError(`${shown} does not exist; ${DOES_NOT_EXIST}`);
  if (st.size > maxBytes) throw tooBig(shown, st.size, maxBytes);
  const bytes = await readFile(target);
  if (bytes.length > maxBytes) throw tooBig(shown, bytes.length, maxBytes);
  const file = decode(bytes, shown);
  return {
    file,
    apply(replacements) {
      const updated = splice(bytes, file, replacements);
      return updated.equals(bytes) ? undefined : () => atomicWrite(target, updated, st.mode, journal);
    },
  };
}

/**
 * The client's text of the file (an editor's buffer, saved or not). It is a string, so it is
 * edited as one: its BOM (U+FEFF) and line endings stay, since only the matched spans change.
 */
async function fromClient(files: FileAccess, target: string, shown: string, maxBytes: number): Promise<Target> {
  const st = await statTarget(target, shown); // a buffer may exist before its file, so a missing file is the client's to judge
  const text = await clientRead(files, target, shown).catch((err: Error) => {
    throw st ? err : new ToolError(`${err.message}. ${shown} does not exist on disk either; ${DOES_NOT_EXIST}`);
  });
  const size = Buffer.byteLength(text, 'utf8');
  if (size > maxBytes) throw tooBig(shown, size, maxBytes);
  if (text.includes('\0')) throw new ToolError(`${shown} looks like a binary file (it contains NUL bytes); edit_file only edits text files`);
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const file: TextFile = { text: text.slice(bom), bom: bom * 3, encoding: 'utf-8' };
  return {
    file,
    apply(replacements) {
      let updated = text.slice(0, bom);
      let copied = 0;
      for (const r of replacements) {
        updated += file.text.slice(copied, r.start) + r.text;
        copied = r.end;
      }
      updated += file.text.slice(copied);
      return updated === text ? undefined : () => clientWrite(files, target, shown, updated);
    },
  };
}

/** The file's text: UTF-8 (with or without a byte order mark) or UTF-16 with one. Anything else is refused. */
function decode(bytes: Buffer, shown: string): TextFile {
  const utf16: Encoding | undefined = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : undefined;
  if (utf16) {
    try {
      return { text: new TextDecoder(utf16, { fatal: true, ignoreBOM: true }).decode(bytes.subarray(2)), bom: 2, encoding: utf16 };
    } catch {
      throw new ToolError(`${shown} starts like ${utf16.toUpperCase()} text but is not valid ${utf16.toUpperCase()}; edit_file only edits text files`);
    }
  }
  if (bytes.includes(0)) throw new ToolError(`${shown} looks like a binary file (it contains NUL bytes); edit_file only edits text files`);
  if (!isUtf8(bytes)) throw new ToolError(`${shown} is not valid UTF-8 text; edit_file only edits UTF-8 or UTF-16 text files, so that no byte is changed by accident`);
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return { text: bytes.toString('utf8', bom), bom, encoding: 'utf-8' };
}

function encode(text: string, encoding: Encoding): Buffer {
  if (encoding === 'utf-8') return Buffer.from(text, 'utf8');
  const le = Buffer.from(text, 'utf16le');
  return encoding === 'utf-16le' ? le : le.swap16();
}

/** The original bytes with each span replaced: every byte outside the spans is copied, not re-encoded. */
function splice(bytes: Buffer, file: TextFile, replacements: readonly Replacement[]): Buffer {
  let char = 0;
  let byte = file.bom;
  const byteAt = (at: number) => {
    if (file.encoding !== 'utf-8') return file.bom + 2 * at;
    byte += Buffer.byteLength(file.text.slice(char, at), 'utf8');
    char = at;
    return byte;
  };
  const parts: Buffer[] = [];
  let copied = 0;
  for (const r of replacements) {
    parts.push(bytes.subarray(copied, byteAt(r.start)), encode(r.text, file.encoding));
    copied = byteAt(r.end);
  }
  parts.push(bytes.subarray(copied));
  return Buffer.concat(parts);
}

const TOLERANCE_TEXT: Record<Tolerance, string> = {
  whitespace: 'whitespace differences (indentation, runs of spaces or tabs, trailing spaces)',
  unicode: 'quote, dash and space styles (curly or straight quotes, dashes or hyphens, non-breaking spaces)',
  'whitespace+unicode': 'whitespace differences and quote, dash and space styles',
};

function toleranceNote(edit: number, kind: Tolerance, total: number): string {
  const whose = total > 1 ? `Edit ${edit + 1}'s oldText` : 'oldText';
  return `Note: ${whose} did not match exactly; it matched only when ignoring ${TOLERANCE_TEXT[kind]}. Only the matched text was replaced; check the diff.`;
}

function who(edit: number, total: number): string {
  return total > 1 ? `Edit ${edit + 1}` : 'The edit';
}

function failureText(problems: readonly EditProblem[], edits: readonly Edit[], content: string, shown: string, replaceAll: boolean): string {
  const head = edits.length > 1 && problems[0].kind !== 'overlap' ? `${problems.length} of ${edits.length} edits failed; none was applied, and ${shown} was not changed.` : `${shown} was not changed.`;
  return [head, ...problems.map((p) => problemText(p, edits, content, shown, replaceAll))].join('\n\n');
}

function problemText(p: EditProblem, edits: readonly Edit[], content: string, shown: string, replaceAll: boolean): string {
  const name = who(p.edit, edits.length);
  switch (p.kind) {
    case 'empty':
      return `${name}: oldText is empty; it must hold the text to replace. To create a file or replace all of it, use write_file.`;
    case 'unchanged':
      return `${name}: oldText and newText are the same, so it would change nothing.`;
    case 'overlap':
      return `Edits ${p.edit + 1} and ${p.other + 1} overlap (at line ${p.line}): each edit must change its own part of the file. Merge them into one edit.`;
    case 'ambiguous': {
      const count = p.capped ? `more than ${p.count - 1}` : String(p.count);
      const tolerant = p.tolerance ? ` when ignoring ${TOLERANCE_TEXT[p.tolerance]} (it has no exact match)` : '';
      const lines = `line${p.lines.length > 1 ? 's' : ''} ${p.lines.join(', ')}${p.count > p.lines.length ? ', …' : ''}`;
      return (
        `${name}: oldText occurs ${count} times in ${shown}${tolerant}, at ${lines}; it must occur exactly once. ` +
        'Include more of the surrounding lines in oldText to single out the one you mean, or set replaceAll: true to replace every occurrence.'
      );
    }
    case 'not_found':
      return notFoundText(name, edits[p.edit], content, shown, replaceAll);
  }
}

const quote = (s: string) => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);

function notFoundText(name: string, edit: Edit, content: string, shown: string, replaceAll: boolean): string {
  const parts = [`${name}: oldText was not found in ${shown}, not even when ignoring whitespace and quote or dash styles.`];
  if (hasLineNumberPrefixes(edit.oldText)) {
    const stripped = stripLineNumberPrefixes(edit.oldText);
    const again = locateEdits(content, [{ oldText: stripped, newText: '' }], replaceAll);
    const first = edit.oldText.split('\n').find((l) => l.trim() !== '')!;
    parts.push(
      `Its lines start with what look like line numbers (${quote(first)}), but read_file shows no line numbers and they are not part of the file. ` +
        `Remove them from oldText and newText, and send the edit again.` +
        (again.ok ? ` Without them, oldText matches at line ${lineNumbers(content, [again.replacements[0].start])[0]}.` : ''),
    );
    return parts.join(' ');
  }
  const region = closestRegion(content, edit.oldText);
  if (!region) {
    parts.push('No line of the file resembles it.');
  } else {
    const at = region.startLine === region.endLine ? `line ${region.startLine}` : `lines ${region.startLine}-${region.endLine}`;
    const shownLines = region.lines.slice(0, 30).map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l));
    const more = region.lines.length > 30 ? `\n… (${region.lines.length - 30} more lines)` : '';
    parts.push(`The closest text in the file is at ${at}:\n\`\`\`\n${shownLines.join('\n')}${more}\n\`\`\``);
    const d = region.firstDifference;
    if (d) parts.push(`First difference, at line ${d.line}: the file has ${quote(d.file)} where oldText has ${quote(d.oldText)}.`);
  }
  parts.push('oldText must be copied exactly from the current file; read it again with read_file if it may have changed.');
  return parts.join('\n');
}
