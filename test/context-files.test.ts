// Context files (issue 12, §1): the order (home, then the root down to the workspace), the
// CLAUDE.md fallback, the cap and its notices, unreadable files, one load per real file, the
// system-prompt section, and the nested files a file tool's result brings in once per run.
// The walk starts at `/`, so assertions look only at files under the test's own folders: a stray
// AGENTS.md above the temp dir must not break them.
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contextSection, cutMarker, foldersDownTo, headWithin, loadContextFiles, nestedContextTracker, type LoadedContext } from '../src/extensions/context-files.js';
import { tempDir } from './support/helpers.js';

function write(path: string, text: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** The loaded files under the test's folders, as [path, scope]. */
function ours(loaded: LoadedContext, ...roots: string[]): Array<[string, string]> {
  return loaded.files.filter((f) => roots.some((r) => f.path.startsWith(r + '/'))).map((f) => [f.path, f.scope]);
}

describe('loading context files', () => {
  it('order: the home first, then every folder from the top down to the workspace; CLAUDE.md only where there is no AGENTS.md', () => {
    const top = tempDir();
    const home = tempDir('mini-agent-home-');
    const cwd = join(top, 'a', 'b', 'c');
    mkdirSync(cwd, { recursive: true });
    write(join(home, 'CLAUDE.md'), 'home claude\n');
    write(join(top, 'AGENTS.md'), 'top agents\n');
    write(join(top, 'a', 'CLAUDE.md'), 'a claude\n');
    write(join(top, 'a', 'b', 'AGENTS.md'), 'b agents\n');
    write(join(top, 'a', 'b', 'CLAUDE.md'), 'b claude, hidden\n');
    write(join(cwd, 'AGENTS.md'), 'c agents\n');
    const loaded = loadContextFiles({ cwd, home });
    expect(ours(loaded, top, home)).toEqual([
      [join(home, 'CLAUDE.md'), 'user'],
      [join(top, 'AGENTS.md'), 'ancestor'],
      [join(top, 'a', 'CLAUDE.md'), 'ancestor'],
      [join(top, 'a', 'b', 'AGENTS.md'), 'ancestor'],
      [join(cwd, 'AGENTS.md'), 'workspace'],
    ]);
    // Whatever sits above the temp dir, the home comes first and the workspace last.
    expect(loaded.files[0].path).toBe(join(home, 'CLAUDE.md'));
    expect(loaded.files.at(-1)!.path).toBe(join(cwd, 'AGENTS.md'));
    const c = loaded.files.at(-1)!;
    expect(c).toMatchObject({ text: 'c agents\n', bytes: 9, truncated: false, omitted: false });
    expect(c.tokens).toBeGreaterThan(0);
    expect(loaded.notices.filter((n) => n.includes(top) || n.includes(home))).toEqual([]);
  });

  it("the home's AGENTS.md wins over its CLAUDE.md; empty and blank files are skipped; no files at all", () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    write(join(home, 'AGENTS.md'), 'home agents\n');
    write(join(home, 'CLAUDE.md'), 'home claude\n');
    write(join(cwd, 'AGENTS.md'), '');
    write(join(cwd, 'CLAUDE.md'), 'not a fallback: the folder has an AGENTS.md\n');
    const loaded = loadContextFiles({ cwd, home });
    expect(ours(loaded, cwd, home)).toEqual([[join(home, 'AGENTS.md'), 'user']]);
    write(join(cwd, 'AGENTS.md'), ' \n\n\t\n');
    expect(ours(loadContextFiles({ cwd, home }), cwd, home)).toEqual([[join(home, 'AGENTS.md'), 'user']]);
    // Blank is decided on the whole file, even one bigger than the cap (the cap only limits what is shown).
    write(join(cwd, 'AGENTS.md'), '\ufeff' + ' \n'.repeat(70_000));
    const capped = loadContextFiles({ cwd, home, maxBytes: 10 });
    expect(capped.files.filter((f) => f.path.startsWith(cwd + '/'))).toEqual([]);
    const none = loadContextFiles({ cwd: tempDir(), home: tempDir('mini-agent-home-') });
    expect(none.files.filter((f) => f.scope !== 'ancestor')).toEqual([]);
  });

  it('an unreadable file (a folder named AGENTS.md, no permission) is a notice, the folder falls back to CLAUDE.md, the rest load', () => {
    const top = tempDir();
    const home = tempDir('mini-agent-home-');
    const cwd = join(top, 'ws');
    mkdirSync(join(top, 'AGENTS.md'), { recursive: true });
    write(join(top, 'CLAUDE.md'), 'top claude\n');
    write(join(cwd, 'AGENTS.md'), 'ws agents\n');
    const loaded = loadContextFiles({ cwd, home });
    expect(ours(loaded, top)).toEqual([
      [join(top, 'CLAUDE.md'), 'ancestor'],
      [join(cwd, 'AGENTS.md'), 'workspace'],
    ]);
    expect(loaded.notices).toContain(`context file ${join(top, 'AGENTS.md')} was not loaded: it is a folder, not a file`);
  });

  it.skipIf(process.getuid?.() === 0)('a file without read permission is a notice', () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const file = write(join(cwd, 'AGENTS.md'), 'secret\n');
    write(join(home, 'AGENTS.md'), 'home\n');
    chmodSync(file, 0o000);
    const loaded = loadContextFiles({ cwd, home });
    expect(ours(loaded, cwd, home)).toEqual([[join(home, 'AGENTS.md'), 'user']]);
    expect(loaded.notices).toContain(`context file ${file} was not loaded: permission denied`);
  });

  it('the same real file loads once, at its first place: the home inside the walk, and a symlink', () => {
    const top = tempDir();
    const cwd = join(top, 'ws');
    write(join(top, 'AGENTS.md'), 'top\n');
    mkdirSync(cwd);
    symlinkSync(join(top, 'AGENTS.md'), join(cwd, 'AGENTS.md'));
    // The home is the top folder itself: its AGENTS.md is the user's, and not again an ancestor.
    const loaded = loadContextFiles({ cwd, home: top });
    expect(ours(loaded, top)).toEqual([[join(top, 'AGENTS.md'), 'user']]);
    expect(loaded.totalBytes).toBeGreaterThanOrEqual(4);
  });

  it('the walk: every folder from the root down to the workspace', () => {
    expect(foldersDownTo('/a/b/c')).toEqual(['/', '/a', '/a/b', '/a/b/c']);
    expect(foldersDownTo('/')).toEqual(['/']);
  });
});

describe('the cap', () => {
  it('the workspace file is kept whole first; the one that crosses the cap is cut at a line with a marker; the rest are left out', () => {
    const top = tempDir();
    const home = tempDir('mini-agent-home-');
    const cwd = join(top, 'a', 'ws');
    const line = (c: string) => c.repeat(19) + '\n'; // 20 bytes
    write(join(home, 'AGENTS.md'), line('h').repeat(5));
    write(join(top, 'AGENTS.md'), line('t').repeat(5));
    write(join(top, 'a', 'AGENTS.md'), line('a').repeat(10)); // 200 bytes
    write(join(cwd, 'AGENTS.md'), line('w').repeat(10)); // 200 bytes
    const max = 200 + 150;
    const loaded = loadContextFiles({ cwd, home, maxBytes: max });
    const by = (p: string) => loaded.files.find((f) => f.path === p)!;
    expect(by(join(cwd, 'AGENTS.md'))).toMatchObject({ truncated: false, omitted: false, text: line('w').repeat(10) });
    const a = by(join(top, 'a', 'AGENTS.md'));
    const cap = `the context-file cap is ${max} bytes`;
    // The room left (150) less the marker line, in whole 20-byte lines.
    const shownLines = Math.floor((150 - Buffer.byteLength('\n' + cutMarker(200, 200, a.path, cap))) / 20);
    expect(shownLines).toBeGreaterThan(0);
    expect(a).toMatchObject({ truncated: true, omitted: false, text: line('a').repeat(shownLines) + cutMarker(shownLines * 20, 200, a.path, cap) });
    expect(by(join(top, 'AGENTS.md'))).toMatchObject({ omitted: true, text: '', tokens: 0 });
    expect(by(join(home, 'AGENTS.md'))).toMatchObject({ omitted: true, text: '' });
    expect(loaded.includedBytes).toBeLessThanOrEqual(max);
    expect(loaded.notices).toEqual(
      expect.arrayContaining([
        `context file ${join(top, 'a', 'AGENTS.md')} was cut: ${shownLines * 20} of 200 bytes shown (the context-file cap is ${max} bytes; files nearer the workspace are kept first)`,
        `context file ${join(top, 'AGENTS.md')} (100 bytes) was left out: the context-file cap is ${max} bytes, filled by files nearer the workspace`,
        `context file ${join(home, 'AGENTS.md')} (100 bytes) was left out: the context-file cap is ${max} bytes, filled by files nearer the workspace`,
      ]),
    );
    expect(loaded.totalBytes).toBeGreaterThanOrEqual(600);
  });

  it('a single line longer than the room is cut at a whole UTF-8 character', () => {
    const buf = Buffer.from('ééé€x');
    expect(headWithin(buf, 5).toString()).toBe('éé');
    expect(headWithin(buf, 8).toString()).toBe('ééé');
    expect(headWithin(buf, 9).toString()).toBe('ééé€');
    expect(headWithin(Buffer.from('ab\ncd\nef'), 7).toString()).toBe('ab\ncd\n');
    expect(headWithin(Buffer.from('ab'), 0).length).toBe(0);
  });

  it('property: included bytes never pass the cap; every cut or left-out file has a notice naming it; a file is whole exactly when it fits after the nearer ones', () => {
    // Lines of 0 to 150 characters of one to four UTF-8 bytes each, sometimes no final newline.
    const line = fc.tuple(fc.nat({ max: 150 }), fc.constantFrom('a', 'é', '€', '😀', ' ')).map(([n, c]) => c.repeat(n));
    const content = fc.tuple(fc.array(line, { maxLength: 30, size: 'max' }), fc.boolean()).map(([ls, nl]) => ls.join('\n') + (nl ? '\n' : ''));
    fc.assert(
      fc.property(fc.array(content, { minLength: 4, maxLength: 4 }), fc.nat({ max: 1100 }), (texts, permille) => {
        // The cap as a share of the files' total size, so whole, cut and left-out files all come up.
        const max = Math.floor(((texts.reduce((n, t) => n + Buffer.byteLength(t), 0) + 200) * permille) / 1000);
        const top = tempDir();
        const home = tempDir('mini-agent-home-');
        const cwd = join(top, 'a', 'ws');
        mkdirSync(cwd, { recursive: true });
        // Priority order, most specific first: the workspace, its parent, the top, the home.
        const paths = [join(cwd, 'AGENTS.md'), join(top, 'a', 'CLAUDE.md'), join(top, 'AGENTS.md'), join(home, 'AGENTS.md')];
        paths.forEach((p, i) => write(p, texts[i]));
        const loaded = loadContextFiles({ cwd, home, maxBytes: max });
        expect(loaded.includedBytes).toBeLessThanOrEqual(max);
        expect(loaded.includedBytes).toBe(loaded.files.reduce((n, f) => n + Buffer.byteLength(f.text), 0));
        for (const f of loaded.files) {
          if (f.truncated || f.omitted) expect(loaded.notices.some((n) => n.includes(f.path))).toBe(true);
          else expect(Buffer.byteLength(f.text)).toBe(f.bytes);
          if (f.truncated) expect(f.text).toMatch(/\[… cut: \d+ of \d+ bytes of .* shown; the context-file cap is \d+ bytes\]$/);
        }
        paths.forEach((p, i) => {
          const f = loaded.files.find((x) => x.path === p);
          if (texts[i].trim() === '') expect(f).toBeUndefined();
          else if (f!.truncated) expect(texts[i].startsWith(f!.text.slice(0, f!.text.lastIndexOf('[… cut:')).replace(/\n$/, ''))).toBe(true);
        });
        // The rule: most specific first (the walk from the workspace up, the user's last), a file
        // is whole exactly when it fits in what the nearer ones left.
        const priority = [...loaded.files.filter((f) => f.scope !== 'user').reverse(), ...loaded.files.filter((f) => f.scope === 'user')];
        let used = 0;
        for (const f of priority) {
          expect(!f.truncated && !f.omitted).toBe(used + f.bytes <= max);
          used += Buffer.byteLength(f.text);
        }
        rmSync(top, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
      }),
      { numRuns: 60 },
    );
  });
});

describe('the system-prompt section', () => {
  it('a header on where the files come from, then each file under its path (relative inside the workspace); nothing when none', () => {
    const top = tempDir();
    const home = tempDir('mini-agent-home-');
    const cwd = join(top, 'ws');
    write(join(home, 'AGENTS.md'), 'Be brief.\n');
    write(join(cwd, 'AGENTS.md'), 'Run npm test.\n\n');
    const loaded = loadContextFiles({ cwd, home });
    const section = contextSection({ ...loaded, files: loaded.files.filter((f) => f.scope !== 'ancestor') }, cwd);
    expect(section).toMatch(/^# Project instructions\n\n/);
    expect(section).toContain("written by the repository's authors");
    expect(section).toContain(`## ${join(home, 'AGENTS.md')}\n\nBe brief.\n\n## AGENTS.md\n\nRun npm test.`);
    expect(section.endsWith('Run npm test.')).toBe(true);
    expect(contextSection({ files: [], totalBytes: 0, includedBytes: 0, maxBytes: 10, notices: [] }, cwd)).toBe('');
    const omitted = contextSection({ files: [{ path: join(cwd, 'sub', 'AGENTS.md'), scope: 'workspace', bytes: 99, tokens: 0, text: '', truncated: false, omitted: true }], totalBytes: 99, includedBytes: 0, maxBytes: 10, notices: [] }, cwd);
    expect(omitted).toContain('## sub/AGENTS.md\n\n[not shown: this file has 99 bytes and did not fit under the context-file cap of 10 bytes]');
  });
});

describe('nested context files', () => {
  const setup = () => {
    const cwd = tempDir();
    write(join(cwd, 'AGENTS.md'), 'root rules (loaded up front, never here)\n');
    write(join(cwd, 'packages', 'AGENTS.md'), 'packages rules\n');
    write(join(cwd, 'packages', 'api', 'CLAUDE.md'), 'api rules\n');
    write(join(cwd, 'packages', 'api', 'src', 'index.ts'), 'export {};\n');
    write(join(cwd, 'packages', 'web', 'AGENTS.md'), 'web rules\n');
    write(join(cwd, 'node_modules', 'dep', 'AGENTS.md'), 'dependency rules\n');
    write(join(cwd, 'node_modules', 'dep', 'index.js'), '\n');
    write(join(cwd, '.git', 'AGENTS.md'), 'git\n');
    return cwd;
  };

  it('outer folders first, once until reset, then fresh', () => {
    const cwd = setup();
    const t = nestedContextTracker({ cwd });
    expect(t.forPaths([join(cwd, 'packages', 'api', 'src', 'index.ts')])).toBe(
      '\n\n[Instructions for packages/ from packages/AGENTS.md, shown once this run:]\npackages rules' + '\n\n[Instructions for packages/api/ from packages/api/CLAUDE.md, shown once this run:]\napi rules',
    );
    expect(t.forPaths([join(cwd, 'packages', 'api', 'src', 'index.ts')])).toBeUndefined();
    // A folder path counts itself; the packages folder was already given.
    expect(t.forPaths([join(cwd, 'packages', 'web')])).toBe('\n\n[Instructions for packages/web/ from packages/web/AGENTS.md, shown once this run:]\nweb rules');
    write(join(cwd, 'packages', 'api', 'CLAUDE.md'), 'api rules, edited\n');
    expect(t.forPaths([join(cwd, 'packages', 'api')])).toBeUndefined();
    t.reset();
    expect(t.forPaths([join(cwd, 'packages', 'api', 'new-file.ts'), join(cwd, 'packages', 'api', 'src')])).toBe(
      '\n\n[Instructions for packages/ from packages/AGENTS.md, shown once this run:]\npackages rules' + '\n\n[Instructions for packages/api/ from packages/api/CLAUDE.md, shown once this run:]\napi rules, edited',
    );
  });

  it('skips the workspace root itself, paths outside it, node_modules and .git', () => {
    const cwd = setup();
    const outside = tempDir();
    write(join(outside, 'x', 'AGENTS.md'), 'outside\n');
    const t = nestedContextTracker({ cwd });
    expect(t.forPaths([cwd, join(cwd, 'README.md')])).toBeUndefined();
    expect(t.forPaths([join(outside, 'x', 'file.ts'), join(outside, 'x')])).toBeUndefined();
    expect(t.forPaths([join(cwd, 'node_modules', 'dep', 'index.js'), join(cwd, '.git', 'config'), join(cwd, 'node_modules', 'dep')])).toBeUndefined();
    expect(t.forPaths([join(cwd, '..', 'x')])).toBeUndefined();
  });

  it('a folder added during the run is picked up; a big file is cut with a marker', () => {
    const cwd = setup();
    const t = nestedContextTracker({ cwd, maxBytes: 200 });
    expect(t.forPaths([join(cwd, 'tools', 'a.ts')])).toBeUndefined();
    write(join(cwd, 'tools', 'AGENTS.md'), 'x'.repeat(29) + '\n' + 'y'.repeat(200) + '\n');
    const out = t.forPaths([join(cwd, 'tools', 'a.ts')])!;
    expect(out).toBe('\n\n[Instructions for tools/ from tools/AGENTS.md, shown once this run:]\n' + 'x'.repeat(29) + '\n[… cut: 30 of 231 bytes of tools/AGENTS.md shown; nested instructions are capped at 200 bytes per file]');
  });

  it('a symlinked workspace: real paths and paths as written both count', () => {
    const real = setup();
    const link = join(tempDir(), 'link');
    symlinkSync(real, link);
    const t = nestedContextTracker({ cwd: link });
    expect(t.forPaths([join(real, 'packages', 'web', 'AGENTS.md')])).toContain('[Instructions for packages/web/ from packages/web/AGENTS.md');
    t.reset();
    expect(t.forPaths([join(link, 'packages', 'web', 'x.ts')])).toContain('[Instructions for packages/ from packages/AGENTS.md');
  });
});
