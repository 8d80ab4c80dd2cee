// Tools describe their own calls (issue 25 §3): the SDK's describeToolCall answers for a call by
// its name and arguments with what the tool itself declares, and a tool that declares nothing (an
// MCP tool, a caller's own) is described generically.
import { describe, expect, it } from 'vitest';
import { builtinTools, describeToolCall, filesTouched } from '../src/index.js';
import { readFileDescriber } from '../src/tools/read-file.js';

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
});
