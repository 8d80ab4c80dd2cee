// Issue 23 §5, a lean request: the first request of a default run (the eight built-in tools, the
// built-in system prompt, a one-line prompt) is at most 8 KB in both dialects, through the CLI
// against a local server that records it. The system prompt names the tools without repeating
// their descriptions (they travel as tool definitions anyway), and the trimmed texts still carry
// the rules a model needs to use the tools: how truncated output continues, exact-text edits, the
// workspace boundary, bash's sandbox and when it asks.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir } from './support/helpers.js';
import { servePerTest, sse, type RecordedRequest } from './support/http-server.js';

const serve = servePerTest();
const LIMIT = 8 * 1024;

const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const openaiAnswer = sse([chunk({ role: 'assistant', content: 'It says hello.' }), chunk({}, 'stop')], { done: true });
const anthropicAnswer = sse(
  [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'It says hello.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  ],
  { named: true },
);

/** The bytes the client sent: its Content-Length (the SDKs send compact JSON, so the same as re-serializing). */
const bytesOf = (r: RecordedRequest) => Number(r.headers['content-length'] ?? Buffer.byteLength(JSON.stringify(r.body)));

/** A workspace whose path is as long as a real one tends to be (~70 characters), holding one file. */
function workspace(): string {
  const cwd = join(tempDir(), 'home', 'someone', 'projects', 'a-project-with-a-long-name');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'a.txt'), 'hello\n');
  return cwd;
}

type Dialect = { dialect: string; body: string; args: (url: string) => string[]; system: (b: any) => string; tools: (b: any) => Array<{ name: string; description: string; parameters: any }> };
const DIALECTS: Dialect[] = [
  {
    dialect: 'openai',
    body: openaiAnswer,
    args: (url) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`],
    system: (b) => b.messages.find((m: { role: string }) => m.role === 'system').content,
    tools: (b) => b.tools.map((t: any) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters })),
  },
  {
    dialect: 'anthropic',
    body: anthropicAnswer,
    args: (url) => ['--provider', 'anthropic', '--base-url', url],
    system: (b) => (typeof b.system === 'string' ? b.system : b.system.map((s: { text: string }) => s.text).join('\n')),
    tools: (b) => b.tools.map((t: any) => ({ name: t.name, description: t.description, parameters: t.input_schema })),
  },
];

describe.each(DIALECTS)('the first request of a default run ($dialect)', ({ body, args, system, tools }) => {
  it('is at most 8 KB, with all eight built-in tools, and the system prompt does not repeat their descriptions', async () => {
    const server = await serve([{ body }]);
    const cwd = workspace();
    const r = await cliInProcess([...args(server.url), '--api-key', 'k', '--model', 'test-model', '--no-session', 'read a.txt'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
    const [first] = server.requests;
    const defs = tools(first.body);
    expect(defs.map((t) => t.name)).toEqual(['read_file', 'list_dir', 'grep', 'find', 'write_file', 'edit_file', 'write_note', 'bash']);
    const size = bytesOf(first);
    expect(size, `first request: ${size} bytes`).toBeLessThanOrEqual(LIMIT);

    const prompt = system(first.body);
    expect(prompt).toContain(cwd);
    for (const t of defs) {
      expect(prompt, t.name).toContain(t.name);
      expect(prompt, t.name).not.toContain(t.description);
      expect(t.description.length, t.name).toBeGreaterThan(40);
    }
  });
});

describe('what the trimmed texts still tell the model', () => {
  it('the rules a model needs stay: truncation, exact-text edits, the workspace boundary, the sandbox and when bash asks', async () => {
    const server = await serve([{ body: openaiAnswer }]);
    const r = await cliInProcess([...DIALECTS[0].args(server.url), '--api-key', 'k', '--model', 'test-model', '--no-session', 'hi'], { cwd: workspace() });
    expect(r.code, r.stderr).toBe(0);
    const b = server.requests[0].body;
    const prompt = DIALECTS[0].system(b);
    const tool = Object.fromEntries(DIALECTS[0].tools(b).map((t) => [t.name, t]));
    // The workspace boundary and how truncated output continues.
    expect(prompt).toMatch(/paths are relative to it; nothing outside it can be touched/);
    expect(prompt).toMatch(/truncated; its last line then says how to continue/);
    expect(prompt).toMatch(/fix the call rather than repeating it/);
    // read_file: the next call is given exactly; negative offsets; byte ranges.
    expect(tool.read_file.description).toMatch(/last line gives the exact arguments of the next call/);
    expect(tool.read_file.parameters.properties.offset.description).toMatch(/negative counts from the end.*Not 0/);
    // edit_file: exact text, exactly once, no line numbers, all or none; an array even for one edit.
    expect(tool.edit_file.description).toMatch(/copied exactly from the file, whitespace and indentation included/);
    expect(tool.edit_file.description).toMatch(/no line numbers; never add any/);
    expect(tool.edit_file.description).toMatch(/occur exactly once/);
    expect(tool.edit_file.description).toMatch(/apply all or none/);
    expect(tool.edit_file.parameters.properties.edits.description).toMatch(/even for one edit/);
    expect(tool.write_file.description).toMatch(/To change part of a file, use edit_file/);
    // bash: no terminal, where the full output goes, the sandbox and the approval.
    expect(tool.bash.description).toMatch(/No stdin or terminal/);
    expect(tool.bash.description).toMatch(/full output is then saved to a file/);
    expect(tool.bash.description).toMatch(/Sandboxed where possible.*retry with network: true or sandbox: false, which asks the user/);
    expect(tool.bash.description).toMatch(/>&2, not > \/dev\/stderr/);
  });
});
