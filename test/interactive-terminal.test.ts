// The interactive mode and the terminal it runs in (tmux, scripted model): the scrollback keeps a
// 500-message conversation and is never wiped; a large paste is one collapsed input; escape
// sequences from tools and models never drive the terminal; narrow terminals and resizes; the
// terminal put back on a signal; no terminal on stdin means print mode; the spinner's retry
// notice; queued messages cancelled or pulled back; the commands not covered elsewhere; and
// screen snapshots (Markdown, tool lines, status line) as plain text.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../src/model/script.js';
import { tempDir } from './support/helpers.js';
import { interactiveSessions, READY, sessionEntries } from './support/interactive.js';

const start = interactiveSessions();

/** Variable parts of a screen (durations, ids, elapsed times) made stable for a snapshot. */
function stable(screen: string): string {
  return screen
    .replace(/\b\d+(\.\d+)? (ms|s)\b/g, 'N $2')
    .replace(/session [0-9a-f-]{8,}/g, 'session <session-id>')
    .replace(/· [0-9a-f]{8}$/gm, '· <session>')
    .replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/g, '⠿');
}

describe.concurrent('the scrollback', () => {
  it('after a 500-message conversation the first message is still in the scrollback, and nothing ever cleared the screen', async (ctx) => {
    const steps = 250;
    const turns: ScriptTurn[] = Array.from({ length: steps }, (_, i) => ({ text: `step ${i} of the work`, toolCalls: [{ name: 'read_file', arguments: { path: `part-${i}.md` } }] }));
    turns.push({ text: 'all steps done' });
    const record = join(tempDir('mini-agent-record-'), 'out.bin');
    const { t } = start(ctx, turns, ['--max-turns', String(steps + 5)], { record, rows: 24 });
    await t.waitFor(READY);
    t.type('the very first message');
    t.keys('Enter');
    await t.waitFor(/all steps done[\s\S]*scripted\/script/, { timeoutMs: 60_000 });
    const users = sessionEntries(t.home).filter((e) => e.type === 'message');
    expect(users.length).toBeGreaterThanOrEqual(500);
    const history = t.history();
    expect(history).toContain('❯ the very first message');
    expect(history).toContain('step 0 of the work');
    expect(history).toContain('step 249 of the work');
    expect(history.indexOf('❯ the very first message')).toBeLessThan(history.indexOf('step 0 of the work'));
    // What the program wrote: no clear of the screen or the scrollback, no alternate screen, no
    // absolute cursor moves; every redraw inside a synchronized update.
    const bytes = readFileSync(record, 'latin1');
    expect(bytes).not.toMatch(/\x1b\[[23]J/);
    expect(bytes).not.toMatch(/\x1b\[\?(1049|47|1047)h/);
    expect(bytes).not.toMatch(/\x1b\[\d*;?\d*H/);
    expect(bytes).not.toMatch(/\x1bc/);
    const begins = bytes.split('\x1b[?2026h').length - 1;
    expect(begins).toBeGreaterThan(0);
    expect(bytes.split('\x1b[?2026l').length - 1).toBe(begins);
  }, 90_000);
});

describe.concurrent('input', () => {
  it('a paste of 300 lines is one input, shown collapsed, sent whole', async (ctx) => {
    const { t } = start(ctx, [{ text: 'got the log' }]);
    await t.waitFor(READY);
    const log = Array.from({ length: 300 }, (_, i) => `log line ${i}`).join('\n');
    t.type('look at this: ');
    t.paste(log);
    const editing = await t.waitFor(/\[paste #1: 300 lines\]/);
    expect(editing).not.toContain('log line 150');
    t.keys('Enter');
    const after = await t.waitFor(/got the log[\s\S]*scripted\/script/);
    expect(after).toContain('[… 292 more lines]');
    const users = sessionEntries(t.home).filter((e) => e.type === 'message' && e.message.role === 'user');
    expect(users).toHaveLength(1);
    expect(users[0].message.content[0].text).toBe(`look at this: ${log}`);
  });

  it('a long line and its Enter read in one chunk (typed while the process was busy) are sent, not taken for a paste', async (ctx) => {
    const { t } = start(ctx, [{ text: 'sent as typed' }]);
    await t.waitFor(READY);
    const line = 'a line typed while the terminal was busy, longer than any short command';
    t.type(`${line}\r`); // one write: the text and its Enter arrive together
    await t.waitFor(/sent as typed[\s\S]*scripted\/script/);
    const users = sessionEntries(t.home).filter((e) => e.type === 'message' && e.message.role === 'user');
    expect(users.map((e) => e.message.content[0].text)).toEqual([line]);
  });

  it('a trailing backslash continues the message on a new line', async (ctx) => {
    const { t } = start(ctx, [{ text: 'two lines received' }]);
    await t.waitFor(READY);
    t.type('first line \\');
    t.keys('Enter');
    await t.waitFor(/❯ first line$/); // the backslash became a line break: typed apart, the next line is not a paste
    t.type('second line');
    t.keys('Enter');
    await t.waitFor(/two lines received/);
    const users = sessionEntries(t.home).filter((e) => e.type === 'message' && e.message.role === 'user');
    expect(users.map((e) => e.message.content[0].text)).toEqual(['first line \nsecond line']);
  });
});

describe.concurrent('what tools and models print never drives the terminal', () => {
  it('escape sequences in tool output and in the answer are shown inert', async (ctx) => {
    const nasty = String.raw`printf 'before\033[2J\033[H\033]0;pwned-title\007\033]52;c;ZXZpbA==\007\033[31mred\033[0m\233K after\n'`;
    const record = join(tempDir('mini-agent-record-'), 'out.bin');
    const { t } = start(ctx, [{ toolCalls: [{ name: 'bash', arguments: { command: nasty } }] }, { text: 'model says \x1b[2J\x1b]0;model-title\x07 hi \x1b[5m' }], ['--yes'], { record });
    await t.waitFor(READY);
    t.type('print things');
    t.keys('Enter');
    const screen = await t.waitFor(/model says[\s\S]*scripted\/script/);
    expect(screen).toContain('mini-agent · scripted/script'); // the header was not wiped
    expect(screen).toMatch(/│ before.*red.* after/);
    expect(t.title()).not.toMatch(/pwned|model-title/);
    const bytes = readFileSync(record, 'latin1');
    for (const seq of ['\x1b[2J', '\x1b]0;', '\x1b]52;', '\x9b', '\x1b[5m', '\x07']) expect(bytes).not.toContain(seq);
  });
});

describe.concurrent('color', () => {
  it.for<[string, Record<string, string>]>([
    ['with colors', {}],
    ['NO_COLOR', { NO_COLOR: '1' }],
  ])('%s', async ([, env], ctx) => {
    const { t } = start(ctx, [{ text: '# Title\n\nSome **bold** text and `code`.\n\n```js\nconst x = 1;\n```\n' }], [], { env });
    await t.waitFor(READY);
    t.type('style');
    t.keys('Enter');
    await t.waitFor(/scripted\/script · ↑/);
    // Emphasis marks are gone either way; without color, code keeps its backticks and a heading its #, so they still show.
    expect(t.screen()).toContain(env.NO_COLOR ? 'Some bold text and `code`.' : 'Some bold text and code.');
    expect(t.screen()).toMatch(env.NO_COLOR ? /^# Title$/m : /^Title$/m);
    const styled = t.screenWithEscapes();
    if (env.NO_COLOR) expect(styled).not.toContain('\x1b[');
    else expect(styled).toMatch(/\x1b\[[0-9;]*m/);
  });
});

describe.concurrent('terminal sizes', () => {
  it('a narrow terminal: Markdown, code, tables and wide characters fit; then a resize', async (ctx) => {
    const answer = [
      '## 会话压缩之后',
      '',
      'A paragraph with a very-long-identifier-that-cannot-be-broken-anywhere-at-all and **bold** text, 中文字符混合 English words.',
      '',
      '| key | value |',
      '|---|---|',
      '| 名前 | a rather long cell value |',
      '',
      '```ts',
      'const x = "a long line of code that is wider than the terminal";',
      '```',
    ].join('\n');
    const { t } = start(ctx, [{ text: answer }, { text: 'after the resize, a second answer that is long enough to wrap at sixty columns wide' }], [], { columns: 32, rows: 20 });
    await t.waitFor(READY);
    t.type('narrow');
    t.keys('Enter');
    await t.waitFor(/scripted\/script · ↑/);
    const narrow = t.history();
    // Joined (-J) lines: if the program relied on the terminal wrapping, a joined line would be wider.
    for (const line of narrow.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(32);
    expect(narrow).toContain('会话压缩之后');
    t.resize(60, 20);
    await new Promise((r) => setTimeout(r, 200));
    t.type('wider now');
    t.keys('Enter');
    const wide = await t.waitFor(/second answer[\s\S]*scripted\/script · ↑/);
    for (const line of wide.split('\n').slice(wide.split('\n').findIndex((l) => l.includes('❯ wider now')))) expect(stringWidth(line), line).toBeLessThanOrEqual(60);
    expect(wide).toMatch(/❯ wider now/);
    expect(wide).toMatch(/after the resize, a second answer that is long enough to\s*\n\s*wrap at sixty columns wide/);
  });
});

describe.concurrent('leaving', () => {
  it.for(['SIGTERM', 'SIGHUP'] as const)('on %s the terminal is put back and the session file is whole', async (signal, ctx) => {
    const { t } = start(ctx, [{ text: 'first' }, { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 20' } }] }], ['--yes']);
    await t.waitFor(READY);
    t.type('one');
    t.keys('Enter');
    await t.waitFor(/first[\s\S]*scripted\/script/);
    t.type('sleep');
    t.keys('Enter');
    await t.waitFor(/bash sleep 20/);
    process.kill(t.pid(), signal);
    expect(await t.exited()).toEqual({ code: signal === 'SIGTERM' ? 143 : 129, cooked: true });
    const entries = sessionEntries(t.home);
    expect(entries.filter((e) => e.type === 'message' && e.message.role === 'user').map((e) => e.message.content[0].text)).toEqual(['one', 'sleep']);
    // The aborted call has its result: the next resume is consistent.
    expect(entries.some((e) => e.type === 'message' && e.message.role === 'toolResult')).toBe(true);
  });

  it('Ctrl+C on an empty line asks first; a second press leaves', async (ctx) => {
    const { t } = start(ctx, []);
    await t.waitFor(READY);
    t.keys('C-c');
    await t.waitFor(/press Ctrl\+C again to leave/);
    t.keys('C-c');
    expect(await t.exited()).toEqual({ code: 0, cooked: true });
  });

  it.for(['/exit', '/quit'])('%s leaves, the terminal put back', async (command, ctx) => {
    const { t } = start(ctx, []);
    await t.waitFor(READY);
    t.type(command);
    t.keys('Enter');
    expect(await t.exited()).toEqual({ code: 0, cooked: true });
  });

  it('without a terminal on stdin it is print mode', async (ctx) => {
    const input = join(tempDir(), 'prompt.txt');
    writeFileSync(input, 'a prompt from a pipe\n');
    const { t } = start(ctx, [{ text: 'printed answer' }], [], { stdin: input });
    const screen = await t.waitFor(/EXIT=\d+/, { history: true });
    expect(screen).toContain('printed answer');
    expect(screen).not.toContain('❯');
    expect(screen).toContain('EXIT=0');
  });
});

describe.concurrent('the spinner and the queue', () => {
  it('a retry shows in the spinner line; a partial answer before it is marked as cut off', async (ctx) => {
    const partial = 'A first paragraph that streamed.\n\nA second one.\n\nA third, cut';
    const { t } = start(ctx, [{ text: partial, error: { kind: 'overloaded', message: 'busy', retryable: true, retryAfterMs: 2500 } }, { text: 'after the retry' }]);
    await t.waitFor(READY);
    t.type('try');
    t.keys('Enter');
    const waiting = await t.waitFor(/retrying after overloaded \(attempt 1, in 3 s\)/);
    expect(waiting).toMatch(/A first paragraph that streamed\.\n\nA second one\.\n\(the partial answer above was cut off; the request is retried\)/);
    expect(waiting).not.toContain('A third, cut'); // the open block was never committed
    await t.waitFor(/after the retry[\s\S]*scripted\/script · ↑/);
  });

  it('queued messages are listed under the input; /cancel drops one, Esc stops the run and returns the rest', async (ctx) => {
    const { t } = start(ctx, [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 20' } }] }, { text: 'never' }], ['--yes']);
    await t.waitFor(READY);
    t.type('start');
    t.keys('Enter');
    await t.waitFor(/bash sleep 20/);
    // Each line waits for the one before to be queued: typed apart, as a user types them (lines in one chunk would be a paste).
    for (const [line, queued] of [
      ['steer one', /steer 1: steer one/],
      ['>> follow two', /follow-up 2: follow two/],
      ['steer three', /steer 3: steer three/],
    ] as const) {
      t.type(line);
      t.keys('Enter');
      await t.waitFor(queued);
    }
    await t.waitFor(/steer 1: steer one \(\w+\)\n.*follow-up 2: follow two \(\w+\)\n.*steer 3: steer three/);
    t.type('/cancel 1');
    t.keys('Enter');
    await t.waitFor(/cancelled the steer: steer one/);
    // Esc while running stops the run, as Ctrl+C does (issue 24): what was still queued comes back to the editor.
    t.keys('Escape');
    await t.waitFor(/stopped/);
    const screen = await t.waitFor(/❯ >> follow two\n\s*steer three\s*$/);
    expect(screen).not.toMatch(/steer 1:|follow-up 2:/);
  });
});

describe.concurrent('commands', () => {
  it('/name, /status, /show-config, /model, /export, /trace, /new, /sessions, /resume, /fork', async (ctx) => {
    const { t, cwd } = start(ctx, [{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] }, { text: 'noted' }, { text: 'in the fork' }]);
    writeFileSync(join(cwd, 'notes.md'), 'notes\n');
    await t.waitFor(READY);
    // Each command waits for a new match of its answer (not one an earlier command printed, such as
    // "planning" before /sessions), so the next line is never typed while a command still runs.
    const matches = (text: string, re: RegExp) => (text.match(new RegExp(re.source, `${re.flags}g`)) ?? []).length;
    const run = async (line: string, expected: RegExp) => {
      const before = matches(t.history(), expected);
      t.type(line);
      t.keys('Enter');
      return t.waitFor((text) => matches(text, expected) > before, { history: true });
    };
    await run('read the notes', /noted[\s\S]*scripted\/script/);
    await run('/name planning', /session named planning/);
    await run('/status', /files read: notes\.md/);
    await run('/show-config', /provider\s+scripted\s+\(flag --script\)/);
    await run('/trace', /read_file/);
    await run('/export out.md', /exported to .*out\.md/);
    expect(readFileSync(join(cwd, 'out.md'), 'utf8')).toContain('noted');
    await run('/model nonexistent-provider/x', /\/model: .*nonexistent-provider/);
    await run('/new', /new session [0-9a-f-]{36}/);
    await run('/sessions', /planning/);
    await run('/resume planning', /resumed session .* \(planning\): 4 messages/);
    await run('/fork', /forked into session/);
    await run('more', /in the fork[\s\S]*scripted\/script/);
  });
});

describe.concurrent('prompt templates', () => {
  it('/name args runs the template; /help lists it; a near miss suggests it', async (ctx) => {
    const cwd = tempDir();
    mkdirSync(join(cwd, '.mini-agent', 'prompts'), { recursive: true });
    writeFileSync(join(cwd, '.mini-agent', 'prompts', 'review.md'), '---\ndescription: Review a file\n---\nReview $1 for $2.\n');
    const { t } = start(ctx, [{ text: 'reviewed it' }], [], { cwd });
    await t.waitFor(READY);
    t.type('/help');
    t.keys('Enter');
    await t.waitFor(/Prompt templates\n\s+\/review ARGS\s+Review a file \(workspace\)/, { history: true });
    t.type('/reviw x');
    t.keys('Enter');
    await t.waitFor(/did you mean \/review\?/);
    t.type('/review src/a.ts "error handling"');
    t.keys('Enter');
    await t.waitFor(/\(prompt template review\)[\s\S]*❯ Review src\/a\.ts for error handling\.[\s\S]*reviewed it[\s\S]*scripted\/script · ↑/);
    const users = sessionEntries(t.home).filter((e) => e.type === 'message' && e.message.role === 'user');
    expect(users.map((e) => e.message.content[0].text)).toEqual(['Review src/a.ts for error handling.\n']);
  });
});

describe.concurrent('skills and context files', () => {
  it('/skill:name args inlines the skill; /help lists skills; /status shows the context files with their sizes', async (ctx) => {
    const cwd = tempDir();
    mkdirSync(join(cwd, '.mini-agent', 'skills', 'release'), { recursive: true });
    writeFileSync(join(cwd, '.mini-agent', 'skills', 'release', 'SKILL.md'), '---\nname: release\ndescription: Cut a release\n---\nRELEASE STEPS: tag and push.\n');
    writeFileSync(join(cwd, 'AGENTS.md'), 'Use tabs.\n');
    const { t } = start(ctx, [{ text: 'released' }], [], { cwd });
    await t.waitFor(READY);
    t.type('/help');
    t.keys('Enter');
    await t.waitFor(/Skills\n\s+\/skill:release ARGS\s+Cut a release \(workspace\)/, { history: true });
    t.type('/status');
    t.keys('Enter');
    await t.waitFor(/context file \(workspace\): \S*AGENTS\.md \(10 bytes, ~\d+ tokens\)/, { history: true });
    t.type('/skill:release v2');
    t.keys('Enter');
    await t.waitFor(/\(skill release\)[\s\S]*released[\s\S]*scripted\/script · ↑/);
    const users = sessionEntries(t.home).filter((e) => e.type === 'message' && e.message.role === 'user');
    expect(users[0].message.content[0].text).toMatch(/^<skill name="release"[\s\S]*RELEASE STEPS: tag and push\.[\s\S]*v2$/);
  });
});

describe('screen snapshots', () => {
  it('Markdown, tool lines and the status line, as plain text', async (ctx) => {
    const answer = '# Result\n\nThe **tests** pass; *two* files changed:\n\n1. `src/a.ts`\n2. `src/b.ts`\n\n> note: run `npm test` again\n\n```js\nconst ok = true;\n```\n\n| file | lines |\n|---|--:|\n| a.ts | 12 |\n| b.ts | 3 |\n';
    const { t, cwd } = start(
      ctx,
      [
        {
          toolCalls: [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'read_file', arguments: { path: 'gone.txt' } },
          ],
        },
        { text: answer, usage: { input: 2400, output: 120 } },
      ],
      [],
      { columns: 72, rows: 40 },
    );
    writeFileSync(join(cwd, 'a.txt'), 'alpha\nbeta\n');
    await t.waitFor(READY);
    t.type('summarize');
    t.keys('Enter');
    const screen = await t.waitFor(/scripted\/script · ↑/);
    await expect(stable(screen)).toMatchFileSnapshot('./fixtures/screens/markdown-tools-status.txt');
  });
});
