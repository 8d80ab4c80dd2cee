// The terminal as the interactive mode uses it: raw input with bracketed paste, and always put
// back the way it was found, on a normal exit, a crash or a signal (raw mode off, paste mode off,
// cursor shown, a synchronized update ended). Nothing here draws: that is the Screen's job.
import type { ScreenOutput } from './screen.js';

const RESTORE = '\x1b[?2026l\x1b[?2004l\x1b[?25h';

export interface TerminalIo {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

export class Terminal implements ScreenOutput {
  private restored = true;
  private readonly onExit = () => this.restore();
  private onData: ((chunk: string) => void) | undefined;
  private readonly listeners: Array<() => void> = [];

  constructor(private readonly io: TerminalIo) {}

  get columns(): number {
    return this.io.output.columns || 80;
  }

  get rows(): number {
    return this.io.output.rows || 24;
  }

  write(text: string): void {
    this.io.output.write(text);
  }

  /** Raw mode and bracketed paste on; `onInput` gets every chunk typed or pasted (UTF-8 text). */
  start(onInput: (chunk: string) => void, onResize: () => void): void {
    this.restored = false;
    this.io.input.setRawMode?.(true);
    this.io.input.setEncoding('utf8');
    this.onData = onInput;
    this.io.input.on('data', onInput);
    this.io.input.resume();
    this.io.output.on('resize', onResize);
    this.listeners.push(() => this.io.output.off('resize', onResize));
    this.write('\x1b[?2004h');
    process.on('exit', this.onExit);
  }

  /** Puts the terminal back: raw mode and paste mode off, the cursor visible. Safe to call twice. */
  restore(): void {
    if (this.restored) return;
    this.restored = true;
    if (this.onData) this.io.input.off('data', this.onData);
    for (const off of this.listeners.splice(0)) off();
    try {
      this.io.output.write(RESTORE);
      this.io.input.setRawMode?.(false);
    } catch {
      /* the terminal is gone */
    }
    this.io.input.pause();
    process.off('exit', this.onExit);
  }
}
