// The scanner of the files a command line visibly writes (src/tools/redirections.ts): a table of
// bash's forms, and properties over generated command lines (every write redirection is found,
// however its target is quoted; nothing else is; no input makes it throw).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeTargets } from '../src/tools/redirections.js';

const texts = (command: string) => writeTargets(command, { vars: { HOME: '/home/u' } }).map((t) => t.text);

describe('writeTargets', () => {
  it.each([
    ['echo x > a', ['a']],
    ['echo x >> a', ['a']],
    ['echo x 2> a', ['a']],
    ['echo x 2>a', ['a']],
    ['echo x>a', ['a']],
    ['echo x &> a', ['a']],
    ['echo x &>> a', ['a']],
    ['echo x >| a', ['a']],
    ['echo x >& a', ['a']],
    ['exec 3<> a', ['a']],
    ['echo x 2>&1', []],
    ['echo x >&2', []],
    ['echo x 1>&-', []],
    ['cat < a', []],
    ['cat <<< a', []],
    ['echo 2 > a', ['a']],
    ["echo '>' a", []],
    ['echo ">" a', []],
    ['echo \\> a', []],
    ['echo x > "a b"', ['a b']],
    ['echo x > \'a\'"b"c', ['abc']],
    ["echo x >$'\\x2egit/config'", ['.git/config']],
    ['echo x > $"a"', ['a']],
    ['echo a#b > a # > b', ['a']],
    ['# > a\necho > b', ['b']],
    ['cat <<EOF > a\n> b\nEOF\necho > c', ['a', 'c']],
    ["cat <<-'EOF' > a\n\t> b\n\tEOF\necho > c", ['a', 'c']],
    ['echo "$(echo x > a)"', ['a']],
    ['echo `echo x > a`', ['a']],
    ['echo $(cat $(echo > a) > b)', ['a', 'b']],
    ['diff <(sort > a) >(tee b)', ['a', 'b']],
    ['( echo > a ); { echo > b; }', ['a', 'b']],
    ['echo $((1 > 2)) > a', ['a']],
    ['echo x\\\n> a', ['a']],
    ['echo x | tee a b', ['a', 'b']],
    ['echo x | tee -a -- -b', ['-b']],
    ['echo x | sudo -n tee a', ['a']],
    ['X=1 env Y=2 tee a', ['a']],
    ['echo tee a', []],
    ['echo > ~/a', ['/home/u/a']],
    ['echo > ~user/a', ['~user/a']],
    ['echo > $HOME/a', ['/home/u/a']],
    ['echo > "${HOME}/a"', ['/home/u/a']],
  ] as [string, string[]][])('%j writes %j', (command, expected) => {
    expect(texts(command)).toEqual(expected);
  });

  it('marks what cannot be read off the text: expansions (with their literal prefix) and globs', () => {
    expect(writeTargets('echo > .git/hooks/$NAME')).toEqual([expect.objectContaining({ text: '.git/hooks/', dynamic: true, prefix: '.git/hooks/' })]);
    expect(writeTargets('echo > "$(pwd)/x"')[0]).toMatchObject({ dynamic: true, prefix: '' });
    expect(writeTargets('echo > .gi?/conf*')[0]).toMatchObject({ glob: true, pattern: '.gi?/conf*' });
    expect(writeTargets("echo > '*'x*")[0]).toMatchObject({ glob: true, pattern: '\\*x*', text: '*x*' });
    expect(writeTargets("echo > '*'")[0]).toMatchObject({ glob: false, text: '*' });
  });

  // Generated command lines: simple commands joined by control operators, each with arguments,
  // write redirections (whose targets are expected, in order) and other redirections (which are not).
  const plain = fc.stringMatching(/^[A-Za-z_./][A-Za-z0-9_./-]{0,10}$/);
  const anyText = fc.stringMatching(/^[A-Za-z0-9 _./;|&<>#*?()-]{1,12}$/).filter((w) => !/^(\d+-?|-)$/.test(w));
  const quoting = fc.constantFrom('plain', 'single', 'double', 'backslash', 'mixed');
  const render = (word: string, how: string): string => {
    if (how === 'plain' && /^[A-Za-z0-9_./-]+$/.test(word)) return word;
    if (how === 'single' || how === 'plain') return `'${word}'`;
    if (how === 'double') return `"${word.replace(/["\\$`]/g, '\\$&')}"`;
    if (how === 'backslash') return word.replace(/./g, '\\$&');
    const half = Math.ceil(word.length / 2);
    return `'${word.slice(0, half)}'"${word.slice(half).replace(/["\\$`]/g, '\\$&')}"`;
  };
  const writeRedirection = fc.record({ op: fc.constantFrom('>', '>>', '>|', '&>', '&>>', '<>', '2>', '1>>', '>&'), target: anyText, how: quoting, space: fc.boolean() });
  const otherRedirection = fc.constantFrom('< in.txt', '2>&1', '>&2', '<<< word', '3<&0', '1>&-');
  const simple = fc.record({
    cmd: fc.constantFrom('echo', 'cat', 'ls', 'printf'),
    args: fc.array(plain, { maxLength: 3 }),
    redirections: fc.array(fc.oneof(writeRedirection, otherRedirection), { maxLength: 3 }),
  });
  const line = fc.array(fc.tuple(simple, fc.constantFrom(';', '&&', '||', '|', '\n', '&')), { minLength: 1, maxLength: 4 });

  it('finds every write redirection of a generated command line, however its target is quoted, and nothing else', () => {
    fc.assert(
      fc.property(line, fc.boolean(), (commands, comment) => {
        const expected: string[] = [];
        const parts = commands.map(([c, sep]) => {
          const words = [c.cmd, ...c.args];
          for (const r of c.redirections) {
            if (typeof r === 'string') words.push(r);
            else {
              words.push(`${r.op}${r.space ? ' ' : ''}${render(r.target, r.how)}`);
              expected.push(r.target);
            }
          }
          return `${words.join(' ')} ${sep} `;
        });
        const command = parts.join('') + (comment ? '# > not-a-target' : '');
        expect(texts(command)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab >&|<;()$`\'"\\#*?~{}\n\t-12'.split('')), maxLength: 40 }), (command) => {
        expect(() => writeTargets(command, { vars: { HOME: '/h' } })).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});
