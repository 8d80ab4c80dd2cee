// Pointing at things from the interactive editor (issue 24 §2): the `@` file picker, the `/`
// command menu and Tab completion. It watches the editor (the text before the cursor decides what
// is open), takes the keys it needs (arrows, Enter, Tab, Esc while a list is open; Tab always),
// and gives the lines drawn in the live region below the input. Nothing is drawn above the live
// region: a list closes by leaving the live region shorter.
import type { Agent } from '../app/agent.js';
import { knownModelIds, PROVIDERS } from '../model/models.js';
import { THINKING_LEVELS } from '../model/thinking.js';
import { listSessionFiles, summarizeAll } from '../session/catalog.js';
import { COMMAND_LIST, type ArgKind } from './commands.js';
import { commonPrefix, completeAt, pathCandidates, type CompletionSources } from './completion.js';
import type { LineEditor } from './editor.js';
import { listLines, rankPaths, workspaceFiles } from './file-picker.js';
import type { Key } from './keys.js';
import { clean, type Paint } from './view.js';

/** What is open below the input. */
type Open = { kind: 'files'; query: string; items: string[] } | { kind: 'commands'; query: string; items: { name: string; help: string; arg?: ArgKind }[] };

export class Pointing {
  private selected = 0;
  /** Where the `@` or `/` token whose list Esc closed starts (the text before it), and how long it was: it stays closed while that token is typed on, and opens again when it is erased to shorter. */
  private dismissed: { start: string; length: number } | undefined;
  /** The workspace's files, listed when the picker opens, dropped when it closes; and the last query's ranking (each frame draws it again). */
  private files: string[] | undefined;
  private ranked: { query: string; items: string[] } | undefined;
  /** The candidates of an ambiguous Tab, shown until the next key. */
  private tabList: string[] = [];
  private lastOpen: string | undefined;
  /** The text before the cursor when an arrow last moved through the command menu: Enter takes the highlighted command only then (else it sends what was typed, as before the menu). */
  private movedAt: string | undefined;

  constructor(private readonly agent: Agent) {}

  /** Takes a key before the editor does; true when it was used here (the editor must not see it). */
  key(key: Key, editor: LineEditor): boolean {
    this.tabList = [];
    const plain = key.name !== 'text' && key.name !== 'paste' && !key.ctrl && !key.alt && !key.shift;
    const open = this.open(editor);
    if (open && plain) {
      if (key.name === 'up' || key.name === 'down') {
        const n = open.items.length;
        if (n > 0) this.selected = (this.selected + (key.name === 'up' ? n - 1 : 1)) % n;
        this.movedAt = editor.beforeCursor();
        return true;
      }
      if (key.name === 'escape') {
        const start = this.tokenStart(editor);
        if (start !== undefined) this.dismissed = { start, length: editor.beforeCursor().length - start.length };
        return true;
      }
      if (key.name === 'tab' || key.name === 'enter') return this.choose(open, editor, key.name === 'enter');
    }
    if (key.name === 'tab' && !key.shift && !key.ctrl && !key.alt) {
      this.tab(editor);
      return true;
    }
    return false;
  }

  /** The lines below the input: the open list, or the candidates of an ambiguous Tab. */
  lines(editor: LineEditor, width: number, p: Paint): string[] {
    const open = this.open(editor);
    if (!open) {
      if (this.tabList.length === 0) return [];
      const shown = clean(this.tabList.slice(0, 12).join('  ') + (this.tabList.length > 12 ? `  … ${this.tabList.length - 12} more` : ''));
      return wrapPlain(shown, width).map((l) => p.dim(l));
    }
    if (this.selected >= open.items.length) this.selected = 0;
    if (open.kind === 'files')
      return listLines(
        open.items.map((f) => ({ label: clean(f) })),
        this.selected,
        width,
        p,
        undefined,
        `no file matches "${clean(open.query)}"`,
      );
    return listLines(
      open.items.map((c) => ({ label: '/' + c.name, note: clean(c.help) })),
      this.selected,
      width,
      p,
      undefined,
      'no command matches',
      'Tab complete · ↑↓ move, then Enter · Esc close',
    );
  }

  /** The list open for the editor's state, if any. */
  private open(editor: LineEditor): Open | undefined {
    const before = editor.beforeCursor();
    const at = /(?:^|\s)@(\S*)$/.exec(before);
    const slash = editor.text === before && /^\/(\S*)$/.exec(before);
    const start = this.tokenStart(editor);
    if (this.dismissed && (start !== this.dismissed.start || before.length - start.length < this.dismissed.length)) this.dismissed = undefined;
    const key = at ? `@${start}` : slash ? '/' : undefined;
    if (key !== this.lastOpen) this.selected = 0;
    this.lastOpen = key;
    if (this.dismissed) return undefined;
    if (at) {
      this.files ??= workspaceFiles(this.agent.cwd, this.agent.config.allowPaths, this.agent.config.permissions.deny);
      if (this.ranked?.query !== at[1]) this.ranked = { query: at[1], items: rankPaths(this.files, at[1]).slice(0, 200) };
      return { kind: 'files', query: at[1], items: this.ranked.items };
    }
    this.files = this.ranked = undefined;
    if (slash) {
      const q = slash[1].toLowerCase();
      const all = this.commands();
      const items = [...all.filter((c) => c.name.toLowerCase().startsWith(q)), ...all.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q))];
      return { kind: 'commands', query: slash[1], items };
    }
    return undefined;
  }

  /** Where the `@` or `/` token before the cursor starts: the text before it (undefined: none). */
  private tokenStart(editor: LineEditor): string | undefined {
    const before = editor.beforeCursor();
    const m = /(?:^|\s)([@/]\S*)$/.exec(before);
    return m ? before.slice(0, before.length - m[1].length) : undefined;
  }

  /**
   * Enter or Tab on an open list: the chosen path or command goes in. In the command menu, Enter
   * takes the highlighted command only after an arrow moved to it, and runs it when it needs
   * nothing more (returns false: the editor submits); else the typed line is sent as it is.
   */
  private choose(open: Open, editor: LineEditor, enter: boolean): boolean {
    if (open.kind === 'files') {
      const path = open.items[this.selected];
      if (path === undefined) return !enter;
      editor.completeWith(open.query.length + 1, `@${path}${path.endsWith('/') ? '' : ' '}`);
      return true;
    }
    const c = open.items[this.selected];
    if (c === undefined || (enter && this.movedAt !== editor.beforeCursor())) return !enter; // Enter without a move: the typed line goes as it is
    if (enter && (c.name.toLowerCase() === open.query.toLowerCase() || !c.arg)) {
      editor.completeWith(open.query.length + 1, `/${c.name}`);
      return false;
    }
    editor.completeWith(open.query.length + 1, `/${c.name}${c.arg ? ' ' : ''}`);
    return true;
  }

  private tab(editor: LineEditor): void {
    const done = completeAt(editor.beforeCursor(), this.sources());
    if (!done) return;
    if (done.candidates.length === 1) {
      const only = done.candidates[0];
      const spaced = only.endsWith('/') ? only : only + ' ';
      editor.completeWith(done.replace, spaced);
      return;
    }
    const prefix = commonPrefix(done.candidates);
    if (prefix.length > done.replace) editor.completeWith(done.replace, prefix);
    this.tabList = done.candidates;
  }

  private commands(): { name: string; help: string; arg?: ArgKind }[] {
    return [
      ...COMMAND_LIST,
      ...this.agent.promptTemplates.map((t) => ({ name: t.name, help: `${t.description} (template)`, arg: 'text' as const })),
      ...this.agent.skills.map((s) => ({ name: `skill:${s.name}`, help: `${s.description} (skill)`, arg: 'text' as const })),
    ];
  }

  private sources(): CompletionSources {
    return {
      commands: this.commands(),
      paths: (prefix) => pathCandidates(this.agent.cwd, prefix),
      values: (kind) => {
        if (kind === 'thinking') return THINKING_LEVELS;
        if (kind === 'model') return [...Object.entries(PROVIDERS).map(([name, p]) => `${name}/${p.defaultModel}`), ...knownModelIds(), this.agent.model.id];
        if (kind === 'session') {
          const rows = summarizeAll(listSessionFiles(this.agent.sessionsFolder));
          return rows.flatMap((r) => (r.name ? [r.name, r.id] : [r.id]));
        }
        if (kind === 'entry') return this.agent.session.tree().entries.flatMap((e) => (e.label ? [e.label] : []));
        return [];
      },
    };
  }
}

/** A plain line wrapped to the width (at most three rows). */
function wrapPlain(line: string, width: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < line.length && out.length < 3; i += Math.max(1, width)) out.push(line.slice(i, i + width));
  return out;
}
