// The pure parts of pointing at things (issue 24 §2): the picker's fuzzy ranking, Tab completion
// by argument kind, and the `@path` file blocks' caps and notes (60 KB in all, binary files).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atPathFiles, withoutFiles } from '../src/app/prompt-files.js';
import { emptyPolicy } from '../src/tools/permissions.js';
import { commonPrefix, completeAt, pathCandidates, type CompletionSources } from '../src/interactive/completion.js';
import { fuzzyScore, rankPaths, workspaceFiles } from '../src/interactive/file-picker.js';
import { tempDir } from './support/helpers.js';

describe('the file picker', () => {
  it('ranks a match in the file name above one spread over the path, and drops what does not match in order', () => {
    const paths = ['src/interactive/conversation.ts', 'src/app/config.ts', 'docs/config-keys.md', 'test/config.test.ts'];
    expect(rankPaths(paths, 'conf')[0]).toBe('src/app/config.ts');
    expect(rankPaths(paths, 'zz')).toEqual([]);
    expect(fuzzyScore('fnoc', 'src/app/config.ts')).toBeNull();
    expect(rankPaths(paths, '')).toEqual(paths);
  });

  it('lists the workspace as find does: .gitignore and .git left out, folders with a final /', () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'src'));
    mkdirSync(join(cwd, 'out'));
    mkdirSync(join(cwd, '.git'));
    writeFileSync(join(cwd, 'src', 'a.ts'), '');
    writeFileSync(join(cwd, 'out', 'b.js'), '');
    writeFileSync(join(cwd, '.git', 'HEAD'), '');
    writeFileSync(join(cwd, '.gitignore'), 'out/\n');
    expect(workspaceFiles(cwd, [], [])).toEqual(['.gitignore', 'src/', 'src/a.ts']);
  });
});

describe('Tab completion', () => {
  const src: CompletionSources = {
    commands: [
      { name: 'model', help: '', arg: 'model' },
      { name: 'export', help: '', arg: 'path' },
      { name: 'exit', help: '' },
      { name: 'label', help: '', arg: 'entry' },
    ],
    values: (kind) => (kind === 'model' ? ['openai/gpt-4.1-mini', 'anthropic/claude-sonnet-5-5'] : kind === 'entry' ? ['start', 'stable'] : []),
    paths: (prefix) => ['src/', 'src/app.ts', 'README.md'].filter((p) => p.startsWith(prefix)),
  };
  it('completes command names, argument values by kind, and paths (with @ kept)', () => {
    expect(completeAt('/ex', src)).toEqual({ replace: 3, candidates: ['/export', '/exit'] });
    expect(completeAt('/model anth', src)).toEqual({ replace: 4, candidates: ['anthropic/claude-sonnet-5-5'] });
    expect(completeAt('/label st', src)).toEqual({ replace: 2, candidates: ['start', 'stable'] });
    expect(completeAt('/label start na', src)).toBeNull(); // the name is free text
    expect(completeAt('/export RE', src)).toEqual({ replace: 2, candidates: ['README.md'] });
    expect(completeAt('look at @src/a', src)).toEqual({ replace: 6, candidates: ['@src/app.ts'] });
    expect(completeAt('/zz', src)).toBeNull();
    expect(commonPrefix(['start', 'stable'])).toBe('sta');
  });

  it('lists a folder for a path prefix: dotfiles only when asked for, .git never', () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'docs'));
    mkdirSync(join(cwd, '.git'));
    writeFileSync(join(cwd, 'docs', 'guide.md'), '');
    writeFileSync(join(cwd, '.env'), '');
    expect(pathCandidates(cwd, '')).toEqual(['docs/']);
    expect(pathCandidates(cwd, '.')).toEqual(['.env']);
    expect(pathCandidates(cwd, 'docs/g')).toEqual(['docs/guide.md']);
    expect(pathCandidates(cwd, 'nowhere/')).toEqual([]);
  });
});

describe('@path file blocks', () => {
  it('stop at the total cap with a note naming the file left out; a binary file gets a note; withoutFiles drops them all', () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'a.txt'), 'a'.repeat(30));
    writeFileSync(join(cwd, 'b.txt'), 'b'.repeat(30));
    writeFileSync(join(cwd, 'c.txt'), 'c'.repeat(30));
    writeFileSync(join(cwd, 'blob.bin'), Buffer.from([1, 0, 2, 3]));
    const parts = atPathFiles('see @a.txt @b.txt @c.txt @blob.bin @a.txt', { cwd, allowedPaths: [] }, emptyPolicy(), { perFile: 40, total: 50 });
    expect(parts.map((p) => p.text)).toEqual([
      `\n<file path="a.txt">\n${'a'.repeat(30)}\n</file>`,
      `\n<file path="b.txt">\n${'b'.repeat(20)}\n</file>\n[cut: the first 20 of 30 bytes (the files of this prompt reached ${50 / 1024} KB); read_file gives the rest.]`,
      `\n[@c.txt was not read: the files of this prompt reached ${50 / 1024} KB; use read_file for it.]`,
      '\n[@blob.bin is a binary file (4 bytes); not read into the prompt.]',
    ]);
    expect(withoutFiles([{ type: 'text', text: 'see @a.txt' }, ...parts])).toEqual([{ type: 'text', text: 'see @a.txt' }]);
  });
});
