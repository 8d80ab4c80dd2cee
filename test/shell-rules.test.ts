// Allow rules that fail closed (issue 22, part 2): a glob allow rule covers a command line only
// when the shell parser reads it as simple commands of literal words joined by ; && || |, each
// matched; redirections are writes, decided as write_file calls; deny rules see every simple
// command the parser finds. Table tests of each shape from the issue, the gate's resolution of
// redirection targets, the CLI with the issue's user config, and a property test whose oracle
// is bash itself: a line the policy allows runs with a PATH of stubs that record their argv.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { callFacts, permissionGate } from '../src/app/permission-gate.js';
import type { AgentEvent } from '../src/core/events.js';
import { commandMatcher, decide, emptyPolicy, parseRule, type CallFacts, type PermissionPolicy } from '../src/tools/permissions.js';
import { loadShellParser, MAX_PARSED_LINE, parseShell } from '../src/tools/shell-parse.js';
import type { ToolDefinition } from '../src/tools/tool.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, tempDir, writeScript } from './support/helpers.js';

const bash = (command: string, over: Partial<CallFacts> = {}): CallFacts => ({ tool: 'bash', risk: 'execute', paths: [], outsideWorkspace: false, command, ...over });
const policy = (p: Partial<Record<'allow' | 'ask' | 'deny', string[]>>): PermissionPolicy => {
  const out = emptyPolicy();
  for (const level of ['allow', 'ask', 'deny'] as const) out[level] = (p[level] ?? []).map((r) => parseRule(r, 'test'));
  return out;
};
const ISSUE = { allow: ['bash(ls *)', 'bash(git status*)'], deny: ['bash(rm *)'] };

/** The issue's ways around `bash(rm *)` and through `bash(ls *)`, each one line. */
const ATTACKS = [
  "ls # '\nrm victim\n# '",
  "ls $'\\'' ; rm victim #'",
  "ls $'\\'' $(touch pwned) #'",
  'ls $(rm victim)',
  'ls `rm victim`',
  'ls "$(rm victim)"',
  'ls <(rm victim)',
  "ls $'x' ; rm victim",
  'ls $"x" ; rm victim',
  'ls && \\rm victim',
  'ls; command rm victim',
  'ls; env rm victim',
  'ls; /bin/rm victim',
  'ls | xargs rm',
  'ls; bash -c "rm victim"',
  "ls; sh -c 'rm victim'",
  'ls; eval "rm victim"',
  'ls; exec rm victim',
  'f() { rm victim; }; f',
  "ls; r''m victim",
  '(rm victim)',
  'ls; (rm victim)',
  '{ rm victim; }',
  'if true; then rm victim; fi',
  'for f in victim; do rm $f; done',
  'while true; do rm victim; break; done',
  'case x in x) rm victim;; esac',
  'ls; rm\tvictim',
  'ls\n\nrm victim',
  'ls; $X victim',
  'ls & rm victim',
  'ls <<EOF\nEOF\nrm victim',
  'ls (',
  'X=1 ls; LD_PRELOAD=/x ls',
];

describe('allow rules that fail closed', () => {
  beforeAll(loadShellParser);

  it('each way around the rules, from the issue, asks under the allow rules alone', () => {
    const p = policy({ allow: ISSUE.allow });
    for (const line of ATTACKS) expect(decide(p, bash(line)).level, line).toBe('ask');
  });

  it('deny rules see every simple command the parser finds: inside substitutions, functions, loops, sh -c, eval, through quotes, paths, wrappers and tabs', () => {
    const p = policy(ISSUE);
    const denied = ATTACKS.filter((l) => !['ls; $X victim', 'X=1 ls; LD_PRELOAD=/x ls', 'ls (', "ls $'\\'' $(touch pwned) #'"].includes(l));
    for (const line of denied) expect(decide(p, bash(line)).level, line).toBe('deny');
    expect(decide(p, bash('find . -exec rm {} \\;')).level).toBe('deny');
    expect(decide(p, bash('timeout 5 nice -n 1 rm victim')).level).toBe('deny');
    expect(decide(p, bash('ls $(touch pwned)')).level).toBe('ask');
  });

  it('literal simple commands joined by ; && || | are covered, each matched by its words as written; comments, tabs and quotes are read as bash reads them', () => {
    const p = policy(ISSUE);
    for (const line of [
      'ls -la',
      'ls\t-la',
      "ls -la # it's fine",
      'ls -la # $(rm victim)',
      'git status && ls -la',
      'ls a || ls b; git status --short | ls x',
      'ls \'a b\' "c d" e\\ f',
      'ls -la 2>&1',
      'ls -la > /dev/null 2>/dev/stderr',
      'ls \\\n  -la',
    ]) {
      expect(decide(p, bash(line)).level, line).toBe('allow');
    }
    // Quoting cannot make a foreign command read as an allowed one, nor the other way round.
    expect(decide(p, bash("'l's -la")).level).toBe('ask');
    expect(decide(p, bash('ls"";rm victim')).level).toBe('deny');
    expect(parseShell("ls # '\nrm victim\n# '")?.commands.map((c) => c.words)).toEqual([['ls'], ['rm', 'victim']]);
    expect(parseShell('ls\t-la')?.commands).toEqual([{ text: 'ls -la', words: ['ls', '-la'] }]);
  });

  it('redirections are writes: inside the workspace allowed as write_file is, outside asked, write_file rules apply, /dev/null and descriptor copies are fine', () => {
    const p = policy(ISSUE);
    expect(decide(p, bash('ls -la > notes.txt')).level).toBe('allow');
    // The words are matched, the redirections decided as writes: `ls *` names `ls` with arguments, not `ls` alone.
    expect(decide(p, bash('ls 2>&1')).level).toBe('ask');
    for (const line of ['git status > /outside/important.txt', 'ls -la >> ../important.txt', 'ls -la 2> /etc/x', 'ls -la &> /tmp/x', 'ls -la >| ../x', 'ls -la > ~/x', 'ls -la > $HOME/x', 'ls -la > *.txt', 'ls -la <> x']) {
      expect(decide(p, bash(line)).level, line).toBe('ask');
    }
    expect(decide(p, bash('git status > /outside/important.txt')).why).toMatch(/redirection to \/outside\/important\.txt is a write.*outside the workspace/);
    const guarded = policy({ ...ISSUE, deny: [...ISSUE.deny, 'write_file(important.txt)'], ask: ['write_*(notes/**)'] });
    for (const op of ['>', '>>', '2>', '&>', '>|']) expect(decide(guarded, bash(`ls -la ${op} important.txt`)).level, op).toBe('deny');
    expect(decide(guarded, bash('ls -la > notes/a.md')).level).toBe('ask');
    expect(decide(guarded, bash('ls -la > other.txt')).level).toBe('allow');
    // Rules on writes hold even where no bash rule speaks.
    expect(decide(policy({ deny: ['*(important.txt)'] }), bash('echo hi > important.txt')).level).toBe('deny');
  });

  it('an exact-line rule still covers exactly its text, whatever it holds (also a line that does not parse, or writes outside); a glob never does', () => {
    const p = policy({ allow: ['bash(ls $(pwd))', 'bash(ls ()', 'bash(git status > /outside/x)', 'bash(ls *)'] });
    expect(decide(p, bash('ls $(pwd)')).level).toBe('allow');
    expect(decide(p, bash('ls (')).level).toBe('allow');
    expect(decide(p, bash('git status > /outside/x')).level).toBe('allow');
    expect(decide(p, bash('ls $(pwd) ')).level).toBe('allow'); // trimmed, as before
    expect(decide(p, bash('ls  $(pwd)')).level).toBe('ask');
    expect(decide(p, bash('ls -la > /outside/x')).level).toBe('ask');
    expect(decide(policy({ allow: ['bash'] }), bash('ls > /outside/x')).level).toBe('allow'); // the whole tool, as written
  });

  it('a line longer than the parser reads (it would hold the main thread) asks; deny rules still see its text parts', () => {
    const p = policy(ISSUE);
    const long = `ls ${'a'.repeat(MAX_PARSED_LINE)}`;
    expect(decide(p, bash(long)).level).toBe('ask');
    expect(decide(p, bash(`${long}; rm victim`)).level).toBe('deny');
    const t = performance.now();
    expect(decide(p, bash('$('.repeat(MAX_PARSED_LINE / 4) + ')'.repeat(MAX_PARSED_LINE / 4))).level).toBe('ask');
    expect(performance.now() - t).toBeLessThan(2000);
  });

  it('without the parser loaded, glob allow rules cover no command line; deny rules still match the whole line and its text parts', async () => {
    vi.resetModules();
    const fresh = await import('../src/tools/permissions.js');
    const p: PermissionPolicy = { allow: [parseRule('bash(ls *)', 't')], ask: [], deny: [parseRule('bash(rm *)', 't')] };
    expect(fresh.decide(p, bash('ls -la')).level).toBe('ask');
    expect(fresh.decide(p, bash('ls; rm victim')).level).toBe('deny');
    expect(fresh.decide({ ...p, allow: [parseRule('bash(ls -la)', 't')] }, bash('ls -la')).level).toBe('allow');
  });
});

describe('the gate resolves redirection targets as write_file would', () => {
  const tool: ToolDefinition = { name: 'bash', description: '', parameters: {} as never, risk: 'execute', execute: async () => ({ content: [] }) } as never;
  const check = (cwd: string, command: string, approvals: string[] = [], p = policy(ISSUE)) =>
    permissionGate({ policy: p, approveAll: false, approvals: () => approvals.map((r) => parseRule(r, 'flag --approve')), readOnly: false, grant: () => {} })({ type: 'toolCall', id: 'c', name: 'bash', arguments: { command } }, tool, {
      cwd,
      signal: new AbortController().signal,
    });

  it('the parser is loaded only when a rule needs it: a bash call under no rule with a pattern never loads it', async () => {
    vi.resetModules();
    const gate = await import('../src/app/permission-gate.js');
    const parse = await import('../src/tools/shell-parse.js');
    const run = (p: PermissionPolicy) =>
      gate.permissionGate({ policy: p, approveAll: true, approvals: () => [], readOnly: false, grant: () => {} })({ type: 'toolCall', id: 'c', name: 'bash', arguments: { command: 'ls -la' } }, tool, {
        cwd: tempDir(),
        signal: new AbortController().signal,
      });
    expect(await run(policy({ allow: ['read_file'], deny: ['write_note'] }))).toMatchObject({ allow: true });
    expect(parse.shellParserLoaded()).toBe(false);
    expect(await run(policy({ allow: ['bash(ls *)'] }))).toMatchObject({ allow: true, rule: 'bash(ls *)' });
    expect(parse.shellParserLoaded()).toBe(true);
  });

  it('a symlink out of the workspace is outside; a glob approval does not approve a write outside, the exact line does', async () => {
    const root = tempDir();
    const cwd = join(root, 'ws');
    mkdirSync(cwd);
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync(join(root, 'elsewhere'), join(cwd, 'link'));
    expect(await check(cwd, 'ls -la > notes.txt')).toMatchObject({ allow: true });
    expect(await check(cwd, 'ls -la > link/x.txt')).toMatchObject({ allow: false, reason: expect.stringMatching(/redirection to .*link\/x\.txt is a write.*outside the workspace/) });
    expect(await check(cwd, `ls -la > ${root}/x`, ['bash(ls *)'])).toMatchObject({ allow: false });
    expect(await check(cwd, `ls -la > ${root}/x`, [`bash(ls -la > ${root}/x)`])).toMatchObject({ allow: true });
    expect(await check(cwd, 'cat a > b', ['bash(cat *)'])).toMatchObject({ allow: true });
    expect(callFacts({ type: 'toolCall', id: 'c', name: 'bash', arguments: { command: 'ls' } }, tool, { cwd }).command).toBe('ls');
  });
});

describe('through the CLI, with the issue user config', () => {
  it('no attack runs: the victim stays, nothing is created, nothing outside is truncated; allowed lines run', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const outside = tempDir('mini-agent-outside-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ permissions: { ...ISSUE, deny: [...ISSUE.deny, 'write_file(important.txt)'] } }));
    writeFileSync(join(cwd, 'victim'), 'keep');
    writeFileSync(join(cwd, 'important.txt'), 'keep');
    writeFileSync(join(outside, 'important.txt'), 'keep');
    const lines = [
      ...ATTACKS.slice(0, 5),
      'ls; command rm victim',
      "ls; r''m victim",
      'ls\tvictim; rm\tvictim',
      'ls -la > important.txt',
      'ls -la 2> important.txt',
      `git status > ${outside}/important.txt`,
      'ls -la && ls victim > listing.txt',
    ];
    const scripts = tempDir('mini-agent-scripts-');
    const script = writeScript(scripts, [{ toolCalls: lines.map((command, i) => ({ id: `c${i}`, name: 'bash', arguments: { command } })) }, { text: 'done' }]);
    const r = await cliInProcess(['--json', '--no-session', '--script', script, 'go'], { cwd, home, timeoutMs: 30_000 });
    const events = parseJsonl(r.stdout);
    const decision = (id: string) => events.find((e): e is Extract<AgentEvent, { type: 'permission_decision' }> => e.type === 'permission_decision' && e.toolCallId === id);
    for (let i = 0; i < lines.length - 1; i++) expect(decision(`c${i}`), lines[i]).toMatchObject({ decision: 'deny' });
    expect(decision(`c${lines.length - 1}`)).toMatchObject({ decision: 'allow', rule: 'bash(ls *)' });
    expect(readFileSync(join(cwd, 'victim'), 'utf8')).toBe('keep');
    expect(readFileSync(join(cwd, 'important.txt'), 'utf8')).toBe('keep');
    expect(readFileSync(join(outside, 'important.txt'), 'utf8')).toBe('keep');
    expect(existsSync(join(cwd, 'pwned'))).toBe(false);
    expect(readFileSync(join(cwd, 'listing.txt'), 'utf8')).toBe('victim\n');
  });
});

describe('property: what the policy allows, bash runs only as allowed (stub PATH oracle)', () => {
  beforeAll(loadShellParser);
  // Rules for wrappers too: `env`, `command` and `xargs` run their arguments, so they must ask whatever the rules say.
  const RULES = ['bash(ls *)', 'bash(ls)', 'bash(git status*)', 'bash(cat *)', 'bash(env *)', 'bash(command *)', 'bash(xargs *)'].map((r) => parseRule(r, 'test'));
  const STUBS = ['ls', 'git', 'cat', 'rm', 'touch', 'env', 'xargs', 'bash', 'sh', 'find', 'tee', 'curl', 'sudo', 'nohup'];

  it('every argv a stub records is covered by an allow rule, and no file appears outside the workspace', () => {
    const root = tempDir();
    const cwd = join(root, 'ws');
    const bin = join(root, 'bin');
    mkdirSync(cwd);
    mkdirSync(bin);
    const log = join(root, 'argv.log');
    for (const s of STUBS) {
      // Each stub records its argv; env and xargs then run what they were given, as the real ones do.
      const run = s === 'env' ? 'while [[ $# -gt 0 && ( $1 == -* || $1 == *=* ) ]]; do shift; done; [[ $# -gt 0 ]] && exec "$@"\n' : s === 'xargs' ? '[[ $# -gt 0 ]] && exec "$@" arg\n' : '';
      writeFileSync(join(bin, s), `#!/bin/bash\n{ printf '%s\\0' "\${0##*/}" "$@"; printf '\\1'; } >> "$ARGV_LOG"\n${run}`);
      chmodSync(join(bin, s), 0o755);
    }
    const weighted = (plain: string[], tricky: string[]) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...plain) }, { weight: 1, arbitrary: fc.constantFrom(...tricky) });
    const word = weighted(
      ['-la', 'x', 'victim', "'a b'", '"c d"', '\\;', 'a=b', '*', '!', '~', "'$(rm z)'", '"#"'],
      ["$'\\''", "$'x'", '$"y"', '$(rm z)', '`touch q`', '"$(rm z)"', '$X', "r''m", '\\rm', "'", '"', '#', "# '", '{a,b}', '<(rm z)'],
    );
    const cmd = weighted(['ls', 'git status', 'cat'], ['git push', 'rm', 'touch', 'env rm', 'command rm', 'xargs rm', 'bash -c', 'eval', 'exec rm', 'X=1 rm', '/bin/rm', 'echo', 'find . -exec rm {} \\;']);
    const op = fc.constantFrom(' ; ', ' && ', ' || ', ' | ', ' & ', '\n', ';', '|');
    const redirect = fc.constantFrom('', '', '', '', ' > out.txt', ' 2>&1', ' >/dev/null', ' > ../escaped.txt', ` > ${root}/escaped.txt`, ' >> out.txt', ' &> out.txt', ' <<EOF\nrm z\nEOF\n', ' # tail');
    const sep = fc.constantFrom(' ', ' ', '\t', '', ' \\\n');
    const simple = fc.tuple(cmd, fc.array(fc.tuple(sep, word), { maxLength: 3 }), redirect).map(([c, ws, r]) => c + ws.map(([s, w]) => s + w).join('') + r);
    const compound = fc.constantFrom('(ls)', '{ ls; }', 'if ls; then rm z; fi', 'for i in a; do rm $i; done', 'case a in a) rm z;; esac', 'f() { rm z; }; f', 'ls $(rm z)');
    const line = fc
      .tuple(fc.oneof({ weight: 4, arbitrary: simple }, { weight: 1, arbitrary: compound }), fc.array(fc.tuple(op, fc.oneof({ weight: 4, arbitrary: simple }, { weight: 1, arbitrary: compound })), { maxLength: 3 }))
      .map(([h, t]) => h + t.map(([o, s]) => o + s).join(''));
    let ran = 0;
    fc.assert(
      fc.property(line, (text) => {
        if (decide({ allow: RULES, ask: [], deny: [] }, bash(text)).level !== 'allow') return;
        ran++;
        writeFileSync(log, '');
        try {
          execFileSync('/bin/bash', ['-c', text], { cwd, env: { PATH: bin, ARGV_LOG: log, HOME: cwd }, stdio: 'ignore', timeout: 5000 });
        } catch {
          // a failing command is fine; what ran is in the log
        }
        const records = readFileSync(log, 'latin1')
          .split('\x01')
          .filter((r) => r !== '');
        for (const rec of records) {
          const args = rec.split('\0').slice(0, -1);
          // An argument that is empty or starts or ends with whitespace is quoted: joined bare, `cat " "`
          // would read as `cat` alone (the matcher trims a command), which `cat *` does not cover.
          const argv = args.map((a) => (a === '' || /^\s|\s$/.test(a) ? `'${a}'` : a)).join(' ');
          // Joined bare too: a rule matches the words as written, so `git status' ; ls # '` is `git status*`
          // (git with the one argument "status ; ls # "), which the quoted spelling above does not show.
          const bare = args.join(' ');
          expect(
            RULES.some((r) => commandMatcher(r.pattern!)(argv) || commandMatcher(r.pattern!)(bare)),
            `${JSON.stringify(text)} ran ${JSON.stringify(argv)}`,
          ).toBe(true);
        }
        expect(readdirSync(root).sort(), text).toEqual(['argv.log', 'bin', 'ws']);
      }),
      { numRuns: 300, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) },
    );
    expect(ran).toBeGreaterThan(20);
  }, 30_000);
});
