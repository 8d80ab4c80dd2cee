// The screen of the interactive mode: the conversation goes into the terminal's own scrollback,
// written once and never redrawn, and only the live region below it (the answer being streamed,
// the spinner, the queue, the input) is redrawn. A redraw moves the cursor up to the top of the
// live region, clears from there down, writes the lines that became final, then the live region
// again: one write, inside a synchronized update (DEC mode 2026) where the terminal supports it,
// so nothing flickers and nothing above the live region is ever touched. Ctrl+L (clear()) is the
// one exception, as in a shell: the rows on screen scroll up into the scrollback, whole, and the
// live region is drawn at the top of an empty screen.
import stringWidth from 'string-width';

export interface ScreenOutput {
  write(text: string): void;
  readonly columns: number;
  readonly rows: number;
}

/** The cursor inside the live region: a line index and a column, in cells. */
export interface Cursor {
  line: number;
  column: number;
}

/** The live region: its lines, and where the cursor goes in them (undefined: hidden, after the last line). */
export interface LiveFrame {
  lines: readonly string[];
  cursor?: Cursor;
}

const SYNC_BEGIN = '\x1b[?2026h';
const SYNC_END = '\x1b[?2026l';
const CLEAR_DOWN = '\x1b[J';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Cuts a line (which may hold SGR styling) to `width` cells; lines are wrapped by their makers, this is the last guard. */
export function fitLine(line: string, width: number): string {
  if (stringWidth(line) <= width) return line;
  let out = '';
  let cells = 0;
  for (const part of line.split(/(\x1b\[[0-9;?]*[A-Za-z])/)) {
    if (part.startsWith('\x1b[')) {
      out += part; // styling is zero width
      continue;
    }
    for (const { segment } of segmenter.segment(part)) {
      const w = stringWidth(segment);
      if (cells + w > width) return out + '\x1b[0m';
      out += segment;
      cells += w;
    }
  }
  return out;
}

/** At most one redraw per frame (8 ms): a burst of deltas costs one write, and a delta still shows within a frame. */
const FRAME_MS = 8;

export class Screen {
  /** The cursor's row inside the live region, as drawn. */
  private cursorRow = 0;
  /** The live lines as drawn, and the cursor's line in them: after a resize, where they went. */
  private drawn: string[] = [];
  private drawnCursorLine = 0;
  private pending: string[] = [];
  private live: () => LiveFrame = () => ({ lines: [] });
  private scheduled = false;
  private lastWidth: number;
  /** When the last redraw was written (performance.now()), for the frame throttle. */
  private lastFlush = 0;
  /** The next redraw scrolls the screen's rows into the scrollback first (clear()). */
  private clearing = false;

  constructor(
    private readonly out: ScreenOutput,
    private readonly opts: { sync?: boolean; schedule?: (fn: () => void) => void } = {},
  ) {
    this.lastWidth = out.columns;
  }

  get width(): number {
    return Math.max(20, this.out.columns);
  }

  /** The rows the live region may take: the terminal's height less one (rows above the top could not be redrawn). */
  get liveRows(): number {
    return Math.max(2, this.out.rows) - 1;
  }

  /** Lines that are final: they go to the scrollback above the live region, once. */
  print(lines: readonly string[]): void {
    if (lines.length === 0) return;
    this.pending.push(...lines);
    this.request();
  }

  /**
   * The live region changed: `frame` draws it. It is called once per redraw (at most one per
   * frame), not once per change, so a burst of deltas costs one drawing of the live region.
   */
  setLive(frame: () => LiveFrame): void {
    this.live = frame;
    this.request();
  }

  /**
   * Ctrl+L: the visible screen is cleared and the live region drawn at its top; what was printed
   * stays in the scrollback. Neither \x1b[2J (many terminals drop the screen instead of keeping it)
   * nor \x1b[3J (it erases the scrollback): line feeds scroll the rows above the live region away.
   */
  clear(): void {
    this.clearing = true;
    this.flush();
  }

  /** Redraws now (a resize, or before the process leaves the terminal). */
  flush(): void {
    this.scheduled = false;
    const width = this.width;
    const rows = Math.max(2, this.out.rows);
    let text = this.opts.sync === false ? '' : SYNC_BEGIN;
    // Back to the top of the live region. After a resize the terminal has rewrapped the lines on
    // screen (terminals reflow), so count the rows the drawn lines above the cursor take now.
    let up = this.cursorRow;
    if (this.out.columns !== this.lastWidth) {
      up = 0;
      for (let i = 0; i < this.drawnCursorLine && i < this.drawn.length; i++) up += Math.max(1, Math.ceil(stringWidth(this.drawn[i]) / width));
      up = Math.min(up, rows - 1);
    }
    text += '\r';
    if (up > 0) text += `\x1b[${up}A`;
    text += CLEAR_DOWN;
    for (const line of this.pending) text += fitLine(line, width) + '\r\n';
    this.pending = [];
    // The cursor is at the start of the first empty row, below everything printed: from row r,
    // rows - 1 line feeds scroll exactly the r - 1 rows above it into the scrollback (and no blank
    // rows), the empty rows take their place, and the live region starts at the top.
    if (this.clearing) text += '\n'.repeat(rows - 1) + '\x1b[H';
    this.clearing = false;
    // The live region never grows past the screen: rows above the top could not be redrawn.
    const max = rows - 1;
    const frame = this.live();
    let live = frame.lines.map((l) => fitLine(l, width));
    let cursor = frame.cursor;
    if (live.length > max) {
      const cut = live.length - max;
      live = live.slice(cut);
      if (cursor) cursor = { line: Math.max(0, cursor.line - cut), column: cursor.column };
    }
    text += live.join('\r\n');
    this.drawn = live;
    if (cursor && live.length > 0) {
      const below = live.length - 1 - Math.min(cursor.line, live.length - 1);
      if (below > 0) text += `\x1b[${below}A`;
      text += '\r' + (cursor.column > 0 ? `\x1b[${cursor.column}C` : '') + '\x1b[?25h';
      this.cursorRow = live.length - 1 - below;
    } else {
      text += '\x1b[?25l';
      this.cursorRow = Math.max(0, live.length - 1);
    }
    this.drawnCursorLine = this.cursorRow;
    if (this.opts.sync !== false) text += SYNC_END;
    this.lastWidth = this.out.columns;
    this.lastFlush = performance.now();
    this.out.write(text);
  }

  /** Leaves the live region where it is, with the cursor below it: the terminal is handed back. */
  close(finalLines: readonly string[] = []): void {
    this.print(finalLines);
    this.live = () => ({ lines: [] });
    this.flush();
    this.out.write('\x1b[?25h');
  }

  private request(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const run = () => {
      if (this.scheduled) this.flush();
    };
    if (this.opts.schedule) return this.opts.schedule(run);
    const wait = FRAME_MS - (performance.now() - this.lastFlush);
    if (wait <= 0) setImmediate(run);
    else setTimeout(run, wait);
  }
}
