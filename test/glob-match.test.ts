// The linear-time glob matcher (src/tools/glob-match.ts): the answers picomatch gives (with
// dot: true) on the dialect they share, and no slowdown on globs that make a backtracking
// matcher take exponential or high-polynomial time.
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { compileGlob } from '../src/tools/glob-match.js';

const pm = (g: string, s: string) => picomatch(g, { dot: true })(s);

describe('compileGlob', () => {
  it('answers as picomatch does on ordinary globs', () => {
    const cases: Array<[string, string]> = [
      ['a/**', 'a'],
      ['a/**', 'a/b/c'],
      ['**', 'a/b'],
      ['**', '.a'],
      ['a**b', 'axxb'],
      ['a**b', 'ax/xb'],
      ['**/b', 'b'],
      ['**/b', 'x/y/b'],
      ['a/**/b', 'a/b'],
      ['a/**/b', 'a/x/y/b'],
      ['a/**/b', 'a/xb'],
      ['a/**b', 'a/xb'],
      ['a/**b', 'a/x/yb'],
      ['{1..3}', '2'],
      ['{1..3}', '4'],
      ['[[:alpha:]]', 'a'],
      ['[[:alpha:]]', '1'],
      ['@(a|b)', 'a'],
      ['@(a|b)', 'c'],
      ['*(a|b)', 'abab'],
      ['+(a)', 'aaa'],
      ['+(a)', ''],
      ['?(a)x', 'x'],
      ['a\\*', 'a*'],
      ['a\\*', 'ab'],
      ['[^a]', 'a'],
      ['[^a]', 'b'],
      ['[a-c]', 'b'],
      ['[a-c]', 'd'],
      ['{a,b}', 'a'],
      ['{a}', '{a}'],
      ['{a}', 'a'],
      ['a{,b}', 'a'],
      ['a{,b}', 'ab'],
      ['*', '.x'],
      ['x/*', 'x/.y'],
      ['?', '/'],
      ['[]a]', ']'],
      ['a{b,c{d,e}}', 'acd'],
      ['a{b,c{d,e}}', 'ac'],
      ['a+', 'a+'],
      ['a+', 'aa'],
      ['a.b', 'a.b'],
      ['a.b', 'axb'],
      ['$a^', '$a^'],
      ['a/./b', 'a/b'],
      ['[', '['],
      ['a}', 'a}'],
      ['*.{ts,js}', 'x.js'],
      ['*.{ts,js}', 'x.jsx'],
      ['**/*.ts', 'a/b.ts'],
      ['**/*.ts', 'b.ts'],
      ['src/**/*.ts', 'src/a.ts'],
      ['src/**/*.ts', 'src/a/b/c.ts'],
      ['src/**/*.ts', 'lib/a.ts'],
      ['a?', 'a/'],
      ['**a', 'xa'],
      ['**a', 'x/a'],
      ['a//b', 'a/b'],
      ['\\[a]', '[a]'],
      ['[a-]', '-'],
      ['[\\]]', ']'],
      ['*a*a*b', 'aaab'],
      ['*a*a*b', 'aaa'],
      ['!a', 'b'],
      ['!a', 'a'],
      ['!*.ts', 'x.js'],
      ['x/{a,b}/y', 'x/a/y'],
      ['x/{a,b}/y', 'x/c/y'],
      ['*{,.ts}', 'a'],
      ['*.test.ts', 'x.test.ts'],
      ['fixtures*', 'fixtures.md'],
      ['src/*.{ts,js}', 'src/deep/c.ts'],
      ['{a..c}x', 'bx'],
    ];
    for (const [g, s] of cases) expect([g, s, compileGlob(g)(s)]).toEqual([g, s, pm(g, s)]);
  });

  it('answers as picomatch does on generated globs and paths (property)', () => {
    const token = fc.constantFrom('a', 'b', '.', '/', '*', '**', '?', '[ab]', '[^a]', '[a-c]', '{a,b}', '{,a}', '-', '\\*');
    const glob = fc
      .array(token, { minLength: 1, maxLength: 6 })
      .map((t) => t.join(''))
      .filter((g) => !/\/\/|^\/|\/$|\*\*\*|\*\*[^/]|[^/]\*\*|^\.\/|[*?\]]\/\*\*$|\/\*\*\/\{,/.test(g)); // picomatch reads "**" next to other characters, "*/**" against one segment and "x/**/{,a}" its own way
    const path = fc
      .array(fc.constantFrom('a', 'b', 'c', '.', '/', '-', '*'), { maxLength: 8 })
      .map((c) => c.join(''))
      .filter((p) => p !== '' && !/\/\/|^\/|\/$|(^|\/)\.\.?(\/|$)|\.$/.test(p)); // picomatch's "*.*" does not match "a." (bash's does, and ours)
    fc.assert(
      fc.property(glob, path, (g, p) => compileGlob(g)(p) === pm(g, p)),
      { numRuns: 3000 },
    );
  });

  it('matches a glob that backtracks in picomatch against a long name in linear time', () => {
    const test = compileGlob(`${'*a'.repeat(12)}*b`);
    const t0 = performance.now();
    expect(test('a'.repeat(200))).toBe(false);
    expect(test('a'.repeat(5000))).toBe(false);
    expect(test('a'.repeat(200) + 'b')).toBe(true);
    expect(compileGlob('+(+(+(a)))+(a|aa)*b')('a'.repeat(3000))).toBe(false);
    expect(compileGlob('{a,aa,aaa}*{a,aa}*{,a}*c')('a'.repeat(3000))).toBe(false);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('refuses !(…) and overlong globs with a reason', () => {
    expect(() => compileGlob('!(a).ts')).toThrow(/!\(…\) is not supported/);
    expect(() => compileGlob('a'.repeat(5000))).toThrow(/at most 4096/);
  });
});
