// The examples users copy: the README's custom agent (the SDK, one extra tool) and the RPC
// client. Each runs here on the scripted model, in a temp folder; the README shows the custom
// agent verbatim, and it type-checks against the package's published declarations.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './support/helpers.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'custom-agent.mjs');

function run(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const home = tempDir('mini-agent-home-');
    const child = spawn(process.execPath, args, { cwd: opts.cwd, env: { PATH: process.env.PATH ?? '', HOME: home, MINI_AGENT_HOME: home, ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the SDK example (README)', () => {
  it('the README shows examples/custom-agent.mjs verbatim', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const code = readFileSync(EXAMPLE, 'utf8');
    expect(readme).toContain('```js\n' + code + '```');
    expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(24);
  });

  it('runs on the scripted model: the extra tool is called and the answer streams', async () => {
    const cwd = tempDir();
    const script = join(cwd, 'script.json');
    writeFileSync(script, JSON.stringify({ turns: [{ toolCalls: [{ name: 'word_count', arguments: { text: 'to be or not to be' } }] }, { text: 'There are 6 words.' }] }));
    // Imported from inside the package (`mini-agent` resolves to this repository's dist/).
    const r = await run([EXAMPLE, 'How many words?'], { cwd, env: { MINI_AGENT_SCRIPT: script } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^There are 6 words\.\n\[completed after 2 turns, \d+ output tokens\]\n$/);
  });

  it('type-checks against the published declarations (dist/types)', () => {
    const dir = tempDir();
    const tsconfig = join(dir, 'tsconfig.json');
    writeFileSync(
      tsconfig,
      JSON.stringify({
        compilerOptions: {
          allowJs: true,
          checkJs: true,
          noEmit: true,
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: [EXAMPLE],
      }),
    );
    const tsPackage = createRequire(import.meta.url).resolve('typescript/package.json');
    const tsc = join(dirname(tsPackage), JSON.parse(readFileSync(tsPackage, 'utf8')).bin.tsc);
    const r = spawnSync(process.execPath, [tsc, '-p', tsconfig], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('the RPC client example', () => {
  it('starts mini-agent --rpc on the scripted demo, prints the events and exits 0', async () => {
    // A copy of examples/ in a temp folder, next to a link to bin/, so the demo writes nothing here.
    const dir = tempDir();
    cpSync(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true, filter: (src) => !src.includes(`${join('demo', 'out')}`) });
    symlinkSync(join(ROOT, 'bin'), join(dir, 'bin'));
    const r = await run([join(dir, 'examples', 'rpc-client.mjs')], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^session [0-9a-f-]{36} · scripted\/script\n/);
    expect(r.stdout).toContain('→ read_file {"path":"notes/todo.md"}\n✓ read_file');
    expect(r.stdout).toContain('settled: completed after 3 turns, 2 tool calls\nmini-agent exited with 0\n');
    expect(readFileSync(join(dir, 'examples', 'demo', 'out', 'summary.md'), 'utf8')).toContain('# Summary');
  });
});
