// The model's reasoning in the interactive mode (tmux, scripted model): shown dimmed while it
// streams, collapsed to one line once the answer starts, expanded by Ctrl+O (or /reasoning);
// the thinking level shown and set by /thinking and cycled by Shift+Tab, with the note for a
// model that has no reasoning control.
import { describe, expect, it } from 'vitest';
import { interactiveSessions, READY } from './support/interactive.js';

const start = interactiveSessions();

const REASONING = 'First I look at the question closely.\nThen I weigh the two readings of it.\nFinally I pick the plainer one.';

describe('reasoning in the interactive mode', () => {
  it('streams dimmed, collapses to one line when the answer starts, and Ctrl+O expands it (the last one too)', async (ctx) => {
    const { t, cwd } = start(ctx, [
      { thinking: REASONING, text: 'The plainer reading wins.', delayMs: 120 },
      { thinking: 'A second, shorter thought.', text: 'Second answer.' },
    ]);
    await t.waitFor(READY);
    t.type('which reading?');
    t.keys('Enter');
    // While it streams: the reasoning in the live region, dimmed (SGR 2).
    await t.waitFor(/thinking… \(\d+ lines?\)[\s\S]*First I look at the question/);
    expect(t.screenWithEscapes()).toMatch(/\x1b\[2m[^\x1b]*First I look at the question/);
    // Once the answer started: one line in the scrollback, the reasoning itself gone from the screen.
    const after = await t.waitFor(/The plainer reading wins\.[\s\S]*scripted\/script/);
    expect(after).toContain('thinking… (3 lines, Ctrl+O to expand)');
    expect(t.history()).not.toContain('Then I weigh the two readings');
    expect(after.indexOf('thinking… (3 lines')).toBeLessThan(after.indexOf('The plainer reading wins.'));

    // Ctrl+O: expanded; the last reasoning is printed in full.
    t.keys('C-o');
    const expanded = await t.waitFor(/reasoning expanded[\s\S]*Finally I pick the plainer one\./);
    expect(expanded).toContain('the last thinking (3 lines):');
    expect(expanded).toContain('  Then I weigh the two readings of it.');

    // Expanded, the next reasoning goes to the scrollback in full.
    t.type('and again?');
    t.keys('Enter');
    const second = await t.waitFor(/Second answer\.[\s\S]*scripted\/script/);
    expect(second).toMatch(/thinking \(1 line\):\n {2}A second, shorter thought\.\n[\s\S]*Second answer\./);

    // /reasoning collapses again; /status shows the level.
    t.type('/reasoning');
    t.keys('Enter');
    await t.waitFor(/reasoning collapsed: one line each/);
    t.type('/status');
    t.keys('Enter');
    await t.waitFor(/model scripted\/script · thinking off · session/);

    // Resumed, the conversation's reasoning shows as one line again.
    t.keys('C-d');
    await t.exited();
    const { t: again } = start(ctx, [{ text: 'unused' }], ['--continue'], { cwd, home: t.home });
    const resumed = await again.waitFor(/Second answer\.[\s\S]*❯/);
    expect(resumed).toMatch(/thinking… \(3 lines, Ctrl\+O to expand\)\n[\s\S]*The plainer reading wins\.[\s\S]*thinking… \(1 line, Ctrl\+O to expand\)\n[\s\S]*Second answer\./);
  });

  it('/thinking shows and sets the level, Shift+Tab cycles it; a model without reasoning control gets a note', async (ctx) => {
    const { t } = start(ctx, [{ text: 'ok' }]);
    await t.waitFor(READY);
    t.type('/thinking');
    t.keys('Enter');
    await t.waitFor(/thinking: off \(levels: off, low, medium, high; Shift\+Tab cycles them\)/);
    t.keys('BTab');
    const low = await t.waitFor(/thinking: low \(from the next request\)\nnote: thinking low: the model script has no reasoning control[\s\S]*nothing is\ssent for it/);
    expect(low).not.toContain('…');
    t.type('/thinking high');
    t.keys('Enter');
    await t.waitFor(/thinking: high \(from the next request\)/);
    t.keys('BTab');
    await t.waitFor(/thinking: off \(from the next request\)/);
    t.type('/thinking low');
    t.keys('Enter');
    t.type('/model ollama/other-model');
    t.keys('Enter');
    await t.waitFor(/model: ollama\/other-model\nnote: thinking low: the model other-model has no reasoning control/);
    t.type('/thinking max');
    t.keys('Enter');
    await t.waitFor(/\/thinking: unknown level "max" \(levels: off, low, medium, high\)/);
    t.type('/help');
    t.keys('Enter');
    const help = await t.waitFor(/Shift\+Tab {8}the next thinking level/);
    expect(help).toMatch(/Ctrl\+O {11}expand or collapse the model's reasoning/);
  });
});
