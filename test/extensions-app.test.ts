// Context files and skills through the public interfaces (issue 12 §1, §2): the SDK with the
// scripted model (what each request's system prompt carries), and the CLI (--no-context-files,
// --show-config, --skill). The loaders themselves are tested in context-files.test.ts and skills.test.ts.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import type { Message } from '../src/core/types.js';
import { ScriptedModel } from '../src/model/scripted.js';
import { summaryTurn } from './support/compaction.js';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir, writeScript } from './support/helpers.js';

function workspace() {
  const root = tempDir();
  const cwd = join(root, 'repo');
  const home = join(root, 'home');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { root, cwd, home };
}

function skill(dir: string, name: string, description: string, body: string) {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);
}

const toolResults = (messages: readonly Message[]) => messages.flatMap((m) => (m.role === 'toolResult' ? [m.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n')] : []));

describe('context files through the SDK', () => {
  it('home first, then root → workspace, CLAUDE.md where there is no AGENTS.md; re-read at each run', async () => {
    const { root, cwd, home } = workspace();
    writeFileSync(join(home, 'AGENTS.md'), 'USER RULE: answer in English.\n');
    writeFileSync(join(root, 'CLAUDE.md'), 'PARENT RULE from CLAUDE.md.\n');
    writeFileSync(join(cwd, 'AGENTS.md'), 'REPO RULE one.\n');
    writeFileSync(join(cwd, 'CLAUDE.md'), 'IGNORED: AGENTS.md exists here.\n');
    const model = new ScriptedModel({ turns: [{ text: 'one' }, { text: 'two' }] });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model });
    await agent.prompt('first');
    writeFileSync(join(cwd, 'AGENTS.md'), 'REPO RULE two.\n');
    await agent.prompt('second');
    const [a, b] = model.requests.map((r) => r.systemPrompt);
    expect(a.indexOf('USER RULE')).toBeLessThan(a.indexOf('PARENT RULE'));
    expect(a.indexOf('PARENT RULE')).toBeLessThan(a.indexOf('REPO RULE one'));
    expect(a).not.toContain('IGNORED');
    expect(b).toContain('REPO RULE two');
    expect(b).not.toContain('REPO RULE one');
    // Never part of the projection: the messages hold none of it.
    expect(JSON.stringify(agent.messages())).not.toContain('REPO RULE');
    const rows = agent.showConfig().filter((r) => r.key.startsWith('context file'));
    expect(rows.slice(0, 3).map((r) => r.value)).toEqual([join(home, 'AGENTS.md'), join(root, 'CLAUDE.md'), join(cwd, 'AGENTS.md')]);
    expect(rows.at(-1)).toMatchObject({ key: 'context files total', value: expect.stringMatching(/^\d+ of 65536 bytes$/) });
    expect(rows[2].source).toMatch(/^15 bytes, ~\d+ tokens$/);
    await agent.close();
  });

  it('contextFiles: false leaves them out; the cap is honest about what it cut', async () => {
    const { cwd, home } = workspace();
    writeFileSync(join(cwd, 'AGENTS.md'), 'RULE\n'.repeat(1000));
    const off = new ScriptedModel({ turns: [{ text: 'ok' }] });
    const a = await createAgent({ cwd, home, env: {}, modelAdapter: off, contextFiles: false });
    await a.prompt('x');
    expect(off.requests[0].systemPrompt).not.toContain('RULE');
    await a.close();
    writeFileSync(join(cwd, '.mini-agent-config.json'), '');
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ contextFiles: { maxBytes: 2048 } }));
    const capped = new ScriptedModel({ turns: [{ text: 'ok' }] });
    const b = await createAgent({ cwd, home, env: {}, modelAdapter: capped });
    const warnings: string[] = [];
    b.subscribe((e) => void (e.type === 'warning' && warnings.push(e.message)));
    await b.prompt('x');
    const prompt = capped.requests[0].systemPrompt;
    expect(prompt).toContain('RULE');
    expect(prompt.split('RULE').length - 1).toBeLessThan(420);
    expect(warnings.join('\n')).toContain(join(cwd, 'AGENTS.md'));
    expect(b.showConfig().find((r) => r.key === 'context file (workspace)')?.source).toMatch(/5000 bytes, .*cut/);
    await b.close();
  });

  it('survive compaction: the request after a compaction still carries them', async () => {
    const { cwd, home } = workspace();
    writeFileSync(join(cwd, 'AGENTS.md'), 'KEEP THIS RULE.\n');
    const big = (label: string) => `${label} ${'lorem ipsum dolor sit amet '.repeat(120)}`;
    const model = new ScriptedModel({ turns: [...[...'abcdef'].map((x) => ({ text: big(x) })), summaryTurn('SUMMARY of the work'), { text: 'after' }] });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model, contextWindow: 16384 });
    for (const m of ['one', 'two', 'three', 'four', 'five', 'six']) await agent.prompt(big(m));
    const compacted = await agent.compact();
    expect(compacted.ok).toBe(true);
    await agent.prompt('three');
    const last = model.requests.at(-1)!;
    expect(JSON.stringify(last.messages)).toContain('SUMMARY');
    expect(last.systemPrompt).toContain('KEEP THIS RULE.');
    await agent.close();
  });

  it('a nested AGENTS.md comes with the first tool result under its folder, once per run', async () => {
    const { cwd, home } = workspace();
    mkdirSync(join(cwd, 'packages', 'api', 'src'), { recursive: true });
    writeFileSync(join(cwd, 'packages', 'api', 'AGENTS.md'), 'API RULE: never touch the schema.\n');
    writeFileSync(join(cwd, 'packages', 'api', 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(cwd, 'packages', 'api', 'src', 'b.ts'), 'export const b = 2;\n');
    writeFileSync(join(cwd, 'top.txt'), 'top\n');
    const read = (id: string, path: string) => ({ id, name: 'read_file', arguments: { path } });
    const model = new ScriptedModel({
      turns: [
        { toolCalls: [read('t1', 'top.txt')] },
        { toolCalls: [read('t2', 'packages/api/src/a.ts')] },
        { toolCalls: [read('t3', 'packages/api/src/b.ts')] },
        { text: 'done' },
        { toolCalls: [read('t4', 'packages/api/src/b.ts')] },
        { text: 'done again' },
      ],
    });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model });
    await agent.prompt('read them');
    const results = toolResults(agent.messages());
    expect(results[0]).not.toContain('API RULE');
    expect(results[1]).toContain('export const a');
    expect(results[1]).toContain('API RULE: never touch the schema.');
    expect(results[1]).toContain('packages/api/AGENTS.md');
    expect(results[2]).not.toContain('API RULE');
    await agent.prompt('again');
    expect(toolResults(agent.messages())[3]).toContain('API RULE');
    // Not up front: the system prompt does not carry it.
    expect(model.requests[0].systemPrompt).not.toContain('API RULE');
    await agent.close();
  });
});

describe('context files through the CLI', () => {
  it('--show-config lists each file with its path and size; --no-context-files turns them off', async () => {
    const { cwd, home } = workspace();
    writeFileSync(join(cwd, 'AGENTS.md'), 'Use tabs.\n');
    const shown = await cliInProcess(['--show-config'], { cwd, home });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`context file \\(workspace\\)\\s+${join(cwd, 'AGENTS.md').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+\\(10 bytes, ~\\d+ tokens\\)`));
    const off = await cliInProcess(['--show-config', '--no-context-files'], { cwd, home });
    expect(off.stdout).toMatch(/context files\s+\(off\)/);
    const script = writeScript(cwd, [{ text: 'ok' }]);
    const trace = join(cwd, 'trace.jsonl');
    const run = await cliInProcess(['--script', script, '--no-context-files', '--trace', trace, 'hi'], { cwd, home });
    expect(run.code).toBe(0);
  });
});

describe('skills', () => {
  it('names and descriptions in the system prompt; /skill:name inlines one and marks it read; user skills are readable', async () => {
    const { cwd, home } = workspace();
    skill(join(cwd, '.mini-agent', 'skills'), 'release', 'Cut a release of this repo', 'RELEASE STEPS: bump, tag, push.');
    skill(join(home, 'skills'), 'haiku', 'Answer in a haiku', 'HAIKU STEPS: five, seven, five.');
    mkdirSync(join(home, 'skills', 'broken'));
    writeFileSync(join(home, 'skills', 'broken', 'SKILL.md'), '---\nname: broken\n---\nno description\n');
    const model = new ScriptedModel({
      turns: [{ toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: join(home, 'skills', 'haiku', 'SKILL.md') } }] }, { text: 'read it' }, { text: 'released' }, { text: 'x' }],
    });
    const agent = await createAgent({ cwd, home, env: {}, modelAdapter: model });
    expect(agent.skills.map((s) => s.name)).toEqual(['haiku', 'release']);
    expect(agent.warnings.join('\n')).toContain(join(home, 'skills', 'broken', 'SKILL.md'));
    await agent.prompt('write a haiku');
    const first = model.requests[0].systemPrompt;
    expect(first).toContain('- release: Cut a release of this repo (path: .mini-agent/skills/release/SKILL.md)');
    expect(first).toContain(`- haiku: Answer in a haiku (path: ${join(home, 'skills', 'haiku', 'SKILL.md')})`);
    expect(first).not.toContain('RELEASE STEPS');
    // The user's skill, outside the workspace, was readable with read_file.
    expect(toolResults(agent.messages())[0]).toContain('HAIKU STEPS');
    const inline = agent.expandSkill('/skill:release v2.0')!;
    expect(inline.name).toBe('release');
    expect(inline.text).toContain('RELEASE STEPS');
    expect(inline.text.trimEnd().endsWith('v2.0')).toBe(true);
    expect(agent.expandSkill('/skill:nope')).toBeUndefined();
    await agent.prompt(inline.text);
    const third = model.requests[2].systemPrompt;
    expect(third).toMatch(/- release: .*already loaded/);
    expect(third).toMatch(/- haiku: .*already loaded/);
    expect(() => agent.skillPrompt('nope', 'x')).toThrow(/no skill named "nope" \(skills: haiku, release\)/);
    await agent.close();
  });

  it('print mode: --skill NAME inlines it before the prompt; an unknown name is a usage error', async () => {
    const { cwd, home } = workspace();
    skill(join(cwd, '.mini-agent', 'skills'), 'release', 'Cut a release', 'RELEASE STEPS.');
    const ok = await cliInProcess(['--script', writeScript(cwd, [{ text: 'done' }]), '--skill', 'release', 'version 3'], { cwd, home });
    expect(ok.code).toBe(0);
    const file = readdirSync(join(home, 'sessions'), { recursive: true })
      .map(String)
      .find((f) => f.endsWith('.jsonl'))!;
    const user = readFileSync(join(home, 'sessions', file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((e) => e.type === 'message' && e.message.role === 'user');
    expect(user.message.content[0].text).toMatch(/^<skill name="release"[\s\S]*RELEASE STEPS\.[\s\S]*version 3$/);
    const bad = await cliInProcess(['--script', writeScript(cwd, [{ text: 'done' }]), '--skill', 'nope', 'x'], { cwd, home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no skill named "nope" (skills: release)');
  });
});
