// Ctrl+G (issue 24 §4): the input opened in the user's editor ($VISUAL, else $EDITOR, else vi) on
// a temporary file only the user can read (0600, in a 0700 folder), read back when the editor
// exits. The terminal is handed over meanwhile: raw mode and bracketed paste off, then on again.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Paint } from './view.js';
import { wrapText } from './wrap.js';

export interface EditorRun {
  /** The edited text (one final line break dropped), or undefined when the editor failed. */
  text?: string;
  error?: string;
}

/** Runs the editor on `text`; `io` is the terminal handed over (stdin in raw mode, stdout). */
export function editExternally(text: string, env: NodeJS.ProcessEnv, io: { input: NodeJS.ReadStream; output: NodeJS.WriteStream } = { input: process.stdin, output: process.stdout }): EditorRun {
  const editor = (env.VISUAL || env.EDITOR || 'vi').trim();
  const dir = mkdtempSync(join(tmpdir(), 'mini-agent-edit-'));
  const file = join(dir, 'message.md');
  const raw = io.input.isTTY === true && io.input.isRaw === true;
  try {
    writeFileSync(file, text, { mode: 0o600 });
    io.output.write('\x1b[?2004l\x1b[?25h');
    if (raw) io.input.setRawMode(false);
    // Through the shell, as git does: EDITOR may hold arguments ("code --wait").
    const r = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit', env });
    if (r.error) return { error: `the editor (${editor}) could not start: ${r.error.message}` };
    if (r.status !== 0) return { error: `the editor (${editor}) exited with ${r.status ?? r.signal}; the input is unchanged` };
    return { text: readFileSync(file, 'utf8').replace(/\r?\n$/, '') };
  } finally {
    if (raw) io.input.setRawMode(true);
    io.output.write('\x1b[?2004h');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Ctrl+G: the input replaced by what the editor saved; the lines to print (an error, or none). */
export function editInput(input: { text: string; setText(text: string): void }, env: NodeJS.ProcessEnv, width: number, p: Paint): string[] {
  const r = editExternally(input.text, env);
  if (r.text === undefined) return wrapText(r.error ?? 'the editor failed', width, { indent: '  ', style: p.red });
  input.setText(r.text);
  return [];
}
