// The HTML export in a real headless Chromium (driven by playwright-core): offline (no
// http/https request), the whole tree, click-through branches, collapsed tool output, and
// message text that tries to break out of the JSON <script> stays text.
// The browser is MINI_AGENT_CHROMIUM, else /usr/bin/chromium, else one on PATH. Without one the
// browser tests are skipped with a note on the summary line; under MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1
// (CI) they fail instead. MINI_AGENT_SKIP_BROWSER=1 skips them on purpose, except in CI.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { exportHtml, scriptSafeJson } from '../src/session/export-html.js';
import { SessionStore } from '../src/session/store.js';
import { assistant, buildSession, contentEntries, CWD, fakeClock, SESSION_ID, user, XSS, type BuiltSession } from './support/export-session.js';
import { tempDir } from './support/helpers.js';
import { CHROMIUM, systemToolPath, useSystemTool } from './support/system-tools.js';

const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));

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

  test('is deterministic', () => {
    const { store } = buildSession();
    expect(exportHtml(store)).toBe(exportHtml(store));
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
    expect(await bar.getAttribute('data-path')).toBe(store.activePath().map((e) => e.id).join(' '));
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
});
