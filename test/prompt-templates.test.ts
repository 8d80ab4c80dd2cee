// Prompt templates (issue 12, §3) and the front matter they share with skills: discovery in the
// workspace and the user's home (the workspace wins), descriptions, bad front matter warned about
// by file, and argument substitution ($1…$n, $@, $ARGUMENTS).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../src/extensions/front-matter.js';
import { expandTemplate, findTemplateCall, loadPromptTemplates, splitArguments } from '../src/extensions/prompt-templates.js';
import { createAgent } from '../src/app/agent.js';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir, writeScript } from './support/helpers.js';

describe('front matter', () => {
  it('fields and body; none at all; broken YAML, an unclosed block and a list are errors, not exceptions', async () => {
    expect(await parseFrontMatter('---\nname: review\ndescription: "Review: the diff"\n---\nBody $1\n')).toEqual({ data: { name: 'review', description: 'Review: the diff' }, body: 'Body $1\n' });
    expect(await parseFrontMatter('just text\n---\nnot front matter\n')).toEqual({ data: {}, body: 'just text\n---\nnot front matter\n' });
    expect(await parseFrontMatter('---\r\nname: x\r\n---\r\nbody')).toEqual({ data: { name: 'x' }, body: 'body' });
    expect((await parseFrontMatter('---\nname: [unclosed\n---\nbody')).error).toMatch(/not valid YAML/);
    expect((await parseFrontMatter('---\nname: x\nbody without end')).error).toMatch(/no closing ---/);
    expect((await parseFrontMatter('---\n- a\n- b\n---\nbody')).error).toMatch(/mapping/);
    expect(await parseFrontMatter('---\n---\nbody')).toEqual({ data: {}, body: 'body' });
  });
});

describe('arguments', () => {
  it('positional, quoted, missing, $@ and $ARGUMENTS', () => {
    expect(splitArguments(`  one "two words"  'three'' more' ""  `)).toEqual(['one', 'two words', 'three more', '']);
    const body = 'Fix $1 in $2 ($3). All: $@ | $ARGUMENTS | $ARGUMENTSX | $10';
    expect(expandTemplate(body, ' issue-7 "src/a b.ts" ')).toBe('Fix issue-7 in src/a b.ts (). All: issue-7 "src/a b.ts" | issue-7 "src/a b.ts" | $ARGUMENTSX | ');
  });

  it('property: arguments are inserted as given, never expanded again', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[^\s"']+$/), { maxLength: 6 }), (args) => {
        const out = expandTemplate('[$1][$2][$@]', args.join(' '));
        expect(out).toBe(`[${args[0] ?? ''}][${args[1] ?? ''}][${args.join(' ')}]`);
      }),
    );
  });

  it('a body without placeholders is kept as is', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('$')),
        fc.string(),
        (body, args) => {
          expect(expandTemplate(body, args)).toBe(body);
        },
      ),
    );
  });
});

describe('discovery', () => {
  it('the workspace and the home; a workspace template hides the user one; descriptions; bad files warned about by name', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    mkdirSync(join(cwd, '.mini-agent', 'prompts'), { recursive: true });
    mkdirSync(join(home, 'prompts'), { recursive: true });
    writeFileSync(join(cwd, '.mini-agent', 'prompts', 'review.md'), '---\ndescription: Review the change\n---\nReview $1 carefully.\n');
    writeFileSync(join(home, 'prompts', 'review.md'), 'the user one, hidden\n');
    writeFileSync(join(home, 'prompts', 'explain.md'), 'Explain $ARGUMENTS simply.\nMore lines.\n');
    writeFileSync(join(home, 'prompts', 'broken.md'), '---\ndescription: [oops\n---\nStill usable.\n');
    writeFileSync(join(home, 'prompts', '-bad-name.md'), 'x');
    writeFileSync(join(home, 'prompts', 'notes.txt'), 'not a template');
    const { templates, warnings } = await loadPromptTemplates({ cwd, home: home });
    expect(templates.map((t) => [t.name, t.source, t.description])).toEqual([
      ['broken', 'user', '---'],
      ['explain', 'user', 'Explain $ARGUMENTS simply.'],
      ['review', 'workspace', 'Review the change'],
    ]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain(join(home, 'prompts', '-bad-name.md'));
    expect(warnings[1]).toMatch(new RegExp(`${join(home, 'prompts', 'broken.md').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the front matter is not valid YAML`));
    const call = findTemplateCall('/review src/loop.ts', templates)!;
    expect(call.template.source).toBe('workspace');
    expect(expandTemplate(call.template.body, call.args)).toBe('Review src/loop.ts carefully.\n');
    expect(findTemplateCall('/unknown x', templates)).toBeUndefined();
    expect(findTemplateCall('/explain', templates)?.args).toBe('');
  });

  it('no folders: no templates and no warnings', async () => {
    expect(await loadPromptTemplates({ cwd: tempDir(), home: tempDir('mini-agent-home-') })).toEqual({ templates: [], warnings: [] });
  });
});

describe('invoking a template', () => {
  const setup = () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    mkdirSync(join(cwd, '.mini-agent', 'prompts'), { recursive: true });
    writeFileSync(join(cwd, '.mini-agent', 'prompts', 'review.md'), '---\ndescription: Review a file\n---\nReview $1 for $2.\n');
    return { cwd, home };
  };

  it('the SDK: the templates, and /name args expanded (anything else left alone)', async () => {
    const { cwd, home } = setup();
    const agent = await createAgent({ cwd, home, env: {}, script: writeScript(cwd, [{ text: 'reviewed' }]) });
    expect(agent.promptTemplates.map((t) => t.name)).toEqual(['review']);
    expect(agent.expandPromptTemplate('/review src/a.ts "error handling"')).toEqual({ name: 'review', text: 'Review src/a.ts for error handling.\n' });
    expect(agent.expandPromptTemplate('/unknown x')).toBeUndefined();
    expect(agent.expandPromptTemplate('review src/a.ts')).toBeUndefined();
    await agent.close();
  });

  it('print mode: mini-agent "/review FILE TOPIC" sends the template text', async () => {
    const { cwd, home } = setup();
    const r = await cliInProcess(['--script', writeScript(cwd, [{ text: 'reviewed' }]), '/review src/a.ts tests'], { cwd, home });
    expect(r.code).toBe(0);
    const file = readdirSync(join(home, 'sessions'), { recursive: true })
      .map(String)
      .find((f) => f.endsWith('.jsonl'))!;
    const users = readFileSync(join(home, 'sessions', file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'message' && e.message.role === 'user');
    expect(users.map((e) => e.message.content[0].text)).toEqual(['Review src/a.ts for tests.\n']);
  });
});
