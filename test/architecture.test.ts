// The block boundaries DESIGN.md promises, checked on the source: every relative import of a
// file in src/ points at its own block or at a block below it, and no source file grows past
// the size a reader can hold in their head.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * What each block may import, besides itself: front ends → app → agent → session/model/tools → core.
 * Extensions (hooks, trust; later context files, skills, MCP) sit beside the agent: they plug
 * into the registry, the app layer and the events, and only the app and front ends use them.
 * Front ends (cli/, and the ones to come) never import one another, and nothing imports them.
 */
const BLOCKS = ['core', 'session', 'model', 'tools', 'agent', 'extensions', 'app'];
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  session: ['core'],
  model: ['core'],
  tools: ['core'],
  agent: ['core', 'session', 'model', 'tools'],
  extensions: ['core', 'session', 'tools'],
  app: ['core', 'session', 'model', 'tools', 'agent', 'extensions'],
  // Front ends: each a thin user of the app layer (and of the blocks below it).
  cli: BLOCKS,
  rpc: BLOCKS,
  interactive: BLOCKS,
  acp: BLOCKS,
  // The library entry re-exports the blocks and the SDK; it must not reach into a front end.
  '.': BLOCKS,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

function blockOf(file: string): string {
  const rel = relative(SRC, file);
  return rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : '.';
}

/** Relative specifiers of static imports, re-exports and dynamic imports (type-only ones too: they are dependencies of the design). */
function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) out.push(m[1]);
  return out;
}

describe('architecture', () => {
  const files = sourceFiles(SRC);

  it('finds the blocks', () => {
    expect(new Set(files.map(blockOf))).toEqual(new Set(Object.keys(ALLOWED)));
  });

  it('imports point one way: front ends → agent → session, model, tools → core', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = blockOf(file);
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        const to = blockOf(resolve(dirname(file), spec));
        if (to !== from && !ALLOWED[from].includes(to)) violations.push(`${relative(SRC, file)} imports ${spec} (${from} → ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('no front end imports another, and nothing below imports a front end', () => {
    const frontEnds = ['cli', 'rpc', 'interactive', 'acp'];
    for (const block of Object.keys(ALLOWED)) for (const fe of frontEnds) if (block !== fe) expect(ALLOWED[block], `${block} may not import ${fe}`).not.toContain(fe);
  });

  it('the provider adapters do not depend on the scripted test model', () => {
    const users = files.filter((f) => importsOf(readFileSync(f, 'utf8')).some((spec) => resolve(dirname(f), spec) === join(SRC, 'model', 'scripted.js')));
    expect(users.map((f) => relative(SRC, f)).sort()).toEqual(['app/model-factory.ts', 'index.ts']);
  });

  it('the check sees every kind of import', () => {
    const text = `import { a } from './x.js';\nimport type { B } from '../model/y.js';\nexport { c } from "../cli/z.js";\nconst m = await import('../agent/w.js');\nimport './side-effect.js';`;
    expect(importsOf(text)).toEqual(['./x.js', '../model/y.js', '../cli/z.js', '../agent/w.js', './side-effect.js']);
  });

  it('no source file is over 400 lines', () => {
    const long = files.map((f) => ({ f: relative(SRC, f), lines: readFileSync(f, 'utf8').split('\n').length })).filter((x) => x.lines > 400);
    expect(long).toEqual([]);
  });
});
