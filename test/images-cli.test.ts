// Images through the CLI against local servers of both dialects (issue 23 §3): read_file on an
// image returns it to a model that takes images (Anthropic: an image block inside tool_result;
// OpenAI: the tool message points to a user message with an image_url part), a model without
// vision gets a text note, an image over the limits is scaled down, a WebP over them gets a note,
// and images attached to the prompt (`@shot.png`, `--image FILE`) go with the first request.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Jimp } from 'jimp';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../src/core/events.js';
import { SessionStore } from '../src/session/store.js';
import { projectMessages } from '../src/session/projector.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, tempDir } from './support/helpers.js';
import { sse, servePerTest } from './support/http-server.js';

const serve = servePerTest();

/** A 1×1 lossless WebP (VP8L). */
const TINY_WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
/** A WebP header (VP8X) that says 9000×9000: over the limits, and jimp cannot scale a WebP. */
function hugeWebp(): Buffer {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(22, 4);
  b.write('WEBPVP8X', 8, 'latin1');
  b.writeUInt32LE(10, 16);
  b.writeUIntLE(8999, 24, 3);
  b.writeUIntLE(8999, 27, 3);
  return b;
}

async function picture(width: number, height: number, mime: 'image/png' | 'image/jpeg' | 'image/gif' = 'image/png'): Promise<Buffer> {
  const image = new Jimp({ width, height, color: 0x3366ccff });
  for (let x = 0; x < width; x += 7) image.setPixelColor(0xff0000ff, x, Math.floor((x * height) / width)); // not one flat colour
  return image.getBuffer(mime);
}

// ---- the two dialects: a read_file call on `path`, then an answer ----
const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const openaiCall = (path: string) =>
  sse([chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }] }), chunk({}, 'tool_calls')], { done: true });
const openaiAnswer = sse([chunk({ role: 'assistant', content: 'A blue picture.' }), chunk({}, 'stop')], { done: true });
const start = { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } };
const anthropicCall = (path: string) =>
  sse(
    [
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ path }) } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } },
      { type: 'message_stop' },
    ],
    { named: true },
  );
const anthropicAnswer = sse(
  [
    start,
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'A blue picture.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: 'message_stop' },
  ],
  { named: true },
);

const DIALECTS = [
  { dialect: 'anthropic', vision: 'claude-sonnet-4-6', call: anthropicCall, answer: anthropicAnswer, args: (url: string) => ['--provider', 'anthropic', '--base-url', url] },
  { dialect: 'openai', vision: 'gpt-4o', call: openaiCall, answer: openaiAnswer, args: (url: string) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`] },
] as const;

type Body = Record<string, any>;

/** The image parts of a request body that came from a tool result, in the dialect's own shape, as {mime, data}. */
function toolResultImages(dialect: string, body: Body): { mime: string; data: string }[] {
  if (dialect === 'anthropic') {
    const result = body.messages.at(-1).content.find((b: Body) => b.type === 'tool_result');
    return result.content.filter((b: Body) => b.type === 'image').map((b: Body) => ({ mime: b.source.media_type, data: b.source.data }));
  }
  const i = body.messages.findIndex((m: Body) => m.role === 'tool');
  const next = body.messages[i + 1];
  if (next?.role !== 'user' || !Array.isArray(next.content)) return [];
  return next.content
    .filter((p: Body) => p.type === 'image_url')
    .map((p: Body) => {
      const m = /^data:([^;]+);base64,(.*)$/.exec(p.image_url.url)!;
      return { mime: m[1], data: m[2] };
    });
}

/** The text the model got for the tool result. */
function toolResultText(dialect: string, body: Body): string {
  if (dialect === 'anthropic') {
    const result = body.messages.at(-1).content.find((b: Body) => b.type === 'tool_result');
    return result.content
      .filter((b: Body) => b.type === 'text')
      .map((b: Body) => b.text)
      .join('\n');
  }
  return body.messages.find((m: Body) => m.role === 'tool').content;
}

function workspace(files: Record<string, Buffer>, config: object = {}): string {
  const cwd = tempDir();
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(cwd, name), bytes);
  mkdirSync(join(cwd, '.mini-agent'));
  writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ retry: { baseDelayMs: 1, maxDelayMs: 20 }, ...config }));
  return cwd;
}

describe.each(DIALECTS)('images through read_file ($dialect)', ({ dialect, vision, call, answer, args }) => {
  it('a PNG goes to a model that takes images as an image block, its bytes as they are; the session keeps it', async () => {
    const png = await picture(40, 30);
    const server = await serve([{ body: call('shot.png') }, { body: answer }]);
    const cwd = workspace({ 'shot.png': png });
    const session = join(cwd, 's.jsonl');
    const r = await cliInProcess([...args(server.url), '--model', vision, '--json', '--session', session, 'what is in shot.png?'], { cwd });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const body = server.requests[1].body;
    expect(toolResultImages(dialect, body)).toEqual([{ mime: 'image/png', data: png.toString('base64') }]);
    expect(toolResultText(dialect, body)).toMatch(/^Image shot\.png: 40×30 PNG, \d+ B/);
    if (dialect === 'openai') {
      // Chat Completions: the tool message says where the image is; the user message after it names the call.
      expect(toolResultText(dialect, body)).toContain('[its image is in the next user message]');
      const i = body.messages.findIndex((m: Body) => m.role === 'tool');
      expect(body.messages[i + 1].content[0]).toEqual({ type: 'text', text: 'Image from the result of read_file (call call_1):' });
    }
    const end = parseJsonl(r.stdout).find((e) => e.type === 'tool_end') as Extract<AgentEvent, { type: 'tool_end' }>;
    expect(end.result.content.map((c) => c.type)).toEqual(['text', 'image']);
    expect(end.result.details).toMatchObject({ image: { format: 'PNG', width: 40, height: 30 }, sent: true });
    const stored = projectMessages(SessionStore.open(session).activePath()).find((m) => m.role === 'toolResult')!;
    expect(stored.content[1]).toEqual({ type: 'image', data: png.toString('base64'), mimeType: 'image/png' });
    if (dialect === 'anthropic') {
      // The Markdown export says what the image was, on a line of its own.
      const md = await cliInProcess(['export', session, '--format', 'md'], { cwd });
      expect(md.stdout).toMatch(/Image shot\.png: 40×30 PNG, \d+ B\n\[image: 40×30 PNG, \d+ B\]/);
    }
  });

  it('a model without vision gets a text note, and the request carries no image; images: true in the config turns it on', async () => {
    const png = await picture(120, 80);
    const server = await serve([{ body: call('shot.png') }, { body: answer }, { body: call('shot.png') }, { body: answer }]);
    const cwd = workspace({ 'shot.png': png });
    const r = await cliInProcess([...args(server.url), '--model', 'test-model', 'look at shot.png'], { cwd });
    expect(r.stderr).not.toMatch(/error|warning|deprecated/i);
    expect(r.code).toBe(0);
    const body = server.requests[1].body;
    expect(toolResultImages(dialect, body)).toEqual([]);
    expect(JSON.stringify(body)).not.toContain(png.toString('base64').slice(0, 40));
    expect(toolResultText(dialect, body)).toMatch(/^\[image: shot\.png, 120×80 PNG, \d+ B — this model does not take images\]$/);

    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ models: { 'test-model': { images: true } } }));
    // --show-config asks an OpenAI-compatible server for the window of a model the table does not know: not this one.
    const idle = await serve([
      { status: 404, body: 'not here' },
      { status: 404, body: 'not here' },
      { status: 404, body: 'not here' },
    ]);
    const show = await cliInProcess([...args(idle.url), '--model', 'test-model', '--show-config'], { cwd });
    expect(show.stdout).toMatch(/images\s+true\s+.*project config/);
    const again = await cliInProcess([...args(server.url), '--model', 'test-model', '--trust-workspace', 'look at shot.png'], { cwd });
    expect(again.code).toBe(0);
    expect(toolResultImages(dialect, server.requests[3].body)).toHaveLength(1);
  });

  it('an image over the limits is scaled down (1568 px on the long edge); a WebP over them gets a note, not a crash', async () => {
    const big = await picture(3000, 200);
    const server = await serve([{ body: call('big.png') }, { body: answer }, { body: call('huge.webp') }, { body: answer }]);
    const cwd = workspace({ 'big.png': big, 'huge.webp': hugeWebp() });
    const r = await cliInProcess([...args(server.url), '--model', vision, 'look at big.png'], { cwd });
    expect(r.stderr).not.toMatch(/error|warning|deprecated/i);
    expect(r.code).toBe(0);
    const [sent] = toolResultImages(dialect, server.requests[1].body);
    expect(sent.mime).toBe('image/png');
    const decoded = await Jimp.read(Buffer.from(sent.data, 'base64'));
    expect([decoded.bitmap.width, decoded.bitmap.height]).toEqual([1568, 105]);
    expect(toolResultText(dialect, server.requests[1].body)).toMatch(/^Image big\.png: 3000×200 PNG, .* \(scaled down to 1568×105 PNG, .* to fit the provider's limits\)/);

    const w = await cliInProcess([...args(server.url), '--model', vision, 'look at huge.webp'], { cwd });
    expect(w.code).toBe(0);
    expect(toolResultImages(dialect, server.requests[3].body)).toEqual([]);
    expect(toolResultText(dialect, server.requests[3].body)).toMatch(/^\[image: huge\.webp, 9000×9000 WebP, 30 B — not sent: .*WebP images cannot be scaled here; convert it to PNG or JPEG\]/);
  });
});

describe('images by their bytes, not their names', () => {
  it('JPEG, GIF and WebP files are sent with their own media type; a PNG named .txt is an image', async () => {
    const jpeg = await picture(20, 10, 'image/jpeg');
    const gif = await picture(20, 10, 'image/gif');
    const png = await picture(20, 10);
    const cases = [
      ['a.jpg', jpeg, 'image/jpeg'],
      ['b.gif', gif, 'image/gif'],
      ['c.webp', TINY_WEBP, 'image/webp'],
      ['d.txt', png, 'image/png'],
    ] as const;
    const server = await serve(cases.flatMap(([name]) => [{ body: anthropicCall(name) }, { body: anthropicAnswer }]));
    const cwd = workspace(Object.fromEntries(cases.map(([name, bytes]) => [name, bytes])));
    for (const [i, [name, bytes, mime]] of cases.entries()) {
      const r = await cliInProcess(['--provider', 'anthropic', '--base-url', server.url, '--model', 'claude-sonnet-4-6', `read ${name}`], { cwd });
      expect(r.code).toBe(0);
      expect(toolResultImages('anthropic', server.requests[i * 2 + 1].body)).toEqual([{ mime, data: bytes.toString('base64') }]);
    }
  });
});

describe.each(DIALECTS)('images attached to the prompt ($dialect)', ({ dialect, vision, answer, args }) => {
  it('@shot.png in the prompt and --image FILE go in the first user message after its text, which is kept as it is', async () => {
    const shot = await picture(30, 20);
    const other = await picture(10, 10, 'image/jpeg');
    const server = await serve([{ body: answer }]);
    const cwd = workspace({ 'shot.png': shot });
    const outside = join(tempDir(), 'other.jpg');
    writeFileSync(outside, other);
    const prompt = 'compare @shot.png with this one; @missing.png and @notes stay text';
    const r = await cliInProcess([...args(server.url), '--model', vision, '--image', outside, prompt], { cwd });
    expect(r.stderr).not.toMatch(/error|warning|deprecated/i);
    expect(r.code).toBe(0);
    const user = server.requests[0].body.messages.at(-1);
    expect(user.role).toBe('user');
    const parts = user.content.map((p: Body) =>
      p.type === 'text' ? { text: p.text } : p.type === 'image' ? { mime: p.source.media_type, data: p.source.data } : { mime: /^data:([^;]+)/.exec(p.image_url.url)![1], data: p.image_url.url.split(',')[1] },
    );
    expect(parts).toEqual([{ text: prompt }, { mime: 'image/jpeg', data: other.toString('base64') }, { mime: 'image/png', data: shot.toString('base64') }]);
    if (dialect === 'openai') expect(user.content[1].type).toBe('image_url');
  });

  it('--image with a file that is not an image is a usage error naming it; nothing is sent', async () => {
    const server = await serve([{ body: answer }]);
    const cwd = workspace({ 'notes.md': Buffer.from('hello\n') });
    const r = await cliInProcess([...args(server.url), '--model', vision, '--image', 'notes.md', 'look'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('notes.md is not a PNG, JPEG, GIF or WebP image (by its first bytes)');
    expect(server.requests).toHaveLength(0);
  });
});

describe('an attachment to a model without vision', () => {
  it('is stored as an image and sent as a note saying what it was', async () => {
    const shot = await picture(64, 48);
    const server = await serve([{ body: anthropicAnswer }]);
    const cwd = workspace({ 'shot.png': shot });
    const session = join(cwd, 's.jsonl');
    const r = await cliInProcess(['--provider', 'anthropic', '--base-url', server.url, '--model', 'test-model', '--session', session, 'what is @shot.png?'], { cwd });
    expect(r.code).toBe(0);
    // The last block carries the prompt cache's marker; what is compared is the content.
    const content = server.requests[0].body.messages.at(-1).content.map(({ cache_control: _, ...block }: Record<string, unknown>) => block);
    expect(content).toEqual([
      { type: 'text', text: 'what is @shot.png?' },
      { type: 'text', text: expect.stringMatching(/^\[image: 64×48 PNG, \d+ B — this model does not take images\]$/) },
    ]);
    const stored = readFileSync(session, 'utf8');
    expect(stored).toContain(shot.toString('base64'));
  });
});

describe('jimp loads only when an image needs scaling', () => {
  it('its code is in a chunk of its own that every other file reaches only by a dynamic import', () => {
    const dist = fileURLToPath(new URL('../dist/', import.meta.url));
    const files = [
      ...readdirSync(dist).filter((f) => f.endsWith('.mjs')),
      ...readdirSync(join(dist, 'chunks'))
        .filter((f) => f.endsWith('.mjs'))
        .map((f) => `chunks/${f}`),
    ];
    const jimp = files.filter((f) => readFileSync(join(dist, f), 'utf8').includes('image/x-ms-bmp')); // a media type only jimp's codecs name
    expect(jimp).toHaveLength(1);
    const name = jimp[0].replace('chunks/', '');
    for (const f of files) {
      if (f === jimp[0]) continue;
      const code = readFileSync(join(dist, f), 'utf8');
      expect(code, f).not.toMatch(new RegExp(`(^|[;\\n])\\s*import\\s*(?:[\\w*{}\\s,$]+from\\s*)?["'][^"']*${name.replace('.', '\\.')}["']`));
    }
    expect(files.some((f) => readFileSync(join(dist, f), 'utf8').includes(`import("./${name}")`))).toBe(true);
  });
});
