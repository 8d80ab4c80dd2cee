// /rewind in the interactive mode (issue 26 §2): put the files the agent changed back as they were
// at an entry and continue the conversation from there. Alone, a picker of the active branch's
// prompts and answers (newest first); then the plan (rewind-text.ts, as `mini-agent rewind` prints
// it) and a choice: files and conversation (the default), files only, conversation only. A file
// changed outside the agent since its last change is overwritten only after a second, explicit
// key (o: the --force of the CLI). Each step runs a command line, as the other pickers do:
// `/rewind ID`, then `/rewind ID --yes [--files-only | --conversation-only] [--force]`, which the
// user may type too. Nothing runs while a run is in progress.
import type { Agent } from '../app/agent.js';
import { rewindPlanLines, shownPath } from '../app/rewind-text.js';
import { preview } from '../core/types.js';
import type { TreeJson } from '../session/tree-json.js';
import type { Key } from './keys.js';
import { Picker, wrapped, type Overlay, type PickerFrame, type PickerItem } from './picker.js';
import { commandPicker, type RunLine } from './pickers.js';
import { clean, cut, type Paint } from './view.js';

/** What /rewind needs of the command context (commands.ts). */
export interface RewindHost {
  agent: Agent;
  paint: Paint;
  print(lines: readonly string[]): void;
  open(overlay: Overlay): void;
  run: RunLine;
  /** The leaf moved: the conversation shows where it is now. */
  switched(): void;
}

const FLAGS = ['--yes', '--files-only', '--conversation-only', '--force'] as const;
type Flag = (typeof FLAGS)[number];

export class RewindUsage extends Error {}

/** `/rewind [ENTRY] [--yes] [--files-only | --conversation-only] [--force]`: the words that are not flags name the entry (a label may hold spaces). */
export function parseRewindArg(arg: string): { entry: string; flags: Set<Flag> } {
  const words = arg.split(/\s+/).filter(Boolean);
  const flags = new Set<Flag>();
  for (const w of words.filter((x) => x.startsWith('--'))) {
    if (!(FLAGS as readonly string[]).includes(w)) throw new RewindUsage(`unknown flag ${w}: usage: /rewind [ENTRY] [--files-only | --conversation-only] [--force] [--yes]`);
    flags.add(w as Flag);
  }
  if (flags.has('--files-only') && flags.has('--conversation-only')) throw new RewindUsage('--files-only and --conversation-only cannot be combined: give one, or neither for both');
  return { entry: words.filter((x) => !x.startsWith('--')).join(' '), flags };
}

export async function rewindCommand(host: RewindHost, arg: string): Promise<void> {
  const { agent, paint: p } = host;
  if (agent.running) throw new RewindUsage('a run is in progress: rewind when it has settled (Esc stops it)');
  const session = agent.session;
  if (session.file === null) throw new RewindUsage('this session is kept in memory (--no-session): it has no file checkpoints to rewind to');
  const { entry, flags } = parseRewindArg(arg);
  if (entry === '') {
    if (flags.size > 0) throw new RewindUsage('usage: /rewind ENTRY [--files-only | --conversation-only] [--force] [--yes]');
    const items = rewindItems(session.tree());
    if (items.length === 0) throw new RewindUsage('nothing to rewind to yet: this branch has no prompt');
    const picker = new Picker(items, { title: 'Rewind to an entry of this branch (newest first)', hint: 'type to filter · ↑↓ PgUp PgDn move · Enter: see what a rewind there does · Esc cancel' });
    return host.open(commandPicker(picker, (i) => `/rewind ${i.id}`, host.run));
  }
  const opts = { filesOnly: flags.has('--files-only'), conversationOnly: flags.has('--conversation-only'), force: flags.has('--force') };
  if (!flags.has('--yes')) {
    // The whole plan, whatever was given: the flags only choose where the choice starts (and --force skips the o).
    const { entryId, plan } = await session.rewind(entry, { dryRun: true });
    const e = session.tree().entries.find((x) => x.id === entryId);
    const about = e ? `${e.kind} ${entryId}: ${clean(preview(e.preview, 60))}` : entryId;
    const outside = opts.force ? [] : plan.changedOutside.map((path) => shownPath(agent.cwd, path));
    const confirm = new RewindConfirm(entryId, about, rewindPlanLines(plan, entryId, agent.cwd), outside, host.run, opts.filesOnly ? 1 : opts.conversationOnly ? 2 : 0);
    return host.open(opts.force ? confirm.forcing() : confirm);
  }
  const done = await session.rewind(entry, opts);
  const files = done.restored.map((path) => shownPath(agent.cwd, path));
  const restored = opts.conversationOnly ? 'the files stay as they are' : files.length === 0 ? 'no file needed restoring' : `${files.length} file${files.length === 1 ? '' : 's'} restored (${files.join(', ')})`;
  host.print([p.dim(`rewound to ${done.entryId}: ${restored}${done.moved ? '; the conversation continues from there' : '; the conversation stays where it is'}`)]);
  if (done.moved) host.switched();
}

export interface RewindItem extends PickerItem {
  id: string;
}

/** The active branch's prompts and answers (and labelled entries), newest first: where a rewind makes sense. */
export function rewindItems(tree: TreeJson): RewindItem[] {
  const byId = new Map(tree.entries.map((e) => [e.id, e]));
  const items: RewindItem[] = [];
  for (let e = tree.leafId === null ? undefined : byId.get(tree.leafId); e; e = e.parentId === null ? undefined : byId.get(e.parentId)) {
    const answer = e.kind === 'assistant' && !e.preview.startsWith('→');
    if (e.kind !== 'user' && !answer && !e.label) continue;
    const who = e.kind === 'user' ? 'you' : e.kind === 'assistant' ? 'answer' : e.kind;
    const tags = [e.id === tree.leafId ? 'here now' : '', e.label ? `label: ${clean(e.label)}` : ''].filter(Boolean);
    items.push({ id: e.id, title: `${who}: ${clean(preview(e.preview, 200))}`, detail: [e.id, e.timestamp.slice(0, 16).replace('T', '\u00a0'), ...tags].join(' · '), search: `${e.id} ${e.label ?? ''}` });
  }
  return items;
}

const CHOICES = [
  { key: 'b', title: 'Files and conversation', detail: 'restore the files and continue from here', flag: '' },
  { key: 'f', title: 'Files only', detail: 'the conversation stays where it is', flag: ' --files-only' },
  { key: 'c', title: 'Conversation only', detail: 'the files stay as they are', flag: ' --conversation-only' },
] as const;

/** The plan, then the choice; then, for files changed outside the agent, the explicit overwrite. */
export class RewindConfirm implements Overlay {
  /** Set when the chosen rewind would overwrite files changed outside the agent: o confirms. */
  private overwriting: (typeof CHOICES)[number] | undefined;
  /** /rewind ENTRY --force: the files changed outside the agent are overwritten without the second question. */
  private force = false;

  constructor(
    private readonly entryId: string,
    private readonly about: string,
    private readonly plan: readonly string[],
    private readonly outside: readonly string[],
    private readonly run: RunLine,
    /** The choice selected first (0 both, 1 files only, 2 conversation only). */
    private selected = 0,
  ) {}

  /** The same, overwriting without asking again (the user gave --force). */
  forcing(): this {
    this.force = true;
    return this;
  }

  key(key: Key): 'close' | undefined {
    const text = key.name === 'text' ? key.text.toLowerCase() : undefined;
    if (key.name === 'escape' || (key.name !== 'text' && key.name !== 'paste' && key.ctrl && key.name === 'c')) {
      if (!this.overwriting) return 'close';
      this.overwriting = undefined; // back to the choice
      return undefined;
    }
    if (this.overwriting) {
      if (text === 'o') return this.go(this.overwriting, true);
      if (text === 'n') return 'close';
      return undefined;
    }
    if (key.name === 'up' || key.name === 'down') this.selected = (this.selected + (key.name === 'up' ? CHOICES.length - 1 : 1)) % CHOICES.length;
    const byKey = CHOICES.find((c) => c.key === text);
    if (key.name === 'enter' || byKey) {
      const choice = byKey ?? CHOICES[this.selected];
      if (choice.key !== 'c' && this.outside.length > 0) {
        this.overwriting = choice;
        return undefined;
      }
      return this.go(choice, this.force && choice.key !== 'c');
    }
    return undefined;
  }

  private go(choice: (typeof CHOICES)[number], force: boolean): 'close' {
    void this.run(`/rewind ${this.entryId} --yes${choice.flag}${force ? ' --force' : ''}`);
    return 'close';
  }

  frame(width: number, room: number, p: Paint): PickerFrame {
    const head = [p.bold(cut(`Rewind to ${this.about}`, width - 1))];
    const tail = this.overwriting ? this.overwriteLines(width, p) : this.choiceLines(width, p);
    const planRoom = Math.max(2, room - head.length - tail.length);
    const plan = this.plan.map((l) => `  ${cut(l, width - 3)}`);
    const shown = plan.length <= planRoom ? plan : [...plan.slice(0, planRoom - 1), `  … and ${plan.length - planRoom + 1} more`];
    return { lines: [...head, ...shown.map((l) => (l.includes('(changed outside the agent since)') ? p.yellow(l) : l)), ...tail] };
  }

  private choiceLines(width: number, p: Paint): string[] {
    const rows = CHOICES.map((c, i) => {
      const on = i === this.selected;
      const row = cut(`[${c.key}] ${c.title}: ${c.detail}`, width - 3);
      return (on ? p.cyan('❯ ') : '  ') + (on ? p.bold(row) : row);
    });
    const note = this.outside.length > 0 ? wrapped(`${this.outside.join(', ')} changed outside the agent since its last change: rewinding the files asks once more before overwriting`, width, p.yellow) : [];
    return [...note, ...rows, ...wrapped('↑↓ or b f c choose · Enter rewind · Esc cancel (nothing is changed)', width, p.dim)];
  }

  private overwriteLines(width: number, p: Paint): string[] {
    const [it, its] = this.outside.length === 1 ? ['it', 'its'] : ['them', 'their'];
    const what = `${this.outside.join(', ')} changed outside the agent since its last change. Overwrite ${it} with ${its} state at ${this.entryId}? (The changes made outside the agent are kept at the entry you leave: a rewind back there brings them back.)`;
    return [...wrapped(what, width, p.yellow), ...wrapped('o overwrite · n cancel (nothing is changed) · Esc back', width, p.bold)];
  }
}
