// The slash commands of the interactive mode. Each is a call to the application layer (the same
// one the SDK, print mode and RPC mode use) and a few lines printed; none reaches the model. An
// unknown command gets a suggestion.
import { extname } from 'node:path';
import type { Agent, ExportFormat } from '../app/agent.js';
import { formatTrace } from '../app/trace-text.js';
import { checkpointsText } from '../app/checkpoints-text.js';
import type { AgentEvent } from '../core/events.js';
import { preview, type Usage } from '../core/types.js';
import { cacheHitShare } from '../core/cache-share.js';
import { listSessionFiles, summarizeAll } from '../session/catalog.js';
import { clean, nearest, paint, type Paint } from './view.js';
import { costText } from '../core/cost-text.js';
import { thinkingLines } from './reasoning.js';
import { checkpointDiffLines, sessionDiffLines } from './session-diff.js';
import { rewindCommand } from './rewind-view.js';
import { thinkingNote } from '../app/thinking-control.js';
import { isThinkingLevel, THINKING_LEVELS } from '../model/thinking.js';
import type { Overlay } from './picker.js';
import { modelPicker, sessionPicker } from './pickers.js';
import { treePicker } from './tree-picker.js';
import { wrapColumns, wrapText } from './wrap.js';

export interface CommandContext {
  agent: Agent;
  env: NodeJS.ProcessEnv;
  width: number;
  paint: Paint;
  print(lines: readonly string[]): void;
  exit(): void;
  /** The events of the last run, for /trace. */
  lastRun(): readonly AgentEvent[];
  /** The session changed (new, resume, fork): the front end shows where it is now. */
  switched(): void;
  /** /reasoning: expand or collapse the model's reasoning (as Ctrl+O does). */
  toggleReasoning(): void;
  /** Shows a picker in place of the editor until it closes (/resume, /model, /tree). */
  open(overlay: Overlay): void;
  /** Runs a command line as if typed (what a picker chose: `/resume ID`, `/model P/M`, `/branch ID`). */
  run(line: string): Promise<void>;
}

/** What a command's argument names, for Tab completion (completion.ts). */
export type ArgKind = 'session' | 'entry' | 'model' | 'thinking' | 'path' | 'text';

interface Command {
  names: string[];
  usage: string;
  help: string;
  /** What its argument names (completion); none: it takes no argument. */
  arg?: ArgKind;
  run(ctx: CommandContext, arg: string): void | Promise<void>;
}

const need = (arg: string, usage: string): string => {
  if (arg === '') throw new CommandError(`usage: ${usage}`);
  return arg;
};

export class CommandError extends Error {}

const COMMANDS: Command[] = [
  {
    names: ['help'],
    usage: '/help',
    help: 'list the commands, prompt templates, skills and keys',
    run: (ctx) => {
      const templates = ctx.agent.promptTemplates;
      const w = Math.max(0, ...templates.map((t) => t.name.length));
      const lines = templates.length ? ['', ctx.paint.bold('Prompt templates'), ...templates.map((t) => `  /${t.name.padEnd(w)} ARGS  ${clean(t.description)}${ctx.paint.dim(` (${t.source})`)}`)] : [];
      const skills = ctx.agent.skills;
      const sw = Math.max(0, ...skills.map((s) => s.name.length));
      if (skills.length) lines.push('', ctx.paint.bold('Skills'), ...skills.map((s) => `  /skill:${s.name.padEnd(sw)} ARGS  ${clean(s.description)}${ctx.paint.dim(` (${s.source})`)}`));
      const plain = [...helpLines(paint(false)), ...lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''))];
      ctx.print(plain.flatMap((l) => (l === '' || l.startsWith(' ') ? wrapColumns(l, ctx.width) : [ctx.paint.bold(l)])));
    },
  },
  { names: ['exit', 'quit'], usage: '/exit', help: 'leave (Ctrl+D on an empty line too)', run: (ctx) => ctx.exit() },
  {
    names: ['new'],
    usage: '/new',
    help: 'start a new session',
    run: (ctx) => {
      const s = ctx.agent.newSession();
      ctx.print([ctx.paint.dim(`new session ${s.id}`)]);
      ctx.switched();
    },
  },
  {
    names: ['sessions'],
    usage: '/sessions',
    help: 'list the sessions of this workspace',
    run: (ctx) => {
      const rows = summarizeAll(listSessionFiles(ctx.agent.sessionsFolder));
      if (rows.length === 0) return ctx.print([ctx.paint.dim('no sessions in this workspace yet')]);
      const current = ctx.agent.session.id;
      ctx.print(
        rows.map((r) => {
          const mark = r.id === current ? '*' : ' ';
          const title = r.name ?? preview(r.firstUserMessage ?? '(empty)', 50);
          return `${mark} ${r.id.slice(0, 8)}  ${r.lastUsed.slice(0, 16).replace('T', ' ')}  ${String(r.entries).padStart(5)} entries  ${clean(title)}`;
        }),
      );
    },
  },
  {
    names: ['resume'],
    arg: 'session',
    usage: '/resume [SESSION]',
    help: "switch to a session (id, prefix or name); alone, a picker of this workspace's sessions",
    run: (ctx, arg) => {
      if (arg === '') return ctx.open(sessionPicker(summarizeAll(listSessionFiles(ctx.agent.sessionsFolder)), ctx.agent.session.id, ctx.run));
      const s = ctx.agent.switchSession({ resume: arg });
      ctx.print([ctx.paint.dim(`resumed session ${s.id}${s.name ? ` (${s.name})` : ''}: ${ctx.agent.messages().length} messages`)]);
      ctx.switched();
    },
  },
  {
    names: ['tree'],
    usage: '/tree [print]',
    help: 'the session tree to move in (* the active path): Enter branches, r branches and restores the files, l labels; /tree print prints it',
    run: (ctx, arg) => {
      if (arg === 'print')
        return ctx.print(
          clean(ctx.agent.session.treeText(Math.max(30, ctx.width - 30)))
            .trimEnd()
            .split('\n'),
        );
      if (arg !== '') throw new CommandError('usage: /tree [print]');
      ctx.open(treePicker(() => ctx.agent.session.tree(), ctx.run));
    },
  },
  {
    names: ['branch'],
    arg: 'entry',
    usage: '/branch ENTRY',
    help: 'continue from an old entry (id, prefix or label): the next prompt starts a branch there',
    run: (ctx, arg) => {
      const id = ctx.agent.session.branch(need(arg, '/branch ENTRY'));
      ctx.print([ctx.paint.dim(`now at entry ${id}; the next prompt continues from there`)]);
    },
  },
  {
    names: ['label'],
    arg: 'entry',
    usage: '/label ENTRY NAME',
    help: 'set a bookmark on an entry',
    run: (ctx, arg) => {
      const [entry, ...rest] = arg.split(/\s+/);
      const name = rest.join(' ').trim();
      if (!entry || !name) throw new CommandError('usage: /label ENTRY NAME');
      ctx.print([ctx.paint.dim(`labelled ${ctx.agent.session.label(entry, name)} as ${name}`)]);
    },
  },
  {
    names: ['fork'],
    arg: 'entry',
    usage: '/fork [ENTRY]',
    help: 'copy the path to ENTRY (default: here) into a new session, and work there',
    run: (ctx, arg) => {
      const entry = arg || ctx.agent.session.tree().leafId;
      if (!entry) throw new CommandError('nothing to fork yet');
      const s = ctx.agent.session.fork(entry);
      ctx.print([ctx.paint.dim(`forked into session ${s.id}`)]);
      ctx.switched();
    },
  },
  {
    names: ['name'],
    arg: 'text',
    usage: '/name TITLE',
    help: 'name the session',
    run: (ctx, arg) => {
      ctx.agent.session.setName(need(arg, '/name TITLE'));
      ctx.print([ctx.paint.dim(`session named ${arg}`)]);
    },
  },
  {
    names: ['compact'],
    arg: 'text',
    usage: '/compact [FOCUS]',
    help: 'summarize the older messages now (the originals stay in the session)',
    run: async (ctx, arg) => {
      // Success and failure both arrive as a compaction_end event, which the conversation prints.
      await ctx.agent.compact(arg ? { focus: arg } : {});
    },
  },
  {
    names: ['uncompact'],
    usage: '/uncompact',
    help: 'undo the latest compaction (the leaf moves back before it)',
    run: (ctx) => ctx.print([ctx.paint.dim(`moved back before the compaction; now at ${ctx.agent.session.uncompact()}`)]),
  },
  {
    names: ['model'],
    arg: 'model',
    usage: '/model [[PROVIDER/]MODEL]',
    help: 'switch model (recorded in the session); alone, a picker that shows which providers have a key',
    run: async (ctx, arg) => {
      if (arg === '') return ctx.open(modelPicker(ctx.agent, ctx.env, ctx.run));
      const spec = arg;
      const slash = spec.indexOf('/');
      const known = slash > 0 && !spec.slice(0, slash).includes(':');
      const m = await ctx.agent.setModel(known ? { provider: spec.slice(0, slash), model: spec.slice(slash + 1) } : { model: spec });
      const note = thinkingNote(ctx.agent.thinking, m.id);
      ctx.print([ctx.paint.dim(`model: ${m.provider}/${m.id}`), ...(note ? [ctx.paint.yellow(`note: ${clean(note)}`)] : [])]);
    },
  },
  {
    names: ['thinking'],
    arg: 'thinking',
    usage: '/thinking [LEVEL]',
    help: 'show or set how much the model reasons: off, low, medium, high (Shift+Tab cycles them)',
    run: (ctx, arg) => {
      if (arg === '') return ctx.print([ctx.paint.dim(`thinking: ${ctx.agent.thinking} (levels: ${THINKING_LEVELS.join(', ')}; Shift+Tab cycles them)`)]);
      if (!isThinkingLevel(arg)) throw new CommandError(`unknown level "${arg}" (levels: ${THINKING_LEVELS.join(', ')})`);
      ctx.print(thinkingLines(ctx.agent.setThinking(arg), ctx.paint, ctx.width));
    },
  },
  {
    names: ['diff'],
    arg: 'entry',
    usage: '/diff [ENTRY]',
    help: 'what the agent changed in the files on this branch (since ENTRY), from the checkpoints, as a unified diff',
    run: async (ctx, arg) => {
      const s = ctx.agent.session;
      if (s.file !== null) return ctx.print(checkpointDiffLines(await s.diff(arg || undefined), arg || undefined, ctx.width, ctx.paint));
      // Kept in memory: no checkpoints, so the edits' own diffs (tool results) stand in for them.
      if (arg !== '') throw new CommandError('this session is kept in memory: without file checkpoints /diff cannot tell the changes since an entry (/diff alone lists the edits)');
      ctx.print(sessionDiffLines(s.branchMessages(), ctx.width, ctx.paint, ctx.agent.toolDescriptions.describe));
    },
  },
  {
    names: ['rewind'],
    arg: 'entry',
    usage: '/rewind [ENTRY]',
    help: 'put the files the agent changed back as they were at ENTRY and continue from there (asks first; files or conversation only); alone, a picker',
    run: (ctx, arg) => rewindCommand(ctx, arg),
  },
  {
    names: ['reasoning'],
    usage: '/reasoning',
    help: "expand or collapse the model's reasoning in the conversation (Ctrl+O)",
    run: (ctx) => ctx.toggleReasoning(),
  },
  {
    names: ['status'],
    usage: '/status',
    help: 'tokens, cost, context use, the files touched and their checkpoints, context files and MCP servers',
    run: async (ctx) => {
      const st = ctx.agent.state();
      const stats = ctx.agent.session.stats();
      const files = ctx.agent.session.filesTouched();
      const checkpoints = await ctx.agent.session.checkpointsSize();
      const u = stats.session.usage;
      ctx.print([
        `model ${st.model.provider}/${st.model.id} · thinking ${ctx.agent.thinking} · session ${st.session.name ?? st.session.id}`,
        `tokens ${u.input} in, ${u.output} out, ${u.cacheRead} cache read, ${u.cacheWrite} cache write (${shareText(u)}) · ${u.costUnknown ? costText(u) : `cost ${costText(u)}`} · ${stats.session.turns} turns, ${stats.session.toolCalls} tool calls`,
        `context ${st.context.tokens ?? '?'} of ${st.context.contextWindow} tokens${st.context.fraction === null ? '' : ` (${Math.round(st.context.fraction * 100)}%)`}`,
        `files read: ${files.readFiles.join(', ') || '(none)'}`,
        `files modified: ${files.modifiedFiles.join(', ') || '(none)'}`,
        `file checkpoints: ${checkpointsText(checkpoints)}`,
        ...ctx.agent
          .showConfig()
          .filter((r) => r.key === 'bash.sandbox' || r.key.startsWith('context file') || r.key.startsWith('mcp server'))
          .map((r) => `${r.key}: ${clean(String(r.value))} ${ctx.paint.dim(`(${r.source})`)}`),
      ]);
    },
  },
  {
    names: ['show-config'],
    usage: '/show-config',
    help: 'the effective configuration and where each value comes from',
    run: (ctx) => {
      const rows = ctx.agent.showConfig();
      const w = Math.max(...rows.map((r) => r.key.length));
      ctx.print(rows.map((r) => `${r.key.padEnd(w)}  ${clean(String(r.value))}  ${ctx.paint.dim(`(${r.source})`)}`));
    },
  },
  {
    names: ['export'],
    arg: 'path',
    usage: '/export FILE',
    help: 'export the session (.md, .html or .jsonl, by the file name)',
    run: async (ctx, arg) => {
      const file = need(arg, '/export FILE');
      const ext = extname(file).slice(1).toLowerCase();
      const format: ExportFormat = ext === 'html' || ext === 'htm' ? 'html' : ext === 'jsonl' ? 'jsonl' : 'md';
      ctx.print([ctx.paint.dim(`exported to ${await ctx.agent.session.export(format, file)}`)]);
    },
  },
  {
    names: ['cancel'],
    arg: 'text',
    usage: '/cancel [N|ID|all]',
    help: 'cancel a queued steer or follow-up (N as shown under the input, or its id; default: the last)',
    run: (ctx, arg) => {
      const queue = ctx.agent.queue();
      if (queue.length === 0) throw new CommandError('nothing is queued');
      const chosen = arg === 'all' ? queue : arg === '' ? [queue[queue.length - 1]] : /^\d+$/.test(arg) && Number(arg) >= 1 && Number(arg) <= queue.length ? [queue[Number(arg) - 1]] : queue.filter((i) => i.id.startsWith(arg));
      if (chosen.length === 0) throw new CommandError(`no queued message ${arg}: the queue holds 1 to ${queue.length}`);
      if (chosen.length > 1 && arg !== 'all') throw new CommandError(`${arg} names ${chosen.length} queued messages; give more of the id`);
      const done = chosen.filter((i) => ctx.agent.cancel(i.id));
      ctx.print(done.map((i) => ctx.paint.dim(`cancelled the ${i.kind === 'steer' ? 'steer' : 'follow-up'}: ${clean(preview(i.text, 60))}`)));
      if (done.length < chosen.length) ctx.print([ctx.paint.dim('(the rest was delivered before it could be cancelled)')]);
    },
  },
  {
    names: ['trace'],
    usage: '/trace',
    help: 'a readable account of the last run',
    run: (ctx) => {
      const events = ctx.lastRun();
      if (events.length === 0) throw new CommandError('no run yet in this session');
      ctx.print(
        clean(formatTrace(events, { width: Math.max(40, ctx.width - 4) }))
          .trimEnd()
          .split('\n'),
      );
    },
  },
];

const BY_NAME = new Map(COMMANDS.flatMap((c) => c.names.map((n) => [n, c] as const)));
export const COMMAND_NAMES = COMMANDS.flatMap((c) => c.names);

/** The commands for the `/` menu and Tab: each name (aliases too), its one-line help, and what its argument names. */
export const COMMAND_LIST: readonly { name: string; help: string; arg?: ArgKind }[] = COMMANDS.flatMap((c) => c.names.map((name) => ({ name, help: c.help, ...(c.arg ? { arg: c.arg } : {}) })));

/** True for a line the front end must treat as a command (it never goes to the model). */
export function isCommand(line: string): boolean {
  return /^\/[A-Za-z]/.test(line.trimStart());
}

/** Runs a command line; a mistake is printed (in red), never thrown. */
export async function runCommand(line: string, ctx: CommandContext): Promise<void> {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(line.trim());
  const name = (m?.[1] ?? '').toLowerCase();
  const arg = (m?.[2] ?? '').trim();
  const command = BY_NAME.get(name);
  if (!command) {
    const guess = nearest(name, [...COMMAND_NAMES, ...ctx.agent.promptTemplates.map((t) => t.name), ...ctx.agent.skills.map((s) => `skill:${s.name}`)]);
    ctx.print(wrapText(`unknown command /${name}${guess ? `; did you mean /${guess}?` : ''} (/help lists them; nothing was sent to the model)`, ctx.width, { indent: '  ', style: ctx.paint.red }));
    return;
  }
  try {
    await command.run(ctx, arg);
  } catch (err) {
    ctx.print(wrapText(`/${name}: ${(err as Error)?.message ?? String(err)}`, ctx.width, { indent: '  ', style: ctx.paint.red }));
  }
}

export function helpLines(p: Paint): string[] {
  const w = Math.max(...COMMANDS.map((c) => c.usage.length));
  return [
    p.bold('Commands'),
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(w)}  ${c.help}${c.names.length > 1 ? p.dim(` (also /${c.names.slice(1).join(', /')})`) : ''}`),
    '',
    p.bold('Keys'),
    '  Enter            send (while a run is going: a steer, delivered after the current tools)',
    '  >> text          a follow-up: delivered when the run would otherwise end',
    '  Alt+Enter, \\     a new line (a trailing backslash continues the message)',
    '  Up / Down        history',
    '  @                pick a file (fuzzy, as you type); its content goes with the message',
    '  Tab              complete a command, its argument or a path; / alone lists the commands',
    '  Esc              stop the run, as Ctrl+C does (its queued messages come back to the editor)',
    '  !command         run a shell command through the bash tool; its output joins the conversation',
    '  Ctrl+R           search the history (again: older; Enter takes it, Esc gives the input back)',
    '  Ctrl+G           edit the input in $VISUAL or $EDITOR',
    '  Ctrl+L           clear the screen, as in a shell (what was printed stays in the scrollback)',
    '  Shift+Tab        the next thinking level: off, low, medium, high (from the next request)',
    "  Ctrl+O           expand or collapse the model's reasoning or a tool's output, whichever came last (printed again below)",
    '  Ctrl+C           stop the run; on an empty line, press twice to leave',
    '  Ctrl+D           leave (on an empty line)',
  ];
}

/** The session's cache-hit share for /status: "83% cache hits", or "no cache hits yet". */
function shareText(u: Usage): string {
  const share = cacheHitShare(u);
  return share === null || u.cacheRead === 0 ? 'no cache hits yet' : `${Math.round(share * 100)}% cache hits`;
}
