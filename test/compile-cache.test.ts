// The module compile cache (issue 14, Node ≥ 22.1): bin/mini-agent keeps V8's compiled code of its
// bundles in $MINI_AGENT_HOME/cache/compile-VERSION/ (0700), only in a home that exists already,
// never with --no-session, never with MINI_AGENT_NO_COMPILE_CACHE. On Node 20, which has no
// compile cache, the tests check that nothing is written at all. (The other tests set
// MINI_AGENT_NO_COMPILE_CACHE: a cache written at exit would race their temp-dir cleanup.)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir, writeScript } from './support/helpers.js';

const VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version as string;
const hasCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

function run(args: string[], cwd: string, home: string, extra: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home, MINI_AGENT_HOME: home, ...extra } });
  expect(r.status, r.stderr).toBe(0);
}

const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : []);

describe('the compile cache', () => {
  it(`${hasCache ? 'is kept in the home, private' : 'Node 20 has none: nothing is written'}; never for a home that does not exist, --no-session or MINI_AGENT_NO_COMPILE_CACHE`, () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ text: 'one' }, { text: 'two' }]);
    // --version is answered before the cache is set up (bin/mini-agent): it creates nothing.
    const missing = join(tempDir(), 'home');
    run(['--version'], cwd, missing);
    expect(existsSync(missing)).toBe(false);
    // A run creates its home (for the session), but the cache only in a home that existed before.
    run(['--script', script, 'hi'], cwd, missing);
    expect(existsSync(join(missing, 'cache'))).toBe(false);

    const noSession = tempDir('mini-agent-home-');
    run(['--no-session', '--script', script, 'hi'], cwd, noSession);
    expect(entries(noSession)).toEqual([]);
    const optedOut = tempDir('mini-agent-home-');
    run(['--script', script, 'hi'], cwd, optedOut, { MINI_AGENT_NO_COMPILE_CACHE: '1' });
    expect(existsSync(join(optedOut, 'cache'))).toBe(false);

    const home = tempDir('mini-agent-home-');
    run(['--script', script, 'hi'], cwd, home);
    const dir = join(home, 'cache', `compile-${VERSION}`);
    if (!hasCache) {
      expect(existsSync(join(home, 'cache'))).toBe(false);
      return;
    }
    expect((statSync(join(home, 'cache')).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    const first = entries(dir).length;
    expect(first).toBeGreaterThan(0);
    // A second run uses it (the same entries, not a second set).
    run(['--script', script, '-c', 'again'], cwd, home);
    expect(entries(dir).length).toBe(first);
    mkdirSync(join(cwd, 'x')); // the workspace is untouched by the cache
    expect(readdirSync(cwd).sort()).toEqual(['script.json', 'x']);
  });
});
