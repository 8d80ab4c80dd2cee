// Issue 23 §5, a lean request: what a run sends before the model has said anything. The `read1`
// case is one prompt ("read a.txt") through the built CLI, default tools and system prompt, against
// a local fake OpenAI-compatible server that records the requests: the model reads a.txt, then
// answers. Shown: the first request's bytes, and of those the tool definitions' and the system
// prompt's, next to the target (8 KB; it was 13.7 KB). Bytes, not time: measured once.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { isMain, runAlone } from './lib.mjs';

const TARGET = 8 * 1024;

const chunk = (delta, finish = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const sse = (chunks) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
const readCall = sse([chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] }), chunk({}, 'tool_calls')]);
const answer = sse([chunk({ role: 'assistant', content: 'It says hello.' }), chunk({}, 'stop')]);

/** A fake OpenAI-compatible server: a read_file call, then the answer; `bodies` gets each request's raw text. */
async function recordingServer() {
  const bodies = [];
  const server = createServer((req, res) => {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(parts).toString('utf8'));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(bodies.length === 1 ? readCall : answer);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { bodies, url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((r) => server.close(() => r())) };
}

/** The parts of one Chat Completions request body (its raw text), in bytes. */
export function requestParts(raw) {
  const body = JSON.parse(raw);
  const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
  return { total: Buffer.byteLength(raw), tools: Buffer.byteLength(JSON.stringify(body.tools ?? [])), system: Buffer.byteLength(system), toolCount: body.tools?.length ?? 0 };
}

/** Runs the `read1` case; returns the raw bodies of its requests. */
async function read1({ root, work }) {
  const bin = join(root, 'bin', 'mini-agent');
  if (!existsSync(join(root, 'dist', 'cli.mjs'))) throw new Error('bench/request-size.mjs runs the built CLI: run "npm run build" first');
  const cwd = join(work, 'rs-repo');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'a.txt'), 'hello from a.txt\n');
  const server = await recordingServer();
  try {
    const args = [bin, '--no-session', '--provider', 'openai-compatible', '--base-url', server.url, '--model', 'm', 'read a.txt'];
    const env = { ...process.env, MINI_AGENT_HOME: join(work, 'rs-home'), OPENAI_API_KEY: 'x' };
    const code = await new Promise((resolve, reject) => spawn(process.execPath, args, { cwd, env, stdio: 'ignore' }).on('error', reject).on('close', resolve));
    if (code !== 0 || server.bodies.length !== 2) throw new Error(`read1: mini-agent exited ${code} after ${server.bodies.length} requests (expected 0 after 2)`);
    return server.bodies;
  } finally {
    await server.close();
  }
}

export async function requestSizeBenchmarks({ root, work, report }) {
  const [first, second] = await read1({ root, work });
  const p = requestParts(first);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`.padStart(8);
  const pass = p.total <= TARGET;
  console.log(
    `${'read1: first request (bytes)'.padEnd(44)} ${kb(p.total)}   tool definitions ${kb(p.tools)} (${p.toolCount} tools)   system prompt ${kb(p.system)}   ` + `target ≤ ${kb(TARGET).trim()} (was 13.7 KB)  ${pass ? 'ok' : 'MISSED'}`,
  );
  console.log(`  read1 in bytes: first request ${p.total} (tools ${p.tools}, system prompt ${p.system}); second request, with the tool result, ${Buffer.byteLength(second)}`);
  report.record?.('read1: first request ≤ 8 KB', pass);
  return p;
}

if (isMain(import.meta.url)) await runAlone('request-size', requestSizeBenchmarks, { summary: true });
