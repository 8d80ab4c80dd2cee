// list_dir, grep and find through the public ToolRegistry: .gitignore semantics (checked against
// git itself where it is installed), byte-order output whatever the creation order, the caps and
// their notices, grep's pattern handling (regex, literal, ignoreCase, context, binary files, long
// lines, a leading "-"), the workspace boundary and symbolic links, and abort.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { textOf } from '../src/core/types.js';
import { createFindTool } from '../src/tools/find.js';
import { createGrepTool } from '../src/tools/grep.js';
import { createListDirTool } from '../src/tools/list-dir.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { Pacer } from '../src/tools/walk.js';
import type { ToolDefinition } from '../src/tools/tool.js';
import { tempDir } from './support/helpers.js';
import { seededRandom } from './support/seeded-random.js';
import { GIT, useSystemTool } from './support/system-tools.js';

let ids = 0;
async function call(cwd: string, name: string, args: Record<string, unknown>, opts: { tools?: ToolDefinition[]; signal?: AbortSignal } = {}) {
  const reg = new ToolRegistry(opts.tools ?? [createListDirTool(), createGrepTool(), createFindTool()]);
  const res = await reg.execute({ type: 'toolCall', id: `s${++ids}`, name, arguments: args }, { cwd, signal: opts.signal ?? new AbortController().signal });
  return { text: textOf(res.content), isError: res.isError, details: res.details ?? {} };
}

/** Writes files (path → content; a path ending with "/" is an empty folder). */
function tree(root: string, files: Record<string, string | Buffer>): string {
  for (const [path, content] of Object.entries(files)) {
    const abs = join(root, path);
    if (path.endsWith('/')) {
      mkdirSync(abs, { recursive: true });
      continue;
    }
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
  return root;
}

/** The lines of a result before its first notice. */
function body(text: string): string[] {
  return text.split('\n\n[')[0].split('\n');
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

// One tree for the .gitignore rules: root, nested, negation, anchored, folder-only, a folder
// re-included by a deeper file, and a file that cannot be re-included inside an excluded folder.
const IGNORE_TREE = {
  '.gitignore': '*.log\n!keep.log\n/build\ntmp/\ngen/\nout/\n!out/keep.ts\n# a comment\n',
  'a.log': 'needle\n',
  'keep.log': 'needle\n',
  'build/x.ts': 'needle\n',
  'sub/build/y.ts': 'needle\n',
  tmp: 'needle\n',
  'cache/tmp/z.ts': 'needle\n',
  'sub/.gitignore': '*.txt\n/only-here.md\n',
  'sub/n.txt': 'needle\n',
  'top.txt': 'needle\n',
  'sub/only-here.md': 'needle\n',
  'sub/deeper/only-here.md': 'needle\n',
  'sub/deeper/.gitignore': '!n.txt\n',
  'sub/deeper/n.txt': 'needle\n',
  'gen/j.ts': 'needle\n',
  'pkg/.gitignore': '!gen/\n',
  'pkg/gen/k.ts': 'needle\n',
  'out/keep.ts': 'needle\n',
};
const VISIBLE_WITH_NEEDLE = ['keep.log', 'pkg/gen/k.ts', 'sub/build/y.ts', 'sub/deeper/n.txt', 'sub/deeper/only-here.md', 'tmp', 'top.txt'];

describe('.gitignore', () => {
  it('grep searches exactly the files git would not ignore (root, nested, negation, anchored, folder rules)', async () => {
    const cwd = tree(tempDir(), IGNORE_TREE);
    const r = await call(cwd, 'grep', { pattern: 'needle' });
    expect(r.isError).toBe(false);
    expect(body(r.text)).toEqual(VISIBLE_WITH_NEEDLE.map((p) => `${p}:1:needle`));
  });

  it('find and list_dir hide the same entries, and list_dir names what it hid', async () => {
    const cwd = tree(tempDir(), IGNORE_TREE);
    const found = await call(cwd, 'find', { glob: '**' });
    const files = body(found.text).filter((l) => !l.endsWith('/') && !l.endsWith('.gitignore'));
    expect(files).toEqual(VISIBLE_WITH_NEEDLE);
    const listed = await call(cwd, 'list_dir', { depth: 5 });
    expect(body(listed.text)).toEqual(body(found.text));
    expect(listed.text).toContain('[Not listed, ignored by .gitignore: a.log, build/, cache/tmp/, gen/, out/ and 2 more.]');
  });

  it('applies the .gitignore files above a subfolder that is searched', async () => {
    const cwd = tree(tempDir(), IGNORE_TREE);
    const r = await call(cwd, 'grep', { pattern: 'needle', path: 'sub' });
    expect(body(r.text)).toEqual(['sub/build/y.ts:1:needle', 'sub/deeper/n.txt:1:needle', 'sub/deeper/only-here.md:1:needle']);
    expect((await call(cwd, 'find', { glob: '*.ts', path: 'cache' })).text).toBe('No paths match "*.ts" in cache (0 entries looked at; 1 ignored by .gitignore not searched).');
  });

  it('searches an ignored folder given explicitly, and says so', async () => {
    const cwd = tree(tempDir(), IGNORE_TREE);
    const r = await call(cwd, 'grep', { pattern: 'needle', path: 'out' });
    expect(body(r.text)).toEqual(['out/keep.ts:1:needle']);
    expect(r.text).toContain('[out is ignored by a .gitignore above it; it was searched anyway, with only the .gitignore files inside it.]');
  });

  it('skips .git and applies .git/info/exclude in a repository, also from a workspace inside it', async () => {
    const repo = tree(tempDir(), {
      '.git/HEAD': 'needle\n',
      '.git/info/exclude': 'secret.md\n',
      '.gitignore': 'node_modules/\n',
      'app/secret.md': 'needle\n',
      'app/node_modules/lib.js': 'needle\n',
      'app/main.ts': 'needle\n',
    });
    expect(body((await call(repo, 'grep', { pattern: 'needle' })).text)).toEqual(['app/main.ts:1:needle']);
    const inner = join(repo, 'app');
    expect(body((await call(inner, 'grep', { pattern: 'needle' })).text)).toEqual(['main.ts:1:needle']);
    expect(body((await call(inner, 'list_dir', {})).text)).toEqual(['main.ts']);
  });

  it('agrees with git ls-files on random trees and rules (property)', async (ctx) => {
    useSystemTool(ctx, GIT);
    const dirs = ['a', 'b', 'build', 'gen'];
    const files = ['x.ts', 'y.log', 'keep.log', 'n.txt', 'c', 'x.md'];
    const rules = [
      '*.log',
      '!keep.log',
      '/build',
      'build/',
      'gen/',
      '!gen/',
      '*.txt',
      '!n.txt',
      'a/x.ts',
      '/a',
      'b/',
      '**/b/*.ts',
      'a/**',
      '!a/b/',
      'x.*',
      '# c',
      '',
      '*',
      '!*.ts',
      'c',
      '/c',
      '!/b',
      'b/*',
      '**/gen',
      '!x.md',
      'a/*/c',
      '/a/b/',
      'a/b',
      '!b/x.ts',
      'gen/**',
      '!**/keep.log',
      '*.md',
      '!a',
      '**/a/**/c',
    ];
    const path = fc.array(fc.constantFrom(...dirs), { maxLength: 3 }).map((ds) => ds.join('/'));
    const arb = fc.record({
      files: fc.uniqueArray(
        fc.tuple(path, fc.constantFrom(...files)).map(([d, f]) => (d ? `${d}/${f}` : f)),
        { minLength: 1, maxLength: 14 },
      ),
      ignores: fc.array(fc.tuple(path, fc.array(fc.constantFrom(...rules), { minLength: 1, maxLength: 4 })), { maxLength: 4 }),
    });
    const env = { ...process.env, HOME: tempDir(), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    await fc.assert(
      fc.asyncProperty(arb, async ({ files, ignores }) => {
        const cwd = tempDir();
        const spec: Record<string, string> = {};
        for (const f of files) spec[f] = 'x\n';
        for (const [d, rs] of ignores) spec[d ? `${d}/.gitignore` : '.gitignore'] = rs.join('\n') + '\n';
        tree(cwd, spec);
        if (spawnSync('git', ['init', '-q', '.'], { cwd, env }).status !== 0) throw new Error('git init failed');
        const listed = spawnSync('git', ['ls-files', '--others', '--exclude-standard', '-z'], { cwd, env, encoding: 'utf8' });
        const expected = listed.stdout.split('\0').filter(Boolean).sort(byBytes);
        const found = await call(cwd, 'find', { glob: '**', limit: 2000 });
        const actual = found.text.startsWith('No paths') ? [] : body(found.text).filter((l) => !l.endsWith('/'));
        expect(actual).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });
});

describe('order', () => {
  it('is byte order of the paths whatever the creation order (property)', async () => {
    // '-' and '.' sort before '/', 'é' after ASCII, U+FF5A after U+E000 but before an astral emoji (not so in UTF-16).
    const name = fc.constantFrom('a', 'a-b', 'a.b', 'A', 'b', 'é', '\uff5a', '\ud83d\ude00', '_', 'a0');
    const relPath = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
    const arb = fc.uniqueArray(relPath, { minLength: 1, maxLength: 12 }).filter((ps) => !ps.some((p) => ps.some((q) => q.startsWith(p + '/'))));
    await fc.assert(
      fc.asyncProperty(arb, fc.integer({ min: 0, max: 1e9 }), async (paths, seed) => {
        const cwd = tempDir();
        const random = seededRandom(seed);
        const order = [...paths];
        for (let i = order.length - 1; i > 0; i--) {
          const j = random.int(0, i);
          [order[i], order[j]] = [order[j], order[i]];
        }
        for (const p of order) tree(cwd, { [p]: `hit\nmiss\nhit\n` });
        const folders = new Set(
          paths.flatMap((p) =>
            p
              .split('/')
              .slice(0, -1)
              .map((_, i, parts) => parts.slice(0, i + 1).join('/') + '/'),
          ),
        );
        const expected = [...paths, ...folders].sort(byBytes);
        const found = await call(cwd, 'find', { glob: '**', limit: 2000 });
        expect(body(found.text)).toEqual(expected);
        expect(body((await call(cwd, 'list_dir', { depth: 5 })).text)).toEqual(expected);
        const grep = await call(cwd, 'grep', { pattern: 'hit', limit: 1000 });
        expect(body(grep.text)).toEqual([...paths].sort(byBytes).flatMap((p) => [`${p}:1:hit`, `${p}:3:hit`]));
        expect((await call(cwd, 'grep', { pattern: 'hit', limit: 1000 })).text).toBe(grep.text);
      }),
      { numRuns: 30 },
    );
  });
});

describe('grep', () => {
  it('prints path:line:text, and finds a pattern that starts with "-"', async () => {
    const cwd = tree(tempDir(), { 'cli.md': 'usage:\n  --verbose  talk more\n  -q  quiet\n', 'src/a.ts': 'const flag = "--verbose";\n' });
    const r = await call(cwd, 'grep', { pattern: '--verbose' });
    expect(body(r.text)).toEqual(['cli.md:2:  --verbose  talk more', 'src/a.ts:1:const flag = "--verbose";']);
    expect(r.details).toMatchObject({ matches: 2, files: 2, truncated: false });
    expect(body((await call(cwd, 'grep', { pattern: '-q\\b' })).text)).toEqual(['cli.md:3:  -q  quiet']);
  });

  it('ignoreCase, and literal text with regex metacharacters', async () => {
    const cwd = tree(tempDir(), { 'f.txt': 'Hello World\nhello world\nf(a.b)*2\nf(aXb)*2\nfaab2\n' });
    expect(body((await call(cwd, 'grep', { pattern: 'HELLO', ignoreCase: true })).text)).toEqual(['f.txt:1:Hello World', 'f.txt:2:hello world']);
    expect((await call(cwd, 'grep', { pattern: 'HELLO' })).text).toBe('No matches for pattern "HELLO" in . (1 file searched).');
    expect(body((await call(cwd, 'grep', { pattern: 'f(a.b)*2', literal: true })).text)).toEqual(['f.txt:3:f(a.b)*2']);
    expect(body((await call(cwd, 'grep', { pattern: 'F(A.B)*2', literal: true, ignoreCase: true })).text)).toEqual(['f.txt:3:f(a.b)*2']);
    expect(body((await call(cwd, 'grep', { pattern: 'f(a.b)*2' })).text)).toEqual(['f.txt:5:faab2']);
  });

  it('an invalid regular expression is an error that names the problem', async () => {
    const cwd = tree(tempDir(), { 'f.txt': 'x\n' });
    const r = await call(cwd, 'grep', { pattern: 'foo(' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('invalid regular expression "foo(": Unterminated group');
    expect(r.text).toContain('literal: true');
    expect((await call(cwd, 'grep', { pattern: 'a\nb', literal: true })).text).toContain('must not contain a line break');
  });

  it('matches line by line: no match across lines, lookarounds see only the line, CRLF endings dropped', async () => {
    const cwd = tree(tempDir(), { 'f.txt': 'foo\nbar\r\nfoobar\nend foo\r\n' });
    expect(body((await call(cwd, 'grep', { pattern: 'foo\\sbar' })).text)[0]).toMatch(/^No matches/);
    expect(body((await call(cwd, 'grep', { pattern: 'foo(?!bar)' })).text)).toEqual(['f.txt:1:foo', 'f.txt:4:end foo']);
    expect(body((await call(cwd, 'grep', { pattern: 'foo$' })).text)).toEqual(['f.txt:1:foo', 'f.txt:4:end foo']);
    expect(body((await call(cwd, 'grep', { pattern: '^bar$' })).text)).toEqual(['f.txt:2:bar']);
    expect(body((await call(cwd, 'grep', { pattern: '^' })).text)).toHaveLength(4);
  });

  it('finds the same lines as testing each line on its own (property)', async () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'A', ' ', 'x', '\n', '\r\n', '\t', 'é'), { maxLength: 40 }).map((cs) => cs.join(''));
    const pattern = fc.constantFrom('a', 'a$', '^b', 'a\\s*b', '\\bab\\b', 'x|^$', '^', '$', 'a+b', '(a)\\1', '[^a]b', '\\s', '\\W', 'b(?=a)', '(?<!a)b', '.a', 'a.*', '^\\s*$', '(?:ab)*$', 'b(?!\\s)', 'a\\r?$', '[\\s\\S]b');
    await fc.assert(
      fc.asyncProperty(text, pattern, fc.boolean(), fc.boolean(), async (content, p, ignoreCase, literal) => {
        const cwd = tree(tempDir(), { 'f.txt': content });
        const lines =
          content === ''
            ? []
            : content
                .replace(/\n$/, '')
                .split('\n')
                .map((l) => l.replace(/\r$/, ''));
        const re = new RegExp(literal ? p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : p, ignoreCase ? 'i' : '');
        const expected = lines.flatMap((l, i) => (re.test(l) ? [`f.txt:${i + 1}:${l}`] : []));
        const r = await call(cwd, 'grep', { pattern: p, ignoreCase, literal, limit: 1000 });
        expect(r.text.startsWith('No matches') ? [] : body(r.text)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('context lines: before and after, merged when they touch, groups separated by --', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => (i + 1 === 3 || i + 1 === 6 || i + 1 === 15 ? `hit ${i + 1}` : `line ${i + 1}`));
    const cwd = tree(tempDir(), { 'a.txt': lines.join('\n') + '\n', 'b.txt': 'hit b\n' });
    const r = await call(cwd, 'grep', { pattern: 'hit', context: 2 });
    expect(body(r.text)).toEqual([
      'a.txt-1-line 1',
      'a.txt-2-line 2',
      'a.txt:3:hit 3',
      'a.txt-4-line 4',
      'a.txt-5-line 5',
      'a.txt:6:hit 6',
      'a.txt-7-line 7',
      'a.txt-8-line 8',
      '--',
      'a.txt-13-line 13',
      'a.txt-14-line 14',
      'a.txt:15:hit 15',
      'a.txt-16-line 16',
      'a.txt-17-line 17',
      '--',
      'b.txt:1:hit b',
    ]);
  });

  it('skips binary files, and cuts long lines around the match with a marker', async () => {
    const long = 'x'.repeat(5000) + 'NEEDLE' + 'y'.repeat(5000);
    const cwd = tree(tempDir(), { 'bin.dat': Buffer.concat([Buffer.from('NEEDLE\n'), Buffer.from([0, 1, 2])]), 'long.txt': long + '\n' });
    const r = await call(cwd, 'grep', { pattern: 'NEEDLE' });
    const [line] = body(r.text);
    expect(line.startsWith('long.txt:1:…')).toBe(true);
    expect(line).toContain('NEEDLE');
    expect(line.endsWith('… [line cut: 10006 characters]')).toBe(true);
    expect(line.length).toBeLessThan(400);
    expect(r.details).toMatchObject({ matches: 1, binarySkipped: 1, filesSearched: 1 });
    expect((await call(cwd, 'grep', { pattern: 'NEEDLE', path: 'bin.dat' })).text).toBe('No matches for pattern "NEEDLE" in bin.dat (0 files searched; 1 binary file skipped).');
  });

  it('filters by glob: on the name without "/", on the path with it', async () => {
    const cwd = tree(tempDir(), { 'a.ts': 'hit\n', 'a.js': 'hit\n', 'src/b.ts': 'hit\n', 'src/deep/c.ts': 'hit\n', 'test/d.ts': 'hit\n', '.config/e.ts': 'hit\n' });
    expect(body((await call(cwd, 'grep', { pattern: 'hit', glob: '*.ts' })).text)).toEqual(['.config/e.ts:1:hit', 'a.ts:1:hit', 'src/b.ts:1:hit', 'src/deep/c.ts:1:hit', 'test/d.ts:1:hit']);
    expect(body((await call(cwd, 'grep', { pattern: 'hit', glob: 'src/**/*.ts' })).text)).toEqual(['src/b.ts:1:hit', 'src/deep/c.ts:1:hit']);
    expect(body((await call(cwd, 'grep', { pattern: 'hit', glob: 'src/*.{ts,js}' })).text)).toEqual(['src/b.ts:1:hit']);
    expect(body((await call(cwd, 'grep', { pattern: 'hit', path: 'src/deep/c.ts' })).text)).toEqual(['src/deep/c.ts:1:hit']);
  });

  it('caps matches at limit, and output at the byte cap, with notices that give the counts', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${String(i).padStart(2, '0')}.txt`] = 'hit one\nhit two\n';
    const cwd = tree(tempDir(), files);
    const r = await call(cwd, 'grep', { pattern: 'hit', limit: 5 });
    expect(body(r.text)).toEqual(['f00.txt:1:hit one', 'f00.txt:2:hit two', 'f01.txt:1:hit one', 'f01.txt:2:hit two', 'f02.txt:1:hit one']);
    expect(r.text).toContain('[Showing 5 of 60 matching lines (in 30 files); 55 more not shown, stopped at limit 5. Narrow the search');
    expect(r.text).toContain('or raise limit (at most 1000)');
    expect(r.details).toMatchObject({ matches: 60, shown: 5, truncated: true });
    const small = createGrepTool({ limits: { maxLines: 2000, maxBytes: 100 } });
    const s = await call(cwd, 'grep', { pattern: 'hit' }, { tools: [small] });
    expect(body(s.text)).toHaveLength(5); // 5 lines of 17 bytes + newline fit in 100 bytes
    expect(s.text).toContain('[Showing 5 of 60 matching lines (in 30 files); 55 more not shown, stopped at the 100 B output cap.');
    const limitArgs = await call(cwd, 'grep', { pattern: 'hit', limit: 5000 });
    expect(limitArgs.isError).toBe(true);
    expect(limitArgs.text).toContain('limit');
  });
});

describe('find', () => {
  it('matches names without "/", paths with it, folders (ending with "/"), and only folders for a glob ending with "/"', async () => {
    const cwd = tree(tempDir(), { 'a.ts': '', 'src/b.ts': '', 'src/fixtures/c.json': '', 'test/fixtures/': '', 'test/x.test.ts': '', 'fixtures.md': '' });
    expect(body((await call(cwd, 'find', { glob: '*.ts' })).text)).toEqual(['a.ts', 'src/b.ts', 'test/x.test.ts']);
    expect(body((await call(cwd, 'find', { glob: '**/*.ts' })).text)).toEqual(['a.ts', 'src/b.ts', 'test/x.test.ts']);
    expect(body((await call(cwd, 'find', { glob: 'src/**' })).text)).toEqual(['src/', 'src/b.ts', 'src/fixtures/', 'src/fixtures/c.json']);
    expect(body((await call(cwd, 'find', { glob: 'fixtures*' })).text)).toEqual(['fixtures.md', 'src/fixtures/', 'test/fixtures/']);
    expect(body((await call(cwd, 'find', { glob: '**/fixtures*/' })).text)).toEqual(['src/fixtures/', 'test/fixtures/']);
    expect(body((await call(cwd, 'find', { glob: '*.test.ts', path: 'test' })).text)).toEqual(['test/x.test.ts']);
    expect((await call(cwd, 'find', { glob: '*.rs' })).text).toMatch(/^No paths match "\*\.rs" in \. \(9 entries looked at\)\.$/);
  });

  it('a glob like *.ext gives the answers picomatch gives (property)', async () => {
    const name = fc.stringMatching(/^[a-z.\-_]{1,6}(\.(ts|md|test\.ts))?$/);
    const glob = fc.constantFrom('*.ts', '*.test.ts', '*s', '*-x.md', '*.', '*_a', '*.d.ts', '*');
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(name, { minLength: 1, maxLength: 10 }), glob, async (names, g) => {
        const valid = names.filter((n) => n !== '.' && n !== '..' && n !== '.git' && n !== '.gitignore');
        fc.pre(valid.length > 0); // names like "." alone would leave no sub/ folder to search
        const cwd = tree(tempDir(), Object.fromEntries(valid.map((n) => [`sub/${n}`, ''])));
        const re = picomatch.makeRe(g, { dot: true });
        const expected = valid
          .filter((n) => re.test(n))
          .map((n) => `sub/${n}`)
          .sort(byBytes);
        const r = await call(cwd, 'find', { glob: g, path: 'sub' });
        expect(r.text.startsWith('No paths') ? [] : body(r.text)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('caps the list at limit with a notice giving the total', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 10; i++) files[`d/f${i}.ts`] = '';
    const cwd = tree(tempDir(), files);
    const r = await call(cwd, 'find', { glob: '*.ts', limit: 3 });
    expect(body(r.text)).toEqual(['d/f0.ts', 'd/f1.ts', 'd/f2.ts']);
    expect(r.text).toContain('[Showing 3 of 10 matching paths; 7 more not shown, stopped at limit 3. Narrow the search with a more specific glob');
    expect(r.details).toMatchObject({ matches: 10, shown: 3, truncated: true });
    expect((await call(cwd, 'find', { glob: '*.ts', path: 'd/f0.ts' })).text).toContain('d/f0.ts is not a folder');
  });
});

describe('list_dir', () => {
  it('lists one level by default, deeper with depth, folders with "/"', async () => {
    const cwd = tree(tempDir(), { 'b.txt': '', 'a/x.txt': '', 'a/deep/y.txt': '', 'a/deep/deeper/z.txt': '', 'empty/': '' });
    expect(body((await call(cwd, 'list_dir', {})).text)).toEqual(['a/', 'b.txt', 'empty/']);
    expect(body((await call(cwd, 'list_dir', { depth: 2 })).text)).toEqual(['a/', 'a/deep/', 'a/x.txt', 'b.txt', 'empty/']);
    expect(body((await call(cwd, 'list_dir', { path: 'a', depth: 3 })).text)).toEqual(['a/deep/', 'a/deep/deeper/', 'a/deep/deeper/z.txt', 'a/deep/y.txt', 'a/x.txt']);
    expect((await call(cwd, 'list_dir', { path: 'empty' })).text).toBe('(empty is empty)');
    expect((await call(cwd, 'list_dir', { depth: 6 })).isError).toBe(true);
    expect((await call(cwd, 'list_dir', { path: 'b.txt' })).text).toContain('b.txt is not a folder; read it with read_file');
  });

  it('caps the listing with a notice', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 10; i++) files[`f${i}`] = '';
    const cwd = tree(tempDir(), files);
    const r = await call(cwd, 'list_dir', {}, { tools: [createListDirTool({ maxEntries: 4 })] });
    expect(body(r.text)).toEqual(['f0', 'f1', 'f2', 'f3']);
    expect(r.text).toContain('[Showing 4 of 10 entries (depth 1); 6 more not shown, stopped at 4 entries. List a subfolder');
  });
});

describe('the workspace boundary', () => {
  it('refuses a path outside the workspace in all three tools', async () => {
    const cwd = tree(tempDir(), { 'a.txt': 'x\n' });
    for (const [name, args] of [
      ['list_dir', { path: '..' }],
      ['grep', { pattern: 'x', path: '../' }],
      ['find', { glob: '*', path: '/' }],
    ] as const) {
      const r = await call(cwd, name, args);
      expect(r.isError).toBe(true);
      expect(r.text).toContain('is outside the workspace');
    }
  });

  it('shows symbolic links but never follows one out of the workspace', async () => {
    const outside = tree(tempDir(), { 'secret.txt': 'needle\n', 'sub/more.txt': 'needle\n' });
    const cwd = tree(tempDir(), { 'in.txt': 'needle\n' });
    symlinkSync(outside, join(cwd, 'out-dir'));
    symlinkSync(join(outside, 'secret.txt'), join(cwd, 'out-file'));
    symlinkSync('in.txt', join(cwd, 'in-link'));
    expect(body((await call(cwd, 'grep', { pattern: 'needle' })).text)).toEqual(['in.txt:1:needle']);
    expect(body((await call(cwd, 'list_dir', { depth: 3 })).text)).toEqual(['in-link -> in.txt', 'in.txt', `out-dir -> ${outside}`, `out-file -> ${join(outside, 'secret.txt')}`]);
    expect(body((await call(cwd, 'find', { glob: '**' })).text)).toEqual(['in-link', 'in.txt', 'out-dir', 'out-file']);
    const through = await call(cwd, 'grep', { pattern: 'needle', path: 'out-dir' });
    expect(through.isError).toBe(true);
    expect(through.text).toContain('outside the workspace');
  });

  it('paths() gives the resolved search root', () => {
    const cwd = tree(tempDir(), { 'src/a.ts': '' });
    for (const tool of [createListDirTool(), createGrepTool(), createFindTool()]) {
      expect(tool.paths!({ path: 'src' } as never, { cwd })).toEqual([join(cwd, 'src')]);
      expect(tool.paths!({} as never, { cwd })).toEqual([cwd]);
    }
  });
});

describe('abort', () => {
  it('a walk stops when the signal is aborted, in all three tools', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`d${i}/f.txt`] = 'hit\n';
    const cwd = tree(tempDir(), files);
    for (const [name, args] of [
      ['list_dir', { depth: 2 }],
      ['grep', { pattern: 'hit' }],
      ['find', { glob: '*.txt' }],
    ] as const) {
      // A signal that turns aborted after a few looks: the walk must keep looking, and stop.
      let looks = 0;
      const signal = {
        get aborted() {
          return ++looks > 5;
        },
        addEventListener() {},
        removeEventListener() {},
      } as unknown as AbortSignal;
      const r = await call(cwd, name, args, { signal });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('aborted before it finished');
    }
  });

  it('the walks let the event loop run now and then, so that an abort from a timer gets through', async () => {
    const ctrl = new AbortController();
    const pacer = new Pacer(ctrl.signal, 0);
    setImmediate(() => ctrl.abort());
    let checks = 0;
    const spin = async () => {
      for (;;) {
        checks++;
        if (pacer.due()) await pacer.pause();
      }
    };
    await expect(spin()).rejects.toThrow('aborted');
    expect(checks).toBeGreaterThanOrEqual(64); // due() samples the clock every 64 checks
  });
});
