// Issue 21 §5: an AGENTS.md (or CLAUDE.md) from a folder above the workspace speaks for the user
// only when the file and its folder are owned by the user or root and writable by no one else
// (git's safe.directory, ssh's StrictModes). Otherwise it is left out of the system prompt and a
// warning, given once per agent, names it and why. The workspace's own file and the user's
// (MINI_AGENT_HOME) load as before. Through the SDK (what the model's system prompt carries) and
// the CLI (the warning on stderr, --show-config). Rows that need another owner chown to uid/gid
// 65534 (nobody), which needs root: CI runs as root; elsewhere those rows are skipped and say why.
import { chmodSync, chownSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import { ScriptedModel } from '../src/model/scripted.js';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir, writeScript } from './support/helpers.js';

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const NEEDS_ROOT = 'needs root to chown to uid 65534 (CI runs as root)';

/** root (a 0700 temp dir of ours) / above / repo (the workspace), and a home; above/AGENTS.md holds MARK. */
function layout() {
  const root = tempDir();
  const above = join(root, 'above');
  const cwd = join(above, 'repo');
  const home = join(root, 'home');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home);
  chmodSync(above, 0o755);
  chmodSync(cwd, 0o755);
  const file = join(above, 'AGENTS.md');
  writeFileSync(file, 'ABOVE RULE: run the tests with make check.\n');
  chmodSync(file, 0o644);
  return { root, above, cwd, home, file };
}

type Layout = ReturnType<typeof layout>;

interface Row {
  name: string;
  setup: (l: Layout) => string | void;
  loaded: boolean;
  /** What the warning says of why (a regexp over the line). */
  why?: RegExp;
  root?: boolean;
}

const rows: Row[] = [
  { name: 'yours, in a 0755 folder of yours', setup: () => {}, loaded: true },
  { name: 'in a world-writable folder (0777)', setup: (l) => chmodSync(l.above, 0o777), loaded: false, why: /its folder \S+above is writable by every user \(mode 0777\)/ },
  { name: 'in a sticky world-writable folder like /tmp (1777)', setup: (l) => chmodSync(l.above, 0o1777), loaded: false, why: /writable by every user \(mode 1777\)/ },
  { name: 'world-writable itself (0666)', setup: (l) => chmodSync(l.file, 0o666), loaded: false, why: /the file is writable by every user \(mode 0666\)/ },
  { name: 'owned by another user (uid 65534)', setup: (l) => chownSync(l.file, NOBODY, NOBODY), loaded: false, why: /the file is owned by uid 65534, not by you \(uid 0\) or root/, root: true },
  { name: 'yours, in a folder owned by another user', setup: (l) => chownSync(l.above, NOBODY, NOBODY), loaded: false, why: /its folder \S+above is owned by uid 65534/, root: true },
  {
    name: 'in a folder group-writable by another group (gid 65534, 0775)',
    setup: (l) => {
      chownSync(l.above, 0, NOBODY);
      chmodSync(l.above, 0o775);
    },
    loaded: false,
    why: /its folder \S+above is writable by its group \(gid 65534, mode 0775\), which is not your own group/,
    root: true,
  },
  {
    name: 'in a folder group-writable by your own group (0775, a user private group)',
    setup: (l) => {
      chownSync(l.above, process.getuid!(), process.getgid!());
      chmodSync(l.above, 0o775);
    },
    loaded: true,
  },
  {
    name: 'a symlink in a safe folder to a file in a world-writable one',
    setup: (l) => {
      const open = join(l.root, 'open');
      mkdirSync(open);
      chmodSync(open, 0o777);
      writeFileSync(join(open, 'AGENTS.md'), 'ABOVE RULE: run the tests with make check.\n');
      chmodSync(join(open, 'AGENTS.md'), 0o644);
      return join(open, 'AGENTS.md');
    },
    loaded: false,
    why: /its folder \S+open is writable by every user/,
  },
];

describe('context files above the workspace: owned by you or root, writable by no one else', () => {
  for (const row of rows) {
    it(`${row.loaded ? 'loaded' : 'not loaded, and named'}: ${row.name}`, async (ctx) => {
      if (row.root && !isRoot) return ctx.skip(NEEDS_ROOT);
      const l = layout();
      const target = row.setup(l);
      if (typeof target === 'string') {
        rmSync(l.file);
        symlinkSync(target, l.file);
      }
      writeFileSync(join(l.cwd, 'AGENTS.md'), 'REPO RULE: tabs.\n');
      writeFileSync(join(l.home, 'AGENTS.md'), 'USER RULE: English.\n');
      const model = new ScriptedModel({ turns: [{ text: 'one' }, { text: 'two' }] });
      const agent = await createAgent({ cwd: l.cwd, home: l.home, env: {}, modelAdapter: model });
      const warnings: string[] = [];
      agent.subscribe((e) => void (e.type === 'warning' && warnings.push(e.message)));
      await agent.prompt('first');
      await agent.prompt('second');
      const [first, second] = model.requests.map((r) => r.systemPrompt);
      // The workspace's and the user's own files load whatever happens above.
      expect(first).toContain('REPO RULE: tabs.');
      expect(first).toContain('USER RULE: English.');
      const ours = warnings.filter((w) => w.includes(l.root));
      if (row.loaded) {
        expect(first).toContain('ABOVE RULE');
        expect(ours).toEqual([]);
      } else {
        expect(first).not.toContain('ABOVE RULE');
        expect(second).not.toContain('ABOVE RULE');
        // Named once per agent, with why, not at every run.
        expect(ours).toHaveLength(1);
        expect(ours[0]).toContain(`context file ${l.file} was not loaded: `);
        expect(ours[0]).toMatch(row.why!);
        expect(ours[0]).toMatch(/owned by you or root, in a folder only its owner can write \(like git's safe\.directory\)/);
        expect(agent.showConfig().map((r) => r.value)).not.toContain(l.file);
      }
      await agent.close();
    });
  }

  it('the workspace itself may be world-writable: its own AGENTS.md is the repository speaking, and loads', async () => {
    const l = layout();
    chmodSync(l.cwd, 0o777);
    writeFileSync(join(l.cwd, 'AGENTS.md'), 'REPO RULE: tabs.\n');
    const model = new ScriptedModel({ turns: [{ text: 'one' }] });
    const agent = await createAgent({ cwd: l.cwd, home: l.home, env: {}, modelAdapter: model });
    await agent.prompt('first');
    expect(model.requests[0].systemPrompt).toContain('REPO RULE: tabs.');
    expect(model.requests[0].systemPrompt).toContain('ABOVE RULE');
    await agent.close();
  });

  it('through the CLI: the run warns on stderr and the prompt leaves the file out; --show-config does not list it', async (ctx) => {
    const l = layout();
    chmodSync(l.above, 0o777);
    if (isRoot) {
      // The attack shape of the issue: a world-writable folder above, and in a folder of its own, a file of another user.
      mkdirSync(join(l.above, 'mid'));
      chmodSync(join(l.above, 'mid'), 0o755);
    }
    const cwd = isRoot ? join(l.above, 'mid', 'repo') : l.cwd;
    if (isRoot) {
      mkdirSync(cwd);
      writeFileSync(join(l.above, 'mid', 'CLAUDE.md'), 'MID RULE from another user.\n');
      chownSync(join(l.above, 'mid', 'CLAUDE.md'), NOBODY, NOBODY);
    } else ctx.annotate(`the other-user row is left out: ${NEEDS_ROOT}`);
    const script = writeScript(l.root, [{ text: 'ok' }]);
    const run = await cliInProcess(['--script', script, '--no-session', 'hi'], { cwd, home: l.home });
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n').filter((s) => s.includes('was not loaded'));
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^(mini-agent: )?warning: context file ${l.file}.*writable by every user \\(mode 0777\\)`))]));
    if (isRoot) expect(lines).toEqual(expect.arrayContaining([expect.stringContaining(`context file ${join(l.above, 'mid', 'CLAUDE.md')} was not loaded: the file is owned by uid 65534`)]));
    const shown = await cliInProcess(['--show-config'], { cwd, home: l.home });
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain(l.file);
    expect(shown.stdout).not.toContain('mid/CLAUDE.md');
  });
});
