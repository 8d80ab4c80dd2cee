// Tests run what they test: the CLI tests spawn bin/mini-agent, which runs dist/, and the global
// setup (test/support/global-setup.ts) rebuilds dist/ when src/ changed. Its freshness check runs
// here on temp folders with a real esbuild build (an exit code edited in the source, as in
// issue 25's experiment), and the wiring is checked on this repository's own dist/.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.js';
import { USAGE } from '../src/cli/args.js';
import { EXIT } from '../src/app/exit-codes.js';
import { ensureFreshBuild, inputsHash, INPUTS_STAMP } from './support/fresh-build.js';
import { BUILD_INPUTS, DIST } from './support/global-setup.js';
import { runCli, tempDir } from './support/helpers.js';

/** A tiny project: src/main.ts exits with the code src/exit-codes.ts names; built by esbuild into dist/. */
function project(usage: number) {
  const root = tempDir();
  const src = join(root, 'src');
  const dist = join(root, 'dist');
  mkdirSync(src);
  writeFileSync(join(src, 'exit-codes.ts'), `export const EXIT = { usage: ${usage} } as const;\n`);
  writeFileSync(join(src, 'main.ts'), `import { EXIT } from './exit-codes.js';\nprocess.exitCode = EXIT.usage;\n`);
  let builds = 0;
  const build = () => {
    builds++;
    buildSync({ entryPoints: [join(src, 'main.ts')], outfile: join(dist, 'main.mjs'), bundle: true, format: 'esm', platform: 'node', logLevel: 'silent' });
  };
  const run = () => spawnSync(process.execPath, [join(dist, 'main.mjs')]).status;
  return { src, dist, build, run, builds: () => builds };
}

describe('ensureFreshBuild', () => {
  it('builds a missing dist/, then not again while the sources are unchanged', async () => {
    const p = project(2);
    expect(await ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: p.build })).toBe('built');
    expect(p.run()).toBe(2);
    expect(await ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: p.build })).toBe('fresh');
    expect(p.builds()).toBe(1);
  });

  it('a stale dist/ is rebuilt: `usage: 2` edited to 7 in the source is what the built program does', async () => {
    const p = project(2);
    await ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: p.build });
    expect(p.run()).toBe(2);
    const file = join(p.src, 'exit-codes.ts');
    const { atime, mtime } = statSync(file);
    writeFileSync(file, readFileSync(file, 'utf8').replace('usage: 2', 'usage: 7'));
    expect(p.run()).toBe(2); // dist/ is stale until the check runs
    // By content, not by time: an edit that keeps the file's time (a checkout, a copy) is seen too.
    utimesSync(file, atime, mtime);
    expect(await ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: p.build })).toBe('built');
    expect(p.run()).toBe(7);
    expect(p.builds()).toBe(2);
  });

  it('a new source file, or a dist/ replaced by another build (no stamp), means a rebuild', async () => {
    const p = project(2);
    await ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: p.build });
    writeFileSync(join(p.src, 'extra.ts'), 'export {};\n');
    expect(await ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: p.build })).toBe('built');
    p.build(); // e.g. `npm run build`, which replaces dist/ and so drops the stamp: here, rewrite it
    writeFileSync(join(p.dist, INPUTS_STAMP), 'another build');
    expect(await ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: p.build })).toBe('built');
    expect(await ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: p.build })).toBe('fresh');
  });

  it('a build that fails records nothing: the next check builds again', async () => {
    const p = project(2);
    await ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: p.build });
    writeFileSync(join(p.src, 'exit-codes.ts'), 'export const EXIT = { usage: 3 } as const;\n');
    await expect(ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: () => Promise.reject(new Error('build failed')) })).rejects.toThrow('build failed');
    expect(await ensureFreshBuild({ inputs: [p.src], distDir: p.dist, build: p.build })).toBe('built');
    expect(p.run()).toBe(3);
  });
});

describe('this repository: the CLI tests run dist/ built from src/ as it is', () => {
  it('vitest runs the global setup', () => {
    expect(config.test?.globalSetup).toEqual(['./test/support/global-setup.ts']);
  });

  it('dist/ was built from the current src/ (and package.json, the lock file, the build scripts)', () => {
    expect(BUILD_INPUTS.map((p) => p.slice(p.lastIndexOf('/') + 1))).toEqual(['src', 'package.json', 'package-lock.json', 'build.mjs', 'inputs-hash.mjs', 'page-script.mjs']);
    expect(readFileSync(join(DIST, INPUTS_STAMP), 'utf8')).toBe(inputsHash(BUILD_INPUTS));
  });

  it('bin/mini-agent answers with what src/ says: the usage exit code and the help text', async () => {
    const cwd = tempDir();
    const bad = await runCli(['--no-such-flag'], { cwd });
    expect(bad.code).toBe(EXIT.usage);
    const help = await runCli(['--help'], { cwd });
    expect(help.code).toBe(EXIT.completed);
    expect(help.stdout).toBe(USAGE + '\n');
  });
});
