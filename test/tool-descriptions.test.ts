// Tools describe their own calls (issue 25 §3): the SDK's describeToolCall answers for a call by
// its name and arguments with what the tool itself declares, and a tool that declares nothing (an
// MCP tool, a caller's own) is described generically.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventToUpdate, toolCallFields } from '../src/acp/updates.js';
import { createAgent } from '../src/app/agent.js';
import type { AgentEvent } from '../src/core/events.js';
import { builtinTools, describeToolCall, filesTouched } from '../src/index.js';
import { paint, runningToolLine } from '../src/interactive/view.js';
import { createEditFileTool, type EditFileDetails } from '../src/tools/edit-file.js';
import { createReadFileTool, readFileDescriber, type ReadFileDetails } from '../src/tools/read-file.js';
import { createWriteFileTool, type WriteFileDetails } from '../src/tools/write-file.js';
import { createWriteNoteTool, type WriteNoteDetails } from '../src/tools/write-note.js';
import type { ToolDefinition } from '../src/tools/tool.js';
import { summaryTurn } from './support/compaction.js';
import { tempDir, writeScript } from './support/helpers.js';

describe('tool descriptions', () => {
  it('every built-in tool declares how its calls look, and describeToolCall gives exactly that', () => {
    const samples: Record<string, Record<string, unknown>> = {
      read_file: { path: 'src/a.ts', offset: 3 },
      list_dir: { path: 'src' },
      grep: { pattern: 'TODO', path: 'src', glob: '*.ts' },
      find: { glob: '*.md' },
      write_file: { path: 'out.txt', content: 'hi\n' },
      edit_file: { path: 'src/a.ts', edits: [{ oldText: 'a', newText: 'b' }] },
      write_note: { path: 'notes.md', text: 'x' },
      bash: { command: 'npm test' },
    };
    const tools = builtinTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(samples).sort());
    for (const tool of tools) {
      expect(tool.describe, tool.name).toBeTypeOf('function');
      expect(describeToolCall(tool.name, samples[tool.name]), tool.name).toEqual(tool.describe!(samples[tool.name]));
    }
    expect(describeToolCall('read_file', samples.read_file)).toEqual({ title: 'Read src/a.ts', kind: 'read', locations: [{ path: 'src/a.ts', line: 3 }], subject: 'src/a.ts' });
    expect(describeToolCall('grep', samples.grep)).toEqual({ title: 'Search "TODO" in src (*.ts)', kind: 'search', locations: [{ path: 'src' }], subject: 'src' });
    expect(describeToolCall('find', samples.find)).toMatchObject({ title: 'Find *.md', locations: [{ path: '.' }], subject: '*.md' });
    expect(describeToolCall('write_file', samples.write_file)).toMatchObject({ kind: 'edit', rewrites: { path: 'out.txt', newText: 'hi\n' } });
    expect(describeToolCall('edit_file', samples.edit_file).rewrites).toEqual({ path: 'src/a.ts' });
    expect(describeToolCall('write_note', samples.write_note).rewrites).toBeUndefined();
    expect(describeToolCall('bash', samples.bash)).toEqual({ title: 'Run `npm test`', kind: 'execute', locations: [], subject: 'npm test' });
  });

  it('a tool that declares nothing (an MCP tool) is described by its name and key argument', () => {
    expect(describeToolCall('everything__echo', { message: 'hi' })).toEqual({ title: 'everything: echo', kind: 'other', locations: [], subject: '{"message":"hi"}' });
    expect(describeToolCall('docs__search', { query: 'tokens', path: 'x' })).toMatchObject({ kind: 'other', locations: [], subject: 'x' });
    expect(filesTouched('docs__search', { path: 'x' }, { isError: false })).toEqual({});
  });

  it('arguments from a model or a session file are not trusted to have their types', () => {
    expect(describeToolCall('read_file', { path: 7 })).toEqual({ title: 'Read a file', kind: 'read', locations: [], subject: '{"path":7}' });
    expect(describeToolCall('bash', {}).title).toBe('Run ``');
  });

  it("the files a call touched are its tool's to say: the path it reported, none when it failed, what git saw for a command", () => {
    expect(filesTouched('read_file', { path: './a.ts' }, { isError: false, details: { path: 'a.ts' } })).toEqual({ read: ['a.ts'] });
    expect(filesTouched('write_file', { path: 'b.ts' }, undefined)).toEqual({ modified: ['b.ts'] });
    expect(filesTouched('edit_file', { path: 'b.ts' }, { isError: true })).toEqual({});
    expect(filesTouched('bash', { command: 'make' }, { isError: true, details: { modifiedFiles: ['out.js'] } })).toEqual({ modified: ['out.js'] });
    expect(filesTouched('grep', { pattern: 'x', path: 'src' }, { isError: false, details: { path: 'src' } })).toEqual({});
  });

  it("a describer is typed by its tool's arguments: a name the tool does not take is a type error", () => {
    // @ts-expect-error read_file takes `path`, not `file` (tsc -p tsconfig.test.json checks this line)
    expect(readFileDescriber.describe({ file: 'a.ts' })).toMatchObject({ title: 'Read a file', locations: [] });
  });

  it("a tool's result details are typed: the file tools' results declare their fields, and what a tool writes is checked against them", async () => {
    const cwd = tempDir();
    const ctx = { cwd, signal: new AbortController().signal, toolCallId: 'c1' };
    const written = await createWriteFileTool().execute({ path: 'a.txt', content: 'one\n' }, ctx);
    const details: WriteFileDetails | undefined = written.details;
    expect(details).toEqual({ path: 'a.txt', bytes: 4, created: true });
    // @ts-expect-error write_file's details have no `lines` (tsc -p tsconfig.test.json checks this line)
    expect(written.details?.lines).toBeUndefined();
    const edited = await createEditFileTool().execute({ path: 'a.txt', edits: [{ oldText: 'one', newText: 'two' }] }, ctx);
    expect(edited.details).toMatchObject({ path: 'a.txt', replacements: 1, linesAdded: 1, linesRemoved: 1, firstChangedLine: 1 } satisfies Partial<EditFileDetails>);
    const read = await createReadFileTool().execute({ path: 'a.txt' }, ctx);
    expect(read.details).toMatchObject({ path: 'a.txt', sizeBytes: 4 } satisfies Partial<ReadFileDetails>);
    const noted = await createWriteNoteTool().execute({ path: 'n.md', text: 'x' }, ctx);
    expect(noted.details).toEqual({ path: 'n.md', mode: 'overwrite', bytes: 1, created: true } satisfies WriteNoteDetails);
  });
});

describe("a caller's own tool describes its calls everywhere the agent shows them", () => {
  // A tool given to createAgent that declares describe and files: the agent's descriptions, ACP's
  // tool_call fields, the interactive lines and compaction's file lists all read them (not its name).
  const deploy: ToolDefinition<{ env: string }> = {
    name: 'deploy',
    description: 'deploys the workspace',
    parameters: { type: 'object', properties: { env: { type: 'string' } }, required: ['env'] },
    risk: 'read',
    execute: async ({ env }) => ({ content: `deployed to ${env}` }),
    describe: ({ env }) => ({ title: `Deploy to ${env}`, kind: 'execute', locations: [{ path: 'deploy.yml' }], subject: `to ${env}` }),
    files: (_args, result) => (result && !result.isError ? { read: ['deploy.yml'], modified: ['dist/release.txt'] } : {}),
  };

  it('describe, files, ACP fields, interactive lines and compaction file lists', async () => {
    const cwd = tempDir();
    const script = writeScript(cwd, [{ toolCalls: [{ id: 'c1', name: 'deploy', arguments: { env: 'prod' } }] }, { text: 'deployed, and here is how it went: '.repeat(80) }, { text: 'a long answer '.repeat(50) }, summaryTurn('the summary')]);
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ compaction: { keepRecentTokens: 150 } }));
    const agent = await createAgent({ cwd, home: tempDir('mini-agent-home-'), env: {}, script, extraTools: [deploy] });
    const d = agent.toolDescriptions;
    expect(d.describe('deploy', { env: 'prod' })).toEqual({ title: 'Deploy to prod', kind: 'execute', locations: [{ path: 'deploy.yml' }], subject: 'to prod' });
    // Without the agent, by name only: a tool it does not know is described generically.
    expect(describeToolCall('deploy', { env: 'prod' }).title).not.toBe('Deploy to prod');
    // The built-in tools are still described by their own describers.
    expect(d.describe('read_file', { path: 'a.ts' })).toEqual(describeToolCall('read_file', { path: 'a.ts' }));

    expect(toolCallFields('deploy', { env: 'prod' }, cwd, d.describe)).toEqual({ title: 'Deploy to prod', kind: 'execute', locations: [{ path: join(cwd, 'deploy.yml') }] });
    const start = { type: 'tool_start', toolCallId: 'c1', name: 'deploy', arguments: { env: 'prod' } } as unknown as AgentEvent;
    expect(eventToUpdate(start, cwd, d.describe)).toMatchObject({ sessionUpdate: 'tool_call', title: 'Deploy to prod', kind: 'execute' });
    expect(runningToolLine('deploy', { env: 'prod' }, 1200, 80, paint(false), d.describe)).toContain('deploy to prod');

    await agent.prompt('ship it');
    expect(agent.session.filesTouched()).toEqual({ readFiles: ['deploy.yml'], modifiedFiles: ['dist/release.txt'] });
    await agent.prompt('and now?');
    const compacted = await agent.compact(); // the deploy call is summarized: its files are in the lists
    expect(compacted).toMatchObject({ ok: true, readFiles: ['deploy.yml'], modifiedFiles: ['dist/release.txt'] });
    await agent.close();
  });
});
