// The pickers of the interactive mode in a real terminal (tmux, scripted model), at 80 and 40
// columns: /resume with no argument (filter, resume), /model with no argument (which providers have
// a key, never the key; switch), and /tree made navigable (move, preview, fold, label, branch).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { interactiveSessions, READY, sessionEntries } from './support/interactive.js';

const start = interactiveSessions();

/** The text of every session file under a home, by file. */
const sessionTexts = (home: string) => {
  const dir = join(home, 'sessions');
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => readFileSync(join(dir, f), 'utf8'));
};

/** The live region: what the screen shows from the picker's heading down. */
const from = (screen: string, heading: string) => screen.slice(screen.lastIndexOf(heading));

describe.each([80, 40])('pickers at %i columns', (columns) => {
  it('/resume alone lists the sessions (name or first prompt, date, size), filters as you type, and Enter resumes the chosen one', async (ctx) => {
    const { t } = start(ctx, [{ text: 'alpha answer' }, { text: 'beta answer' }, { text: 'gamma answer' }], [], { columns, rows: 30 });
    const header = await t.waitFor(READY);
    expect(header).toMatch(/session\s+[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\s/); // the whole id, wrapped at 40 columns
    t.type('alpha question');
    t.keys('Enter');
    await t.waitFor(/alpha answer[\s\S]*scripted\/script/);
    t.type('/new');
    t.keys('Enter');
    await t.waitFor(/new session\s+[0-9a-f]/);
    t.type('beta question');
    t.keys('Enter');
    await t.waitFor(/beta answer[\s\S]*scripted\/script/);

    t.type('/resume');
    t.keys('Enter');
    const picker = from(await t.waitFor(/Resume a session \(2 in this workspace\)[\s\S]*alpha question/), 'Resume a session');
    expect(picker).toMatch(/❯ \* beta question\n\s+\d{4}-\d\d-\d\d\s\d\d:\d\d · \d+\sentries ·\s+[\d.]+\s(B|KB) ·\s+[0-9a-f]{8}\n/); // the newest first: the one in use, marked
    expect(picker).toMatch(/ {2}alpha question\n/);
    expect(picker).toContain('2 items');
    for (const line of picker.split('\n')) expect([...line].length).toBeLessThanOrEqual(columns);

    t.type('alp');
    const filtered = from(await t.waitFor(/filter ❯ alp[\s\S]*1 of 2 items/), 'Resume a session');
    expect(filtered).toMatch(/❯ alpha question/);
    expect(filtered).not.toContain('beta question');

    t.keys('Enter');
    const resumed = await t.waitFor(/resumed session\s+[0-9a-f][\s\S]*alpha question[\s\S]*alpha answer[\s\S]*❯/);
    expect(resumed).not.toContain('Resume a session');
    expect(resumed).toMatch(/resumed session\s+[0-9a-f-]{36}:\s+2\s+messages/); // wrapped at 40 columns, not cut
    // The next prompt goes to the resumed session's file, not to the newer one.
    t.type('gamma question');
    t.keys('Enter');
    await t.waitFor(/gamma answer[\s\S]*scripted\/script/);
    const files = sessionTexts(t.home);
    expect(files).toHaveLength(2);
    expect(files.find((f) => f.includes('gamma question'))).toContain('alpha question');
    expect(files.find((f) => f.includes('beta question'))).not.toContain('gamma question');

    // Esc leaves the picker without a switch.
    t.type('/resume');
    t.keys('Enter');
    await t.waitFor(/Resume a session/);
    t.keys('Escape');
    await t.waitFor((s) => !s.includes('Resume a session') && /❯\s*$/.test(s));
  });

  it('/model alone shows which providers have a key (never the key) and Enter switches to the chosen model', async (ctx) => {
    const secret = 'sk-test-secret-4242';
    const env = { OPENAI_API_KEY: secret, ANTHROPIC_API_KEY: '', DEEPSEEK_API_KEY: '', OPENROUTER_API_KEY: '' };
    const { t } = start(ctx, [{ text: 'unused' }], [], { columns, rows: 30, env });
    await t.waitFor(READY);
    t.type('/model');
    t.keys('Enter');
    const picker = from(await t.waitFor(/Switch model[\s\S]*\* scripted\/script[\s\S]*in use/), 'Switch model');
    expect(picker).toMatch(/❯ \* scripted\/script/);

    t.type('anthropic/claude-sonnet-5');
    const anthropic = from(await t.waitFor(/filter ❯ anthropic\/claude-sonnet-5[\s\S]*items/), 'Switch model');
    expect(anthropic).toMatch(/❯ anthropic\/claude-sonnet-5/);
    expect(anthropic).toMatch(/no key \(set ANTHROPIC_API_KEY\)|no key \(set ANTHROPIC_A/);

    t.keys('C-u');
    t.type('ollama');
    const ollama = from(await t.waitFor(/filter ❯ ollama[\s\S]*ollama\/qwen3:8b/), 'Switch model');
    expect(ollama).toContain('no key needed');

    t.keys('C-u');
    t.type('openai/gpt-4.1-mini');
    const openai = from(await t.waitFor(/filter ❯ openai\/gpt-4\.1-mini[\s\S]*key set \(OPENAI_API_KEY\)/), 'Switch model');
    expect(openai).toMatch(/❯ openai\/gpt-4\.1-mini\n\s+key set \(OPENAI_API_KEY\)/);
    for (const line of openai.split('\n')) expect([...line].length).toBeLessThanOrEqual(columns);
    expect(t.history()).not.toContain(secret);

    t.keys('Enter');
    await t.waitFor(/model: openai\/gpt-4\.1-mini/);
    t.type('/status');
    t.keys('Enter');
    await t.waitFor(/model openai\/gpt-4\.1-mini · thinking off/);
    expect(sessionEntries(t.home).some((e) => e.type === 'model_change' && e.provider === 'openai' && e.model === 'gpt-4.1-mini')).toBe(true);
    expect(t.history()).not.toContain(secret);
  });

  it('/tree moves over the tree with a preview, folds a run of tool calls, labels an entry and branches from it', async (ctx) => {
    const { t, cwd } = start(
      ctx,
      [{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] }, { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] }, { text: 'first answer' }, { text: 'second answer' }, { text: 'on a branch' }],
      [],
      { columns, rows: 30 },
    );
    writeFileSync(join(cwd, 'notes.md'), 'the notes\n');
    await t.waitFor(READY);
    t.type('one');
    t.keys('Enter');
    await t.waitFor(/first answer[\s\S]*scripted\/script/);
    t.type('two');
    t.keys('Enter');
    await t.waitFor(/second answer[\s\S]*scripted\/script/);

    t.type('/tree');
    t.keys('Enter');
    // The leaf is selected; its preview shows under the list; the two reads are one fold line.
    const tree = from(await t.waitFor(/Session tree \(8 entries[\s\S]*◀ leaf[\s\S]*assistant [0-9a-f]{8}: second answer/), 'Session tree');
    expect(tree).toMatch(/▸ 4 tool entries \(read_file ×2\)/);
    expect(tree).toMatch(/❯ \* [0-9a-f]{8} assistant ◀ leaf/);
    expect(tree).not.toContain('result');
    for (const line of tree.split('\n')) expect([...line].length).toBeLessThanOrEqual(columns);

    // Up twice: the first answer, previewed.
    t.keys('Up', 'Up');
    const moved = await t.waitFor(/assistant ([0-9a-f]{8}): first answer/);
    const firstAnswer = /assistant ([0-9a-f]{8}): first answer/.exec(moved)![1];

    // l: a label, asked for inline, shown in the tree at once.
    t.type('l');
    await t.waitFor(new RegExp(`Label for entry ${firstAnswer}[\\s\\S]*label ❯`));
    t.type('start');
    t.keys('Enter');
    const labelled = await t.waitFor(new RegExp(`\\[label: start\\][\\s\\S]*assistant ${firstAnswer} \\[label: start\\]:\\s+first answer`));
    expect(labelled).toMatch(new RegExp(`labelled ${firstAnswer} as start`));
    expect(sessionEntries(t.home).some((e) => e.type === 'label' && e.targetId === firstAnswer && e.label === 'start')).toBe(true);

    // The fold opens with → and shows the calls and results; ← closes it.
    t.keys('Up');
    await t.waitFor(/4 tool calls and results, folded/);
    t.keys('Right');
    const open = from(await t.waitFor(/result "✓ read_file/), 'Session tree');
    expect(open).not.toContain('▸ 4 tool entries');
    expect(open.match(/result/g)?.length).toBe(2);
    t.keys('Down');
    t.keys('Left');
    await t.waitFor(/▸ 4 tool entries/);

    // Enter on the labelled entry: the leaf moves there; the next prompt continues from it.
    t.keys('Down');
    await t.waitFor(/first answer[\s\S]*first answer/);
    t.keys('Enter');
    await t.waitFor(new RegExp(`now at entry ${firstAnswer}; the next prompt\\s+continues from there`)); // wrapped at 40 columns, not cut
    expect(
      sessionEntries(t.home)
        .filter((e) => e.type === 'leaf')
        .at(-1)?.targetId,
    ).toBe(firstAnswer);
    t.type('three');
    t.keys('Enter');
    await t.waitFor(/on a branch[\s\S]*scripted\/script/);
    const three = sessionEntries(t.home).find((e) => e.type === 'message' && e.message.role === 'user' && e.message.content[0].text === 'three');
    expect(three?.parentId).toBe(firstAnswer);

    // Esc closes the tree; the editor is back.
    t.type('/tree');
    t.keys('Enter');
    await t.waitFor(/Session tree \(10 entries/);
    t.keys('Escape');
    await t.waitFor((s) => !s.includes('Session tree') && /❯\s*$/.test(s));
  });
});
