// Error kinds and exit codes: one table maps every kind to a code the README documents; the
// errors an agent in the wrong state throws (busy, closed, stale_session) are not usage errors;
// and every front end's process ends the same way on a session file that must not be used.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import { AgentError, errorKindOf } from '../src/app/errors.js';
import { EXIT_CODE_OF_KIND } from '../src/app/exit-codes.js';
import { ERROR_KINDS, UsageError } from '../src/core/types.js';
import { SESSION_FORMAT_VERSION } from '../src/session/entries.js';
import { runCli, tempDir, writeScript } from './support/helpers.js';
import { interactiveSessions } from './support/interactive.js';

const start = interactiveSessions();

/** The README's exit-code table: each code with its meaning. */
function documentedExitCodes(): Map<number, string> {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Exit codes'));
  const rows = section.slice(0, section.indexOf('\n\n', section.indexOf('|'))).split('\n');
  const codes = new Map<number, string>();
  for (const row of rows) {
    const m = /^\| (\d+) \| (.*) \|$/.exec(row);
    if (m) codes.set(Number(m[1]), m[2]);
  }
  return codes;
}

/** What `fn` threw (or the promise it returned rejected with). */
async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

describe('one table from error kinds to exit codes', () => {
  it("every kind maps to a code the README documents: the user's mistakes to 2 (usage), an agent in the wrong state or a failed summary to 1 (runtime)", () => {
    const documented = documentedExitCodes();
    expect(documented.get(1)).toMatch(/^model or runtime error/);
    expect(documented.get(2)).toMatch(/^usage error: .*unusable or locked session file, unknown session or entry/);
    expect(Object.keys(EXIT_CODE_OF_KIND).sort()).toEqual([...ERROR_KINDS].sort());
    for (const kind of ERROR_KINDS) expect(documented.has(EXIT_CODE_OF_KIND[kind]), kind).toBe(true);
    expect(EXIT_CODE_OF_KIND).toEqual({
      invalid_argument: 2,
      not_found: 2,
      ambiguous: 2,
      locked: 2,
      session_file: 2,
      busy: 1,
      closed: 1,
      stale_session: 1,
      compaction_failed: 1,
      internal: 1,
    });
  });
});

describe('kinds through the SDK', () => {
  it("busy, stale_session and closed are AgentErrors with their kind, not usage errors; an empty prompt and an unknown session still are the user's mistakes", async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const agent = await createAgent({ cwd, home, env: {}, script: writeScript(cwd, [{ text: 'a slow answer to stream', delayMs: 15 }]) });
    const empty = await thrown(() => agent.prompt('  '));
    expect(empty).toBeInstanceOf(AgentError);
    expect(errorKindOf(empty)).toBe('invalid_argument');
    const old = agent.session;
    const run = agent.prompt('go');
    const busy = await thrown(() => agent.newSession());
    expect(busy).toBeInstanceOf(AgentError);
    expect(busy).not.toBeInstanceOf(UsageError);
    expect(errorKindOf(busy)).toBe('busy');
    expect((busy as Error).name).toBe('AgentError');
    await run;
    await agent.newSession();
    const stale = await thrown(() => old.tree());
    expect(stale).not.toBeInstanceOf(UsageError);
    expect(errorKindOf(stale)).toBe('stale_session');
    await agent.close();
    const closed = await thrown(() => agent.prompt('hi'));
    expect(closed).not.toBeInstanceOf(UsageError);
    expect(errorKindOf(closed)).toBe('closed');

    const unknown = await thrown(() => createAgent({ cwd, home, env: {}, script: writeScript(cwd, []), session: { resume: 'nothing-like-it' } }));
    expect(unknown).toBeInstanceOf(UsageError);
    expect(errorKindOf(unknown)).toBe('not_found');
  });
});

describe('a session file that must not be used ends every front end the same way: exit 2, one line', () => {
  const newer = (dir: string) => {
    const file = join(dir, 'newer.jsonl');
    writeFileSync(file, `{"type":"session","version":${SESSION_FORMAT_VERSION + 1},"id":"future","cwd":"/","timestamp":"t"}\n`);
    return file;
  };
  const refusal = new RegExp(`^mini-agent: .*newer\\.jsonl: .*version ${SESSION_FORMAT_VERSION + 1}.*refusing to use it \\(the file was not modified\\)\\n$`);

  it('RPC mode, as print mode', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'hi' }]);
    const print = await runCli(['--script', script, '--session', newer(cwd), 'hello'], { cwd });
    expect(print.code).toBe(2);
    expect(print.stderr).toMatch(refusal);
    const rpc = await runCli(['--rpc', '--script', script, '--session', newer(cwd)], { cwd });
    expect(rpc.code).toBe(2);
    expect(rpc.stderr).toBe(print.stderr);
    expect(rpc.stdout).toBe('');
  });

  it('the interactive mode', async (ctx) => {
    const cwd = tempDir();
    const { t } = start(ctx, [{ text: 'hi' }], ['--session', newer(cwd)], { cwd });
    expect((await t.exited()).code).toBe(2);
    expect(t.history()).toMatch(/mini-agent: .*newer\.jsonl: .*refusing to use it \(the file was not modified\)/);
  });
});
