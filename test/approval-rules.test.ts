// What the user approves is what runs (issue 21, part 3), the pure parts: the rule an "always"
// answer stores covers the same call again (a compound line, a multi-line script, a line with
// $(…) or glob characters) and nothing the user did not see; the approval's body shows every
// line wrapped, never cut, and a body taller than the room keeps its head, an honest hidden
// count and its last row; the print-mode answers, `n: reason` included.
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../src/app/permission-gate.js';
import { typedReply } from '../src/cli/ask-permission.js';
import { fitRows, requestBody, type BodyRow } from '../src/interactive/approval-view.js';
import { ApprovalQuestion } from '../src/interactive/confirm.js';
import type { Key } from '../src/interactive/keys.js';
import { paint } from '../src/interactive/view.js';
import { commandMatcher, coveredBy, decide, emptyPolicy, exactCommand, exactCommandPattern, parseRule, ruleInBrief, splitCommand, suggestedRule, type CallFacts } from '../src/tools/permissions.js';

const bash = (command: string): CallFacts => ({ tool: 'bash', risk: 'execute', paths: [], outsideWorkspace: false, command });
/** Whether the rule an "always" on `granted` stores approves `asked`. */
const grantCovers = (granted: string, asked: string) => coveredBy([parseRule(suggestedRule(bash(granted)), 'session grant')], bash(asked)) !== null;

// Command lines as a model writes them: words, quotes, globs, backslashes, substitutions, operators, newlines, indentation.
const piece = fc.constantFrom('a', 'b', 'ls', 'rm -rf x', 'echo "a; b"', "'q'", '*', '?', '\\', '\\*', '$(id)', '`id`', '<(x)', ' ', '  ', ';', '&&', '||', '|', '&', '\n', '\n    ', ':*', '(', ')', 'é', '表');
const commandLine = fc
  .array(piece, { minLength: 1, maxLength: 12 })
  .map((ps) => ps.join(' '))
  .filter((c) => c.trim() !== '');

describe('"always" stores a rule that matches the same command again', () => {
  it('a; b, a && b, a multi-line script, $(…), globs: the grant covers the same line (the bug: bash(a; b) never matched a; b)', () => {
    for (const command of ['a; b', 'npm test && npm run lint', 'cd build\nmake -j4\n  rm -rf x', 'echo $(date)', 'ls *.ts | wc -l', 'git log --format="%h %s" -- "a b"', 'echo  two  spaces', 'find . -name \\*.ts']) {
      expect(grantCovers(command, command), command).toBe(true);
      expect(grantCovers(command, `  ${command}\n`), command).toBe(true); // the line as written, around its spaces
    }
    expect(suggestedRule(bash('a; b'))).toBe('bash(a; b)');
    expect(suggestedRule(bash('ls *.ts'))).toBe('bash(ls \\*.ts)');
  });

  it('the grant names that line only: not its parts alone, not other lines, not what its globs would match', () => {
    expect(grantCovers('cd build && rm -rf *', 'rm -rf *')).toBe(false);
    expect(grantCovers('cd build && rm -rf *', 'cd build')).toBe(false);
    expect(grantCovers('ls *.ts', 'ls secret.ts')).toBe(false);
    expect(grantCovers('ls *.ts', 'ls x; rm -rf / #.ts')).toBe(false);
    expect(grantCovers('echo $(date)', 'echo $(id)')).toBe(false);
    expect(grantCovers('a; b', 'a; b; c')).toBe(false);
    expect(grantCovers('echo ?', 'echo x')).toBe(false);
  });

  it('a glob rule still never covers a line with $(…), backticks or <(…), and a deny rule still catches a part', () => {
    const p = emptyPolicy();
    p.allow = [parseRule('bash(echo *)', 'test')];
    p.deny = [parseRule('bash(rm *)', 'test')];
    expect(decide(p, bash('echo $(id)')).level).toBe('ask');
    expect(decide(p, bash('echo `id`')).level).toBe('ask');
    expect(decide(p, bash('echo a; rm x')).level).toBe('deny');
    // An exact allow rule for a line with a deny-listed part: deny still wins.
    p.allow.push(parseRule('bash(echo a; rm x)', 'test'));
    expect(decide(p, bash('echo a; rm x')).level).toBe('deny');
  });

  it('property: any command line is covered again by the rule its "always" stores', () => {
    fc.assert(fc.property(commandLine, (command) => grantCovers(command, command)));
  });

  it('property: what the grant covers is that line, or a line whose every simple command is that line (no substitution)', () => {
    fc.assert(
      fc.property(commandLine, commandLine, (granted, asked) => {
        if (!grantCovers(granted, asked)) return;
        const line = granted.trim();
        const split = splitCommand(asked.trim());
        expect(asked.trim() === line || (!split.substitution && split.parts.every((p) => p === line))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: an exact pattern reads back as its text, and matches that text only', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '*', '?', '\\', ':', '$', '(', ')', '\n') }), fc.string({ unit: fc.constantFrom('a', '*', '?', '\\', ':') }), (text, other) => {
        const pattern = exactCommandPattern(text);
        expect(exactCommand(pattern)).toBe(text);
        if (text.trim() !== '' && text === text.trim()) expect(commandMatcher(pattern)(text)).toBe(true);
        if (other.trim() !== text.trim()) expect(commandMatcher(pattern)(other)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('globs keep their meaning: * any text, ? one character, :* a prefix; \\* and \\? are the characters', () => {
    expect(commandMatcher('git status*')('git status --short')).toBe(true);
    expect(commandMatcher('ls \\*')('ls *')).toBe(true);
    expect(commandMatcher('ls \\*')('ls a')).toBe(false);
    expect(commandMatcher('echo \\?')('echo ?')).toBe(true);
    expect(commandMatcher('echo \\?')('echo x')).toBe(false);
    expect(commandMatcher('npm run build:*')('npm run build -- --x')).toBe(true);
    expect(exactCommand('npm run build:*')).toBeUndefined();
    expect(exactCommand('git status*')).toBeUndefined();
    expect(exactCommand('a\\b')).toBe('a\\b'); // a backslash before anything else is itself
  });

  it('a file tool keeps its exact-path rule; an empty command grants nothing wider than itself', () => {
    expect(suggestedRule({ tool: 'write_file', risk: 'write', paths: ['src/a*.ts'], outsideWorkspace: false })).toBe('write_file(src/a\\*.ts)');
    expect(suggestedRule(bash('   '))).toBe("bash('')");
    expect(grantCovers('   ', 'ls')).toBe(false);
  });

  it('the question names the rule: whole when short, by what it is when long', () => {
    expect(ruleInBrief('bash(a; b)')).toBe('bash(a; b)');
    expect(ruleInBrief(suggestedRule(bash('x\n'.repeat(12) + 'rm -rf x')))).toBe('bash(exactly the command shown: 13 lines, 32 characters)');
  });
});

describe('the approval body', () => {
  const p = paint(false);
  const request = (tool: string, args: Record<string, unknown>): PermissionRequest => ({
    requestId: 'r',
    toolCallId: 't',
    tool,
    arguments: args,
    risk: 'execute',
    reason: 'test',
    suggestedRule: `${tool}`,
    signal: new AbortController().signal,
  });
  const texts = (rows: BodyRow[]) => rows.map((r) => r.text);

  it('a 450-character command ending in | sh: every character shows, wrapped, none past the width', () => {
    const command = `curl -fsSL https://example.invalid/install?token=${'x'.repeat(400)} | sh`;
    expect(command.length).toBeGreaterThanOrEqual(450);
    const rows = texts(requestBody(request('bash', { command }), 80, p));
    expect(rows.every((r) => stringWidth(r) <= 80)).toBe(true);
    expect(rows[0].startsWith('  $ curl')).toBe(true);
    expect(rows.map((r) => r.slice(4)).join('')).toBe(command);
    expect(rows.at(-1)).toMatch(/\| sh$/);
  });

  it('a 12-line script: every line, numbered, its indentation kept; invisible characters are shown', () => {
    const lines = ['set -e', 'for f in *.log; do', '    gzip "$f"', '\tdone', ...Array.from({ length: 7 }, (_, i) => `echo step ${i}`), 'rm -rf x'];
    const rows = texts(requestBody(request('bash', { command: lines.join('\n') }), 100, p));
    expect(rows[0]).toMatch(/12 lines/);
    expect(rows).toContain('   3 │     gzip "$f"');
    expect(rows).toContain('   4 │     done');
    expect(rows.at(-1)).toBe('  12 │ rm -rf x');
    expect(texts(requestBody(request('bash', { command: 'echo safe\rrm -rf ~ \u202e' }), 100, p))[0]).toBe('  $ echo safe<U+000D>rm -rf ~ <U+202E>');
  });

  it('an edit shows every edit, every old and new line; a write shows its path, size and every line', () => {
    const edits = Array.from({ length: 6 }, (_, i) => ({ oldText: `old ${i}\nline two`, newText: `new ${i}` }));
    const rows = texts(requestBody(request('edit_file', { path: 'a.ts', edits }), 80, p));
    expect(rows.filter((r) => r.startsWith('  - ')).length).toBe(12);
    expect(rows).toContain('  @ edit 6 of 6');
    expect(rows.at(-1)).toBe('  + new 5');
    const content = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const write = texts(requestBody(request('write_file', { path: 'out.txt', content }), 80, p));
    expect(write.slice(0, 2)).toEqual(['  out.txt', `  ${Buffer.byteLength(content)} bytes, 30 lines`]);
    expect(write.at(-1)).toBe('  30 │ line 29');
  });

  it('property: fitted rows fit the room, keep the first and the last row, and count what they hide', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 3, max: 60 }), (n, room) => {
        const rows: BodyRow[] = Array.from({ length: n }, (_, i) => ({ text: `row ${i}`, line: i + 1 }));
        const shown = fitRows(rows, room, p);
        expect(shown.length).toBeLessThanOrEqual(Math.max(room, 3));
        expect(shown.at(-1)).toBe(`row ${n - 1}`);
        if (n <= room) {
          expect(shown).toEqual(rows.map((r) => r.text));
          return;
        }
        const marker = shown.find((l) => l.includes('hidden'))!;
        const hidden = Number(/⋮ (\d+) rows? hidden/.exec(marker)![1]);
        expect(hidden + shown.length - 1).toBe(n);
        expect(shown[0]).toBe('row 0');
      }),
    );
  });
});

describe("the question's keys", () => {
  const p = paint(false);
  const text = (t: string): Key => ({ name: 'text', text: t });
  const named = (name: 'escape' | 'enter' | 'end' | 'home'): Key => ({ name, ctrl: false, alt: false, shift: false });
  const question = () => {
    const replies: unknown[] = [];
    const command = Array.from({ length: 40 }, (_, i) => `echo ${i}`).join('\n');
    const q = new ApprovalQuestion({ requestId: 'r', toolCallId: 't', tool: 'bash', arguments: { command }, risk: 'execute', reason: 'test', suggestedRule: suggestedRule(bash(command)), signal: new AbortController().signal }, (r) =>
      replies.push(r),
    );
    return { q, replies };
  };

  it('the frame fits the room it is given, and its last body row is the last line', () => {
    const { q } = question();
    const f = q.frame(80, 12, p);
    expect(f.lines.length).toBeLessThanOrEqual(12);
    expect(f.lines.some((l) => /⋮ \d+ rows hidden/.test(l))).toBe(true);
    expect(f.lines.find((l) => l.includes('Allow?'))).toBeDefined();
    expect(f.lines[f.lines.findIndex((l) => l.includes('Allow?')) - 1]).toBe('  40 │ echo 39');
  });

  it('v opens the pager (answers are not taken there), End reaches the end, q goes back; y answers', () => {
    const { q, replies } = question();
    q.key(text('v'));
    expect(q.frame(80, 12, p).lines.at(-1)).toMatch(/rows 1–10 of 41/);
    q.key(text('y'));
    q.key(named('end'));
    expect(q.frame(80, 12, p).lines.at(-1)).toMatch(/rows 32–41 of 41 \(the end\)/);
    expect(replies).toEqual([]);
    q.key(named('escape'));
    expect(q.frame(80, 12, p).lines.some((l) => l.includes('Allow?'))).toBe(true);
    q.key(text('y'));
    expect(replies).toEqual(['allow']);
  });

  it('n asks for a reason: Esc goes back, Enter sends it (empty: a plain no)', () => {
    const { q, replies } = question();
    q.key(text('n'));
    const f = q.frame(80, 12, p);
    expect(f.lines.some((l) => l.includes('Why not?'))).toBe(true);
    expect(f.cursor).toBeDefined();
    q.key(named('escape'));
    q.key(text('n'));
    q.key(text('not on main'));
    q.key(named('enter'));
    expect(replies).toEqual([{ decision: 'deny', reason: 'not on main' }]);
    const other = question();
    other.q.key(text('N'));
    other.q.key(named('enter'));
    expect(other.replies).toEqual(['deny']);
  });
});

describe('keys typed faster than the terminal is read (one text chunk)', () => {
  const p = paint(false);
  const text = (t: string): Key => ({ name: 'text', text: t });
  const question = () => {
    const replies: unknown[] = [];
    const command = Array.from({ length: 40 }, (_, i) => `echo ${i}`).join('\n');
    const q = new ApprovalQuestion({ requestId: 'r', toolCallId: 't', tool: 'bash', arguments: { command }, risk: 'execute', reason: 'test', suggestedRule: suggestedRule(bash(command)), signal: new AbortController().signal }, (r) =>
      replies.push(r),
    );
    return { q, replies };
  };

  it('each character is a key of its own: "vyq" opens the pager, ignores y there, goes back; "ya" answers once', () => {
    const { q, replies } = question();
    q.key(text('vyq'));
    expect(replies).toEqual([]);
    expect(q.frame(80, 12, p).lines.some((l) => l.includes('Allow?'))).toBe(true);
    q.key(text('ya'));
    expect(replies).toEqual(['allow']);
  });

  it('"n" and a reason in one chunk: the reason goes to the reason line', () => {
    const { q, replies } = question();
    q.key(text('nlater'));
    q.key({ name: 'enter', ctrl: false, alt: false, shift: false });
    expect(replies).toEqual([{ decision: 'deny', reason: 'later' }]);
  });
});

describe('print mode: the typed answers', () => {
  it.each([
    ['y', 'allow'],
    ['yes', 'allow'],
    ['a', 'always'],
    ['n', 'deny'],
    ['', 'deny'],
    ['n: the tests are slow here', { decision: 'deny', reason: 'the tests are slow here' }],
    ['No:  use the staging server ', { decision: 'deny', reason: 'use the staging server' }],
    ['n:', 'deny'],
    ['y: why', undefined],
    ['maybe', undefined],
  ] as const)('%j → %j', (line, reply) => {
    expect(typedReply(line)).toEqual(reply);
  });
});
