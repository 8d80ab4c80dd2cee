// The CLI as a user meets it: a real process (bin/mini-agent → dist/), exit codes,
// stdout/stderr discipline, session files and traces. dist/ is rebuilt first when src/ changed
// (vitest's global setup, test/support/global-setup.ts).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { textOf } from '../src/core/types.js';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import type { ScriptTurn } from '../src/model/script.js';
import type { MessageEntry, SessionEntry } from '../src/session/entries.js';
import { SessionStore } from '../src/session/store.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, runCli, tempDir, writeScript } from './support/helpers.js';
import { EVENT_SCHEMA_VERSION } from '../src/core/events.js';

const PKG = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** Every file under dir, recursively (relative paths). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(p).isDirectory()) walk(p, r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out;
}

function last<T>(xs: readonly T[]): T {
  return xs[xs.length - 1];
}

function settledOf(events: readonly AgentEvent[]): Extract<AgentEvent, { type: 'run_settled' }> {
  const e = last(events);
  expect(e?.type).toBe('run_settled');
  return e as Extract<AgentEvent, { type: 'run_settled' }>;
}

/**
 * Loads a session file the way the CLI does and checks that every tool call on the active path
 * is answered exactly once: the results follow their assistant message directly, in call order.
 */
function loadAndCheckSession(file: string): { store: SessionStore; lines: SessionEntry[] } {
  const store = SessionStore.open(file);
  try {
    const messages = store.activePath().flatMap((e) => (e.type === 'message' ? [e.message] : []));
    let expectedResults = 0;
    messages.forEach((m, i) => {
      if (m.role !== 'assistant') return;
      const ids = m.content.flatMap((c) => (c.type === 'toolCall' ? [c.id] : []));
      expectedResults += ids.length;
      const following = messages.slice(i + 1, i + 1 + ids.length).map((f) => (f.role === 'toolResult' ? f.toolCallId : `<${f.role}>`));
      expect(following).toEqual(ids);
    });
    expect(messages.filter((m) => m.role === 'toolResult')).toHaveLength(expectedResults);
    return { store, lines: [...store.entries()] };
  } finally {
    store.close();
  }
}

/** A workspace with notes.txt and a two-turn script: read the notes, then answer. */
function readNotesWorkspace(answer = 'The notes say: remember the milk.'): { cwd: string; script: string } {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'notes.txt'), 'remember the milk\n');
  const script = writeScript(cwd, [{ text: 'Let me look at the notes.', toolCalls: [{ id: 'call_notes', name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: answer }]);
  return { cwd, script };
}

describe('cli: version and help', () => {
  it('--version prints the package version and exits 0', async () => {
    const cwd = tempDir();
    const r = await runCli(['--version'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^mini-agent \d+\.\d+\.\d+\n$/);
    expect(r.stdout).toBe(`mini-agent ${PKG.version}\n`);
    expect(r.stderr).toBe('');
    const short = await runCli(['-v'], { cwd });
    expect(short.stdout).toBe(r.stdout);
  });

  it('--help prints usage and exits 0', async () => {
    const cwd = tempDir();
    const r = await runCli(['--help'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage:/);
    for (const flag of ['--script', '--session', '--no-session', '--max-turns', '--json', '--trace']) expect(r.stdout).toContain(flag);
    expect(r.stderr).toBe('');
  });
});

describe('cli: output modes', () => {
  it('--json writes only JSONL events to stdout, run_start first and run_settled last', async () => {
    const { cwd, script } = readNotesWorkspace();
    const r = await runCli(['--json', '--no-session', '--script', script, 'read the notes'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    const lines = r.stdout.slice(0, -1).split('\n');
    const events = lines.map((line, i) => {
      let value: AgentEvent;
      expect(() => (value = JSON.parse(line)), `stdout line ${i + 1} is not JSON: ${line}`).not.toThrow();
      return value!;
    });
    for (const e of events) {
      expect(typeof e.type).toBe('string');
      expect(e.schemaVersion).toBe(EVENT_SCHEMA_VERSION);
    }
    expect(events[0].type).toBe('run_start');
    expect(events[0]).toMatchObject({ prompt: 'read the notes', cwd, session: null });
    expect(settledOf(events)).toMatchObject({ stopReason: 'completed', turns: 2, toolCalls: 1, toolErrors: 0 });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    // The human-readable progress is not on stdout in --json mode.
    expect(r.stdout).not.toContain('→ read_file');
    expect(events.filter((e) => e.type === 'tool_end')).toHaveLength(1);
  });

  it('--json sends load warnings to stderr as well, keeping stdout pure', async () => {
    const { cwd, script } = readNotesWorkspace();
    const session = join(cwd, 'warn.jsonl');
    const first = await cliInProcess(['--session', session, '--script', script, 'hi'], { cwd });
    expect(first.code).toBe(0);
    const lines = readFileSync(session, 'utf8').split('\n');
    lines.splice(2, 0, 'this line is garbage');
    writeFileSync(session, lines.join('\n'));

    const again = writeScript(cwd, [{ text: 'ok' }], 'again.json');
    const r = await cliInProcess(['--json', '--session', session, '--script', again, 'again'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: .*line 3/);
    const events = parseJsonl(r.stdout); // throws if any line is not JSON
    expect(events[0].type).toBe('run_start');
    expect(events.some((e) => e.type === 'warning' && /line 3/.test(e.message))).toBe(true);
    expect(last(events).type).toBe('run_settled');
  });

  it('text mode: the answer on stdout, tool progress on stderr', async () => {
    const { cwd, script } = readNotesWorkspace('The notes say: remember the milk.');
    const r = await cliInProcess(['--no-session', '--script', script, 'read the notes'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Let me look at the notes.');
    expect(r.stdout).toContain('The notes say: remember the milk.');
    expect(r.stdout).not.toContain('read_file');
    expect(r.stderr).toMatch(/→ read_file .*notes\.txt/);
    expect(r.stderr).toMatch(/✓ read_file .*remember the milk/);
    expect(r.stdout).not.toMatch(/^\{/m); // no JSON events in text mode
  });

  it('reads the prompt from stdin when there is no positional argument', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'got it' }]);
    const r = await runCli(['--json', '--no-session', '--script', script], { cwd, input: 'prompt from stdin\n' });
    expect(r.code).toBe(0);
    const events = parseJsonl(r.stdout);
    expect(events[0]).toMatchObject({ type: 'run_start', prompt: 'prompt from stdin' });
    expect(settledOf(events).stopReason).toBe('completed');
  });

  it('an empty stdin and no prompt is a usage error', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'unused' }]);
    const r = await runCli(['--no-session', '--script', script], { cwd, input: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no prompt/);
  });
});

describe('cli: exit codes', () => {
  it('completed → 0', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'all good' }]);
    const r = await cliInProcess(['--no-session', '--script', script, 'hi'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('all good');
  });

  it('a model error (scripted error turn) → 1, and stderr names the kind', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ error: { kind: 'overloaded', message: 'the model is busy', retryable: false } }]);
    const r = await cliInProcess(['--no-session', '--script', script, 'hi'], { cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/overloaded/);
    expect(r.stderr).toContain('the model is busy');

    const j = await cliInProcess(['--json', '--no-session', '--script', script, 'hi'], { cwd });
    expect(j.code).toBe(1);
    expect(settledOf(parseJsonl(j.stdout))).toMatchObject({ stopReason: 'error', error: { kind: 'overloaded', message: 'the model is busy', retryable: false } });
  });

  it('an exhausted script → 1, saying the script ran out', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ toolCalls: [{ name: 'read_file', arguments: { path: 'missing.txt' } }] }]);
    const r = await cliInProcess(['--json', '--no-session', '--script', script, 'hi'], { cwd });
    expect(r.code).toBe(1);
    const end = settledOf(parseJsonl(r.stdout));
    expect(end.stopReason).toBe('error');
    expect(end.error?.message).toMatch(/no more turns/);
  });

  it('an unknown flag → 2, naming the flag', async () => {
    const cwd = tempDir();
    const r = await runCli(['--frobnicate', 'hi'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--frobnicate');
    expect(r.stdout).toBe('');
  });

  it('a script file that is not JSON → 2, naming the file and the problem', async () => {
    const cwd = tempDir();
    const file = join(cwd, 'broken-script.json');
    writeFileSync(file, '{"turns": [');
    const r = await cliInProcess(['--no-session', '--script', file, 'hi'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('broken-script.json');
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(r.stdout).toBe('');
  });

  it('a script with a bad field → 2, naming the field path', async () => {
    const cwd = tempDir();
    const file = join(cwd, 'nameless.json');
    writeFileSync(file, JSON.stringify({ turns: [{ toolCalls: [{ arguments: {} }] }] }));
    const r = await cliInProcess(['--no-session', '--script', file, 'hi'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nameless.json');
    expect(r.stderr).toContain('turns[0].toolCalls[0].name');
  });

  it('a missing script file → 2', async () => {
    const cwd = tempDir();
    const r = await cliInProcess(['--no-session', '--script', join(cwd, 'nope.json'), 'hi'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nope.json');
  });

  it('--max-turns reached → 3', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'loop.txt'), 'again\n');
    const turns: ScriptTurn[] = Array.from({ length: 4 }, () => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'loop.txt' } }] }));
    const script = writeScript(cwd, turns);
    const r = await cliInProcess(['--json', '--no-session', '--max-turns', '2', '--script', script, 'loop'], { cwd });
    expect(r.code).toBe(3);
    expect(settledOf(parseJsonl(r.stdout))).toMatchObject({ stopReason: 'max_turns', turns: 2 });
    const t = await cliInProcess(['--no-session', '--max-turns', '2', '--script', script, 'loop'], { cwd });
    expect(t.code).toBe(3);
    expect(t.stderr).toMatch(/max-turns/);
  });

  it('--max-turns that is not a whole number → 2', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'x' }]);
    for (const bad of ['0', 'two', '1.5']) {
      const r = await cliInProcess(['--no-session', '--max-turns', bad, '--script', script, 'hi'], { cwd });
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain('--max-turns');
    }
  });

  it('--session and --no-session together → 2', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'x' }]);
    const r = await cliInProcess(['--session', join(cwd, 's.jsonl'), '--no-session', '--script', script, 'hi'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--session');
    expect(r.stderr).toContain('--no-session');
    expect(existsSync(join(cwd, 's.jsonl'))).toBe(false);
  });
});

describe('cli: SIGINT', () => {
  it('SIGINT mid-run exits 130 with run_settled aborted; the session stays valid and a second run continues it', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const session = join(cwd, 'interrupted.jsonl');
    const slow = writeScript(
      cwd,
      [
        {
          delayMs: 60,
          text: 'I will write two notes, slowly.',
          toolCalls: [
            { id: 'w1', name: 'write_note', arguments: { path: 'a.md', text: 'first note' } },
            { id: 'w2', name: 'write_note', arguments: { path: 'b.md', text: 'second note' } },
          ],
        },
        { text: 'never reached' },
      ],
      'slow.json',
    );
    let sent = false;
    const r = await runCli(['--json', '--session', session, '--script', slow, 'write two notes'], {
      cwd,
      home,
      onStdout: (soFar, child) => {
        // Interrupt once the first call is complete and the second one is streaming.
        if (!sent && parseJsonl(soFar.slice(0, soFar.lastIndexOf('\n') + 1)).some((e) => e.type === 'toolcall_start' && e.index === 1)) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    });
    expect(sent).toBe(true);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(130);
    const events = parseJsonl(r.stdout);
    const end = settledOf(events);
    expect(end.stopReason).toBe('aborted');
    expect(end.error?.kind).toBe('aborted');
    expect(existsSync(join(cwd, 'b.md'))).toBe(false);

    // The file loads, every tool call on the path has its result, and the leaf is the settled one.
    const { store, lines } = loadAndCheckSession(session);
    expect(store.leafId).toBe(end.leafId);
    const calls = lines.flatMap((e) => (e.type === 'message' && e.message.role === 'assistant' ? e.message.content.flatMap((c) => (c.type === 'toolCall' ? [c.id] : [])) : []));
    expect(calls).toEqual(['w1']);
    const result = lines.find((e): e is MessageEntry => e.type === 'message' && e.message.role === 'toolResult');
    expect(result?.message).toMatchObject({ toolCallId: 'w1', isError: true });

    // A second run on the same session file continues from the leaf.
    const next = writeScript(cwd, [{ text: 'Picking up where we left off.' }], 'next.json');
    const r2 = await runCli(['--json', '--session', session, '--script', next, 'continue please'], { cwd, home });
    expect(r2.code).toBe(0);
    const events2 = parseJsonl(r2.stdout);
    const start2 = events2[0] as Extract<AgentEvent, { type: 'run_start' }>;
    expect(start2.session?.id).toBe(store.id);
    const turn1 = events2.find((e) => e.type === 'turn_start') as Extract<AgentEvent, { type: 'turn_start' }>;
    expect(turn1.messageCount).toBe(4); // user, assistant (aborted), toolResult, user

    const after = loadAndCheckSession(session);
    const prompt2 = after.store.get(start2.promptEntryId);
    expect(prompt2).toMatchObject({ type: 'message', parentId: end.leafId, message: { role: 'user' } });
    expect(after.lines.slice(0, lines.length).map((e) => e.id)).toEqual(lines.map((e) => e.id));
    expect(after.store.leafId).toBe(settledOf(events2).leafId);
    expect(after.store.activePath()[0]?.id).toBe(lines[0].id);
  });

  it('SIGINT in text mode says it is stopping and exits 130', async () => {
    const cwd = tempDir();
    const slow = writeScript(cwd, [{ toolCalls: [{ name: 'read_file', arguments: { path: 'missing.txt' } }] }, { delayMs: 50, text: Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ') }]);
    // Piped stdout gets each answer only when it is complete: signal once the tool has run.
    let sent = false;
    const r = await runCli(['--no-session', '--script', slow, 'talk'], {
      cwd,
      onStderr: (soFar, child) => {
        if (!sent && soFar.includes('✗ read_file')) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), 120);
        }
      },
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/^w0 w1/); // the partial answer is still shown, once
    expect(r.stderr).toMatch(/SIGINT/);
    expect(r.stderr).toMatch(/aborted/);
  });
});

describe('cli: signals and pipes', () => {
  it('SIGTERM mid-run exits 143 with run_settled aborted', async () => {
    const cwd = tempDir();
    const slow = writeScript(cwd, [{ delayMs: 40, text: Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ') }]);
    let sent = false;
    const r = await runCli(['--json', '--no-session', '--script', slow, 'talk'], {
      cwd,
      onStdout: (soFar, child) => {
        if (!sent && soFar.includes('"text_delta"')) {
          sent = true;
          child.kill('SIGTERM');
        }
      },
    });
    expect(r.code).toBe(143);
    expect(settledOf(parseJsonl(r.stdout)).stopReason).toBe('aborted');
  });

  it('a reader that goes away (`| head -1`) does not crash the run; the session is completed', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.txt'), 'remember the milk\n');
    const session = join(cwd, 'piped.jsonl');
    const script = writeScript(cwd, [
      { delayMs: 10, text: 'Reading the notes now, one word at a time.', toolCalls: [{ id: 'p1', name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { delayMs: 10, text: 'They say to remember the milk, and nothing else at all.' },
    ]);
    let closed = false;
    const r = await runCli(['--json', '--session', session, '--script', script, 'read'], {
      cwd,
      onStdout: (_soFar, child) => {
        if (!closed) {
          closed = true;
          child.stdout!.destroy();
        }
      },
    });
    expect(closed).toBe(true);
    expect(r.stderr).not.toMatch(/EPIPE|internal error|Unhandled/);
    expect(r.code).toBe(0);
    const { store } = loadAndCheckSession(session);
    const lastEntry = store.get(store.leafId!);
    expect(lastEntry).toMatchObject({ type: 'message', message: { role: 'assistant', stopReason: 'stop' } });
  });
});

describe('cli: --read-only', () => {
  it('denies write_note but still runs read_file', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.txt'), 'hello\n');
    const script = writeScript(cwd, [
      {
        toolCalls: [
          { id: 'r', name: 'read_file', arguments: { path: 'notes.txt' } },
          { id: 'w', name: 'write_note', arguments: { path: 'out.md', text: 'x' } },
        ],
      },
      { text: 'I could read but not write.' },
    ]);
    const r = await cliInProcess(['--json', '--no-session', '--read-only', '--script', script, 'try'], { cwd });
    expect(r.code).toBe(0);
    const ends = parseJsonl(r.stdout).filter((e): e is Extract<AgentEvent, { type: 'tool_end' }> => e.type === 'tool_end');
    expect(ends.map((e) => [e.toolCallId, e.result.isError])).toEqual([
      ['r', false],
      ['w', true],
    ]);
    expect(textOf(ends[1].result.content)).toMatch(/Permission denied/);
    expect(existsSync(join(cwd, 'out.md'))).toBe(false);
  });
});

describe('cli: sessions', () => {
  it('--no-session writes nothing under MINI_AGENT_HOME', async () => {
    const { cwd, script } = readNotesWorkspace();
    const home = tempDir('mini-agent-home-');
    const before = filesUnder(cwd);
    const r = await cliInProcess(['--no-session', '--script', script, 'hi'], { cwd, home });
    expect(r.code).toBe(0);
    expect(filesUnder(home)).toEqual([]);
    expect(filesUnder(cwd)).toEqual(before);
  });

  it('without --session or --no-session a new session file appears under $MINI_AGENT_HOME/sessions/', async () => {
    const { cwd, script } = readNotesWorkspace();
    const home = tempDir('mini-agent-home-');
    const r = await cliInProcess(['--json', '--script', script, 'hi'], { cwd, home });
    expect(r.code).toBe(0);
    const files = filesUnder(home);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^sessions\/.+\.jsonl$/);
    const file = join(home, files[0]);
    const start = parseJsonl(r.stdout)[0] as Extract<AgentEvent, { type: 'run_start' }>;
    expect(start.session?.file).toBe(file);
    const { store } = loadAndCheckSession(file);
    expect(store.id).toBe(start.session?.id);
    expect(store.activePath().map((e) => (e.type === 'message' ? e.message.role : e.type))).toEqual(['user', 'assistant', 'toolResult', 'assistant']);

    // A second run makes a second, separate session.
    const r2 = await cliInProcess(['--script', script, 'hi again'], { cwd, home });
    expect(r2.code).toBe(0);
    expect(filesUnder(home)).toHaveLength(2);
  });

  it('--session FILE creates the file, and a second run appends to it from the leaf', async () => {
    const { cwd, script } = readNotesWorkspace();
    const session = join(cwd, 'work.jsonl');
    const r1 = await cliInProcess(['--json', '--session', 'work.jsonl', '--script', script, 'first'], { cwd });
    expect(r1.code).toBe(0);
    const leaf1 = settledOf(parseJsonl(r1.stdout)).leafId;
    const bytes1 = readFileSync(session);

    const r2 = await cliInProcess(['--json', '--session', 'work.jsonl', '--script', script, 'second'], { cwd });
    expect(r2.code).toBe(0);
    const events2 = parseJsonl(r2.stdout);
    const bytes2 = readFileSync(session);
    expect(bytes2.subarray(0, bytes1.length).equals(bytes1)).toBe(true);
    const { store } = loadAndCheckSession(session);
    const promptId = (events2[0] as Extract<AgentEvent, { type: 'run_start' }>).promptEntryId;
    expect(store.get(promptId)?.parentId).toBe(leaf1);
    expect(store.activePath()).toHaveLength(8);
  });

  it('a corrupt middle line: the run succeeds, stderr names the line, the file only grows', async () => {
    const { cwd, script } = readNotesWorkspace();
    const session = join(cwd, 'corrupt.jsonl');
    const r1 = await cliInProcess(['--session', session, '--script', script, 'first'], { cwd });
    expect(r1.code).toBe(0);
    const lines = readFileSync(session, 'utf8').split('\n');
    expect(lines.length).toBeGreaterThan(4);
    lines.splice(3, 0, '{"id": "broken", this is not json');
    writeFileSync(session, lines.join('\n'));
    const before = readFileSync(session);

    const again = writeScript(cwd, [{ text: 'Still here.' }], 'again.json');
    const r2 = await cliInProcess(['--session', session, '--script', again, 'second'], { cwd });
    expect(r2.code).toBe(0);
    expect(r2.stdout).toContain('Still here.');
    expect(r2.stderr).toMatch(/warning: .*line 4/);
    const after = readFileSync(session);
    expect(after.length).toBeGreaterThan(before.length);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
  });

  it('a session file with a bad header: exit 2, a message, and the file is byte-for-byte unchanged', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'unused' }]);
    const cases: [string, string, RegExp][] = [
      ['not-json.jsonl', 'this is not a header\n{"id":"a","parentId":null,"timestamp":"t","type":"message","message":{"role":"user","content":[]}}\n', /header|line 1/],
      ['wrong-type.jsonl', '{"type":"nonsense","id":"x"}\n', /session header/],
      ['future.jsonl', '{"type":"session","version":999,"id":"x","cwd":"/","timestamp":"t"}\n', /version 999/],
    ];
    for (const [name, content, problem] of cases) {
      const file = join(cwd, name);
      writeFileSync(file, content);
      const r = await cliInProcess(['--session', file, '--script', script, 'hi'], { cwd });
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toContain(name);
      expect(r.stderr, name).toMatch(problem);
      expect(readFileSync(file, 'utf8'), name).toBe(content);
      expect(r.stdout, name).toBe('');
    }
  });
});

describe('cli: traces', () => {
  it('--trace writes the events; `mini-agent trace FILE` gives a readable account', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.txt'), 'remember the milk\n');
    const script = writeScript(cwd, [
      { text: 'Let me look.', toolCalls: [{ id: 'call_notes', name: 'read_file', arguments: { path: 'notes.txt' } }], usage: { input: 120, output: 30 } },
      { text: 'Milk is on the list.', usage: { input: 200, output: 12 } },
    ]);
    const trace = join(cwd, 'run.trace.jsonl');
    const r = await cliInProcess(['--json', '--no-session', '--trace', trace, '--script', script, 'check the notes'], { cwd });
    expect(r.code).toBe(0);
    const traced = parseJsonl(readFileSync(trace, 'utf8'));
    expect(traced).toEqual(parseJsonl(r.stdout)); // the same events, in the same order
    expect(traced[0].type).toBe('run_start');
    expect(last(traced).type).toBe('run_settled');

    const t = await cliInProcess(['trace', trace], { cwd });
    expect(t.code).toBe(0);
    const out = t.stdout;
    expect(out).toContain('check the notes');
    expect(out).toMatch(/Turn 1/);
    expect(out).toMatch(/Turn 2/);
    expect(out).toContain('tool call read_file {"path":"notes.txt"}');
    expect(out).toContain('call_notes');
    expect(out).toMatch(/stop: toolUse/);
    expect(out).toMatch(/stop: stop/);
    expect(out).toMatch(/usage 120 in \/ 30 out/);
    expect(out).toMatch(/usage 200 in \/ 12 out/);
    expect(out).toMatch(/✓ read_file .*remember the milk/);
    expect(out).toMatch(/Settled: completed after 2 turns/);
    expect(out).toMatch(/320 in \/ 42 out/);
    // Turn 1 comes before turn 2, and both before the settlement.
    expect(out.indexOf('Turn 1')).toBeLessThan(out.indexOf('Turn 2'));
    expect(out.indexOf('Turn 2')).toBeLessThan(out.indexOf('Settled'));
  });

  it('the trace of a failed run mentions the error', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ error: { kind: 'rate_limit', message: 'slow down', retryable: false } }]);
    const trace = join(cwd, 'fail.jsonl');
    const r = await cliInProcess(['--no-session', '--trace', trace, '--script', script, 'hi'], { cwd });
    expect(r.code).toBe(1);
    const t = await cliInProcess(['trace', trace], { cwd });
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/Settled: error/);
    expect(t.stdout).toMatch(/rate_limit/);
    expect(t.stdout).toContain('slow down');
  });

  it('`trace` on a missing file → 2', async () => {
    const cwd = tempDir();
    const r = await cliInProcess(['trace', join(cwd, 'missing.jsonl')], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing.jsonl');
  });

  it('`trace` on a file without events → 2; bad lines are skipped with a warning', async () => {
    const cwd = tempDir();
    const empty = join(cwd, 'empty.jsonl');
    writeFileSync(empty, 'nothing here\n');
    const r = await cliInProcess(['trace', empty], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 1/);
  });
});

describe('cli: text output on a pipe', () => {
  it('a retried response is printed once, without the failed attempt', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, '.mini-agent'), { recursive: true });
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ retry: { baseDelayMs: 1, maxDelayMs: 10 } }));
    const script = writeScript(cwd, [{ text: 'half an answ', error: { kind: 'overloaded', message: 'busy' } }, { text: 'The whole answer.' }]);
    const r = await cliInProcess(['--no-session', '--script', script, 'go'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('The whole answer.\n');
    expect(r.stderr).toMatch(/retrying after overloaded/);
  });
});
