// Benchmarks of ACP mode (issue 13), each next to a floor measured in the same run:
// 1. process start → initialize → session/new → one scripted prompt answered, against a child
//    that answers the same three requests with an empty result at once (node start + pipes);
// 2. the cost of one session/update over our own event: the pure mapping plus its JSON, against
//    JSON.stringify of the event alone; and the same updates through the SDK's connection and
//    ndjson framing, as ACP mode sends them.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { bundleFromSrc, isMain, median, runAlone } from './lib.mjs';

/** Spawns `args`, sends the three requests one after the other, resolves with ms from spawn to the last answer. */
function startToAnswer(args, opts) {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { ...opts, stdio: ['pipe', 'pipe', 'inherit'] });
  const requests = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } },
    { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: opts.cwd, mcpServers: [] } },
    (sessionId) => ({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'hello' }] } }),
  ];
  return new Promise((resolve, reject) => {
    let buffer = '';
    let elapsed;
    const send = (m) => child.stdin.write(JSON.stringify(m) + '\n');
    child.stdout.setEncoding('utf8').on('data', (d) => {
      buffer += d;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const msg = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (msg.method) continue; // a session/update
        if (msg.error) return reject(new Error(`acp bench: ${JSON.stringify(msg.error)}`));
        if (msg.id === 1) send(requests[1]);
        else if (msg.id === 2) send(requests[2](msg.result?.sessionId ?? 's'));
        else if (msg.id === 3) {
          elapsed = performance.now() - t0;
          if (msg.result?.stopReason !== 'end_turn') return reject(new Error(`acp bench: ${JSON.stringify(msg.result)}`));
          child.stdin.end();
        }
      }
    });
    child.on('close', () => (elapsed === undefined ? reject(new Error('acp bench: the child exited before answering')) : resolve(elapsed)));
    send(requests[0]);
  });
}

const ECHO =
  "let b='';process.stdin.setEncoding('utf8').on('data',d=>{b+=d;let i;while((i=b.indexOf('\\n'))>=0){const m=JSON.parse(b.slice(0,i));b=b.slice(i+1);process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:m.id===3?{stopReason:'end_turn'}:{}})+'\\n')}})";

export async function acpBenchmarks({ root, work, report }) {
  // ---- 1. start → initialize → session/new → one scripted prompt ----
  {
    const script = join(work, 'acp-script.json');
    writeFileSync(script, JSON.stringify({ turns: Array.from({ length: 40 }, (_, i) => ({ text: `answer ${i}` })) }));
    const env = { ...process.env, MINI_AGENT_HOME: join(work, 'acp-home') };
    const acp = () => startToAnswer([join(root, 'bin', 'mini-agent'), '--acp', '--script', script], { cwd: work, env });
    const echo = () => startToAnswer(['-e', ECHO], { cwd: work });
    await acp(), await echo(); // warm the file cache
    const times = [];
    const floors = [];
    for (let i = 0; i < 11; i++) {
      floors.push(await echo());
      times.push(await acp());
    }
    const value = median(times);
    report('ACP start → initialize → new → prompt (median of 11)', value, 'node ndjson echo', median(floors), '< 150 ms', value < 150);
  }

  // ---- 2. one session/update over our own event ----
  {
    const contents = ["export { eventToUpdate } from './src/acp/updates.ts';", "export { agent, ndJsonStream } from '@agentclientprotocol/sdk';"];
    const mod = await import(pathToFileURL(await bundleFromSrc({ root, work, name: 'acp-api', contents })).href);
    const N = 100_000;
    const BATCH = 1000;
    const events = Array.from({ length: N }, (_, i) => ({ type: 'text_delta', turn: 1, delta: `token ${i} `, schemaVersion: 3, seq: i, time: 1_700_000_000_000 + i }));
    const sessionId = '0b9f5a3e-8d1c-4d7e-9a52-1f0c3e6b7a21';
    const cwd = work;
    let sink = 0;
    /** Median µs per item over batches of BATCH items (after one untimed pass). */
    const perItem = (fn) => {
      for (let i = 0; i < N; i++) sink += fn(events[i]).length;
      const per = [];
      for (let start = 0; start < N; start += BATCH) {
        const t = performance.now();
        for (let i = start; i < start + BATCH; i++) sink += fn(events[i]).length;
        per.push(((performance.now() - t) * 1000) / BATCH);
      }
      return median(per);
    };
    const floor = perItem((e) => JSON.stringify(e));
    const value = perItem((e) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: mod.eventToUpdate(e, cwd) } }));
    if (sink === 0) throw new Error('acp bench: nothing serialized');
    const us = (x) => x / 1000; // report() takes ms
    report('ACP session/update: mapping + JSON, per delta', us(value), 'JSON of our event', us(floor), '< 50 µs', value < 50);

    // The same through the SDK (its connection, write queue and ndjson framing) into a sink.
    let bytes = 0;
    const output = new WritableStream({ write: (chunk) => void (bytes += chunk.length) });
    const input = new ReadableStream({ start() {} }); // the client never speaks: only our updates flow
    const conn = mod.agent({ name: 'bench' }).connect(mod.ndJsonStream(output, input));
    const t = performance.now();
    let last;
    for (let i = 0; i < N; i++) last = conn.client.notify('session/update', { sessionId, update: mod.eventToUpdate(events[i], cwd) });
    await last;
    const through = ((performance.now() - t) * 1000) / N;
    conn.close();
    if (bytes === 0) throw new Error('acp bench: nothing written');
    report('ACP session/update through the SDK, per delta (mean)', us(through), 'JSON of our event', us(floor), '< 50 µs', through < 50);
  }
}

if (isMain(import.meta.url)) await runAlone('acp', acpBenchmarks, { summary: true });
