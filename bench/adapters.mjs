// Adapter benchmarks: overhead against the raw SDK on the same in-memory stream, and
// linear growth of tool-call argument accumulation. Imported by bench/run.mjs.
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { median } from './lib.mjs';

const CHUNK = 64 * 1024;

/** A fetch that serves `body` from memory in 64 KB pieces, as a socket would. */
function memoryFetch(body) {
  const buf = Buffer.from(body, 'utf8');
  return async () =>
    new Response(
      new ReadableStream({
        start(controller) {
          for (let i = 0; i < buf.length; i += CHUNK) controller.enqueue(new Uint8Array(buf.subarray(i, i + CHUNK)));
          controller.close();
        },
      }),
      { status: 200, headers: { 'content-type': 'text/event-stream' } },
    );
}

function openaiTextStream(deltas) {
  const head = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":';
  let out = '';
  for (let i = 0; i < deltas; i++) out += `data: ${head}${JSON.stringify(`w${i % 10} `)}},"finish_reason":null}]}\n\n`;
  out += 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n';
  out += 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}\n\ndata: [DONE]\n\n';
  return out;
}

function openaiToolStream(argBytes, fragments) {
  const args = JSON.stringify({ text: 'x'.repeat(argBytes - 12) });
  const size = Math.ceil(args.length / fragments);
  const pre = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,';
  let out = `data: ${pre}"id":"call_1","type":"function","function":{"name":"write_note","arguments":""}}]},"finish_reason":null}]}\n\n`;
  for (let i = 0; i < args.length; i += size) {
    out += `data: ${pre}"function":{"arguments":${JSON.stringify(args.slice(i, i + size))}}}]},"finish_reason":null}]}\n\n`;
  }
  out += 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n';
  return out;
}

function anthropicTextStream(deltas) {
  const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  let out = ev('message_start', { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } });
  out += ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  for (let i = 0; i < deltas; i++) out += ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `w${i % 10} ` } });
  out += ev('content_block_stop', { type: 'content_block_stop', index: 0 });
  out += ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: deltas } });
  out += ev('message_stop', { type: 'message_stop' });
  return out;
}

const cfg = (provider) => ({ provider, model: 'm', baseUrl: provider === 'anthropic' ? 'http://bench.invalid' : 'http://bench.invalid/v1', apiKey: 'k', maxOutputTokens: 1024, pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } });
const request = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], systemPrompt: 'sys' };

async function drainAdapter(adapter) {
  let n = 0;
  let last;
  for await (const e of adapter.stream(request)) {
    n++;
    last = e;
  }
  if (last.type !== 'done') throw new Error(`adapter ended with ${last.type}: ${JSON.stringify(last.error)}`);
  return { n, message: last.message };
}

/** Median times of a and b, measured alternately (after a warm-up), so drift hits both alike. */
async function paired(a, b, runs) {
  await a();
  await b();
  const ta = [];
  const tb = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await a();
    ta.push(performance.now() - t);
    t = performance.now();
    await b();
    tb.push(performance.now() - t);
  }
  return [median(ta), median(tb)];
}

/** Bytes allocated while fn runs (sampling heap profiler, counting objects the GC already collected). */
async function allocated(fn) {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await fn();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  let total = 0;
  const walk = (node) => {
    total += node.selfSize;
    for (const c of node.children) walk(c);
  };
  walk(profile.head);
  return total;
}

/**
 * Each measurement runs in a fresh child process (`node bench/adapters.mjs NAME`), so the
 * heap left by one benchmark does not tax the next.
 */
export async function adapterBenchmarks(_lib, report, fmtBytes) {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const child = (name) => {
    const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), name], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`adapter benchmark ${name} failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop());
  };
  const oa = child('openai-overhead');
  report('adapter overhead: OpenAI, 100,000 deltas', oa.adapter, 'raw SDK', oa.raw, '≤ 1.2×', oa.adapter / oa.raw <= 1.2);
  const an = child('anthropic-overhead');
  report('adapter overhead: Anthropic, 100,000 deltas', an.adapter, 'raw SDK', an.raw, '≤ 1.2×', an.adapter / an.raw <= 1.2);
  const measured = [child('args-1'), child('args-4')];
  for (const m of measured) {
    report(`tool-call arguments: ${m.label}`, m.time, 'raw SDK', m.floor, '—', true);
    console.log(`${''.padEnd(44)}   allocated ${fmtBytes(m.bytes).padStart(9)}   raw SDK ${fmtBytes(m.rawBytes).padStart(9)}   ratio ${(m.bytes / m.rawBytes).toFixed(2)}×`);
  }
  const [small, big] = measured;
  const timeGrowth = big.time / small.time;
  const allocGrowth = big.bytes / small.bytes;
  console.log(`${'  4 MB ÷ 1 MB: time'.padEnd(44)} ${timeGrowth.toFixed(2)}×, allocations ${allocGrowth.toFixed(2)}× (linear ≈ 4×, quadratic ≈ 16×)  ${timeGrowth < 6 && allocGrowth < 6 ? 'ok' : 'MISSED'}`);
  return { linear: timeGrowth < 6 && allocGrowth < 6 };
}

async function measure(name, lib) {
  const { default: OpenAI } = await import('openai');
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  const runs = Number(process.env.BENCH_ADAPTER_RUNS ?? 5);

  // Both sides use the same copy of each SDK, so the ratio is the adapter's own cost.
  const openaiSdk = async () => ({ OpenAI, default: OpenAI });
  const anthropicSdk = async () => ({ default: Anthropic });

  // ---- overhead: 100,000 deltas, adapter vs raw SDK iteration ----
  const oaBody = name === 'openai-overhead' ? openaiTextStream(100_000) : '';
  const rawOpenAI = async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: 'http://bench.invalid/v1', fetch: memoryFetch(oaBody), maxRetries: 0, logLevel: 'off' });
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let n = 0;
    for await (const _c of stream) n++;
    return n;
  };
  const viaOpenAI = () => drainAdapter(lib.createOpenAIAdapter(cfg('openai-compatible'), { fetch: memoryFetch(oaBody), loadSdk: openaiSdk }));
  if (name === 'openai-overhead') {
    const [raw, adapter] = await paired(rawOpenAI, viaOpenAI, runs);
    return { raw, adapter };
  }

  const anBody = name === 'anthropic-overhead' ? anthropicTextStream(100_000) : '';
  const rawAnthropic = async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: 'http://bench.invalid', fetch: memoryFetch(anBody), maxRetries: 0, logLevel: 'off' });
    const stream = await client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], stream: true });
    let n = 0;
    for await (const _e of stream) n++;
    return n;
  };
  const viaAnthropic = () => drainAdapter(lib.createAnthropicAdapter(cfg('anthropic'), { fetch: memoryFetch(anBody), loadSdk: anthropicSdk }));
  if (name === 'anthropic-overhead') {
    const [raw, adapter] = await paired(rawAnthropic, viaAnthropic, runs * 2);
    return { raw, adapter };
  }

  // ---- linear growth: a 1 MB vs a 4 MB tool-call argument ----
  const s = name === 'args-1' ? { label: '1 MB / 10,000 fragments', bytes: 1 << 20, fragments: 10_000 } : { label: '4 MB / 40,000 fragments', bytes: 4 << 20, fragments: 40_000 };
  const body = openaiToolStream(s.bytes, s.fragments);
  const run = async () => {
    const { message } = await drainAdapter(lib.createOpenAIAdapter(cfg('openai-compatible'), { fetch: memoryFetch(body), loadSdk: openaiSdk }));
    const call = message.content.find((c) => c.type === 'toolCall');
    if (!call || call.argumentsError || call.arguments.text.length !== s.bytes - 12) throw new Error('bad tool call');
  };
  const raw = async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: 'http://bench.invalid/v1', fetch: memoryFetch(body), maxRetries: 0, logLevel: 'off' });
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const _c of stream);
  };
  const [floor, time] = await paired(raw, run, runs);
  const bytes = await allocated(run);
  const rawBytes = await allocated(raw);
  return { ...s, time, floor, bytes, rawBytes };
}

if (process.argv[2]) {
  const { fileURLToPath } = await import('node:url');
  const lib = await import(fileURLToPath(new URL('../dist/index.mjs', import.meta.url)));
  console.log(JSON.stringify(await measure(process.argv[2], lib)));
}
