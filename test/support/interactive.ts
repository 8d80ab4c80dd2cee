// Starting the CLI's interactive mode in tmux on a scripted model, for the terminal tests.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { ScriptTurn } from '../../src/model/script.js';
import { tempDir, writeScript } from './helpers.js';
import { TMUX, useSystemTool } from './system-tools.js';
import { TmuxSession, type TmuxOptions } from './tmux.js';

/** The prompt mark: the conversation is ready for input. */
export const READY = /❯/;

/**
 * A starter of terminals, each killed when its test ends (call at the top of a test file). Per
 * test, not after each: tests of a concurrent describe run side by side.
 */
export function interactiveSessions() {
  let tmux: string | undefined;
  let started = 0;
  afterAll(() => {
    if (tmux) TmuxSession.killServer(tmux);
  });
  return function start(ctx: { skip(note?: string): never; onTestFinished(fn: () => void): void }, turns: ScriptTurn[], args: string[] = [], opts: Partial<TmuxOptions> = {}) {
    const bin = useSystemTool(ctx, TMUX);
    tmux = bin;
    const cwd = opts.cwd ?? tempDir();
    const script = writeScript(cwd, turns, `script-${started++}.json`);
    const t = new TmuxSession(bin, ['--script', script, ...args], { ...opts, cwd });
    ctx.onTestFinished(() => t.kill());
    return { t, cwd };
  };
}

/** The JSONL entries of the only session file under a home. */
export function sessionEntries(home: string): Array<Record<string, any>> {
  const dir = join(home, 'sessions');
  const file = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => join(dir, f))[0];
  if (!file) throw new Error(`no session file under ${dir}`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
