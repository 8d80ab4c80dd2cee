// Skills (issue 12, §2): discovery in the workspace and the user's home (the workspace wins),
// front matter rules warned about by file with the rest loading, a name that differs from its
// folder, the system-prompt section, `/skill:name args`, the inline message, and which skills the
// conversation already holds.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AssistantMessage, Message, ToolCall } from '../src/core/types.js';
import { checkSkillFields, findSkillCall, loadSkills, skillMessage, skillsInConversation, skillsSection, type Skill } from '../src/extensions/skills.js';
import { tempDir } from './support/helpers.js';

function skill(root: string, folder: string, text: string): string {
  mkdirSync(join(root, folder), { recursive: true });
  const file = join(root, folder, 'SKILL.md');
  writeFileSync(file, text);
  return file;
}

const md = (name: string, description: string, body = `Do ${name}.\n`) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

function setup() {
  const cwd = tempDir();
  const home = tempDir('mini-agent-home-');
  return { cwd, home, ws: join(cwd, '.mini-agent', 'skills'), user: join(home, 'skills') };
}

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
const readCall = (id: string, path: unknown): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'toolCall', id, name: 'read_file', arguments: { path } } as ToolCall],
  stopReason: 'toolUse',
  usage,
});
const result = (id: string, isError: boolean): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read_file', content: [{ type: 'text', text: 'x' }], isError });
const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

describe('discovery', () => {
  it('both places, sorted by name; the workspace skill hides the user one of the same name without a warning', async () => {
    const { cwd, home, ws, user: us } = setup();
    const deploy = skill(ws, 'deploy', md('deploy', 'Deploy the app to staging', '\nRun ./deploy.sh.\n'));
    skill(us, 'deploy', md('deploy', 'the user one, hidden'));
    const review = skill(us, 'review', md('review', '"Review: a change, carefully"'));
    writeFileSync(join(ws, 'README.md'), 'not a skill');
    mkdirSync(join(ws, 'shared-scripts'));
    const { skills, warnings } = await loadSkills({ cwd, home });
    expect(warnings).toEqual([]);
    expect(skills).toEqual([
      { name: 'deploy', description: 'Deploy the app to staging', file: deploy, dir: join(ws, 'deploy'), source: 'workspace', body: '\nRun ./deploy.sh.\n' },
      { name: 'review', description: 'Review: a change, carefully', file: review, dir: join(us, 'review'), source: 'user', body: 'Do review.\n' },
    ]);
  });

  it('no folders: nothing and no warnings; a symlinked skill folder loads', async () => {
    const { cwd, home, ws } = setup();
    expect(await loadSkills({ cwd, home })).toEqual({ skills: [], warnings: [] });
    const elsewhere = tempDir();
    skill(elsewhere, 'lint', md('lint', 'Lint the code'));
    mkdirSync(ws, { recursive: true });
    symlinkSync(join(elsewhere, 'lint'), join(ws, 'lint'));
    expect((await loadSkills({ cwd, home })).skills.map((s) => [s.name, s.file])).toEqual([['lint', join(ws, 'lint', 'SKILL.md')]]);
  });

  it('bad front matter is a warning naming the file and the problem; the rest still load', async () => {
    const { cwd, home, ws, user: us } = setup();
    const bad = {
      yaml: skill(ws, 'yaml', '---\nname: yaml\ndescription: [unclosed\n---\nbody\n'),
      nodesc: skill(ws, 'nodesc', '---\nname: nodesc\n---\nbody\n'),
      badname: skill(us, 'badname', md('Bad_Name', 'upper case and underscore')),
      none: skill(us, 'none', 'Just text, no front matter.\n'),
      long: skill(us, 'long', md('long', 'x'.repeat(1025))),
      listname: skill(us, 'listname', '---\nname: [a, b]\ndescription: d\n---\n'),
    };
    skill(ws, 'good', md('good', 'A good one'));
    skill(us, 'also-good', md('also-good', 'Another'));
    const { skills, warnings } = await loadSkills({ cwd, home });
    expect(skills.map((s) => s.name)).toEqual(['also-good', 'good']);
    expect(warnings).toHaveLength(6);
    const about = (file: string) => warnings.find((w) => w.startsWith(`skill ${file} was skipped: `));
    expect(about(bad.yaml)).toMatch(/not valid YAML/);
    expect(about(bad.nodesc)).toMatch(/no description/);
    expect(about(bad.badname)).toMatch(/name "Bad_Name" must be lowercase letters, digits and single hyphens/);
    expect(about(bad.none)).toMatch(/no front matter/);
    expect(about(bad.long)).toMatch(/description is 1025 characters long; at most 1024/);
    expect(about(bad.listname)).toMatch(/name must be a string/);
  });

  it('a name that differs from its folder: a warning, loaded under the name; a second skill of that name in the same place is skipped', async () => {
    const { cwd, home, ws } = setup();
    const file = skill(ws, 'old-folder', md('new-name', 'Renamed'));
    const dup = skill(ws, 'zz-copy', md('new-name', 'A copy'));
    const { skills, warnings } = await loadSkills({ cwd, home });
    expect(skills.map((s) => [s.name, s.file])).toEqual([['new-name', file]]);
    expect(warnings).toContain(`skill ${file}: its name "new-name" differs from its folder "old-folder"; it is loaded as "new-name"`);
    expect(warnings).toContain(`skill ${dup} was skipped: ${file} already has the name "new-name"`);
  });

  it('the name rules (Agent Skills): lowercase, digits, single inner hyphens, at most 64 characters', () => {
    const ok = (name: unknown) => checkSkillFields({ name, description: 'd' }) === undefined;
    expect(['a', 'pdf-2', 'x'.repeat(64), 'a1-b2-c3'].every(ok)).toBe(true);
    expect(['', 'A', '-a', 'a-', 'a--b', 'a_b', 'a b', 'x'.repeat(65), 'é', 3].some(ok)).toBe(false);
    expect(checkSkillFields({ name: 'a', description: '  ' })).toMatch(/non-empty/);
    fc.assert(
      fc.property(fc.string({ maxLength: 70 }), (name) => {
        expect(ok(name)).toBe(/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) && name.length <= 64);
      }),
    );
  });

  it('200 skills load, all of them, in name order', async () => {
    const { cwd, home, ws, user: us } = setup();
    const names = Array.from({ length: 200 }, (_, i) => `skill-${String(i).padStart(3, '0')}`);
    names.forEach((n, i) => skill(i % 2 ? ws : us, n, md(n, `Does task ${i}`, `Step one.\n`.repeat(20))));
    const { skills, warnings } = await loadSkills({ cwd, home });
    expect(warnings).toEqual([]);
    expect(skills.map((s) => s.name)).toEqual(names);
    expect(skills.filter((s) => s.source === 'workspace')).toHaveLength(100);
    expect(skills[7]).toMatchObject({ description: 'Does task 7', source: 'workspace', body: 'Step one.\n'.repeat(20) });
  });
});

describe('the system-prompt section', () => {
  it('what skills are, how to use them, one line per skill (workspace paths relative, the user one absolute), already loaded ones marked', async () => {
    const { cwd, home, ws, user: us } = setup();
    skill(ws, 'deploy', md('deploy', 'Deploy\n  to staging'));
    const review = skill(us, 'review', md('review', 'Review a change'));
    const { skills } = await loadSkills({ cwd, home });
    expect(skillsSection([], { cwd, inConversation: new Set() })).toBe('');
    const section = skillsSection(skills, { cwd, inConversation: new Set(['review']) });
    expect(section).toMatch(/^# Skills\n\n/);
    expect(section).toContain('read the file with read_file before you follow one');
    expect(section.split('\n').filter((l) => l.startsWith('- '))).toEqual([
      '- deploy: Deploy to staging (path: .mini-agent/skills/deploy/SKILL.md)',
      `- review: Review a change (path: ${review}; already loaded: its instructions are already in the conversation; do not read it again)`,
    ]);
  });
});

describe('invoking a skill', () => {
  const s: Skill = { name: 'deploy', description: 'Deploy', file: '/w/.mini-agent/skills/deploy/SKILL.md', dir: '/w/.mini-agent/skills/deploy', source: 'workspace', body: '\n# Deploy\n\nRun ./deploy.sh.\n\n' };

  it('/skill:name args', () => {
    expect(findSkillCall('/skill:deploy to prod  ', [s])).toEqual({ skill: s, args: 'to prod' });
    expect(findSkillCall('  /skill:deploy', [s])).toEqual({ skill: s, args: '' });
    expect(findSkillCall('/skill:deploy\nline two', [s])?.args).toBe('line two');
    expect(findSkillCall('/skill:unknown x', [s])).toBeUndefined();
    expect(findSkillCall('/deploy x', [s])).toBeUndefined();
    expect(findSkillCall('please /skill:deploy', [s])).toBeUndefined();
  });

  it('the inline message: the body wrapped with its name and path, the instruction to follow it, then the arguments', () => {
    expect(skillMessage(s, ' to prod ')).toBe(
      '<skill name="deploy" path="/w/.mini-agent/skills/deploy/SKILL.md">\n# Deploy\n\nRun ./deploy.sh.\n</skill>\n\n' + 'Follow the skill above (its file is already here; do not read it again).\n\nto prod',
    );
    expect(skillMessage(s, '')).toMatch(/do not read it again\)\.$/);
    expect(skillMessage({ ...s, file: '/w/"odd"/SKILL.md' }, '')).toContain('path="/w/&quot;odd&quot;/SKILL.md"');
  });
});

describe('skills already in the conversation', () => {
  it('inlined in a user message, or read with read_file (relative or absolute, not when the read failed)', async () => {
    const { cwd, home, ws, user: us } = setup();
    skill(ws, 'deploy', md('deploy', 'Deploy'));
    skill(ws, 'lint', md('lint', 'Lint'));
    skill(ws, 'test', md('test', 'Test'));
    const review = skill(us, 'review', md('review', 'Review'));
    const { skills } = await loadSkills({ cwd, home });
    const byName = (n: string) => skills.find((k) => k.name === n)!;
    expect(skillsInConversation([], skills, cwd)).toEqual(new Set());
    const messages: Message[] = [
      user(skillMessage(byName('deploy'), 'now')),
      readCall('c1', '.mini-agent/skills/lint/SKILL.md'),
      result('c1', false),
      readCall('c2', review),
      readCall('c3', '.mini-agent/skills/test/SKILL.md'),
      result('c3', true),
      readCall('c4', 42),
      user('I pasted <skill name="test" path="x"> but not the wrapper'),
    ];
    expect([...skillsInConversation(messages, skills, cwd)].sort()).toEqual(['deploy', 'lint', 'review']);
    // Read through another spelling of the same file.
    expect(skillsInConversation([readCall('c5', './.mini-agent/skills/../skills/test/SKILL.md')], skills, cwd)).toEqual(new Set(['test']));
    // Another tool, or another file of the skill's folder, does not count.
    const other: AssistantMessage = { ...readCall('c6', '.mini-agent/skills/test/SKILL.md'), content: [{ type: 'toolCall', id: 'c6', name: 'grep', arguments: { path: '.mini-agent/skills/test/SKILL.md' } }] };
    expect(skillsInConversation([other, readCall('c7', '.mini-agent/skills/test/notes.md')], skills, cwd)).toEqual(new Set());
  });
});
