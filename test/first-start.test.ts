// The first start (issue 24 §5): with no key for the configured provider, the interactive mode
// shows what it found (keys set, Ollama on a fake loopback server and its models) and how to set a
// key or write the config, lets the user pick a model, saves it to the user config (0600, merged,
// atomic) and starts the session with it. With no Ollama the probe fails fast and the hints show.
// Print mode keeps its exit 2 and its one line. The header's hint fits at 80 and 40 columns.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { firstStartChoices, keyedProviders, missingKey, probeOllama, saveModelChoice } from '../src/app/first-start.js';
import { PROVIDERS } from '../src/model/models.js';
import { choiceLines, wrapText } from '../src/interactive/first-start.js';
import { headerLines } from '../src/interactive/header.js';
import stringWidth from 'string-width';
import { runCli, tempDir } from './support/helpers.js';
import { servePerTest, sse, type RecordedRequest } from './support/http-server.js';
import { TMUX, useSystemTool } from './support/system-tools.js';
import { TmuxSession } from './support/tmux.js';

const serve = servePerTest();
/** Every provider key empty: the host's own keys never leak into a test (an empty key counts as none). */
const NO_KEYS = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', DEEPSEEK_API_KEY: '', OPENROUTER_API_KEY: '' };

const chunk = (model: string, delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] });

/** A fake Ollama: two models at /api/tags, and a streamed answer naming the model at /v1/chat/completions. */
async function fakeOllama() {
  return serve((req: RecordedRequest) => {
    if (req.method === 'GET' && req.url === '/api/tags') return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ models: [{ name: 'qwen3:8b' }, { name: 'llama3.2:1b' }] }) };
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      const model = String(req.body?.model);
      return { headers: { 'content-type': 'text/event-stream' }, body: sse([chunk(model, { role: 'assistant', content: `hello from ${model}` }), chunk(model, {}, 'stop')], { done: true }) };
    }
    return { status: 404, body: 'not found' };
  });
}

/** A loopback URL where nothing listens (a port just freed). */
async function deadUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

/** The interactive mode with no flags at all, in tmux. */
function terminal(ctx: { skip(note?: string): never }, env: Record<string, string>, columns: number, home?: string): TmuxSession {
  tmuxBin = useSystemTool(ctx, TMUX);
  const t = new TmuxSession(tmuxBin, [], { cwd: tempDir(), env: { ...NO_KEYS, ...env }, columns, rows: 40, home });
  sessions.push(t);
  return t;
}

const sessions: TmuxSession[] = [];
let tmuxBin: string | undefined;
afterEach(() => {
  while (sessions.length) sessions.pop()!.kill();
});
afterAll(() => {
  if (tmuxBin) TmuxSession.killServer(tmuxBin);
});

/** No line of the visible screen is wider than the terminal, and the header's hint is there whole. */
function hintFits(screen: string, columns: number) {
  expect(screen).toContain('/help for commands, Ctrl+D to leave');
  for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(columns);
}

describe('the first start in a terminal', () => {
  for (const columns of [80, 40]) {
    it(`at ${columns} columns: no key, Ollama on loopback: its models listed, one picked, saved 0600 and merged, the session starts with it`, async (ctx) => {
      const ollama = await fakeOllama();
      const home = tempDir('mini-agent-home-');
      // An existing user config: its other keys stay, its old provider's base URL goes.
      writeFileSync(join(home, 'config.json'), JSON.stringify({ provider: 'openai', baseUrl: 'https://example.invalid/v1', maxTurns: 7, bash: { timeoutSeconds: 33 } }), { mode: 0o644 });
      const t = terminal(ctx, { MINI_AGENT_OLLAMA_URL: ollama.url, DEEPSEEK_API_KEY: 'sk-secret-deepseek' }, columns, home);
      const first = await t.waitFor(/Pick a model[\s\S]*3\. deepseek/);
      const flat = first.replace(/\n +/g, ' ');
      expect(flat).toContain('openai needs an API key (OPENAI_API_KEY)');
      expect(flat).toContain('Keys set: DEEPSEEK_API_KEY (deepseek)');
      expect(flat).not.toContain('sk-secret-deepseek');
      expect(flat).toContain(`Ollama runs at ${ollama.url} with 2 models`);
      expect(first.replace(/\s+/g, '')).toContain(`writetheconfigfile(keepitmode0600):${join(home, 'config.json')}{`);
      expect(first).toContain('› 1. ollama/llama3.2:1b');
      expect(first).toContain('  2. ollama/qwen3:8b');
      expect(first).toContain(`  3. deepseek/${PROVIDERS.deepseek.defaultModel}`);
      for (const line of first.split('\n')) expect(line.length).toBeLessThanOrEqual(columns);
      t.keys('Down');
      await t.waitFor(/› 2\. ollama\/qwen3:8b/);
      t.keys('Enter');
      const ready = await t.waitFor(/❯/);
      expect(ready.replace(/\s+/g, '')).toContain(`Savedollama/qwen3:8bto${join(home, 'config.json')}(mode0600).`);
      expect(ready).toContain('mini-agent · ollama/qwen3:8b');
      hintFits(ready, columns);
      const file = join(home, 'config.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ provider: 'ollama', model: 'qwen3:8b', baseUrl: `${ollama.url}/v1`, maxTurns: 7, bash: { timeoutSeconds: 33 } });
      expect(readdirSync(home).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      t.type('hi there');
      t.keys('Enter');
      await t.waitFor(/hello from qwen3:8b/);
      const chat = ollama.requests.filter((r) => r.url === '/v1/chat/completions');
      expect(chat).toHaveLength(1);
      expect(chat[0].body.model).toBe('qwen3:8b');
      expect(chat[0].headers.authorization ?? '').not.toContain('secret');
    }, 40_000);

    it(`at ${columns} columns: no key and no Ollama: the probe fails quickly, the screen says how to set a key or write the config`, async (ctx) => {
      const url = await deadUrl();
      const home = tempDir('mini-agent-home-');
      const began = Date.now();
      const t = terminal(ctx, { MINI_AGENT_OLLAMA_URL: url }, columns, home);
      const screen = await t.waitFor(/Nothing to pick yet/, { timeoutMs: 8_000 });
      expect(Date.now() - began).toBeLessThan(6_000);
      const flat = screen.replace(/\n +/g, ' ');
      expect(flat).toContain(`Ollama is not running at ${url}`);
      expect(flat).toContain('No provider key is set (OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, OPENROUTER_API_KEY)');
      expect(flat).toContain('export OPENAI_API_KEY=...');
      expect(screen.replace(/\s+/g, '')).toContain(`writetheconfigfile(keepitmode0600):${join(home, 'config.json')}{`);
      expect(flat).toContain('"provider": "anthropic"');
      for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(columns);
      t.keys('C-c');
      const { code } = await t.exited();
      expect(code).toBe(0);
      expect(() => statSync(join(home, 'config.json'))).toThrow();
    }, 30_000);
  }

  it('a typed number picks a model (a keyed provider here), saved alone in a new config file; the header hint fits at 40 columns', async (ctx) => {
    const url = await deadUrl();
    const home = tempDir('mini-agent-home-');
    const t = terminal(ctx, { MINI_AGENT_OLLAMA_URL: url, ANTHROPIC_API_KEY: 'sk-ant-x' }, 40, home);
    await t.waitFor(/1\. anthropic\//);
    t.type('1');
    const ready = await t.waitFor(/❯/);
    expect(ready).toContain(`anthropic/${PROVIDERS.anthropic.defaultModel}`);
    hintFits(ready, 40);
    expect(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'))).toEqual({ provider: 'anthropic', model: PROVIDERS.anthropic.defaultModel });
  }, 30_000);
});

describe('a usable provider', () => {
  it('starts the session at once: no first screen, no probe', async (ctx) => {
    const ollama = await fakeOllama();
    const home = tempDir('mini-agent-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ provider: 'ollama', model: 'qwen3:8b', baseUrl: `${ollama.url}/v1` }));
    const t = terminal(ctx, { MINI_AGENT_OLLAMA_URL: ollama.url }, 80, home);
    const ready = await t.waitFor(/❯/);
    expect(ready).toContain('mini-agent · ollama/qwen3:8b');
    expect(ready).not.toContain('Welcome to mini-agent');
    expect(ollama.requests.filter((r) => r.url === '/api/tags')).toHaveLength(0);
  }, 30_000);
});

describe('leaving the first screen', () => {
  it('SIGTERM on the first screen puts the terminal back and saves nothing', async (ctx) => {
    const ollama = await fakeOllama();
    const home = tempDir('mini-agent-home-');
    const t = terminal(ctx, { MINI_AGENT_OLLAMA_URL: ollama.url }, 80, home);
    await t.waitFor(/Pick a model/);
    process.kill(t.pid(), 'SIGTERM');
    const { code, cooked } = await t.exited();
    expect(code).toBe(143);
    expect(cooked).toBe(true);
    expect(() => statSync(join(home, 'config.json'))).toThrow();
  }, 30_000);
});

describe('print mode without a key', () => {
  it('still exits 2 with its one line, and never probes Ollama', async () => {
    const ollama = await fakeOllama();
    const r = await runCli(['hello'], { cwd: tempDir(), env: { MINI_AGENT_OLLAMA_URL: ollama.url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('mini-agent: openai: no API key; set OPENAI_API_KEY (or pass --api-key)\n');
    expect(r.stdout).toBe('');
    expect(ollama.requests).toHaveLength(0);
  });
});

describe('the first start, pure parts', () => {
  it('a missing or empty key needs the first start; a keyless preset or a loopback URL does not', () => {
    expect(missingKey({ apiKey: undefined, preset: PROVIDERS.openai, baseUrl: PROVIDERS.openai.baseUrl })).toBe(true);
    expect(missingKey({ apiKey: '', preset: PROVIDERS.openai, baseUrl: PROVIDERS.openai.baseUrl })).toBe(true);
    expect(missingKey({ apiKey: 'k', preset: PROVIDERS.openai, baseUrl: PROVIDERS.openai.baseUrl })).toBe(false);
    expect(missingKey({ apiKey: undefined, preset: PROVIDERS.ollama, baseUrl: PROVIDERS.ollama.baseUrl })).toBe(false);
    expect(missingKey({ apiKey: undefined, preset: PROVIDERS['openai-compatible'], baseUrl: 'http://127.0.0.1:8000/v1' })).toBe(false);
  });

  it('keyed providers: the hosted ones whose variable is set and not empty', () => {
    expect(keyedProviders({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: '', OPENROUTER_API_KEY: 'o' })).toEqual([
      { provider: 'anthropic', envVar: 'ANTHROPIC_API_KEY' },
      { provider: 'openrouter', envVar: 'OPENROUTER_API_KEY' },
    ]);
  });

  it('the probe: models from /api/tags; an error status, a bad body, a refused connection and a timeout are "not running" with the reason', async () => {
    const ok = (body: unknown, status = 200) => (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;
    expect(await probeOllama('http://h', ok({ models: [{ name: 'b' }, { name: 'a' }, { name: 'a' }] }))).toEqual({ url: 'http://h', running: true, models: ['a', 'b'] });
    expect(await probeOllama('http://h', ok({}, 500))).toEqual({ url: 'http://h', running: false, reason: 'HTTP 500 from http://h/api/tags' });
    expect(await probeOllama('http://h', ok({ nope: 1 }))).toMatchObject({ running: false, reason: 'http://h/api/tags did not answer with a model list' });
    const refused = (async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    }) as unknown as typeof fetch;
    expect(await probeOllama('http://h', refused)).toMatchObject({ running: false, reason: 'ECONNREFUSED' });
    const hang = ((_u: string, init: RequestInit) => new Promise((_r, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)))) as unknown as typeof fetch;
    const began = Date.now();
    expect(await probeOllama('http://h', hang, 100)).toMatchObject({ running: false, reason: 'no answer within 100 ms' });
    expect(Date.now() - began).toBeLessThan(1_000);
  });

  it('choices: Ollama models (with their base URL when not the preset), then keyed providers; saving merges, drops the old provider URL and key, and refuses a malformed file', () => {
    expect(firstStartChoices([{ provider: 'anthropic' }], { url: 'http://localhost:11434', running: true, models: ['m'] })).toEqual([
      { provider: 'ollama', model: 'm' },
      { provider: 'anthropic', model: PROVIDERS.anthropic.defaultModel },
    ]);
    expect(firstStartChoices([], { url: 'http://127.0.0.1:5', running: true, models: ['m'] })).toEqual([{ provider: 'ollama', model: 'm', baseUrl: 'http://127.0.0.1:5/v1' }]);
    const home = tempDir('mini-agent-home-');
    const env = { MINI_AGENT_HOME: home };
    writeFileSync(join(home, 'config.json'), JSON.stringify({ provider: 'openai', apiKey: 'sk-old', baseUrl: 'https://x/v1', maxTurns: 9 }));
    saveModelChoice(env, { provider: 'anthropic', model: 'claude-x' });
    expect(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'))).toEqual({ provider: 'anthropic', model: 'claude-x', maxTurns: 9 });
    expect(statSync(join(home, 'config.json')).mode & 0o777).toBe(0o600);
    writeFileSync(join(home, 'config.json'), '{oops');
    expect(() => saveModelChoice(env, { provider: 'ollama', model: 'm' })).toThrow(/config\.json: not valid JSON/);
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe('{oops');
    const fresh = { MINI_AGENT_HOME: join(tempDir(), 'new-home') };
    saveModelChoice(fresh, { provider: 'ollama', model: 'm' });
    expect(statSync(fresh.MINI_AGENT_HOME).mode & 0o777).toBe(0o700);
  });
});

describe('the first screen wraps, never cuts', () => {
  it('words wrap at the width; a path longer than a line is split where the line ends; nothing is lost', () => {
    const text = 'Or write /tmp/a-rather-long-home-folder-name/config.json now';
    for (const width of [40, 20, 12]) {
      const lines = wrapText(text, width, '  ');
      for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(width);
      expect(lines.join('').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
    }
    expect(wrapText('  export A=1', 40, '    ')).toEqual(['  export A=1']);
    expect(wrapText('one two three', 8)).toEqual(['one two', 'three']);
  });

  it('the header hint gets its own line when the first line is full, and is never cut at 40 columns', () => {
    const plain = { dim: (s: string) => s, bold: (s: string) => s, red: (s: string) => s, green: (s: string) => s, yellow: (s: string) => s, cyan: (s: string) => s };
    const parts = ['mini-agent', 'ollama/qwen3:8b', 'session 0123abcd', '/help for commands, Ctrl+D to leave'];
    expect(headerLines(parts, 80, plain)).toEqual(['mini-agent · ollama/qwen3:8b · session 0123abcd', '/help for commands, Ctrl+D to leave']);
    expect(headerLines(parts, 40, plain)).toEqual(['mini-agent · ollama/qwen3:8b', 'session 0123abcd', '/help for commands, Ctrl+D to leave']);
    expect(headerLines(parts, 120, plain)).toEqual([parts.join(' · ')]);
  });
});

describe('the model list', () => {
  const plain = { dim: (s: string) => s, bold: (s: string) => s, red: (s: string) => s, green: (s: string) => s, yellow: (s: string) => s, cyan: (s: string) => s };
  const many = Array.from({ length: 30 }, (_, i) => ({ provider: 'ollama', model: `m${i + 1}` }));

  it('a list taller than the live region shows a window around the selection, and says where it is', () => {
    const top = choiceLines(many, 0, 80, plain, 10);
    expect(top).toHaveLength(10);
    expect(top[1]).toBe('› 1. ollama/m1');
    expect(top.at(-1)).toBe('  (1–8 of 30)');
    const middle = choiceLines(many, 14, 80, plain, 10);
    expect(middle).toHaveLength(10);
    expect(middle).toContain('› 15. ollama/m15');
    expect(middle.at(-1)).toBe('  (11–18 of 30)');
    const end = choiceLines(many, 29, 80, plain, 10);
    expect(end).toContain('› 30. ollama/m30');
    expect(end.at(-1)).toBe('  (23–30 of 30)');
  });

  it('a short list is shown whole; an empty one says what Enter does', () => {
    expect(choiceLines(many.slice(0, 2), 1, 80, plain, 10)).toEqual(['Pick a model (↑↓ and Enter, or its number; Ctrl+C quits):', '  1. ollama/m1', '› 2. ollama/m2']);
    expect(choiceLines([], 0, 40, plain, 10).join(' ').replace(/\s+/g, ' ')).toContain('Enter: look for Ollama again');
  });
});
