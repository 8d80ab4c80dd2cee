// Pointing at things in the interactive editor (issue 24 §2), in a real terminal (tmux) at 80 and
// 40 columns: `@` opens a fuzzy file picker below the input (.gitignore respected), the chosen
// path goes in as `@path`, and the file's content reaches the request (a local OpenAI-compatible
// server keeps the bodies); Tab completes a command and a path; `/` on an empty input shows the
// command menu with one-line descriptions, filtered as you type, and Esc closes it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './support/helpers.js';
import { sse, servePerTest, type RecordedRequest } from './support/http-server.js';
import { interactiveSessions, READY } from './support/interactive.js';
import { TMUX, useSystemTool } from './support/system-tools.js';
import { TmuxSession } from './support/tmux.js';

const start = interactiveSessions();
const serve = servePerTest();

// Terminals on the fake server (interactiveSessions runs the scripted model only).
const terminals: TmuxSession[] = [];
let tmuxBin: string | undefined;
afterEach(() => {
  while (terminals.length) terminals.pop()!.kill();
});
afterAll(() => {
  if (tmuxBin) TmuxSession.killServer(tmuxBin);
});

const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const answer = sse([chunk({ role: 'assistant', content: 'The notes are read.' }), chunk({}, 'stop')], { done: true });

/** A workspace with a few files, one folder ignored by .gitignore. */
function workspace(): string {
  const cwd = tempDir();
  const files: Record<string, string> = {
    'notes.md': '# Launch notes\n\nthe launch code is 4242\n',
    'src/app.ts': 'export const app = 1;\n',
    'src/agent.ts': 'export const agent = 2;\n',
    'docs/guide.md': 'a guide\n',
    'build/notes-copy.md': 'ignored copy\n',
    '.gitignore': 'build/\n',
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(cwd, name, '..'), { recursive: true });
    writeFileSync(join(cwd, name), text);
  }
  return cwd;
}

/** The screen's lines, trailing blanks dropped. */
const rows = (screen: string) => screen.split('\n').map((l) => l.trimEnd());

describe.each([80, 40])('at %i columns', (columns) => {
  it("@ opens a file picker below the input, filtered as you type; Enter inserts @path and the file's content reaches the request", async (ctx) => {
    tmuxBin = useSystemTool(ctx, TMUX);
    const server = await serve((req: RecordedRequest) => (req.url.endsWith('/chat/completions') ? { body: answer, headers: { 'content-type': 'text/event-stream' } } : { status: 404, body: '{}' }));
    const cwd = workspace();
    const t = new TmuxSession(tmuxBin, ['--provider', 'openai-compatible', '--base-url', `${server.url}/v1`, '--model', 'test-model'], { cwd, columns, rows: 24, env: { OPENAI_API_KEY: 'test-key' } });
    terminals.push(t);
    await t.waitFor(READY);
    t.type('summarize @');
    const open = await t.waitFor(/› /);
    const lines = rows(open);
    const input = lines.findIndex((l) => l.startsWith('❯ summarize @'));
    expect(input).toBeGreaterThanOrEqual(0);
    // The list is below the input: the workspace's files, not what .gitignore ignores, and the keys.
    const below = lines.slice(input + 1).join('\n');
    expect(below).toMatch(/notes\.md/);
    expect(below).toMatch(/src\/app\.ts/);
    expect(below).not.toContain('build/');
    expect(below).toMatch(/↑↓ move/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(columns);
    t.type('nots');
    const filtered = await t.waitFor((s) => /› notes\.md/.test(s) && !/src\/app\.ts/.test(s));
    expect(rows(filtered).filter((l) => /^[› ] \S/.test(l) && !l.includes('↑↓'))).toEqual(['› notes.md']);
    t.keys('Enter');
    await t.waitFor((s) => /❯ summarize @notes\.md\s*$/.test(s) && !/↑↓ move/.test(s));
    t.type('briefly'); // after the space the picker put after the path
    await t.waitFor(/❯ summarize @notes\.md briefly$/m);
    t.keys('Enter');
    await t.waitFor(/The notes are read\./);
    const chat = server.requests.find((r) => r.url.endsWith('/chat/completions'))!;
    const user = chat.body.messages.find((m: Record<string, unknown>) => m.role === 'user');
    expect(user.content).toBe('summarize @notes.md briefly\n<file path="notes.md">\n# Launch notes\n\nthe launch code is 4242\n</file>');
    // The scrollback shows what was typed, not the file.
    expect(t.history()).not.toContain('launch code is 4242');
  });

  it('Tab completes a command, then a path (a list when several fit)', async (ctx) => {
    const { t } = start(ctx, [{ text: 'unused' }], [], { cwd: workspace(), columns, rows: 24 });
    await t.waitFor(READY);
    t.type('/exp');
    t.keys('Tab');
    await t.waitFor(/❯ \/export$/m); // and a space after it (tmux drops trailing spaces): what is typed next is the argument
    t.type('do');
    t.keys('Tab');
    await t.waitFor(/❯ \/export docs\/$/m);
    t.type('g');
    t.keys('Tab');
    await t.waitFor(/❯ \/export docs\/guide\.md$/m);
    t.keys('C-u');
    t.type('look at src/a');
    t.keys('Tab');
    const several = await t.waitFor(/src\/agent\.ts {2}src\/app\.ts/);
    expect(several).toMatch(/❯ look at src\/a$/m);
    t.type('p');
    t.keys('Tab');
    await t.waitFor((s) => /❯ look at src\/app\.ts$/m.test(s) && !/src\/agent\.ts/.test(s));
  });

  it('/ on an empty input shows the command menu with descriptions, filtered as you type; Esc closes it', async (ctx) => {
    const { t } = start(ctx, [{ text: 'unused' }], [], { cwd: workspace(), columns, rows: 24 });
    await t.waitFor(READY);
    t.type('/');
    const menu = await t.waitFor(/› \/help/);
    expect(menu).toMatch(/\/help +list the/);
    expect(menu).toMatch(/\/new +start a/);
    for (const l of rows(menu)) expect(l.length).toBeLessThanOrEqual(columns);
    t.type('mo');
    const filtered = await t.waitFor((s) => /› \/model +switch model/.test(s) && !/› \/help/.test(s)); // the header names /help too
    expect(rows(filtered).findIndex((l) => l.startsWith('❯ /mo'))).toBeLessThan(rows(filtered).findIndex((l) => l.startsWith('› /model')));
    t.keys('Escape');
    await t.waitFor((s) => /❯ \/mo$/m.test(s) && !/switch model/.test(s));
    t.keys('BSpace', 'BSpace');
    t.type('thi');
    await t.waitFor(/› \/thinking/);
    t.keys('Tab');
    await t.waitFor((s) => /❯ \/thinking$/m.test(s) && !/› /.test(s));
    t.type('hi');
    t.keys('Tab');
    await t.waitFor(/❯ \/thinking high$/m);
    // Enter sends what was typed unless an arrow moved through the menu: then it runs the highlighted command.
    t.keys('C-u');
    t.type('/stat');
    await t.waitFor(/› \/status/);
    t.keys('Down', 'Enter');
    await t.waitFor(/❯ \/status\n[\s\S]*model scripted\/script · thinking/);
  });
});
