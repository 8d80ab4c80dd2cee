// Compaction benchmarks: planning a compaction of a 10,000-entry path (the cut point, the
// serialization of what is summarized, its chunks for an 8k summarizer window; not the LLM call)
// and the token estimate over 1 MB of mixed text, each next to a floor measured in the same run.
// Imported by run.mjs; also runs alone: node bench/compaction.mjs (no build needed).
import { pathToFileURL } from 'node:url';
import { bundleFromSrc, isMain, runAlone, timed } from './lib.mjs';

const NEEDED = ['planCompaction', 'serializeEntry', 'chunkBlocks', 'estimateTextTokens', 'compactionSettings'];

/**
 * The compaction functions: from the library when it exports them, else bundled from src with
 * esbuild into the work dir (they are not exported from src/index.ts yet). The summarizer's
 * prompts are always bundled (only the chunk budget is computed from them, outside the timing),
 * and so is the seeded random source of the inputs (test/support/seeded-random.ts).
 */
async function compactionApi(root, work, lib) {
  const outfile = await bundleFromSrc({
    root,
    work,
    name: 'compaction-api',
    contents: [
      "export * from './src/session/compaction-plan.ts';",
      "export * from './src/session/tokens.ts';",
      "export { SUMMARY_SYSTEM_PROMPT, initialPrompt } from './src/session/summary-prompts.ts';",
      "export { seededRandom } from './test/support/seeded-random.ts';",
    ],
  });
  const bundled = await import(pathToFileURL(outfile).href);
  const fromLib = lib && NEEDED.every((n) => typeof lib[n] === 'function');
  const api = fromLib ? lib : bundled;
  return { api, prompts: bundled, source: fromLib ? 'dist/index.mjs' : 'src bundled', bundle: outfile };
}

const WORDS =
  'the of and to in is that for it with as was on be by this are from or have session compaction summary request response token window configuration implementation repository dependency performance error message directory file update test property value number string because however agent model provider user tool result branch entry path estimate tokenizer'.split(
    ' ',
  );
const CJK = ['请帮我检查这个函数为什么会返回空值。', '会话压缩之后，模型只能看到摘要和最近的消息。', 'このファイルを読み込んで、内容を要約してください。', '설정 파일을 수정했으니 테스트를 다시 실행해 보겠습니다.'];
const sentence = (r) => Array.from({ length: r.int(4, 16) }, () => r.pick(WORDS)).join(' ') + '. ';
const codeLine = (r) =>
  r.pick([
    () => `  const ${r.pick(WORDS)}Count = ${r.pick(WORDS)}.map((e) => e.${r.pick(WORDS)} ?? ${r.int(0, 999)});\n`,
    () => `  if (${r.pick(WORDS)}.length > ${r.int(0, 99)} && !${r.pick(WORDS)}) return { ok: false, reason: '${r.pick(WORDS)}' };\n`,
    () => `export function ${r.pick(WORDS)}Of(path: string[], limit = ${r.int(1, 64)}): number {\n`,
    () => '}\n',
  ])();
const jsonChunk = (r) => JSON.stringify({ id: r.int(0, 1e9), name: r.pick(WORDS), path: `src/${r.pick(WORDS)}/${r.pick(WORDS)}.ts`, tags: [r.pick(WORDS), r.pick(WORDS)], score: r.next() * 100 }) + '\n';
const numberRow = (r) => `${r.int(0, 99999)}\t${(r.next() * 1000).toFixed(2)}\t${r.int(-500, 500)}\t${new Date(r.int(0, 2e12)).toISOString()}\n`;

/** About `bytes` bytes (UTF-8) of mixed text: English, code, JSON, numbers, CJK; `r` a seeded random source. */
function mixedText(bytes, r) {
  const parts = [];
  let size = 0;
  while (size < bytes) {
    const part = r.pick([
      () => Array.from({ length: 4 }, () => sentence(r)).join('') + '\n\n',
      () => Array.from({ length: 6 }, () => codeLine(r)).join(''),
      () => jsonChunk(r),
      () => numberRow(r) + numberRow(r),
      () => r.pick(CJK) + r.pick(CJK) + '\n',
    ])();
    parts.push(part);
    size += Buffer.byteLength(part);
  }
  return parts.join('');
}

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };

/**
 * A coding session's active path of `count` entries, as plain entries: turns of a user request,
 * then a few steps of an assistant message with text and one or two tool calls followed by their
 * results (`resultLines` lines of code or JSON each), then a final answer; `r` a seeded random source.
 */
function sessionPath(count, resultLines, r) {
  const path = [];
  let parentId = null;
  let calls = 0;
  const push = (message) => {
    const id = (path.length + 1).toString(16).padStart(8, '0');
    path.push({ type: 'message', id, parentId, timestamp: '2026-11-29T00:00:00.000Z', message });
    parentId = id;
  };
  while (path.length < count) {
    push({ role: 'user', content: [{ type: 'text', text: Array.from({ length: r.int(1, 4) }, () => sentence(r)).join('') }] });
    for (let step = r.int(1, 6); step > 0 && path.length < count; step--) {
      const toolCalls = Array.from({ length: r.int(1, 2) }, () => ({
        type: 'toolCall',
        id: `call_${calls++}`,
        name: r.pick(['read_file', 'read_file', 'list_files', 'write_note']),
        arguments: { path: `src/${r.pick(WORDS)}/${r.pick(WORDS)}.ts` },
      }));
      push({ role: 'assistant', content: [{ type: 'text', text: sentence(r) + sentence(r) }, ...toolCalls], stopReason: 'toolUse', usage });
      for (const call of toolCalls) {
        const lines = r.pick(resultLines);
        const text = Array.from({ length: lines }, () => (r.next() < 0.7 ? codeLine(r) : jsonChunk(r))).join('');
        push({ role: 'toolResult', toolCallId: call.id, toolName: call.name, content: [{ type: 'text', text }], isError: false, details: { path: call.arguments.path } });
      }
    }
    if (path.length < count) push({ role: 'assistant', content: [{ type: 'text', text: Array.from({ length: r.int(2, 8) }, () => sentence(r)).join('') }], stopReason: 'stop', usage: { ...usage, input: 1000, output: 200 } });
  }
  return path.slice(0, count);
}

/** The text of a message, as a plain map over its content would produce it: the floor of the planning figure. */
function plainText(e) {
  const m = e.message;
  let s = '';
  for (const c of m.content) s += c.type === 'text' ? c.text : c.type === 'thinking' ? c.thinking : JSON.stringify(c.arguments);
  return s;
}

export async function compactionBenchmarks({ root, work, lib, report }) {
  const { api, prompts, source, bundle } = await compactionApi(root, work, lib);
  const runs = Number(process.env.BENCH_COMPACTION_RUNS ?? 21);

  // ---- planning a compaction of a 10,000-entry path, for an 8k summarizer window ----
  {
    const window = 8192;
    const settings = api.compactionSettings(window);
    // The chunk budget summarizeEntries computes for this window: the window, less the summary's
    // output (summaryOutputTokens: a fifth of it, at most 8,192) and the request's own frame.
    const frame = api.estimateTextTokens(prompts.SUMMARY_SYSTEM_PROMPT) + api.estimateTextTokens(prompts.initialPrompt('')) + 64;
    const budget = window - Math.max(256, Math.min(8192, Math.floor(window * 0.2))) - frame;
    // Small entries (the size of the session-load benchmark's) and a coding mix (tool results from a line to a whole file).
    const shapes = [
      ['small entries', [2, 3, 4, 6]],
      ['coding mix', [1, 5, 20, 60, 150]],
    ];
    for (const [label, resultLines] of shapes) {
      const path = sessionPath(10_000, resultLines, prompts.seededRandom(2));
      const bytes = path.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e.message)), 0);
      let summarized = 0;
      let chunks = 0;
      // What the issue times: the cut point (with the file lists) and the serialization of what is summarized.
      const plan = () => {
        const planned = api.planCompaction(path, settings.keepRecentTokens, '/bench');
        if (!planned.ok) throw new Error(`no plan: ${planned.reason}`);
        const p = planned.plan;
        summarized = p.summarizedIds.length;
        return [p.history.map((e) => api.serializeEntry(e)), p.turnPrefix.map((e) => api.serializeEntry(e))];
      };
      // And, shown beside it, the chunking into summarizer requests, as compactSession does it.
      const planAndChunk = () => {
        const [history, turn] = plan();
        chunks = api.chunkBlocks(history, budget).length + api.chunkBlocks(turn, budget).length;
      };
      let sink = 0;
      const floor = () => {
        for (const text of path.map(plainText)) sink += text.length;
      };
      const value = timed(plan, runs);
      const withChunks = timed(planAndChunk, runs);
      const floorMs = timed(floor, runs);
      if (sink === 0) throw new Error('empty floor');
      report(`compaction plan (cut + serialize), 10,000 × ~${Math.round(bytes / path.length)} B`, value, 'map to text', floorMs, '< 20 ms', value < 20);
      report(`  … and chunked for an 8k window`, withChunks, 'map to text', floorMs, '—', true);
      console.log(
        `${''.padEnd(44)} ${label}: ${summarized.toLocaleString('en')} entries summarized, ${(bytes / 2 ** 20).toFixed(1)} MB of messages, ${chunks} chunks of ≤ ${budget} tokens (8k window, keepRecentTokens ${settings.keepRecentTokens}); functions from ${source}`,
      );
    }
  }

  // ---- the token estimate over 1 MB of mixed text ----
  // Two figures, because the JIT's history could change it: the estimate as it runs after the plans
  // above (as in a long-lived agent, where it has run over thousands of serialized entries first),
  // and alone, in a fresh instance of the module that never ran anything else. A first version,
  // reading charCodeAt, ran about three times slower after the plans (it had seen concatenated,
  // sliced and two-byte strings); reading the code units from a typed array made the two equal.
  const text = mixedText(2 ** 20, prompts.seededRandom(1));
  const estimateFigure = (when, estimateTextTokens) => {
    let sink = 0;
    const estimate = () => {
      sink += estimateTextTokens(text);
    };
    // Floor: one pass reading every character code (what any single-pass estimate must at least do).
    const floor = () => {
      let s = 0;
      for (let i = 0; i < text.length; i++) s += text.charCodeAt(i);
      sink += s;
    };
    const value = timed(estimate, runs * 2, 10);
    const floorMs = timed(floor, runs * 2, 10);
    if (sink === 0) throw new Error('empty estimate');
    report(`token estimate, 1 MB mixed: ${when}`, value, 'charCodeAt loop', floorMs, '< 10 ms', value < 10);
  };
  estimateFigure('after plans', api.estimateTextTokens);
  estimateFigure('alone', (await import(`${pathToFileURL(bundle).href}?alone`)).estimateTextTokens);
}

// Alone: the same report format as run.mjs; dist/index.mjs if it is built, else the bundle from src.
if (isMain(import.meta.url)) await runAlone('compaction', compactionBenchmarks, { lib: true });
