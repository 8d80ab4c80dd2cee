// The interactive conversation: keys in, agent calls out, events in, screen out. It only watches
// the agent's events and calls the application layer (prompt, steer, follow up, abort, the
// session handle); it never decides when the loop stops. What is final goes to the scrollback
// once; the live region holds the answer being streamed, running tools, the spinner, a question,
// the queue and the editor.
import { textWithImages } from '../core/image.js';
import type { Agent } from '../app/agent.js';
import { withoutFiles } from '../app/prompt-files.js';
import type { PermissionReply, PermissionRequest } from '../app/permission-gate.js';
import { answerNote, compactionLines, settledLines, settledStatusLines } from './answer-note.js';
import type { AgentEvent } from '../core/events.js';
import { textOf, type QueueItem } from '../core/types.js';
import { CommandError, isCommand, runCommand } from './commands.js';
import { ApprovalQuestion } from './confirm.js';
import { OverlayHost } from './picker.js';
import { LineEditor } from './editor.js';
import { Pointing } from './pointing.js';
import type { Key } from './keys.js';
import { MarkdownStream } from './markdown.js';
import { ReasoningView, thinkingLines } from './reasoning.js';
import { nextThinkingLevel } from '../model/thinking.js';
import type { Cursor, LiveFrame, Screen } from './screen.js';
import { LastBlock } from './last-block.js';
import { liveTailLines } from './tool-block.js';
import { headerLines } from './header.js';
import { clean, cut, paint, queueLines, runningToolLine, userLines, waitingLine, type ConversationOptions, type Paint } from './view.js';
import { wrapStyled, wrapText } from './wrap.js';
import { replayedToolLines } from './replay-tools.js';
import { editInput } from './external-editor.js';
import { searchKey, searchLine, startsSearch, type HistorySearch } from './history-search.js';
import { runShellLine, shellCommandOf, shellRunLine, type ShellRun } from './shell-line.js';

export type { ConversationOptions } from './view.js';
/** The follow-up marker: a line that starts with it is delivered when the run would otherwise end. */
export const FOLLOW_UP_PREFIX = '>>';

export class Conversation {
  readonly editor = new LineEditor();
  private readonly p: Paint;
  private readonly now: () => number;
  private running = false;
  private runStarted = 0;
  private doing = 'thinking';
  private retryNote: string | undefined;
  private stream: MarkdownStream | undefined;
  private readonly tools = new Map<string, { name: string; args: Record<string, unknown>; started: number; tail?: string }>();
  private queue: QueueItem[] = [];
  private question: ApprovalQuestion | undefined;
  private readonly overlay = new OverlayHost(); // a picker (/resume, /model, /tree) in place of the editor
  private lastCtrlC = 0;
  private runEvents: AgentEvent[] = [];
  private lastRun: AgentEvent[] = [];
  private ticker: NodeJS.Timeout | undefined;
  private afterTools = false; // tool lines were the last thing printed (a blank line goes before the next answer)
  private streamPrinted = false; // the answer being streamed has put lines in the scrollback already
  private readonly reasoning: ReasoningView; // dimmed live, then one line (or all, expanded) in the scrollback
  private readonly lastBlock: LastBlock; // what Ctrl+O acts on
  private readonly pointing: Pointing; // the `@` file picker, the `/` menu and Tab completion
  private shellRun: ShellRun | undefined; // `!cmd` in progress
  private compacting: number | undefined; // when the compaction in progress began
  private search: HistorySearch | undefined; // Ctrl+R

  constructor(
    private readonly agent: Agent,
    private readonly screen: Screen,
    private readonly opts: ConversationOptions,
  ) {
    this.p = paint(opts.color);
    this.now = opts.now ?? Date.now;
    this.reasoning = new ReasoningView(this.p, opts.verbose === true);
    this.lastBlock = new LastBlock(this.reasoning, this.p, agent.toolDescriptions.describe);
    this.pointing = new Pointing(agent);
    agent.subscribe((e) => this.onEvent(e));
  }

  /** The header, the end of the conversation so far, and the editor. */
  start(): void {
    const s = this.agent.session;
    const thinking = this.agent.thinking === 'off' ? [] : [`thinking ${this.agent.thinking}`];
    const parts = ['mini-agent', `${this.agent.model.provider}/${this.agent.model.id}`, ...thinking, `session ${s.name ?? s.id}`, '/help for commands, Ctrl+D to leave'];
    this.screen.print(headerLines(parts, this.screen.width, this.p));
    this.replay();
    this.redraw();
  }

  /** For /permission: answers come from keys while a question is shown. */
  ask = (request: PermissionRequest): Promise<PermissionReply> =>
    new Promise((resolve) => {
      const done = (reply: PermissionReply) => {
        if (this.question?.request !== request) return;
        this.question = undefined;
        request.signal.removeEventListener('abort', onAbort);
        this.screen.print(wrapText(`  ${request.tool}: ${answerNote(reply, request)}`, this.screen.width, { indent: '    ', style: this.p.dim }));
        this.redraw();
        resolve(reply);
      };
      const onAbort = () => done('deny');
      request.signal.addEventListener('abort', onAbort, { once: true });
      this.question = new ApprovalQuestion(request, done, this.agent.toolDescriptions.describe);
      this.redraw();
    });

  resize(): void {
    this.stream?.setWidth(this.screen.width);
    this.redraw();
    this.screen.flush();
  }

  key(key: Key): void {
    if (!this.question && this.overlay.key(key)) return this.redraw();
    if (!this.question && (this.search || startsSearch(key))) return void ((this.search = searchKey(this.search, key, this.editor)), this.redraw());
    if (key.name !== 'text' && key.name !== 'paste' && key.ctrl && key.name === 'c') return this.interrupt();
    if (this.question) {
      this.question.key(key);
      this.redraw();
      return;
    }
    if (this.pointing.key(key, this.editor)) return this.redraw();
    if (key.name !== 'text' && key.name !== 'paste') {
      if (key.ctrl && key.name === 'd' && this.editor.isEmpty() && !this.running) return this.opts.onExit();
      if (key.name === 'escape' && !key.ctrl && !key.alt) return this.running || this.shellRun || this.compacting ? this.interrupt() : this.pullBack(); // Esc stops a run, as Ctrl+C does
      if (key.ctrl && !key.alt && key.name === 'o') return this.printNow(this.lastBlock.toggle(this.screen.width));
      if (key.ctrl && !key.alt && key.name === 'l') return this.screen.clear(); // as in a shell: the screen is cleared, the scrollback stays
      if (key.ctrl && !key.alt && key.name === 'g') return this.printNow(editInput(this.editor, this.opts.env, this.screen.width, this.p)); // $EDITOR
      if (key.name === 'tab' && key.shift) return this.printNow(thinkingLines(this.agent.setThinking(nextThinkingLevel(this.agent.thinking)), this.p, this.screen.width));
    }
    const result = this.editor.handleKey(key);
    if (result === 'submit') void this.submit(this.editor.submit());
    this.redraw();
  }

  close(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
  }

  // ---- input ----

  private async submit(text: string): Promise<void> {
    if (text.trim() === '') return;
    const command = shellCommandOf(text);
    if (command !== undefined)
      return runShellLine(command, { agent: this.agent, p: this.p, width: () => this.screen.width, now: this.now, print: (l) => this.screen.print(l), setRun: (r) => (this.shellRun = r), redraw: () => this.redraw() });
    if (isCommand(text)) await this.agent.reloadPromptTemplates().catch(() => undefined); // a template added since start-up is found
    const template = isCommand(text) ? (this.agent.expandSkill(text) ?? this.agent.expandPromptTemplate(text)) : undefined;
    if (template) {
      const what = text.trim().startsWith('/skill:') ? 'skill' : 'prompt template';
      this.screen.print([this.p.dim(`❯ ${cut(clean(text.trim()), this.screen.width - 2)}  (${what} ${template.name})`)]);
      text = template.text;
    } else if (isCommand(text)) {
      this.screen.print(wrapText(`❯ ${text.trim()}`, this.screen.width, { indent: '  ', style: this.p.dim }));
      await runCommand(text, {
        agent: this.agent,
        env: this.opts.env,
        width: this.screen.width,
        paint: this.p,
        print: (lines) => this.screen.print(lines.flatMap((l) => wrapStyled(l, this.screen.width))),
        exit: () => this.opts.onExit(),
        lastRun: () => this.lastRun,
        switched: () => this.replay(),
        toggleReasoning: () => this.screen.print(this.reasoning.toggle(this.screen.width)),
        open: (overlay) => this.overlay.open(overlay),
        run: (line) => this.submit(line).then(() => this.redraw()),
      }).catch((err: unknown) => this.screen.print(wrapText(err instanceof CommandError ? err.message : String(err), this.screen.width, { indent: '  ', style: this.p.red })));
      this.redraw();
      return;
    }
    const followUp = text.trimStart().startsWith(FOLLOW_UP_PREFIX);
    const message = followUp ? text.trimStart().slice(FOLLOW_UP_PREFIX.length).trim() : text;
    if (message.trim() === '') return;
    try {
      if (this.running) {
        if (followUp) this.agent.followUp(message);
        else this.agent.steer(message);
        return;
      }
      this.printUser(message);
      this.agent.prompt(message).catch((err: unknown) => this.screen.print(wrapText(`error: ${(err as Error)?.message ?? String(err)}`, this.screen.width, { indent: '  ', style: this.p.red })));
    } catch (err) {
      this.screen.print(wrapText(`error: ${(err as Error)?.message ?? String(err)}`, this.screen.width, { indent: '  ', style: this.p.red }));
    }
  }

  /** Ctrl+C: stop the run (what it had not delivered comes back to the editor); on an empty line twice, leave. */
  private interrupt(): void {
    if (this.shellRun) return this.shellRun.controller.abort();
    if (this.running || this.compacting !== undefined) {
      this.agent.abort(); // what it had not delivered comes back with run_settled (settled())
      this.redraw();
      return;
    }
    if (!this.editor.isEmpty()) {
      this.editor.setText('');
      this.redraw();
      return;
    }
    const now = this.now();
    if (now - this.lastCtrlC < 2000) return this.opts.onExit();
    this.lastCtrlC = now;
    this.screen.print([this.p.dim('(press Ctrl+C again to leave, or Ctrl+D)')]);
    this.redraw();
  }

  /** Esc: the newest queued message back into the editor (cancelled from the queue). */
  private pullBack(): void {
    const last = this.queue.at(-1);
    if (!last || !this.agent.cancel(last.id)) return;
    this.takeBack([last]);
    this.redraw();
  }

  /** Queued messages back into the editor, after what is there (a follow-up keeps its marker): nothing typed is lost. */
  private takeBack(items: readonly QueueItem[]): void {
    if (items.length === 0) return;
    const texts = items.map((i) => (i.kind === 'follow_up' ? `${FOLLOW_UP_PREFIX} ${i.text}` : i.text));
    this.editor.setText([this.editor.text, ...texts].filter((t) => t.trim() !== '').join('\n'));
  }

  // ---- events ----

  private onEvent(e: AgentEvent): void {
    this.runEvents.push(e);
    switch (e.type) {
      case 'run_start':
        this.running = true;
        this.runStarted = this.now();
        this.runEvents = [e];
        this.doing = 'thinking';
        this.ticker ??= setInterval(() => this.redraw(), 100);
        break;
      case 'turn_start':
        this.doing = 'thinking';
        this.retryNote = undefined;
        break;
      case 'thinking_delta':
        this.doing = 'thinking';
        this.reasoning.push(e.delta);
        break;
      case 'text_delta':
        this.retryNote = undefined;
        this.endReasoning();
        if (!this.stream) {
          if (this.afterTools) this.screen.print(['']); // the answer stands apart from the tool lines above it
          this.stream = new MarkdownStream(this.screen.width, { color: this.opts.color });
          this.streamPrinted = false;
        }
        this.afterTools = false;
        this.printAnswer(this.stream.push(e.delta));
        this.doing = 'writing';
        break;
      case 'toolcall_start':
        this.endReasoning();
        this.doing = `preparing ${e.name}`;
        break;
      case 'message_end':
        this.endReasoning();
        this.endAnswer();
        break;
      case 'retry':
        // The failed attempt's answer is discarded; what of it reached the scrollback stays there, marked.
        if (this.stream && this.streamPrinted) this.screen.print([this.p.yellow('(the partial answer above was cut off; the request is retried)')]);
        this.stream = undefined;
        this.reasoning.discard();
        this.doing = 'thinking';
        this.retryNote = `retrying after ${e.kind} (attempt ${e.attempt}, in ${Math.round(e.delayMs / 1000)} s)`;
        break;
      case 'tool_start':
        this.tools.set(e.toolCallId, { name: e.name, args: e.arguments, started: this.now() });
        this.doing = `running ${e.name}`;
        break;
      case 'tool_end': {
        const t = this.tools.get(e.toolCallId);
        this.tools.delete(e.toolCallId);
        this.screen.print(this.lastBlock.tool(e, t?.args ?? {}, this.screen.width));
        this.afterTools = true;
        break;
      }
      case 'tool_update':
        if (this.tools.has(e.toolCallId)) this.tools.get(e.toolCallId)!.tail = e.tail;
        break;
      case 'queue_update':
        this.queue = e.items;
        break;
      case 'steer_delivered':
      case 'follow_up_delivered':
        this.printUser(e.text, e.type === 'steer_delivered' ? 'steer' : 'follow-up');
        break;
      case 'compaction_start': // a spinner that says so; Esc or Ctrl+C cancels it (nothing is written then)
        [this.compacting, this.doing] = [this.now(), 'compacting'];
        this.ticker ??= setInterval(() => this.redraw(), 100);
        break;
      case 'compaction_end':
        [this.compacting, this.doing] = [undefined, 'thinking'];
        if (!this.running) this.close(); // the ticker
        this.screen.print(compactionLines(e, this.screen.width, this.p));
        break;
      case 'warning':
        this.screen.print(wrapText(`warning: ${clean(e.message)}`, this.screen.width, { indent: '  ', style: this.p.yellow })); // wrapped, not cut
        break;
      case 'run_settled':
        this.settled(e);
        break;
    }
    this.redraw();
  }

  /** Lines of the answer being streamed that became final. */
  private printAnswer(lines: string[]): void {
    this.screen.print(lines);
    this.streamPrinted = this.streamPrinted || lines.length > 0;
  }

  /** The reasoning so far goes to the scrollback (collapsed to a line unless expanded). */
  private endReasoning(): void {
    this.screen.print(this.lastBlock.reasoningEnded(this.reasoning.end(this.screen.width)));
  }

  private printNow(lines: string[]): void {
    this.screen.print(lines);
    this.redraw();
  }

  private endAnswer(): void {
    if (this.stream) this.screen.print(this.stream.end());
    this.stream = undefined;
    this.streamPrinted = false;
  }

  private settled(e: Extract<AgentEvent, { type: 'run_settled' }>): void {
    this.endReasoning();
    this.endAnswer();
    this.running = false;
    this.tools.clear();
    this.queue = [];
    this.lastRun = this.runEvents;
    this.close(); // the ticker
    this.takeBack(e.undelivered);
    this.screen.print(settledLines(e, this.screen.width, this.p));
    this.screen.print(settledStatusLines(e, this.agent.state(), this.screen.width, this.p));
  }

  // ---- drawing ----

  private printUser(text: string, kind?: string): void {
    this.screen.print(userLines(text, kind, this.screen.width, this.p));
  }

  /** After a switch of session, and at the start: the last messages, so the user knows where they are. */
  private replay(): void {
    const messages = this.agent.messages();
    this.editor.setHistory(messages.filter((m) => m.role === 'user').map((m) => textOf(withoutFiles(m.content))));
    const tail = messages.slice(-6);
    if (messages.length > tail.length) this.screen.print([this.p.dim(`… ${messages.length - tail.length} earlier messages (/tree shows the session)`)]);
    for (const m of tail) {
      if (m.role === 'user') this.printUser(textWithImages(withoutFiles(m.content)));
      if (m.role === 'assistant') for (const c of m.content) if (c.type === 'thinking') this.reasoning.push(c.thinking);
      if (m.role === 'assistant') this.endReasoning(); // one line (Ctrl+O expands the last)
      if (m.role === 'assistant' && textOf(m.content).trim() !== '') {
        const s = new MarkdownStream(this.screen.width, { color: this.opts.color });
        this.screen.print([...s.push(textOf(m.content)), ...s.end()]);
      }
      if (m.role === 'assistant') this.screen.print(replayedToolLines(m, messages, this.screen.width, this.p, this.agent.toolDescriptions.describe));
    }
  }

  /** The live region changed; the screen draws it (liveFrame) at its next frame. */
  private redraw(): void {
    this.screen.setLive(this.liveFrame);
  }

  private readonly liveFrame = (): LiveFrame => {
    const width = this.screen.width;
    const live: string[] = [];
    live.push(...this.reasoning.live(width));
    if (this.stream) live.push(...this.stream.live());
    for (const t of this.tools.values()) live.push(runningToolLine(t.name, t.args, this.now() - t.started, width, this.p, this.agent.toolDescriptions.describe), ...liveTailLines(t.tail ?? '', width, this.p));
    if (this.shellRun && !this.question) live.push(shellRunLine(this.shellRun, this.now(), width, this.p));
    if (this.compacting !== undefined && !this.running) live.push(waitingLine(this.now() - this.compacting, 'compacting', undefined, this.p));
    if (this.running && this.tools.size === 0 && !this.question) live.push(waitingLine(this.now() - this.runStarted, this.doing, this.retryNote, this.p));
    const queue = queueLines(this.queue, width, this.p);
    const hint = this.running ? this.p.dim('❯ ') : this.p.cyan('❯ ');
    const r = this.search ? { lines: [searchLine(this.search, this.editor.historyEntries(), width, this.p)], cursorLine: 0, cursorColumn: Math.min(width - 1, 17 + this.search.query.length) } : this.editor.render(width, { prompt: hint });
    let cursor: Cursor | undefined;
    const o = this.question ? undefined : this.overlay.frame(width, this.screen.liveRows - live.length - queue.length, this.p, live.length);
    if (o) return { lines: [...live, ...o.lines, ...queue], cursor: o.cursor };
    if (this.question) {
      // The question gets the rows the rest of the live region leaves (the screen drops rows from the top, never from it).
      const q = this.question.frame(width, this.screen.liveRows - live.length - queue.length - r.lines.length, this.p);
      if (q.cursor) cursor = { line: live.length + q.cursor.line, column: q.cursor.column };
      live.push(...q.lines);
    }
    live.push(...queue);
    const top = live.length;
    live.push(...r.lines);
    if (!this.question) live.push(...this.pointing.lines(this.editor, width, this.p));
    return { lines: live, cursor: this.question ? cursor : { line: top + r.cursorLine, column: r.cursorColumn } };
  };
}
