// What an approval question shows of a call, pure: the whole command, every edit's old and new
// lines, a write's path, size and content; each line wrapped to the width (never cut), its
// indentation kept, invisible characters made visible. `fitRows` fits the rows to the room there
// is: the head, an honest count of the rows left out, and the tail, so the last line always
// shows; the pager (confirm.ts) shows all of them, a page at a time.
import type { PermissionRequest } from '../app/permission-gate.js';
import { visibleText } from '../core/visible-text.js';
import { expandTabs, hardSplit } from './terminal-text.js';
import type { Paint } from './view.js';
import { describeToolCall, type DescribeCall } from '../tools/descriptions.js';

/** One screen row of a request's body, styled, and the numbered line it belongs to (as its gutter shows it), if any. */
export interface BodyRow {
  text: string;
  line?: number;
}

/** The key that opens the pager, as the question names it. */
export const VIEW_ALL_KEYS = 'v or Space';

/** `text` as the question shows it: nothing invisible (core/visible-text.ts), tabs expanded to 4 columns. */
function shownText(text: string): string {
  return expandTabs(visibleText(text), 4);
}

/** A file's text as shown: CRLF line ends read as line ends (a lone CR still shows). */
function fileText(text: string): string {
  return shownText(text.replace(/\r\n/g, '\n'));
}

/** Body lines laid out: each source line wrapped to the room after its prefix, continuation rows under an indent. */
class BodyBuilder {
  readonly rows: BodyRow[] = [];
  constructor(private readonly width: number) {}

  /** One line: `first` before its first row, `rest` (as wide) before the others; `style` colors the rows. */
  add(text: string, first: string, rest: string, style: (s: string) => string = (s) => s, line?: number): void {
    const room = Math.max(8, this.width - first.length);
    const wrapped = text === '' ? [''] : hardSplit([{ text, style: '' }], room).map((row) => row.map((s) => s.text).join(''));
    wrapped.forEach((part, i) => this.rows.push({ text: style((i === 0 ? first : rest) + part), ...(line !== undefined ? { line } : {}) }));
  }

  /** Every line of `text`: one behind `mark`, several numbered (the numbers name a hidden range). */
  addLines(text: string, mark: string, style?: (s: string) => string): void {
    const lines = shownText(text).split('\n');
    if (lines.length === 1) return this.add(lines[0], `  ${mark} `, `  ${' '.repeat(mark.length)} `, style);
    const digits = String(lines.length).length;
    lines.forEach((l, i) => this.add(l, `  ${String(i + 1).padStart(digits)} │ `, `  ${' '.repeat(digits)} ┆ `, style, i + 1));
  }
}

/** Every row of what the request is about, wrapped to `width`. */
export function requestBody(request: PermissionRequest, width: number, p: Paint, describe: DescribeCall = describeToolCall): BodyRow[] {
  const a = request.arguments;
  const body = new BodyBuilder(width);
  if (typeof a.command === 'string') {
    const lines = a.command.split('\n').length;
    if (lines > 1) body.add(`${lines} lines, ${a.command.length} characters:`, '  $ ', '    ', p.dim);
    body.addLines(a.command, '$');
  } else if (describe(request.tool, a).rewrites && (Array.isArray(a.edits) || typeof a.edits === 'string')) {
    body.add(shownText(String(a.path ?? '')), '  ', '  ');
    const parsed = Array.isArray(a.edits) ? a.edits : safeParse(a.edits as string);
    const edits = (Array.isArray(parsed) ? parsed : []) as Array<{ oldText?: unknown; newText?: unknown }>;
    if (edits.length === 0) body.addLines(String(a.edits), '│');
    edits.forEach((e, i) => {
      if (edits.length > 1) body.add(`edit ${i + 1} of ${edits.length}${a.replaceAll === true ? ', every occurrence' : ''}`, '  @ ', '    ', p.dim);
      else if (a.replaceAll === true) body.add('every occurrence', '  @ ', '    ', p.dim);
      for (const l of fileText(String(e.oldText ?? '')).split('\n')) body.add(l, '  - ', '  ┆ ', p.red);
      for (const l of fileText(String(e.newText ?? '')).split('\n')) body.add(l, '  + ', '  ┆ ', p.green);
    });
  } else if (typeof a.path === 'string') {
    body.add(shownText(a.path), '  ', '  ');
    const content = typeof a.content === 'string' ? a.content : typeof a.text === 'string' ? a.text : undefined;
    if (content !== undefined) {
      const bytes = Buffer.byteLength(content, 'utf8');
      const lines = content === '' ? 0 : content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
      const mode = typeof a.mode === 'string' ? `, ${a.mode}` : '';
      body.add(`${bytes} bytes, ${lines} line${lines === 1 ? '' : 's'}${mode}`, '  ', '  ', p.dim);
      const text = content.replace(/\r\n/g, '\n');
      if (text !== '') body.addLines(text.endsWith('\n') ? text.slice(0, -1) : text, '│', p.dim);
    }
  } else {
    body.addLines(JSON.stringify(a, null, 2), '│');
  }
  return body.rows;
}

/**
 * The rows that fit in `room` (at least 3): all of them, or the head, one line saying how many
 * rows are left out (and which numbered lines they hold), and the tail, so the last row shows.
 */
export function fitRows(rows: readonly BodyRow[], room: number, p: Paint): string[] {
  if (rows.length <= room) return rows.map((r) => r.text);
  const shown = Math.max(2, room - 1);
  const tail = Math.max(1, Math.floor(shown / 2));
  const head = shown - tail;
  const hidden = rows.slice(head, rows.length - tail);
  const numbered = hidden.flatMap((r) => (r.line !== undefined ? [r.line] : []));
  const which = numbered.length === 0 ? '' : numbered[0] === numbered.at(-1) ? ` (of line ${numbered[0]})` : ` (of lines ${numbered[0]}–${numbered.at(-1)})`;
  const marker = p.yellow(`  ⋮ ${hidden.length} row${hidden.length === 1 ? '' : 's'} hidden${which}; ${VIEW_ALL_KEYS} shows everything`);
  return [...rows.slice(0, head).map((r) => r.text), marker, ...rows.slice(rows.length - tail).map((r) => r.text)];
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
