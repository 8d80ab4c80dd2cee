// A real terminal for tests: the CLI runs in a detached tmux session (a pseudo-terminal of a given
// size), keys go in with send-keys, the screen and the scrollback come out with capture-pane.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir } from './helpers.js';

export interface TmuxOptions {
  cwd: string;
  home?: string;
  env?: Record<string, string>;
  columns?: number;
  rows?: number;
  /** A file for the CLI's stdin instead of the terminal. */
  stdin?: string;
  /** A file that receives every byte the program writes to the terminal (tmux pipe-pane). */
  record?: string;
}

let counter = 0;
const SOCKET = `mini-agent-tests-${process.pid}`;

export class TmuxSession {
  readonly name = `mini-agent-${process.pid}-${++counter}-${Math.random().toString(16).slice(2, 8)}`;
  readonly home: string;
  private readonly exitFile: string;
  /** Every byte the program writes to the terminal lands here (tmux pipe-pane): waitFor looks again when it grows. */
  private readonly output: string;

  constructor(
    private readonly bin: string,
    args: string[],
    opts: TmuxOptions,
  ) {
    this.home = opts.home ?? tempDir('mini-agent-home-');
    this.exitFile = join(tempDir('mini-agent-tmux-'), 'exit');
    const env = { TERM: 'xterm-256color', HOME: this.home, MINI_AGENT_HOME: this.home, MINI_AGENT_NO_COMPILE_CACHE: '1', LANG: 'C.UTF-8', ...opts.env };
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const assignments = Object.entries(env)
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(' ');
    const command = [process.execPath, BIN, ...args].map(quote).join(' ') + (opts.stdin ? ` < ${quote(opts.stdin)}` : '');
    // After the CLI exits: its exit code, and whether the terminal is back in cooked mode (icanon, echo).
    const after = `echo "EXIT=$?"; stty -a | grep -o -- '-\\?icanon' | head -1 > ${quote(this.exitFile)}.stty; echo done > ${quote(this.exitFile)}; sleep 600`;
    // With a recording, the CLI waits for pipe-pane to be attached, so no byte is missed.
    const go = `${this.exitFile}.go`;
    const wait = opts.record ? `while [ ! -e ${quote(go)} ]; do sleep 0.02; done; ` : '';
    // history-limit applies to panes created after it is set: set it first, in the same server start.
    // exit-empty off: the server outlives a test's last session, so the next test never races its
    // shutdown ("server exited unexpectedly"); killServer() ends it after the file.
    this.tmux([
      'start-server',
      ';',
      'set-option',
      '-g',
      'exit-empty',
      'off',
      ';',
      'set-option',
      '-g',
      'history-limit',
      '100000',
      ';',
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      String(opts.columns ?? 100),
      '-y',
      String(opts.rows ?? 30),
      '-c',
      opts.cwd,
      `${wait}env ${assignments} ${command}; ${after}`,
    ]);
    // The output goes to a file, so a waiter looks at the screen when something was written
    // rather than on a fixed beat. Without a recording, bytes before the pipe is attached only
    // mean one look later.
    this.output = opts.record ?? `${this.exitFile}.out`;
    writeFileSync(this.output, '', { flag: 'a' });
    this.tmux(['pipe-pane', '-t', this.name, '-o', `cat >> ${quote(this.output)}`]);
    if (opts.record) writeFileSync(go, '');
  }

  /** The pid of the CLI (the pane's shell runs it as its child). */
  pid(): number {
    const shell = this.tmux(['display-message', '-p', '-t', this.name, '#{pane_pid}']).trim();
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after the last ')'.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] === shell) return Number(pid);
      } catch {
        /* gone */
      }
    }
    throw new Error(`no child process under the pane's shell ${shell}`);
  }

  /** The pane's title (what an OSC 0/2 sequence would set). */
  title(): string {
    return this.tmux(['display-message', '-p', '-t', this.name, '#{pane_title}']).trim();
  }

  /** Ends the tests' tmux server (after a test file). */
  static killServer(bin: string): void {
    try {
      execFileSync(bin, ['-L', SOCKET, 'kill-server'], { stdio: 'ignore' });
    } catch {
      /* not running */
    }
  }

  /** tmux on a server of the tests' own (its socket), so that no user's tmux is touched. */
  tmux(args: string[]): string {
    return execFileSync(this.bin, ['-L', SOCKET, ...args], { encoding: 'utf8' });
  }

  /** Types text literally (no key names). */
  type(text: string): void {
    this.tmux(['send-keys', '-t', this.name, '-l', text]);
  }

  /** Sends tmux key names: 'Enter', 'C-c', 'C-d', 'Escape', 'M-Enter', 'Up'. */
  keys(...names: string[]): void {
    this.tmux(['send-keys', '-t', this.name, ...names]);
  }

  /** Pastes text as the terminal would (bracketed, when the program asked for it). */
  paste(text: string): void {
    const file = join(tempDir('mini-agent-paste-'), 'paste.txt');
    writeFileSync(file, text);
    const buffer = `${this.name}-paste`;
    this.tmux(['load-buffer', '-b', buffer, file]);
    this.tmux(['paste-buffer', '-p', '-d', '-b', buffer, '-t', this.name]);
  }

  /** The visible screen, joined lines (wrapped lines rejoined), trailing blanks trimmed. */
  screen(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-t', this.name]).replace(/\s+$/, '');
  }

  /** The whole scrollback and screen. */
  history(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', this.name]);
  }

  /** screen() or history(), without blocking: servers the test runs in process answer meanwhile. */
  private capture(history: boolean): Promise<string> {
    const args = ['-L', SOCKET, 'capture-pane', '-p', '-J', ...(history ? ['-S', '-', '-E', '-'] : []), '-t', this.name];
    return new Promise((resolve, reject) => {
      execFile(this.bin, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, out) => (err ? reject(err) : resolve(history ? out : out.replace(/\s+$/, ''))));
    });
  }

  /** The screen with escape sequences (colors) kept. */
  screenWithEscapes(): string {
    return this.tmux(['capture-pane', '-p', '-e', '-t', this.name]);
  }

  resize(columns: number, rows: number): void {
    this.tmux(['resize-window', '-t', this.name, '-x', String(columns), '-y', String(rows)]);
  }

  /** Waits until the screen (or the history) passes `test`; returns it. */
  async waitFor(test: RegExp | ((text: string) => boolean), opts: { timeoutMs?: number; history?: boolean } = {}): Promise<string> {
    const until = Date.now() + (opts.timeoutMs ?? 15_000);
    const ok = typeof test === 'function' ? test : (t: string) => test.test(t);
    let text = '';
    // A look as soon as the program wrote something (its output file changed), at most every 40 ms
    // (a capture starts a process: looking more often during a stream only loads the machine), and
    // at least every 250 ms (a change tmux made on its own, such as a resize).
    let wrote = false;
    let wake: (() => void) | undefined;
    const watcher = watch(this.output, () => {
      wrote = true;
      wake?.();
    });
    try {
      while (Date.now() < until) {
        wrote = false;
        text = await this.capture(opts.history ?? false);
        if (ok(text)) return text;
        await new Promise((r) => setTimeout(r, 40));
        if (wrote) continue;
        await new Promise<void>((r) => {
          const timer = setTimeout(r, Math.min(250, Math.max(0, until - Date.now())));
          wake = () => {
            clearTimeout(timer);
            r();
          };
        });
        wake = undefined;
      }
    } finally {
      watcher.close();
    }
    throw new Error(`the terminal never showed ${test}; it shows:\n${text}`);
  }

  /** Waits for the CLI to exit; its exit code and whether the terminal was left in cooked mode. */
  async exited(timeoutMs = 15_000): Promise<{ code: number; cooked: boolean }> {
    const text = await this.waitFor(/EXIT=\d+/, { timeoutMs, history: true });
    const code = Number(/EXIT=(\d+)/.exec(text)![1]);
    const until = Date.now() + 5000;
    let stty = '';
    while (Date.now() < until) {
      try {
        stty = execFileSync('cat', [`${this.exitFile}.stty`], { encoding: 'utf8' }).trim();
        if (stty) break;
      } catch {
        /* not yet */
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return { code, cooked: stty === 'icanon' };
  }

  kill(): void {
    try {
      this.tmux(['kill-session', '-t', this.name]);
    } catch {
      /* gone already */
    }
  }
}
