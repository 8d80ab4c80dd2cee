// Issue 14's "overlap" lever, where it pays: a provider that is not on this machine. The fake
// OpenAI-compatible server of bench/first-turn.mjs speaks HTTPS (the tests' certificate, trusted
// through NODE_EXTRA_CA_CERTS) behind a proxy that delays every byte by half a round trip each
// way, and holds what the client sends in its first round trip as a TCP handshake would: so
// opening a connection costs two round trips (TCP, then TLS 1.3) and each request one, as against
// a real provider BENCH_RTT_MS away (default 20 ms, a provider's nearby edge).
//
// Three agents do the same one-tool-turn run: mini-agent (its transport opens the connection as
// the run starts, so the handshakes overlap with the agent's own start-up); mini-agent with
// MINI_AGENT_TRANSPORT=fetch (Node's fetch, which connects when the first request is sent: how
// mini-agent worked before); and the minimal fetch agent of first-turn.mjs, the floor.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ANSWER, CERT_FILE, FLOOR_AGENT, phaseMedians, phaseTable, runOnce, startFakeOpenAI } from './first-turn.mjs';
import { isMain, median, runAlone } from './lib.mjs';

/**
 * A TCP proxy to 127.0.0.1:`port` that delivers each chunk `rttMs / 2` after it was sent, in
 * order, each way; what the client sends within `rttMs` of connecting waits until then first (the
 * SYN, SYN-ACK round trip a loopback connect does not have).
 */
async function startLatencyProxy(port, rttMs) {
  const half = rttMs / 2;
  const sockets = new Set();
  /** Writes `data` to `to` at `at` (performance.now() time), after everything queued before it. */
  const delayed = (to) => {
    const queue = [];
    // biome-ignore lint/correctness/noUnusedVariables: read by `timer ??=` below
    let timer;
    const flush = () => {
      timer = undefined;
      while (queue.length && queue[0].at <= performance.now() + 0.1) {
        const { data } = queue.shift();
        if (data === null) to.end();
        else if (!to.destroyed) to.write(data);
      }
      if (queue.length) timer = setTimeout(flush, queue[0].at - performance.now());
    };
    return (data, at) => {
      queue.push({ data, at: Math.max(at, queue.at(-1)?.at ?? 0) });
      timer ??= setTimeout(flush, Math.max(0, queue[0].at - performance.now()));
    };
  };
  const server = createServer((client) => {
    const opened = performance.now();
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) s.setNoDelay(true), sockets.add(s), s.on('close', () => sockets.delete(s));
    const toUpstream = delayed(upstream);
    const toClient = delayed(client);
    client.on('data', (d) => toUpstream(d, Math.max(performance.now(), opened + rttMs) + half));
    upstream.on('data', (d) => toClient(d, performance.now() + half));
    client.on('end', () => toUpstream(null, performance.now() + half));
    upstream.on('end', () => toClient(null, performance.now() + half));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => setTimeout(() => client.destroy(), half));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: server.address().port,
    close: () => new Promise((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

export async function remoteTurnBenchmarks({ root, work, report }) {
  const bin = join(root, 'bin', 'mini-agent');
  const n = Number(process.env.BENCH_SPAWNS ?? 15);
  const rtt = Number(process.env.BENCH_RTT_MS ?? 20);
  const warm = 2;
  const cwd = join(work, 'rt-repo');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'a.txt'), 'hello from a.txt\n');
  const agentFile = join(work, 'rt-floor-agent.mjs');
  writeFileSync(agentFile, FLOOR_AGENT);
  const timings = join(work, 'rt-timings.jsonl');
  const env = { ...process.env, MINI_AGENT_HOME: join(work, 'rt-home'), MINI_AGENT_TIMINGS: timings, NODE_EXTRA_CA_CERTS: CERT_FILE };
  const server = await startFakeOpenAI({ tls: true });
  const proxy = await startLatencyProxy(server.port, rtt);
  const url = `https://127.0.0.1:${proxy.port}/v1`;
  const ours = (extra) => () => runOnce(server, [bin, '--provider', 'openai-compatible', '--base-url', url, '--api-key', 'x', '--model', 'm', 'read a.txt'], { cwd, env: { ...env, ...extra }, timings, expect: ANSWER });
  const floor = () => runOnce(server, [agentFile, url, join(work, 'rt-sessions'), 'fetch', 'read a.txt'], { cwd, env, timings, expect: ANSWER });
  const agents = [
    ['mini-agent', ours({})],
    ['Node fetch', ours({ MINI_AGENT_TRANSPORT: 'fetch' })],
    ['fetch agent', floor],
  ];
  try {
    server.toolTurns = 1;
    const runs = agents.map(() => []);
    for (let i = 0; i < warm + n; i++) {
      for (const [k, [, run]] of agents.entries()) {
        const r = await run();
        if (r.arrivals.length !== 2) throw new Error(`expected 2 requests, got ${r.arrivals.length}`);
        if (i >= warm) runs[k].push(r);
      }
    }
    const wall = (rs) => median(rs.map((r) => r.wall));
    const [a, f, b] = runs;
    console.log(`  a provider ${rtt} ms away over TLS (a connection: ${2 * rtt} ms, each request: ${rtt} ms)`);
    // The target: opening the connection ahead must pay for all the agent does beyond the floor.
    report(`one tool turn, provider ${rtt} ms away (wall)`, wall(a), 'fetch agent', wall(b), '≤ 1.00×', wall(a) / wall(b) <= 1);
    const conns = (rs) => median(rs.map((r) => r.connections));
    console.log(`  mini-agent on Node's fetch (connects at its first request): ${wall(f).toFixed(1)} ms (mini-agent ${(wall(a) / wall(f)).toFixed(2)}× that)`);
    console.log(`  connections per run (median): mini-agent ${conns(a)}, on Node's fetch ${conns(f)}, fetch agent ${conns(b)}`);
    console.log(
      '\n' +
        phaseTable(
          agents.map(([name], k) => [name, phaseMedians(runs[k])]),
          undefined,
        ) +
        '\n',
    );
  } finally {
    await proxy.close();
    await server.close();
  }
}

if (isMain(import.meta.url)) await runAlone('remote-turn', remoteTurnBenchmarks, { summary: true });
