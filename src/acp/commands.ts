// The slash commands ACP mode offers editors (issue 26): `/diff [ENTRY]` and `/rewind [ENTRY]`,
// over the file checkpoints, advertised by an `available_commands_update` (ACP v1 needs no client
// capability for it; a client that does not know it ignores it). A prompt that is one of them never
// goes to the model and appends nothing to the session: it is answered with agent messages, and a
// rewind asks first through `session/request_permission`, about a tool call of its own that
// carries the files it would restore. ACP has no way to tell a client to replace the history it
// shows, so after the conversation moved the message says so, and a session/load (the editor
// reopening the thread) replays the branch as it now is. No error of a command is a protocol
// error: each becomes a message.
import { randomUUID } from 'node:crypto';
import type { AvailableCommand, ContentBlock, PermissionOption, RequestPermissionOutcome, SessionUpdate, StopReason, ToolCall, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { rewindPlanLines, shownPath } from '../app/rewind-text.js';
import type { Agent } from '../app/types.js';
import { preview } from '../core/types.js';
import type { RewindOptions } from '../session/file-rewind.js';
import { fence } from './updates.js';

export const AVAILABLE_COMMANDS: readonly AvailableCommand[] = [
  {
    name: 'diff',
    description: 'What the agent changed in the files on this branch (since ENTRY when given), from the file checkpoints, as a unified diff',
    input: { hint: 'ENTRY (id, prefix or label; optional)' },
  },
  {
    name: 'rewind',
    description: 'Put the files the agent changed back as they were at ENTRY and continue the conversation from there (shows the plan and asks first); alone, lists the prompts to go back to',
    input: { hint: 'ENTRY (id, prefix or label) [--files-only | --conversation-only]' },
  },
];

export function commandsUpdate(): SessionUpdate {
  return { sessionUpdate: 'available_commands_update', availableCommands: AVAILABLE_COMMANDS.map((c) => ({ ...c })) };
}

export type CommandName = 'diff' | 'rewind';

/** A prompt whose first block is `/diff …` or `/rewind …`: the command and the rest of its text; undefined for anything else (it goes to the model). */
export function parseCommand(blocks: readonly ContentBlock[]): { name: CommandName; arg: string } | undefined {
  const first = blocks[0];
  if (first?.type !== 'text') return undefined;
  const m = /^\s*\/(diff|rewind)(?:\s+([\s\S]*))?$/.exec(first.text);
  return m ? { name: m[1] as CommandName, arg: (m[2] ?? '').trim() } : undefined;
}

/** What a command needs of its ACP session. */
export interface CommandHost {
  readonly agent: Agent;
  readonly cwd: string;
  /** The client offered its file system: the tools write through it and take no checkpoints (tools/registry.ts). */
  readonly clientOwnsFiles: boolean;
  send(update: SessionUpdate): void;
  /** session/request_permission about `toolCall`. */
  ask(toolCall: ToolCallUpdate, options: PermissionOption[], signal: AbortSignal): Promise<RequestPermissionOutcome>;
}

/** A diff longer than this is cut (the editor holds the whole message); `mini-agent diff` shows all of it. */
const MAX_DIFF_CHARS = 200_000;

/** Runs a command; every outcome, failures included, is a message. */
export async function runCommand(host: CommandHost, name: CommandName, arg: string, signal: AbortSignal): Promise<StopReason> {
  const say = (text: string) => host.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  try {
    const refusal = unavailable(host, name);
    if (refusal) {
      say(refusal);
      return 'end_turn';
    }
    if (name === 'diff') {
      say(await diffText(host, arg));
      return 'end_turn';
    }
    return await rewind(host, arg, say, signal);
  } catch (err) {
    say(`/${name}: ${(err as Error)?.message ?? String(err)}`);
    return 'end_turn';
  }
}

/** Why the command cannot work in this session, if it cannot. */
function unavailable(host: CommandHost, name: CommandName): string | undefined {
  const session = host.agent.session;
  if (session.file === null) return `/${name}: this session is kept in memory (--no-session): it has no file checkpoints, so there is nothing to ${name === 'diff' ? 'show' : 'rewind to'}.`;
  if (host.clientOwnsFiles) {
    return (
      `/${name}: the editor owns the files in this session (it offered its file system to the agent), so the agent's edits go through the editor and mini-agent takes no file checkpoints: ` +
      `/diff cannot show those changes and /rewind cannot restore them. Use the editor's undo or your version control; ` +
      `checkpoints taken outside the editor are seen by \`mini-agent diff ${session.id}\` in a terminal.`
    );
  }
  return undefined;
}

async function diffText(host: CommandHost, arg: string): Promise<string> {
  const session = host.agent.session;
  const since = arg === '' ? undefined : arg;
  const text = await session.diff(since);
  const when = since === undefined ? 'in this session' : `since ${since} on this branch`;
  if (text === '') return `No files changed ${since === undefined ? 'in this session yet' : when} (from the file checkpoints).`;
  const files = text.split('\n').filter((l) => l.startsWith('--- ')).length;
  const cut = text.length > MAX_DIFF_CHARS;
  const shown = cut ? text.slice(0, text.lastIndexOf('\n', MAX_DIFF_CHARS) + 1) : text;
  const more = cut ? `\n\nThe diff is cut at ${MAX_DIFF_CHARS} characters: \`mini-agent diff ${session.id}${since ? ` ${since}` : ''}\` shows all of it.` : '';
  return `${files} file${files === 1 ? '' : 's'} changed ${when}:\n\n${fence(shown, 'diff')}${more}`;
}

const FLAGS = ['--files-only', '--conversation-only'] as const;
const USAGE = 'usage: /rewind ENTRY [--files-only | --conversation-only]';

async function rewind(host: CommandHost, arg: string, say: (text: string) => void, signal: AbortSignal): Promise<StopReason> {
  const { agent, cwd } = host;
  const session = agent.session;
  if (agent.running) {
    say('/rewind: a run is in progress: rewind when it has settled (or stop it first). Nothing was changed.');
    return 'end_turn';
  }
  const words = arg.split(/\s+/).filter(Boolean);
  const unknown = words.find((w) => w.startsWith('--') && !(FLAGS as readonly string[]).includes(w));
  if (unknown) throw new Error(`unknown flag ${unknown}: ${USAGE}`);
  const opts: RewindOptions = { filesOnly: words.includes('--files-only'), conversationOnly: words.includes('--conversation-only') };
  if (opts.filesOnly && opts.conversationOnly) throw new Error('--files-only and --conversation-only cannot be combined: give one, or neither for both');
  const entry = words.filter((w) => !w.startsWith('--')).join(' '); // a label may hold spaces
  if (entry === '') {
    if (opts.filesOnly || opts.conversationOnly) throw new Error(USAGE);
    say(promptList(agent));
    return 'end_turn';
  }

  const { entryId, plan } = await session.rewind(entry, { ...opts, dryRun: true });
  const tree = session.tree();
  const target = tree.entries.find((e) => e.id === entryId);
  const moves = !opts.filesOnly && tree.leafId !== entryId;
  const outside = plan.changedOutside.map((p) => shownPath(cwd, p));
  const lines = [
    ...(opts.conversationOnly ? ['the files stay as they are'] : rewindPlanLines(plan, entryId, cwd)),
    opts.filesOnly ? 'the conversation stays where it is' : moves ? `the conversation continues from ${entryId}` : `the conversation is already at ${entryId}`,
  ];
  const about = target ? `${target.kind} ${entryId}: ${preview(target.preview, 80)}` : entryId;
  say(`Rewind to ${about}\n\n${lines.map((l) => `- ${l}`).join('\n')}\n`);
  if (plan.restore.length === 0 && !moves) {
    say('\nNothing to do: nothing was changed.');
    return 'end_turn';
  }

  const toolCallId = `rewind-${randomUUID()}`;
  const files = opts.conversationOnly ? [] : plan.restore.map((c) => c.path);
  const warning =
    outside.length > 0
      ? `${outside.join(', ')} changed outside the agent since its last change: rewinding the files overwrites ${outside.length === 1 ? 'it' : 'them'}; what was changed outside the agent is kept at the entry left, and a rewind back there brings it back.`
      : undefined;
  const call: ToolCall = {
    toolCallId,
    title: `Rewind to ${entryId}`,
    kind: files.length > 0 ? 'edit' : 'other',
    status: 'pending',
    locations: files.map((path) => ({ path })),
    rawInput: { entry, ...opts },
    ...(warning ? { content: [{ type: 'content', content: { type: 'text', text: warning } }] } : {}),
  };
  host.send({ sessionUpdate: 'tool_call', ...call });
  const outcome = await host.ask(call, rewindOptions(outside, opts), signal).catch((): RequestPermissionOutcome => ({ outcome: 'cancelled' })); // withdrawn (session/cancel), or the client went away
  const choice = outcome.outcome === 'selected' ? outcome.optionId : 'cancelled';
  const end = (status: 'completed' | 'failed', text: string) => {
    host.send({ sessionUpdate: 'tool_call_update', toolCallId, status, content: [{ type: 'content', content: { type: 'text', text } }] });
    say(`\n${text}`);
  };
  if (choice !== 'rewind' && choice !== 'force' && choice !== 'conversation') {
    end('failed', 'Not rewound: nothing was changed.');
    return choice === 'cancelled' ? 'cancelled' : 'end_turn';
  }
  let done;
  try {
    done = await session.rewind(entryId, choice === 'conversation' ? { conversationOnly: true } : { ...opts, force: choice === 'force' });
  } catch (err) {
    end('failed', `Not rewound: ${(err as Error)?.message ?? String(err)}`);
    return 'end_turn';
  }
  const restored = done.restored.map((p) => shownPath(cwd, p));
  const filesText = choice === 'conversation' || opts.conversationOnly ? 'the files stay as they are' : restored.length === 0 ? 'no file needed restoring' : `restored ${restored.join(', ')}`;
  const conversation = done.moved
    ? `The conversation continues from ${entryId}: the model no longer sees what came after it. The editor cannot be told to drop the later messages it shows; reopen this session to see the conversation as it now is.`
    : 'The conversation stays where it is.';
  end('completed', `Rewound to ${entryId}: ${filesText}. ${conversation} Rewinding to the entry that was left undoes this.`);
  return 'end_turn';
}

/** The choices: rewind or cancel; with files changed outside the agent, overwriting them (the --force) is its own option, named for what it loses. */
function rewindOptions(outside: readonly string[], opts: RewindOptions): PermissionOption[] {
  const cancel: PermissionOption = { optionId: 'cancel', name: 'Cancel', kind: 'reject_once' };
  if (outside.length === 0 || opts.conversationOnly) return [{ optionId: 'rewind', name: 'Rewind', kind: 'allow_once' }, cancel];
  return [
    { optionId: 'force', name: `Rewind and overwrite ${outside.join(', ')} (the changes made outside the agent are kept at the entry left)`, kind: 'allow_once' },
    ...(opts.filesOnly ? [] : [{ optionId: 'conversation', name: 'Move the conversation only (the files stay as they are)', kind: 'allow_once' } as const]),
    cancel,
  ];
}

/** `/rewind` alone: the active branch's prompts, newest first, with their ids. */
function promptList(agent: Agent): string {
  const tree = agent.session.tree();
  const byId = new Map(tree.entries.map((e) => [e.id, e]));
  const rows: string[] = [];
  for (let e = tree.leafId === null ? undefined : byId.get(tree.leafId); e && rows.length < 20; e = e.parentId === null ? undefined : byId.get(e.parentId)) {
    if (e.kind !== 'user') continue;
    const label = e.label ? ` (label: ${e.label})` : '';
    rows.push(`- \`${e.id}\` ${e.timestamp.slice(0, 16).replace('T', ' ')}${label}: ${preview(e.preview, 80)}`);
  }
  if (rows.length === 0) return '/rewind: nothing to rewind to yet: this branch has no prompt.';
  return `The prompts of this branch, newest first. \`/rewind ID\` shows what going back to one does (its files as they were before the agent answered it) and asks first:\n\n${rows.join('\n')}`;
}
