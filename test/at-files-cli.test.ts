// Files named by `@path` in a prompt are read into it (issue 24 §2), through the CLI's print mode
// against a local OpenAI-compatible server that keeps the request bodies: the file's content goes
// after the typed text as a <file> block (the typed text kept as it is), a file over the cap is
// cut with a note, a file a read deny rule covers is not read (a note says so), and an @word that
// names no file is left alone.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInProcess } from './support/cli-in-process.js';
import { tempDir } from './support/helpers.js';
import { sse, servePerTest, type RecordedRequest } from './support/http-server.js';

const serve = servePerTest();

const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const answer = sse([chunk({ role: 'assistant', content: 'Read it.' }), chunk({}, 'stop')], { done: true });

/** A server that answers every chat request with a short answer (and 404 to anything else, such as a window probe). */
const fakeOpenAI = () => serve((req: RecordedRequest) => (req.url.endsWith('/chat/completions') ? { body: answer, headers: { 'content-type': 'text/event-stream' } } : { status: 404, body: '{"error":{"message":"not here"}}' }));

const chats = (requests: RecordedRequest[]) => requests.filter((r) => r.url.endsWith('/chat/completions'));

/** The text of the user message of a Chat Completions request body (a text-only message is sent as one string). */
function userText(body: Record<string, any>): string {
  const user = body.messages.find((m: Record<string, any>) => m.role === 'user');
  return typeof user.content === 'string'
    ? user.content
    : user.content
        .filter((p: Record<string, any>) => p.type === 'text')
        .map((p: Record<string, any>) => p.text)
        .join('');
}

function workspace(files: Record<string, string>, config: object = {}): string {
  const cwd = tempDir();
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(cwd, name, '..'), { recursive: true });
    writeFileSync(join(cwd, name), text);
  }
  mkdirSync(join(cwd, '.mini-agent'), { recursive: true });
  writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ retry: { baseDelayMs: 1, maxDelayMs: 20 }, ...config }));
  return cwd;
}

const args = (url: string) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`, '--model', 'test-model'];
const env = { OPENAI_API_KEY: 'test-key' };

describe('@path in a prompt (print mode)', () => {
  it("@notes.md sends the file's content after the typed text, which is kept as it is; an @word naming no file is left alone", async () => {
    const server = await fakeOpenAI();
    const cwd = workspace({ 'notes.md': '# Notes\n\nthe launch code is 4242\n' });
    const r = await cliInProcess([...args(server.url), 'summarize @notes.md for @alice'], { cwd, env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(userText(chats(server.requests)[0].body)).toBe('summarize @notes.md for @alice\n<file path="notes.md">\n# Notes\n\nthe launch code is 4242\n</file>');
  });

  it('a file a read deny rule covers is not read: a note says so, and its content never leaves', async () => {
    const server = await fakeOpenAI();
    const cwd = workspace({ 'notes.md': 'public notes\n', 'secrets/key.txt': 'TOP-SECRET-VALUE\n' }, { permissions: { deny: ['read_file(secrets/**)'] } });
    const r = await cliInProcess([...args(server.url), 'compare @notes.md and @secrets/key.txt'], { cwd, env });
    expect(r.code).toBe(0);
    const body = JSON.stringify(chats(server.requests)[0].body);
    expect(body).not.toContain('TOP-SECRET-VALUE');
    expect(userText(chats(server.requests)[0].body)).toMatch(
      /^compare @notes\.md and @secrets\/key\.txt\n<file path="notes\.md">\npublic notes\n<\/file>\n\[@secrets\/key\.txt was not read: the permissions\.deny rule read_file\(secrets\/\*\*\) \(project config [^)]*\) denies reading it\.\]$/,
    );
  });

  it('a file over 20 KB is cut, with a note saying how much was sent', async () => {
    const server = await fakeOpenAI();
    const big = Array.from({ length: 3000 }, (_, i) => `line ${i} of the big log`).join('\n');
    const cwd = workspace({ 'big.log': big });
    const r = await cliInProcess([...args(server.url), 'what went wrong in @big.log?'], { cwd, env });
    expect(r.code).toBe(0);
    const text = userText(chats(server.requests)[0].body);
    expect(text.startsWith('what went wrong in @big.log?\n<file path="big.log">\nline 0 of the big log\n')).toBe(true);
    const block = text.slice(text.indexOf('<file'));
    expect(block).toContain('line 0 of the big log');
    expect(block).not.toContain('line 2999 of the big log');
    expect(block).toMatch(new RegExp(`\\[cut: the first 20480 of ${Buffer.byteLength(big)} bytes \\(20 KB per file\\); read_file gives the rest\\.\\]$`));
  });
});
