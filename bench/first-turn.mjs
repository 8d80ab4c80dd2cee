// The start-up breakdown of issue 14 ("measure first"): where a one-shot print-mode run spends its
// time, from process start to exit, next to a floor measured in the same run on the same machine:
// a minimal fetch-based agent (FLOOR_AGENT below, ~90 lines) doing the same work against the same
// local fake OpenAI-compatible server: streamed requests, read_file, a JSONL session file fsynced
// at each turn's end. Also `node -e 0` (Node's own start and exit), and, without a target, the same
// minimal agent on node:http instead of fetch (what Node's fetch itself costs).
//
// mini-agent runs with MINI_AGENT_TIMINGS (src/core/timings.ts) and so does the minimal agent (its
// own marks, same names); the server notes when each request's headers arrive. Every time below is
// put on this process's clock as ms since spawn() was called, so the columns compare directly.
// Figures: one tool turn (wall), spawn → first request byte, and 20 tool turns + the answer; then a
// phase table of the one-turn run and a per-step table of a tool turn once running.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isMain, median, ROOT, runAlone } from './lib.mjs';

/** The certificate the TLS servers of the benchmarks use (the tests' one: self-signed, for 127.0.0.1). */
export const CERT_FILE = join(ROOT, 'test/fixtures/tls/localhost.crt');

/**
 * The floor: what any agent must do for this task, with nothing else. Arguments: base URL, the
 * sessions folder, the transport ('fetch' or 'http'), the prompt. It marks the same phases as
 * src/core/timings.ts where they exist, and writes them the same way.
 */
export const FLOOR_AGENT = String.raw`
import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { join } from 'node:path';
const marks = {};
const mark = (k) => { marks[k] = performance.now(); };
mark('main');
const timings = process.env.MINI_AGENT_TIMINGS;
if (timings) process.once('exit', () => { mark('exit'); appendFileSync(timings, JSON.stringify({ ...marks, origin: performance.timeOrigin }) + '\n'); });
const [baseUrl, sessions, transport, prompt] = process.argv.slice(2);
const post = async (url, body) => {
  const headers = { 'content-type': 'application/json', authorization: 'Bearer x' };
  if (transport === 'fetch') {
    const res = await fetch(url, { method: 'POST', headers, body });
    return { status: res.status, body: res.body };
  }
  const res = await new Promise((resolve, reject) => request(url, { method: 'POST', headers }, resolve).on('error', reject).end(body));
  return { status: res.statusCode, body: res };
};
mkdirSync(sessions, { recursive: true, mode: 0o700 });
const fd = openSync(join(sessions, new Date().toISOString().replace(/[:.]/g, '-') + '_' + randomUUID() + '.jsonl'), 'a', 0o600);
let parentId = null;
const log = (entry) => {
  const id = randomUUID().slice(0, 8);
  appendFileSync(fd, JSON.stringify({ ...entry, id, parentId, timestamp: new Date().toISOString() }) + '\n');
  parentId = id;
};
log({ type: 'session', version: 1, cwd: process.cwd() });
const tools = [{ type: 'function', function: { name: 'read_file', description: 'Read a text file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }];
const messages = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: prompt }];
log({ type: 'message', message: messages[1] });
for (let turn = 1; ; turn++) {
  mark('request' + turn);
  const res = await post(baseUrl + '/chat/completions', JSON.stringify({ model: 'm', messages, tools, stream: true, stream_options: { include_usage: true } }));
  if (res.status !== 200) throw new Error('HTTP ' + res.status);
  let text = '';
  const calls = [];
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const bytes of res.body) {
    buffer += decoder.decode(bytes, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
        const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta;
        if (delta?.content) text += delta.content;
        for (const tc of delta?.tool_calls ?? []) {
          const call = (calls[tc.index] ??= { id: '', name: '', args: '' });
          if (tc.id) call.id = tc.id;
          if (tc.function?.name) call.name = tc.function.name;
          if (tc.function?.arguments) call.args += tc.function.arguments;
        }
      }
    }
  }
  mark('response' + turn + '_done');
  const assistant = { role: 'assistant', content: text || null };
  if (calls.length) assistant.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
  messages.push(assistant);
  log({ type: 'message', message: assistant });
  if (calls.length === 0) {
    fsyncSync(fd);
    process.stdout.write(text + '\n');
    break;
  }
  for (const call of calls) {
    let content;
    try {
      content = readFileSync(JSON.parse(call.args).path, 'utf8');
    } catch (err) {
      content = 'error: ' + err.message;
    }
    const result = { role: 'tool', tool_call_id: call.id, content };
    messages.push(result);
    log({ type: 'message', message: result });
  }
  mark('tool' + turn + '_done');
  fsyncSync(fd);
  mark('turn' + turn + '_end');
}
closeSync(fd);
mark('done');
`;

export const ANSWER = 'The file says hello.';

/** One Chat Completions stream chunk, as the OpenAI API sends it. */
function chunk(delta, finish = null) {
  return { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] };
}

function sseBody(chunks) {
  const usage = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm', choices: [], usage: { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 } };
  return [...chunks, usage].map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
}

/** The Nth tool turn's reply (N from 0): read a.txt first, then f1.txt, f2.txt... (distinct calls: the loop guard stays quiet). */
function toolReply(n) {
  const path = n === 0 ? 'a.txt' : `f${n}.txt`;
  return sseBody([
    chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name: 'read_file', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ path }) } }] }),
    chunk({}, 'tool_calls'),
  ]);
}

const answerReply = sseBody([chunk({ role: 'assistant', content: '' }), chunk({ content: ANSWER }), chunk({}, 'stop')]);

/**
 * The fake model: answers with `toolTurns` read_file calls (counted from the tool results the
 * request carries), then with ANSWER. `arrivals` gets, for each request, the time its headers
 * arrived (the 'request' event: the first packet), on this process's performance clock.
 */
export async function startFakeOpenAI({ tls } = {}) {
  const state = { toolTurns: 1, arrivals: [], connections: 0, connectedAt: [], url: '', port: 0, close: async () => undefined };
  const sockets = new Set();
  const handle = (req, res) => {
    const at = performance.now();
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      state.arrivals.push(at);
      let body;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        body = undefined;
      }
      if (req.url !== '/v1/chat/completions' || body?.stream !== true) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `unexpected request ${req.method} ${req.url}` } }));
        return;
      }
      const done = body.messages.filter((m) => m.role === 'tool').length;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(done < state.toolTurns ? toolReply(done) : answerReply);
    });
  };
  // With `tls`: HTTPS with the test certificate (test/fixtures/tls; clients trust it through NODE_EXTRA_CA_CERTS).
  const server = tls ? createHttpsServer({ key: readFileSync(join(ROOT, 'test/fixtures/tls/localhost.key')), cert: readFileSync(CERT_FILE) }, handle) : createServer(handle);
  server.on('connection', (s) => (state.connections++, state.connectedAt.push(performance.now()), sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  state.port = server.address().port;
  state.url = `${tls ? 'https' : 'http'}://127.0.0.1:${state.port}/v1`;
  state.close = () => new Promise((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r())));
  return state;
}

/**
 * Runs `node ARGS` once and waits for it to end. Returns, in ms since spawn() was called: its
 * wall time (to the 'exit' event), the arrival of each request it made, and its timing marks
 * (when `timings` is given) moved onto this clock through their `origin`.
 */
export function runOnce(server, args, { cwd, env, timings, expect }) {
  if (timings) rmSync(timings, { force: true });
  server.arrivals = [];
  server.connections = 0;
  server.connectedAt = [];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let exitAt = 0;
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('exit', () => (exitAt = performance.now()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || (expect && !out.includes(expect))) return reject(new Error(`node ${args.join(' ')} exited ${code}\nstdout: ${out}\nstderr: ${err}`));
      const run = { wall: exitAt - t0, arrivals: server.arrivals.map((a) => a - t0), connections: server.connections, connectedAt: server.connectedAt.map((a) => a - t0), marks: {} };
      if (timings) {
        const line = readFileSync(timings, 'utf8').trim().split('\n').pop();
        const { origin, ...marks } = JSON.parse(line);
        const shift = origin - (performance.timeOrigin + t0); // the child's start, in ms since spawn()
        run.marks.start = shift;
        for (const [k, v] of Object.entries(marks)) run.marks[k] = v + shift;
      }
      resolve(run);
    });
  });
}

/** Medians of each key over runs' marks, plus the server's arrivals as `requestN byte` and its first accepted connection. */
export function phaseMedians(runs) {
  const keys = new Map();
  for (const r of runs) {
    const all = { ...r.marks, exit_seen: r.wall };
    r.arrivals.forEach((a, i) => (all[`request${i + 1} byte`] = a));
    if (r.connectedAt?.length) all.connection = r.connectedAt[0];
    for (const [k, v] of Object.entries(all)) (keys.get(k) ?? keys.set(k, []).get(k)).push(v);
  }
  return new Map([...keys].map(([k, xs]) => [k, median(xs)]));
}

const LABELS = {
  start: 'process start (Node begins)',
  connection: 'connection accepted (server)',
  exit_seen: 'exit (seen by the parent)',
};

/**
 * Where a tool turn's time goes once the agent is running, over turns 2..20 of the 21-turn run:
 * requestN mark → its first byte at the server → responseN_done → toolN_done → turnN_end (fsynced)
 * → request N+1. Medians over the turns of a run, then over the runs.
 */
function turnSteps(runs) {
  const steps = [[], [], [], [], []];
  for (const r of runs) {
    const m = r.marks;
    const per = [[], [], [], [], []];
    for (let k = 2; k <= 20; k++) {
      const points = [m[`request${k}`], r.arrivals[k - 1], m[`response${k}_done`], m[`tool${k}_done`], m[`turn${k}_end`], m[`request${k + 1}`]];
      for (let i = 0; i < 5; i++) per[i].push(points[i + 1] - points[i]);
    }
    per.forEach((xs, i) => steps[i].push(median(xs)));
  }
  return steps.map(median);
}

/**
 * The phase table for one tool turn: mini-agent's marks in time order, each floor's beside them
 * where it has the same point. `columns`: [name, Map(phase → median ms since spawn)], ours first.
 */
export function phaseTable(columns, node0) {
  const [[, ours]] = columns;
  const order = [...ours].sort((a, b) => a[1] - b[1]).map(([k]) => k);
  const num = (v, w = 9) => (v === undefined ? '' : v.toFixed(1)).padStart(w);
  const lines = [`${'phase (median ms since spawn)'.padEnd(30)}${columns.map(([name], i) => name.padStart(i ? 14 : 12) + 'Δ'.padStart(8) + (i ? 'gap'.padStart(8) : '')).join('')}`];
  const prev = columns.map(() => 0);
  for (const k of order) {
    let line = (LABELS[k] ?? k).padEnd(30);
    columns.forEach(([, m], i) => {
      const v = m.get(k);
      line += num(v, i ? 14 : 12) + num(v === undefined ? undefined : v - prev[i], 8) + (i ? num(v === undefined ? undefined : ours.get(k) - v, 8) : '');
      if (v !== undefined) prev[i] = v;
    });
    lines.push(line);
  }
  if (node0 !== undefined) lines.push(`${'node -e 0 (wall)'.padEnd(30)}${num(node0, 12)}`);
  lines.push("Δ: since the column's previous row; gap: mini-agent − that agent at the same point.");
  return lines.join('\n');
}

export async function firstTurnBenchmarks({ root, work, report }) {
  const bin = join(root, 'bin', 'mini-agent');
  if (!existsSync(join(root, 'dist', 'cli.mjs'))) throw new Error('bench/first-turn.mjs runs the built CLI: run "npm run build" first');
  const n = Number(process.env.BENCH_SPAWNS ?? 15);
  const warm = 2;
  const cwd = join(work, 'ft-repo');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'a.txt'), 'hello from a.txt\n');
  for (let i = 1; i < 20; i++) writeFileSync(join(cwd, `f${i}.txt`), `file ${i}\n`.repeat(20));
  const agentFile = join(work, 'floor-agent.mjs');
  writeFileSync(agentFile, FLOOR_AGENT);
  const timings = join(work, 'ft-timings.jsonl');
  const env = { ...process.env, MINI_AGENT_HOME: join(work, 'ft-home'), MINI_AGENT_TIMINGS: timings };
  const server = await startFakeOpenAI();
  const ours = (prompt) => runOnce(server, [bin, '--provider', 'openai-compatible', '--base-url', server.url, '--api-key', 'x', '--model', 'm', prompt], { cwd, env, timings, expect: ANSWER });
  const floor = (transport) => (prompt) => runOnce(server, [agentFile, server.url, join(work, `ft-${transport}-sessions`), transport, prompt], { cwd, env, timings, expect: ANSWER });
  // The floor the issue names is the fetch agent. The same agent on node:http is shown beside it
  // (no target): Node's fetch loads undici on the first request and, at exit, waits for V8 to
  // finish optimizing undici's WebAssembly HTTP parser; this column shows what that costs. On
  // Node 22 and 24, importing node:http loads undici too, so both floors pay it before `main`
  // (their "main" row is late) and mini-agent, which imports neither, pays it at its first request
  // (the SDK builds its headers with the global Headers, which is undici's; mini-agent's own
  // transport is node:http, reached through process.getBuiltinModule, which does not load undici).
  const fetchAgent = floor('fetch');
  const httpAgent = floor('http');
  const bare = () => runOnce(server, ['-e', '0'], { cwd, env: process.env });
  const requests = (runs, count) => {
    for (const r of runs) if (r?.arrivals && r.arrivals.length !== count) throw new Error(`expected ${count} requests per run, got ${r.arrivals.length}`);
  };

  try {
    // ---- One tool turn: read a.txt, answer. The runs alternate, so drift hits all alike. ----
    server.toolTurns = 1;
    const [a, b, h, c] = [[], [], [], []];
    for (let i = 0; i < warm + n; i++) {
      const runs = [await ours('read a.txt'), await fetchAgent('read a.txt'), await httpAgent('read a.txt')];
      requests(runs, 2);
      const nodeRun = await bare();
      if (i >= warm) a.push(runs[0]), b.push(runs[1]), h.push(runs[2]), c.push(nodeRun);
    }
    const wall = (runs) => median(runs.map((r) => r.wall));
    const firstByte = (runs) => median(runs.map((r) => r.arrivals[0]));
    const node0 = wall(c);
    report('one tool turn, session written (wall)', wall(a), 'fetch agent', wall(b), '≤ 1.05×', wall(a) / wall(b) <= 1.05);
    report('spawn → first request byte', firstByte(a), 'node -e 0', node0, '≤ +25 ms', firstByte(a) <= node0 + 25);
    console.log(`  first request byte, after node -e 0's wall: mini-agent +${(firstByte(a) - node0).toFixed(1)} ms, fetch agent +${(firstByte(b) - node0).toFixed(1)} ms, http agent +${(firstByte(h) - node0).toFixed(1)} ms`);
    console.log(`  wall: http agent ${wall(h).toFixed(1)} ms (mini-agent ${(wall(a) / wall(h)).toFixed(2)}× that)`);
    // Against a real provider each connection is a TCP and TLS handshake: one per run is the aim.
    const conns = (runs) => median(runs.map((r) => r.connections));
    console.log(`  connections per run (median): mini-agent ${conns(a)}, fetch agent ${conns(b)}, http agent ${conns(h)}`);
    console.log(
      '\n' +
        phaseTable(
          [
            ['mini-agent', phaseMedians(a)],
            ['fetch agent', phaseMedians(b)],
            ['http agent', phaseMedians(h)],
          ],
          node0,
        ) +
        '\n',
    );

    // ---- 20 tool turns + the answer ----
    server.toolTurns = 20;
    const [a21, b21, h21] = [[], [], []];
    for (let i = 0; i < warm + n; i++) {
      const runs = [await ours('read the files'), await fetchAgent('read the files'), await httpAgent('read the files')];
      requests(runs, 21);
      if (i >= warm) a21.push(runs[0]), b21.push(runs[1]), h21.push(runs[2]);
    }
    report('21 turns (20 tool turns + answer, wall)', wall(a21), 'fetch agent', wall(b21), '≤ 1.25×', wall(a21) / wall(b21) <= 1.25);
    // Once started: request N byte → request N+1 byte over turns 2..20 (the first includes start-up).
    const perTurn = (runs) => median(runs.map((r) => median(r.arrivals.slice(2).map((x, i) => x - r.arrivals[i + 1]))));
    const span = (runs) => median(runs.map((r) => r.arrivals[20] - r.arrivals[0]));
    console.log(`  per tool turn (request byte → next request byte, median): mini-agent ${perTurn(a21).toFixed(2)} ms, fetch agent ${perTurn(b21).toFixed(2)} ms, http agent ${perTurn(h21).toFixed(2)} ms`);
    console.log(`  connections per run (median): mini-agent ${conns(a21)}, fetch agent ${conns(b21)}, http agent ${conns(h21)}`);
    console.log(`  request 1 → request 21: mini-agent ${span(a21).toFixed(1)} ms, fetch agent ${span(b21).toFixed(1)} ms, http agent ${span(h21).toFixed(1)} ms; wall: http agent ${wall(h21).toFixed(1)} ms`);
    const steps = ['send→byte', '→resp. done', '→tool done', '→fsynced', '→next req.'];
    console.log(`  per tool turn, by step (turns 2–20, median ms)\n    ${''.padEnd(14)}${steps.map((h) => h.padStart(13)).join('')}`);
    for (const [name, runs] of [
      ['mini-agent', a21],
      ['fetch agent', b21],
      ['http agent', h21],
    ]) {
      console.log(
        `    ${name.padEnd(14)}${turnSteps(runs)
          .map((v) => v.toFixed(2).padStart(13))
          .join('')}`,
      );
    }
  } finally {
    await server.close();
  }
}

if (isMain(import.meta.url)) await runAlone('first-turn', firstTurnBenchmarks, { summary: true });
