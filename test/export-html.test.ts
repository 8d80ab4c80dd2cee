// The HTML export in a real headless Chromium (driven by playwright-core): offline (no
// http/https request), the whole tree, click-through branches, collapsed tool output, message
// text that tries to break out of the JSON <script> stays text (a property test over random
// text, in Node and in the browser), and assistant Markdown rendered as elements with no image,
// no script and no request. markdownToNodes itself: markdown-html.test.ts.
// The browser is MINI_AGENT_CHROMIUM, else /usr/bin/chromium, else one on PATH. Without one the
// browser tests are skipped with a note on the summary line; under MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1
// (CI) they fail instead. MINI_AGENT_SKIP_BROWSER=1 skips them on purpose, except in CI.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript
import { PAGE_SCRIPT_FILE, renderPageScript } from '../scripts/page-script.mjs';
import { isContentEntry } from '../src/session/entries.js';
import { EXPORT_CSP, exportHtml, markdownOf, scriptSafeJson } from '../src/session/export-html.js';
import { markdownToNodes, textOf } from '../src/session/markdown-html.js';
import { SessionStore } from '../src/session/store.js';
import { assistant, buildSession, contentEntries, CWD, fakeClock, result, SESSION_ID, user, XSS, type BuiltSession } from './support/export-session.js';
import { tempDir } from './support/helpers.js';
import { CHROMIUM, systemToolPath, useSystemTool } from './support/system-tools.js';

const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));

/** Pieces that could end a <script> element, open a comment, break JSON read as JS, or be taken for markup. */
const PIECES = [
  '</script>',
  '</SCRIPT >',
  '</script',
  '<script>',
  '<!--',
  '-->',
  '<!-- <script>',
  '\u2028',
  '\u2029',
  '&',
  '&amp;',
  '&lt;',
  '<',
  '>',
  '"',
  "'",
  '\\',
  '\n',
  '\r\n',
  '\0',
  '\ud800',
  '\udfff',
  '```',
  '**',
  '# ',
  '[a](javascript:x)',
  '<img src=x onerror=alert(1)>',
  ' ',
];
const nastyText = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 8 })), { maxLength: 12 }).map((a) => a.join(''));
const nastyTurn = fc.record({ user: nastyText, thinking: nastyText, reply: nastyText, output: nastyText, label: nastyText });
type Turn = { user: string; thinking: string; reply: string; output: string; label: string };

/** A linear session of `turns`: user, assistant (thinking, text, a tool call), tool result, assistant text; each turn's last entry labelled. */
function sessionOf(name: string, turns: Turn[]): SessionStore {
  const store = SessionStore.inMemory({ cwd: CWD, id: SESSION_ID, now: fakeClock() });
  if (name !== '') store.append({ type: 'session_info', name });
  turns.forEach((t, i) => {
    store.appendMessage(user(t.user));
    store.appendMessage(
      assistant(
        [
          { type: 'thinking', thinking: t.thinking },
          { type: 'text', text: t.reply },
          { type: 'toolCall', id: `c${i}`, name: 'read_file', arguments: { path: t.output } },
        ],
        'toolUse',
      ),
    );
    store.appendMessage(result(`c${i}`, 'read_file', t.output));
    const last = store.appendMessage(assistant([{ type: 'text', text: `${t.reply}\n\n${t.user}` }])).id;
    if (t.label.trim() !== '') store.append({ type: 'label', targetId: last, label: t.label });
  });
  return store;
}

/** What the export should carry: the content entries and their Markdown, as JSON gives them back. */
function expectedData(store: SessionStore) {
  const entries = store.entries().filter(isContentEntry);
  return JSON.parse(JSON.stringify({ name: store.name, labels: Object.fromEntries(store.labels()), entries, markdown: markdownOf(entries) }));
}

/** The text of the session-data element as the HTML tokenizer ends it: at the first `</script`. */
function sessionJson(html: string): string {
  const open = '<script type="application/json" id="session-data">';
  const start = html.indexOf(open) + open.length;
  // A case-insensitive search, not toLowerCase(): lowering can change the length ("İ" becomes two code units).
  return html.slice(start, start + html.slice(start).search(/<\/script/i));
}

describe('HTML export (static checks)', () => {
  test('one self-contained file: no external URL, a strict CSP, escaped JSON', () => {
    const { store } = buildSession();
    const html = exportHtml(store);
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/\b(src|href)\s*=/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/@import|url\(/);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-`);
    // The message text never appears raw: only the JSON-escaped form.
    expect(html).not.toContain(XSS);
    expect(html).toContain('\\u003c/script\\u003e\\u003cscript\\u003ewindow.pwned=1');
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html.match(/<script\b/g)).toHaveLength(2);
    expect(html).not.toContain('<!--');
    // The title is HTML-escaped.
    const named = SessionStore.inMemory({ cwd: CWD, id: SESSION_ID, now: fakeClock() });
    named.append({ type: 'session_info', name: XSS });
    expect(exportHtml(named)).toContain('<title>&#60;/script&#62;&#60;script&#62;window.pwned=1&#60;/script&#62;</title>');
  });

  test('the page script is generated from its TypeScript module, ES2017 (regenerate: npm run gen:page-script)', async () => {
    const expected = await (renderPageScript as () => Promise<string>)();
    if (process.env.UPDATE_PAGE_SCRIPT) writeFileSync(PAGE_SCRIPT_FILE as string, expected);
    expect(readFileSync(PAGE_SCRIPT_FILE as string, 'utf8'), 'src/session/export-page.generated.ts is out of date: run `npm run gen:page-script`').toBe(expected);
    const { PAGE_SCRIPT } = await import('../src/session/export-page.generated.js');
    expect(exportHtml(buildSession().store)).toContain(`<script>${PAGE_SCRIPT}</script>`);
    expect(PAGE_SCRIPT).not.toMatch(/<\/script|<!--|[^\x00-\x7f]|\?\?|\?\.|\bimport\b/);
  });

  test('is deterministic', () => {
    const { store } = buildSession();
    expect(exportHtml(store)).toBe(exportHtml(store));
  });

  test("the policy: only the page's own script, inline styles, no image of any origin", () => {
    expect(EXPORT_CSP).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'$/);
    expect(exportHtml(buildSession().store)).toContain(`<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`);
  });

  test('assistant text travels as Markdown trees; user text, thinking and tool output do not', () => {
    const { store, ids } = buildSession();
    const data = JSON.parse(sessionJson(exportHtml(store)));
    expect(Object.keys(data.markdown).sort()).toEqual([ids.firstCall, ids.answer, ids.branchAReply, ids.branchBReply].sort());
    expect(data.markdown[ids.firstCall]).toEqual([null, markdownToNodes('Let me read the file.'), null]);
    expect(data.markdown[ids.answer][0]).toEqual(markdownToNodes('The list has **30 tasks**:\n\n```\nall open\n```\nNone is done.'));
  });

  test('property: no message text, name or label can end the data element, add a script or change on the way', () => {
    fc.assert(
      fc.property(nastyText, fc.array(nastyTurn, { minLength: 1, maxLength: 3 }), (name, turns) => {
        const store = sessionOf(name, turns);
        const html = exportHtml(store);
        expect(html.match(/<script\b/gi)).toHaveLength(2);
        expect(html.match(/<\/script/gi)).toHaveLength(2);
        expect(html).not.toContain('<!--');
        const json = sessionJson(html);
        expect(json).not.toMatch(/[<>&\u2028\u2029]/);
        const data = JSON.parse(json);
        const expected = expectedData(store);
        expect(data.entries).toEqual(expected.entries);
        expect(data.markdown).toEqual(expected.markdown);
        expect(data.labels).toEqual(expected.labels);
        expect(data.session.name).toBe(store.name);
        // Spelled out: every string given comes back as it was.
        const messages = data.entries.map((e: { message: { content: { text?: string; thinking?: string }[] } }) => e.message.content.map((c) => c.text ?? c.thinking));
        turns.forEach((t, i) => expect(messages.slice(i * 4, i * 4 + 4)).toEqual([[t.user], [t.thinking, t.reply, undefined], [t.output], [`${t.reply}\n\n${t.user}`]]));
      }),
      { numRuns: 150 },
    );
  });

  test('scriptSafeJson round-trips through JSON.parse', () => {
    const value = { a: '</script><!-- & \u2028 \u2029 >' };
    const json = scriptSafeJson(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('HTML export in headless Chromium', () => {
  // Undefined when the tests below skip or fail before using it (see useSystemTool).
  const chromiumPath = systemToolPath(CHROMIUM);
  let browser: Browser | undefined;
  let built: BuiltSession;
  let page: Page;
  const requests: string[] = [];
  const errors: string[] = [];

  // A failure here is reported by every test below (not by the hook), so the summary line counts it.
  let setupError: unknown;
  const btest = (name: string, body: () => Promise<void> | void) =>
    test(name, async (ctx) => {
      useSystemTool(ctx, CHROMIUM);
      if (setupError) throw setupError;
      await body();
    });

  beforeAll(async () => {
    try {
      await setup();
    } catch (err) {
      setupError = err;
    }
  });

  async function setup(): Promise<void> {
    if (chromiumPath === undefined) return;
    // Loaded only with a browser to drive: a run without one (system-tools.test.ts runs this file
    // three times that way) does not pay for playwright-core's import.
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    built = buildSession();
    const file = join(tempDir('mini-agent-html-'), 'session.html');
    writeFileSync(file, exportHtml(built.store));
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.setDefaultTimeout(5000);
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  }

  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh page on `html` (written to a temp file), recording every request and every script error. */
  async function openExport(html: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
    const file = join(tempDir('mini-agent-html-'), 'session.html');
    writeFileSync(file, html);
    const p = await browser!.newPage({ viewport: { width: 1100, height: 1000 } });
    const out = { page: p, requests: [] as string[], errors: [] as string[] };
    p.on('request', (r) => out.requests.push(r.url()));
    p.on('pageerror', (e) => out.errors.push(e.message));
    p.on('console', (m) => {
      if (m.type() === 'error') out.errors.push(m.text());
    });
    p.setDefaultTimeout(5000);
    await p.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    return out;
  }

  btest('loads offline: no http/https request, no script error', () => {
    expect(requests.length).toBeGreaterThan(0); // the file itself
    expect(requests.filter((u) => /^https?:/i.test(u))).toEqual([]);
    expect(requests.every((u) => u.startsWith('file:') || u.startsWith('data:') || u.startsWith('about:'))).toBe(true);
    expect(errors).toEqual([]);
  });

  btest('the tree shows every entry of every branch, labels, the compaction, the active path and the leaf', async () => {
    const { store, ids } = built;
    const all = contentEntries(store);
    expect(await page.locator('[data-entry-id]').count()).toBe(all.length);
    const shown = await page.locator('#tree [data-entry-id]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.entryId));
    expect(new Set(shown)).toEqual(new Set(all.map((e) => e.id)));
    const activeIds = await page.locator('#tree [data-active="true"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.entryId));
    expect(activeIds).toEqual(store.activePath().map((e) => e.id));
    expect(await page.locator(`[data-entry-id="${ids.branchAUser}"]`).getAttribute('data-active')).toBe('false');
    expect(await page.locator('[data-leaf="true"]').getAttribute('data-entry-id')).toBe(store.leafId);
    const compaction = page.locator(`#tree .compaction[data-entry-id="${ids.compaction}"]`);
    await expect.poll(() => compaction.isVisible()).toBe(true);
    expect(await compaction.getAttribute('data-label')).toBe('after compaction');
    expect(await page.locator(`[data-entry-id="${ids.firstUser}"] .badge.label`).textContent()).toBe('start');
    expect(await page.locator(`[data-entry-id="${ids.branchBReply}"]`).getAttribute('data-label')).toBe('french </b>');
    // Branches are indented under the compaction they fork from.
    expect(await page.locator(`[data-entry-id="${ids.branchAUser}"] .guide`).textContent()).toBe('├─ ');
    expect(await page.locator(`[data-entry-id="${ids.branchBUser}"] .guide`).textContent()).toBe('└─ ');
    // The header shows the name and stats.
    expect(await page.locator('#session-title').textContent()).toBe('Summarize the *todo* list');
    expect(await page.locator('#stats [data-stat="tools"] dd').textContent()).toBe('3 (1 failed)');
  });

  btest('the main pane starts on the active path; clicking a node of the other branch shows that branch only', async () => {
    const { store, ids } = built;
    const bar = page.locator('#selected-path');
    expect(await bar.getAttribute('data-selected-id')).toBe(store.leafId);
    expect(await bar.getAttribute('data-path')).toBe(
      store
        .activePath()
        .map((e) => e.id)
        .join(' '),
    );
    const main = page.locator('#messages');
    expect(await main.textContent()).toContain('BRANCH-B');
    expect(await main.textContent()).not.toContain('BRANCH-A');
    expect(await page.locator('#messages .msg.compaction').count()).toBe(1);
    expect(await page.locator('#messages .msg.compaction .summary').textContent()).toContain('30 open tasks');

    await page.locator(`[data-entry-id="${ids.branchAReply}"]`).click();
    expect(await bar.getAttribute('data-selected-id')).toBe(ids.branchAReply);
    expect(await bar.getAttribute('data-on-active')).toBe('false');
    expect(await page.locator('#selected-path-text').textContent()).toContain('another branch');
    const text = await main.textContent();
    expect(text).toContain('BRANCH-A');
    expect(text).toContain('Now write it to out/summary.md');
    expect(text).not.toContain('BRANCH-B');
    expect(text).not.toContain('Translate the summary');
    const msgIds = await page.locator('#messages [data-msg-id]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.msgId));
    expect(msgIds).toEqual(store.pathTo(ids.branchAReply).map((e) => e.id));
    expect(await page.locator(`[data-entry-id="${ids.branchAReply}"]`).getAttribute('data-selected')).toBe('true');
    expect(await page.locator('#tree [data-on-path="true"]').count()).toBe(msgIds.length);

    await page.locator('#show-active').click();
    expect(await bar.getAttribute('data-selected-id')).toBe(store.leafId);
    expect(await main.textContent()).toContain('BRANCH-B');
  });

  btest('tool output is collapsed until clicked', async () => {
    const { ids } = built;
    await page.locator(`[data-entry-id="${ids.failedResult}"]`).click();
    const details = page.locator(`[data-msg-id="${ids.longResult}"] details.tool-output`);
    const output = details.locator('pre.output');
    expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await output.isVisible()).toBe(false);
    expect(await details.locator('summary').textContent()).toBe('✓ read_file · 30 lines');
    await details.locator('summary').click();
    expect(await output.isVisible()).toBe(true);
    const text = await output.textContent();
    expect(text).toContain('line 30: - [ ] task 30');
    expect(text).toContain('code: ```js and ````');
    const failed = page.locator(`[data-msg-id="${ids.failedResult}"] details.tool-output`);
    expect(await failed.getAttribute('data-error')).toBe('true');
    await failed.locator('summary').click();
    expect(await failed.locator('pre.output').textContent()).toBe('ENOENT: notes/missing.md does not exist');
    expect(await page.locator(`[data-msg-id="${ids.firstCall}"] .tool-call .args`).textContent()).toBe('{"path":"notes/todo.md"}');
    expect(await page.locator(`[data-msg-id="${ids.firstCall}"] details.thinking summary`).textContent()).toBe('Thinking (55 chars)');
  });

  btest('a message holding </script><script>… renders as text and runs nothing', async () => {
    const { ids } = built;
    await page.locator('#show-active').click();
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator(`[data-msg-id="${ids.branchBUser}"] .text`).textContent()).toBe(`Translate the summary to French. ${XSS}`);
    expect(await page.locator('#messages script').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(2);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.locator(`[data-entry-id="${ids.branchAReply}"]`).click();
    await page.locator(`[data-msg-id="${ids.failedResult}"] details.tool-output summary`).click();
    await page.screenshot({ path: join(ARTIFACTS, 'export-html.png'), fullPage: false });
    expect(existsSync(join(ARTIFACTS, 'export-html.png'))).toBe(true);
    expect(errors).toEqual([]);
  });

  btest('a URL hash selects an entry; an empty session and a long chain render', async () => {
    const { ids } = built;
    const dir = tempDir('mini-agent-html-');
    const file = join(dir, 'session.html');
    writeFileSync(file, exportHtml(built.store));
    const p = await browser!.newPage();
    p.setDefaultTimeout(5000);
    try {
      await p.goto(`${pathToFileURL(file).href}#${ids.branchAUser}`);
      expect(await p.locator('#selected-path').getAttribute('data-selected-id')).toBe(ids.branchAUser);

      writeFileSync(file, exportHtml(SessionStore.inMemory({ cwd: CWD, id: SESSION_ID, now: fakeClock() })));
      await p.goto(pathToFileURL(file).href);
      expect(await p.locator('[data-entry-id]').count()).toBe(0);
      expect(await p.locator('#messages').textContent()).toBe('(no messages yet)');

      const long = SessionStore.inMemory({ cwd: CWD, id: SESSION_ID, now: fakeClock() });
      for (let i = 0; i < 1500; i++) {
        long.appendMessage(user(`question ${i}`));
        long.appendMessage(assistant([{ type: 'text', text: `answer ${i}` }]));
      }
      writeFileSync(file, exportHtml(long));
      await p.goto(pathToFileURL(file).href);
      expect(await p.locator('#tree [data-entry-id]').count()).toBe(3000);
      expect(await p.locator('#tree [data-active="true"]').count()).toBe(3000);
      expect(await p.locator('#messages [data-msg-id]').count()).toBe(3000);
    } finally {
      await p.close();
    }
  });

  btest('assistant Markdown renders as elements: no image, no script run, no request, no fences or asterisks shown', async () => {
    const store = SessionStore.inMemory({ cwd: CWD, id: SESSION_ID, now: fakeClock() });
    store.append({ type: 'session_info', name: 'Markdown check' });
    store.appendMessage(user('Please **format** this:\n```\n# not a heading\n```'));
    store.appendMessage(
      assistant(
        [
          { type: 'text', text: 'Reading it.' },
          { type: 'toolCall', id: 'c1', name: 'read_file', arguments: { path: 'a.md' } },
        ],
        'toolUse',
      ),
    );
    store.appendMessage(result('c1', 'read_file', '# Title\n\n**raw** [x](https://example.com/t) ![i](https://example.com/t.png)'));
    store.appendMessage(assistant([{ type: 'text', text: MARKDOWN_REPLY }]));
    const { page: p, requests, errors } = await openExport(exportHtml(store));
    try {
      const md = p.locator('#messages .msg[data-role="assistant"] .text.markdown').last();
      expect(await md.locator('h1').textContent()).toBe('Release notes');
      expect(await md.locator('h2').textContent()).toBe('Steps');
      expect(await md.locator('ul > li').allTextContents()).toEqual(['first item', 'second item with bold']);
      expect(await md.locator('li > strong').textContent()).toBe('bold');
      expect(await md.locator('p > strong').textContent()).toBe('bold text');
      expect(await md.locator('em').textContent()).toBe('emphasis');
      expect(await md.locator('p > code').textContent()).toBe('inline code');
      expect(await md.locator('pre > code.language-js').textContent()).toBe('const ok = 1 < 2 && "<b>";\nconsole.log(ok);');
      expect(await md.locator('table thead th').allTextContents()).toEqual(['name', 'value']);
      expect(await md.locator('table tbody td').allTextContents()).toEqual(['alpha', '1']);
      expect(await md.locator('blockquote').textContent()).toBe('quoted');
      // Links keep http(s) targets only; the image is a link to its URL; the javascript: link is text.
      const links = await p.locator('#messages a').evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.textContent, a.getAttribute('rel'), a.className]));
      expect(links).toEqual([
        ['https://example.com/docs', 'the docs', 'noopener noreferrer nofollow', ''],
        ['https://example.com/diagram.png', 'image: architecture diagram', 'noopener noreferrer nofollow', 'image'],
      ]);
      expect(await md.textContent()).toContain('Never click me.');
      // Raw HTML is shown as its source, and nothing of it exists or ran.
      expect(await p.locator('img, iframe, object, embed, video, audio, picture, source, link, base, form, meta[http-equiv="refresh"]').count()).toBe(0);
      expect(await p.evaluate(() => document.scripts.length)).toBe(2);
      expect(await p.locator('#messages [onerror], #messages [onclick], #messages [style], #messages [src]').count()).toBe(0);
      expect(await p.title()).toBe('Markdown check');
      const globals = await p.evaluate(() => ['pwnedImg', 'pwnedScript', 'pwnedInline', 'pwnedLink'].map((k) => typeof (window as unknown as Record<string, unknown>)[k]));
      expect(globals).toEqual(['undefined', 'undefined', 'undefined', 'undefined']);
      const shown = await md.innerText();
      for (const mark of ['```', '**', '# ', '](', '![', '| ---', '|---']) expect(shown).not.toContain(mark);
      expect(shown).toContain('<img src=x onerror="document.title=\'pwned-img\';window.pwnedImg=1">');
      expect(shown).toContain('<script>document.title="pwned-script";window.pwnedScript=1</script>');
      expect(shown).toContain('Inline <img src=x onerror="window.pwnedInline=1"> and <iframe src="https://example.com/frame"></iframe> stay text.');
      // User text and tool output stay preformatted text.
      expect(await p.locator('.msg[data-role="user"] .text').textContent()).toBe('Please **format** this:\n```\n# not a heading\n```');
      expect(await p.locator('.msg[data-role="user"] :is(strong, pre, h1)').count()).toBe(0);
      const output = p.locator('.tool-result pre.output');
      await p.locator('.tool-result summary').click();
      expect(await output.textContent()).toBe('# Title\n\n**raw** [x](https://example.com/t) ![i](https://example.com/t.png)');
      expect(await p.locator('.tool-result :is(a, strong, h1)').count()).toBe(0);
      // The policy in force, and not one request beyond the file itself.
      expect(await p.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toBe(EXPORT_CSP);
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
      expect(errors).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await p.screenshot({ path: join(ARTIFACTS, 'export-html-markdown.png'), fullPage: true });
    } finally {
      await p.close();
    }
  });

  btest('property, in the browser: random text round-trips through the data element and the DOM, two scripts only', async () => {
    const turns = fc.sample(nastyTurn, { numRuns: 40, seed: 20260102 });
    const store = sessionOf(fc.sample(nastyText, { numRuns: 1, seed: 7 })[0], turns);
    const { page: p, errors } = await openExport(exportHtml(store));
    try {
      // Strings cross to Node as JSON made in the page: JSON.stringify escapes lone surrogates, which the protocol would mangle.
      const got = JSON.parse(
        await p.evaluate(() => {
          const data = JSON.parse(document.getElementById('session-data')!.textContent!);
          const texts = (sel: string) => Array.from(document.querySelectorAll(sel), (n) => n.textContent);
          return JSON.stringify({
            scripts: document.scripts.length,
            data: { name: data.session.name, labels: data.labels, entries: data.entries, markdown: data.markdown },
            user: texts('.msg[data-role="user"] > .text'),
            output: texts('.tool-result pre.output'),
            markdown: texts('.msg[data-role="assistant"] .text.markdown'),
          });
        }),
      );
      expect(got.scripts).toBe(2);
      expect(got.data).toEqual(expectedData(store));
      expect(got.user).toEqual(turns.map((t) => t.user));
      expect(got.output).toEqual(turns.map((t) => (t.output === '' ? '(no output)' : t.output)));
      const replies = turns.flatMap((t) => [t.reply, `${t.reply}\n\n${t.user}`]).filter((r) => r.trim() !== '');
      expect(got.markdown).toEqual(replies.map((r) => markdownToNodes(r).map(textOf).join('')));
      expect(await p.locator('#messages img, #messages script, #messages iframe').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await p.close();
    }
  });
});

const MARKDOWN_REPLY = [
  '# Release notes',
  '',
  'Some **bold text**, *emphasis* and `inline code`. Read [the docs](https://example.com/docs "Docs").',
  '[Never click me.](javascript:document.title=%27pwned-link%27;window.pwnedLink=1)',
  '',
  '![architecture diagram](https://example.com/diagram.png)',
  '',
  '## Steps',
  '',
  '- first item',
  '- second item with **bold**',
  '',
  '```js',
  'const ok = 1 < 2 && "<b>";',
  'console.log(ok);',
  '```',
  '',
  '| name | value |',
  '| --- | ---: |',
  '| alpha | 1 |',
  '',
  '> quoted',
  '',
  '<img src=x onerror="document.title=\'pwned-img\';window.pwnedImg=1">',
  '',
  '<script>document.title="pwned-script";window.pwnedScript=1</script>',
  '',
  'Inline <img src=x onerror="window.pwnedInline=1"> and <iframe src="https://example.com/frame"></iframe> stay text.',
].join('\n');
