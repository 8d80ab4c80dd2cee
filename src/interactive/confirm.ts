// Asking the user about a call the permission policy says to ask about. The question shows the
// call whole (approval-view.ts: the command, every edit, the write's content), fitted to the
// screen with an honest count of what is hidden; `v` or Space opens a pager over all of it. The
// answers: y (allow), a (always: the rule it stores is named), n (no, then an optional reason
// line that goes back to the model with the refusal). The run waits; Ctrl+C aborts it.
import type { DescribeCall } from '../tools/descriptions.js';
import type { PermissionReply, PermissionRequest } from '../app/permission-gate.js';
import { visibleText } from '../core/visible-text.js';
import { exactCommand, ruleInBrief } from '../tools/permissions.js';
import { fitRows, requestBody, type BodyRow } from './approval-view.js';
import { LineEditor } from './editor.js';
import type { Key } from './keys.js';
import type { Cursor } from './screen.js';
import { serializeRow, wrapSpans } from './terminal-text.js';
import type { Paint } from './view.js';

/** The question as drawn: its lines and, while a reason is typed, the cursor in them. */
export interface QuestionFrame {
  lines: string[];
  cursor?: Cursor;
}

/** The fewest rows the body gets, however little room there is: a head row, the hidden count, the last row. */
const MIN_BODY_ROWS = 3;

type View = 'question' | 'pager' | 'reason';

export class ApprovalQuestion {
  private view: View = 'question';
  private pagerTop = 0;
  /** The pager's page height as last drawn (the keys page by it). */
  private pageRows = 10;
  private readonly reasonEditor = new LineEditor();
  /** The body laid out for one width (laid out again when the width changes). */
  private layout: { width: number; rows: BodyRow[] } | undefined;

  /** Set by the first answer: keys after it (the rest of a chunk) are not answers. */
  private answered = false;

  constructor(
    readonly request: PermissionRequest,
    private readonly reply: (reply: PermissionReply) => void,
    /** How calls are described (the agent's own tools first). */
    private readonly describe?: DescribeCall,
  ) {}

  private answer(reply: PermissionReply): void {
    if (this.answered) return;
    this.answered = true;
    this.reply(reply);
  }

  key(key: Key): void {
    // Keys typed faster than the terminal is read arrive as one text chunk ("yq", "n" + a
    // reason): each character is a key of its own, to the view it finds itself in.
    if (key.name === 'text' && this.view !== 'reason' && [...key.text].length > 1) {
      for (const ch of key.text) if (!this.answered) this.key({ ...key, text: ch });
      return;
    }
    if (this.view === 'reason') return this.reasonKey(key);
    if (this.view === 'pager') return this.pagerKey(key);
    if (key.name !== 'text') return;
    const k = key.text.trim().toLowerCase();
    if (k === 'y') this.answer('allow');
    else if (k === 'a') this.answer('always');
    else if (k === 'n') this.view = 'reason';
    else if (k === 'v' || key.text === ' ') {
      this.view = 'pager';
      this.pagerTop = 0;
    }
  }

  /** The lines of the question in `room` rows of the live region (it takes more when there is less: the body keeps a head, the hidden count and its last row). */
  frame(width: number, room: number, p: Paint): QuestionFrame {
    const rows = this.bodyRows(width, p);
    const header = wrap(visibleText(`? ${this.request.tool} needs your approval (${this.request.reason})`), width, p.yellow, '');
    if (this.view === 'pager') return { lines: [...header, ...this.page(rows, room - header.length - 1, p)] }; // 1: the footer
    if (this.view === 'reason') {
      const prompt = wrap(`Why not? (optional, sent to the model with the refusal) Enter sends · Esc: back`, width, p.yellow);
      const editor = this.reasonEditor.render(width, { prompt: '  reason ❯ ' });
      const body = fitRows(rows, Math.max(MIN_BODY_ROWS, room - header.length - prompt.length - editor.lines.length), p);
      const top = header.length + body.length + prompt.length;
      return { lines: [...header, ...body, ...prompt, ...editor.lines], cursor: { line: top + editor.cursorLine, column: editor.cursorColumn } };
    }
    const prompt = this.promptLines(width, p);
    const bodyRoom = Math.max(MIN_BODY_ROWS, room - header.length - 1 - prompt.length); // 1: the Allow? line
    const hidden = rows.length > bodyRoom;
    const ask = `  Allow? ${p.bold('[y]')}es, ${p.bold('[n]')}o, ${p.bold('[a]')}lways for this session` + (hidden ? ` · ${p.bold('[v]')}iew all (${rows.length} rows)` : ` · ${p.dim('[v]iew in a pager')}`);
    return { lines: [...header, ...fitRows(rows, bodyRoom, p), ask, ...prompt] };
  }

  /** What "always" stores, said plainly, and that "no" can carry a reason. */
  private promptLines(width: number, p: Paint): string[] {
    const rule = this.request.suggestedRule;
    const pattern = /^[^(]+\((.*)\)$/s.exec(rule)?.[1];
    const exact = typeof this.request.arguments.command === 'string' && pattern !== undefined && exactCommand(pattern) !== undefined;
    const brief = visibleText(ruleInBrief(rule, Math.max(20, width - 40))); // the rule holds the command: nothing in it drives the terminal
    return wrap(`[a] stores the rule ${brief}${exact ? ': this exact command line again, nothing else' : ''}; [n] lets you say why`, width, p.dim);
  }

  private page(rows: readonly BodyRow[], height: number, p: Paint): string[] {
    this.pageRows = Math.max(MIN_BODY_ROWS, height);
    this.pagerTop = Math.max(0, Math.min(this.pagerTop, rows.length - this.pageRows));
    const shown = rows.slice(this.pagerTop, this.pagerTop + this.pageRows).map((r) => r.text);
    const end = this.pagerTop + shown.length;
    return [...shown, p.yellow(`  rows ${this.pagerTop + 1}–${end} of ${rows.length}${end >= rows.length ? ' (the end)' : ''} · ↑↓ PgUp PgDn Space Home End · q/Esc: back`)];
  }

  private pagerKey(key: Key): void {
    const name = key.name === 'text' ? key.text : key.name;
    const page = this.pageRows;
    const moves: Record<string, (top: number) => number> = {
      up: (t) => t - 1,
      k: (t) => t - 1,
      down: (t) => t + 1,
      j: (t) => t + 1,
      enter: (t) => t + 1,
      pageup: (t) => t - page,
      b: (t) => t - page,
      pagedown: (t) => t + page,
      ' ': (t) => t + page,
      home: () => 0,
      g: () => 0,
      end: () => Number.MAX_SAFE_INTEGER,
      G: () => Number.MAX_SAFE_INTEGER,
    };
    if (name === 'q' || name === 'escape') this.view = 'question';
    else if (Object.hasOwn(moves, name)) this.pagerTop = Math.max(0, moves[name](this.pagerTop)); // the frame clamps the end
  }

  private reasonKey(key: Key): void {
    if (key.name === 'escape') {
      this.view = 'question';
      return;
    }
    if (this.reasonEditor.handleKey(key) !== 'submit') return;
    const reason = this.reasonEditor.text.replace(/\s+/g, ' ').trim();
    this.answer(reason === '' ? 'deny' : { decision: 'deny', reason });
  }

  private bodyRows(width: number, p: Paint): BodyRow[] {
    if (this.layout?.width !== width) this.layout = { width, rows: requestBody(this.request, width, p, this.describe) };
    return this.layout.rows;
  }
}

/** `text` word-wrapped to `width` under an indent, each row styled. */
function wrap(text: string, width: number, style: (s: string) => string, indent = '  '): string[] {
  return wrapSpans([{ text, style: '' }], Math.max(10, width - indent.length)).map((row) => style(indent + serializeRow(row, false)));
}
