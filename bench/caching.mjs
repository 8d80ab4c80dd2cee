// Prompt caching (issue 23): a 20-turn session (4 prompts of 4 read_file turns and an answer,
// about 30k tokens of context by the end) run by the real agent against local fake servers in
// both dialects. The servers log every request body and answer with usage computed from it by
// the billing model (src/model/billing.ts): Anthropic's published rules for the cache
// breakpoints the request carries, OpenAI's automatic prefix caching (1024-token minimum,
// 128-token steps), DeepSeek's (64-token units). The recorded requests are then priced, prompt
// side only, with and without caching, at the model table's prices. Figures: the share of prompt
// tokens billed at the cache-read rate from turn 2 on (goal on Anthropic: at least 85%), and the
// billed cost with and without caching, per provider.
// Imported by run.mjs; also runs alone after a build: node bench/caching.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleFromSrc, isMain, runAlone } from './lib.mjs';

const PROMPTS = 4;
const READS_PER_PROMPT = 4;
const FILE_BYTES = 6000;

/** A fake provider: `reply(body, index, bodies)` gives the SSE text of the answer to request `index`. */
async function fakeServer(reply) {
  const bodies = [];
  const server = createServer(async (req, res) => {
    const parts = [];
    for await (const c of req) parts.push(c);
    const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    bodies.push(body);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(reply(body, bodies.length - 1, bodies));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, bodies, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Request `index` of the session: a read_file call, or the answer that ends a prompt. */
function step(index) {
  const inPrompt = index % (READS_PER_PROMPT + 1);
  const file = `notes-${Math.floor(index / (READS_PER_PROMPT + 1))}-${inPrompt}.md`;
  return inPrompt < READS_PER_PROMPT ? { call: { id: `call_${index}`, path: file } } : { text: `Done with part ${Math.floor(index / (READS_PER_PROMPT + 1)) + 1}: the notes agree.` };
}

function anthropicReply(billing) {
  return (_body, index, bodies) => {
    const billed = billing.anthropicBilling(bodies.map(billing.anthropicBlocks)).at(-1);
    const s = step(index);
    const usage = {
      input_tokens: billed.input,
      cache_read_input_tokens: billed.cacheRead,
      cache_creation_input_tokens: billed.cacheWrite,
      cache_creation: { ephemeral_5m_input_tokens: billed.cacheWrite, ephemeral_1h_input_tokens: 0 },
      output_tokens: 1,
    };
    const events = [{ type: 'message_start', message: { id: `msg_${index}`, type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage } }];
    if (s.call) {
      events.push(
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: s.call.id, name: 'read_file', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ path: s.call.path }) } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } },
      );
    } else {
      events.push(
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: s.text } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } },
      );
    }
    events.push({ type: 'message_stop' });
    return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
  };
}

/** The prompt as an automatic cache sees it: tools, then the messages, in order. */
const openaiText = (body) => JSON.stringify(body.tools ?? []) + body.messages.map((m) => JSON.stringify(m)).join('');

function openaiReply(billing) {
  return (_body, index, bodies) => {
    const billed = billing.automaticBilling(bodies.map(openaiText)).at(-1);
    const s = step(index);
    const chunk = (delta, finish = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
    const chunks = s.call
      ? [chunk({ role: 'assistant', tool_calls: [{ index: 0, id: s.call.id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: s.call.path }) } }] }), chunk({}, 'tool_calls')]
      : [chunk({ role: 'assistant', content: s.text }), chunk({}, 'stop')];
    const prompt = billed.input + billed.cacheRead;
    chunks.push({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [],
      usage: { prompt_tokens: prompt, completion_tokens: 20, total_tokens: prompt + 20, prompt_tokens_details: { cached_tokens: billed.cacheRead } },
    });
    return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
  };
}

/** Runs the session through the agent against `server`; returns the agent's own usage totals. */
async function runSession(lib, work, name, options) {
  const cwd = join(work, name);
  mkdirSync(cwd, { recursive: true });
  const line = 'The caching notes: every request repeats the prefix, so the provider may bill it at its cache rate. ';
  for (let p = 0; p < PROMPTS; p++) for (let r = 0; r < READS_PER_PROMPT; r++) writeFileSync(join(cwd, `notes-${p}-${r}.md`), `# Notes ${p}.${r}\n` + line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES));
  const agent = await lib.createAgent({ cwd, home: join(work, `${name}-home`), env: {}, session: 'new', ...options });
  const settled = [];
  agent.subscribe?.((e) => e.type === 'run_settled' && settled.push(e));
  try {
    for (let p = 0; p < PROMPTS; p++) {
      const result = await agent.prompt(`Read notes-${p}-0.md to notes-${p}-${READS_PER_PROMPT - 1}.md and tell me whether they agree.`);
      if (result.stopReason !== 'completed') throw new Error(`caching bench (${name}): the run ended ${result.stopReason}: ${result.error?.message ?? ''}`);
    }
    return { usage: agent.session.stats().session.usage, settled };
  } finally {
    await agent.close();
  }
}

const pct = (x) => `${(x * 100).toFixed(1)}%`;
const usd = (x) => `$${x.toFixed(4)}`;

export async function cachingBenchmarks({ root, work, lib, report }) {
  if (!lib) throw new Error('the caching bench runs the built agent: npm run build first');
  const billing = await import(pathToFileURL(await bundleFromSrc({ root, work, name: 'billing', contents: "export * from './src/model/billing.ts';" })).href);
  const record = (name, pass) => report.record?.(name, pass);
  const lines = [];

  // ---- Anthropic: cache breakpoints, 5-minute retention ----
  const anthropic = await fakeServer(anthropicReply(billing));
  let anthropicOwn;
  try {
    anthropicOwn = await runSession(lib, work, 'anthropic', { provider: 'anthropic', baseUrl: anthropic.url, apiKey: 'bench', model: 'claude-sonnet-4-6' });
  } finally {
    await anthropic.close();
  }
  const aPricing = lib.modelInfo('claude-sonnet-4-6').pricing;
  const aBilled = billing.anthropicBilling(anthropic.bodies.map(billing.anthropicBlocks));
  const aShare = billing.readShare(aBilled.slice(1));
  const lastTokens = aBilled.at(-1).input + aBilled.at(-1).cacheRead + aBilled.at(-1).cacheWrite;
  const aWith = billing.promptCost(aBilled, aPricing);
  const aWithout = billing.uncachedCost(aBilled, aPricing);
  const goal = aShare >= 0.85;
  lines.push(`caching, anthropic claude-sonnet-4-6 (5m): ${aBilled.length} requests, the last ${lastTokens} prompt tokens; turns 2+: ${pct(aShare)} of prompt tokens at the cache-read rate   goal ≥ 85%  ${goal ? 'ok' : 'MISSED'}`);
  lines.push(
    `  billed prompt cost: ${usd(aWith)} with caching, ${usd(aWithout)} without (${(aWithout / aWith).toFixed(1)}× less); the agent's own count: ${anthropicOwn.usage.cacheRead} cache read, ${anthropicOwn.usage.cacheWrite} written, ${anthropicOwn.usage.input} input, ${usd(anthropicOwn.usage.cost)} with output`,
  );
  record('caching: anthropic cache-read share from turn 2 ≥ 85%', goal);

  // ---- OpenAI (and DeepSeek, same requests): automatic prefix caching ----
  const openai = await fakeServer(openaiReply(billing));
  try {
    await runSession(lib, work, 'openai', { provider: 'openai', baseUrl: `${openai.url}/v1`, apiKey: 'bench', model: 'gpt-4.1' });
  } finally {
    await openai.close();
  }
  const keys = new Set(openai.bodies.map((b) => b.prompt_cache_key));
  const texts = openai.bodies.map(openaiText);
  for (const [provider, model, rules] of [
    ['openai', 'gpt-4.1', { minTokens: 1024, increment: 128 }],
    ['deepseek', 'deepseek-chat', { minTokens: 64, increment: 64 }],
  ]) {
    const pricing = lib.modelInfo(model).pricing;
    const billed = billing.automaticBilling(texts, rules);
    const share = billing.readShare(billed.slice(1));
    const withCache = billing.promptCost(billed, pricing);
    const without = billing.uncachedCost(billed, pricing);
    lines.push(`caching, ${provider} ${model} (automatic, ${rules.minTokens}-token minimum, ${rules.increment}-token steps): turns 2+: ${pct(share)} of prompt tokens at the cache-read rate`);
    lines.push(`  billed prompt cost: ${usd(withCache)} with caching, ${usd(without)} without (${(without / withCache).toFixed(1)}× less)`);
    record(`caching: ${provider} billed less with caching`, withCache < without);
  }
  lines.push(`  openai requests carried prompt_cache_key: ${[...keys].map((k) => (k === undefined ? '(none)' : 'the session id')).join(', ')}`);
  for (const l of lines) console.log(l);
}

if (isMain(import.meta.url)) await runAlone('caching', cachingBenchmarks, { lib: true, summary: true });
