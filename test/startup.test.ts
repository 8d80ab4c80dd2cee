// `--version` must stay fast: the CLI entry's static import graph holds no SDK, no TypeBox,
// no agent code; everything heavy is behind a dynamic import.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './support/helpers.js';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/** Files loaded by importing `entry`, following only static imports. */
function staticGraph(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(/(?:^|[;\n])\s*import\s*(?:[\w*{}\s,$]+from\s*)?["'](\.[^"']+)["']/g)) visit(join(dirname(file), m[1]));
  };
  visit(join(DIST, entry));
  return [...seen];
}

describe('start-up', () => {
  it('the CLI entry statically loads only small files, and no SDK', () => {
    const files = staticGraph('cli.mjs');
    const code = files.map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(code.length).toBeLessThan(40_000);
    for (const marker of ['api.openai.com', 'anthropic-version', 'x-stainless', 'typebox']) expect(code).not.toContain(marker);
    // ...while the run path does reach the SDKs through dynamic imports.
    expect(readFileSync(join(DIST, 'cli.mjs'), 'utf8')).toMatch(/import\("\.\/chunks\/run-[^"]+"\)/);
  });

  it('--version answers without reading config, sessions or the network', async () => {
    const cwd = tempDir();
    const r = await runCli(['--version'], { cwd, env: { MINI_AGENT_PROVIDER: 'nope', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^mini-agent \d+\.\d+\.\d+\n$/);
    expect(r.stderr).toBe('');
  });

  it('--version that cannot write its line says so in one line and exits 1 (a full disk), no stack trace', () => {
    if (!existsSync('/dev/full')) return expect.fail('this test needs /dev/full (Linux)');
    const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'mini-agent');
    const out = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [bin, '--version'], { stdio: ['ignore', out, 'pipe'], env: { ...process.env, MINI_AGENT_HOME: tempDir() }, encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stderr).toBe('mini-agent: cannot write to standard output: ENOSPC\n');
    } finally {
      closeSync(out);
    }
  });
});
