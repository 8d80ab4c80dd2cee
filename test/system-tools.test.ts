// Tests that need a system tool (a browser) skip visibly where it is missing, and fail under
// MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1 (CI). The end-to-end checks run vitest itself as a child
// process on test/export-html.test.ts, with MINI_AGENT_CHROMIUM pointing at a missing file.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { tempDir } from './support/helpers.js';
import { CHROMIUM, findSystemTool, systemToolStatus, useSystemTool, type SystemTool } from './support/system-tools.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

function fakeExecutable(dir: string, name: string): string {
  const file = join(dir, name);
  writeFileSync(file, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return file;
}

const TOOL: SystemTool = {
  name: 'Fake tool',
  need: 'need the fake tool',
  envVar: 'FAKE_TOOL',
  paths: [],
  commands: ['fake-tool-a', 'fake-tool-b'],
  install: 'install it with: apt-get install fake-tool',
  skipEnv: 'SKIP_FAKE_TOOL',
};

describe('finding a system tool', () => {
  test('the env var wins and is the only place looked at', () => {
    const dir = tempDir();
    const bin = fakeExecutable(dir, 'my-chrome');
    expect(findSystemTool(CHROMIUM, { MINI_AGENT_CHROMIUM: bin, PATH: '' })).toEqual({ path: bin });
    fakeExecutable(dir, 'chromium');
    const missing = join(dir, 'nope');
    expect(findSystemTool(CHROMIUM, { MINI_AGENT_CHROMIUM: missing, PATH: dir })).toEqual({
      reason: `no Chromium found (MINI_AGENT_CHROMIUM=${missing} is not an executable file)`,
    });
  });

  test('commands are looked up on PATH in order; a directory or a non-executable file does not count', () => {
    const a = tempDir();
    const b = tempDir();
    writeFileSync(join(a, 'fake-tool-a'), 'not executable', { mode: 0o644 });
    const second = fakeExecutable(b, 'fake-tool-b');
    expect(findSystemTool(TOOL, { PATH: `${a}:${b}` })).toEqual({ path: second });
    const first = fakeExecutable(b, 'fake-tool-a');
    expect(findSystemTool(TOOL, { PATH: `${a}:${b}` })).toEqual({ path: first });
    expect(findSystemTool(TOOL, { PATH: a })).toEqual({ reason: 'no Fake tool found (looked at fake-tool-a, fake-tool-b on PATH)' });
  });

  test('missing: a skip with a note, or a failure under MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1', () => {
    const why = 'no Fake tool found (looked at fake-tool-a, fake-tool-b on PATH); install it with: apt-get install fake-tool';
    expect(systemToolStatus(TOOL, { PATH: '' })).toEqual({ skip: `need the fake tool: ${why}` });
    expect(systemToolStatus(TOOL, { PATH: '', MINI_AGENT_REQUIRE_SYSTEM_TOOLS: '1' })).toEqual({
      fail: `Fake tool is missing and MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1 makes it mandatory: ${why}`,
    });
    const notes: (string | undefined)[] = [];
    const ctx = {
      skip(note?: string): never {
        notes.push(note);
        throw new Error('skipped');
      },
    };
    expect(() => useSystemTool(ctx, TOOL, { PATH: '' })).toThrow('skipped');
    expect(notes).toEqual([`need the fake tool: ${why}`]);
    expect(() => useSystemTool(ctx, TOOL, { PATH: '', MINI_AGENT_REQUIRE_SYSTEM_TOOLS: '1' })).toThrow(/Fake tool is missing/);
  });

  test('the explicit opt-out skips even a present tool, but never under MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1', () => {
    const bin = fakeExecutable(tempDir(), 'fake');
    expect(systemToolStatus(TOOL, { FAKE_TOOL: bin })).toEqual({ use: bin });
    expect(systemToolStatus(TOOL, { FAKE_TOOL: bin, MINI_AGENT_REQUIRE_SYSTEM_TOOLS: '1' })).toEqual({ use: bin });
    expect(systemToolStatus(TOOL, { FAKE_TOOL: bin, SKIP_FAKE_TOOL: '1' })).toEqual({ skip: 'need the fake tool: skipped on request (SKIP_FAKE_TOOL=1)' });
    expect(systemToolStatus(TOOL, { FAKE_TOOL: bin, SKIP_FAKE_TOOL: '1', MINI_AGENT_REQUIRE_SYSTEM_TOOLS: '1' })).toEqual({
      fail: 'SKIP_FAKE_TOOL=1 asks to skip the tests that need the fake tool, but MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1 makes Fake tool mandatory',
    });
  });
});

interface VitestRun {
  code: number | null;
  output: string;
  lastLine: string;
}

/** Runs vitest (config and summary reporter included) on one file, on this Node, in a clean env. */
function runVitest(file: string, env: Record<string, string>): Promise<VitestRun> {
  const home = tempDir('mini-agent-home-');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, 'run', file], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: home, TMPDIR: process.env.TMPDIR ?? '/tmp', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stdout = ''; // the summary line is the last line of stdout; stderr chunks may arrive after it
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = stdout.trimEnd().split('\n');
      resolve({ code, output, lastLine: lines[lines.length - 1] ?? '' });
    });
  });
}

describe.concurrent('the browser tests on a machine without a browser (vitest as a child process)', () => {
  const HOW = 'install one with: apt-get install chromium, or set MINI_AGENT_CHROMIUM=/path/to/chrome';

  test('are skipped, and the summary line says how many, why and how to install one', async () => {
    const missing = join(tempDir(), 'no-chromium');
    const run = await runVitest('test/export-html.test.ts', { MINI_AGENT_CHROMIUM: missing });
    expect(run.code, run.output).toBe(0);
    const m = /^(\d+) passed, 0 failed, (\d+) skipped \((\d+) (.*)\)$/.exec(run.lastLine);
    expect(m, run.output).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(0);
    expect(Number(m![2])).toBeGreaterThanOrEqual(6);
    expect(m![3]).toBe(m![2]);
    expect(m![4]).toBe(`need a browser: no Chromium found (MINI_AGENT_CHROMIUM=${missing} is not an executable file); ${HOW}`);
    expect(run.output).toContain(`\nnode ${process.version} (`);
  }, 90_000);

  test('fail under MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1, naming the missing browser and how to install one', async () => {
    const missing = join(tempDir(), 'no-chromium');
    const run = await runVitest('test/export-html.test.ts', {
      MINI_AGENT_CHROMIUM: missing,
      MINI_AGENT_REQUIRE_SYSTEM_TOOLS: '1',
    });
    expect(run.code, run.output).not.toBe(0);
    expect(run.lastLine, run.output).toMatch(/^\d+ passed, ([1-9]\d*) failed$/);
    expect(run.output).toContain(`Chromium is missing and MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1 makes it mandatory: no Chromium found (MINI_AGENT_CHROMIUM=${missing} is not an executable file); ${HOW}`);
    expect(run.output).toContain(', MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1)');
  }, 90_000);

  test('fail under MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1 even with MINI_AGENT_SKIP_BROWSER=1', async () => {
    const run = await runVitest('test/export-html.test.ts', {
      MINI_AGENT_CHROMIUM: join(tempDir(), 'no-chromium'),
      MINI_AGENT_REQUIRE_SYSTEM_TOOLS: '1',
      MINI_AGENT_SKIP_BROWSER: '1',
    });
    expect(run.code, run.output).not.toBe(0);
    expect(run.lastLine, run.output).toMatch(/^\d+ passed, ([1-9]\d*) failed$/);
    expect(run.output).toContain('MINI_AGENT_SKIP_BROWSER=1 asks to skip the tests that need a browser, but MINI_AGENT_REQUIRE_SYSTEM_TOOLS=1 makes Chromium mandatory');
  }, 90_000);
});
