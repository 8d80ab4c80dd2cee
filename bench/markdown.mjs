// Markdown streaming benchmark: 1 MB of realistic Markdown (paragraphs, lists, headings, fenced
// code in a few languages, tables, quotes) through MarkdownStream in 10,000 deltas, with push()
// and live() after every delta (the worst case: a redraw per delta; the screen draws at most one
// per 8 ms frame), width 100, color on; its linearity (4 MB in 40,000 deltas); and the latency
// of one delta: from push() until the committed and live lines are one string for the terminal.
// The floor: marked's lexer over the whole 1 MB once.
// Imported by run.mjs; also runs alone: node bench/markdown.mjs (no build needed).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { bundleFromSrc, isMain, median, runAlone, timed } from './lib.mjs';

const WORDS =
  'the of and to in is that for it with as was on be by this are from or have session stream render terminal width block paragraph token width lexer delta commit scrollback highlight language table column quote list item heading model answer agent tool result file update test value'.split(
    ' ',
  );
const CJK = ['会话压缩之后，模型只能看到摘要。', 'このファイルを読み込んでください。', '설정 파일을 수정했습니다.'];
const CODE = {
  ts: (r) =>
    `export function ${r.pick(WORDS)}Of(items: string[], limit = ${r.int(1, 64)}): number {\n  const seen = new Set<string>();\n  for (const item of items) if (item.length > ${r.int(0, 9)}) seen.add(item); // keep the long ones\n  return Math.min(seen.size, limit);\n}\n`,
  python: (r) => `def ${r.pick(WORDS)}_count(rows, limit=${r.int(1, 64)}):\n    """Count the rows that match."""\n    total = sum(1 for row in rows if row.get("${r.pick(WORDS)}"))\n    return min(total, limit)\n`,
  bash: (r) => `for f in src/*.ts; do\n  grep -n "${r.pick(WORDS)}" "$f" | head -${r.int(1, 9)}\ndone\nnpm test -- --run ${r.pick(WORDS)}\n`,
  json: (r) => `${JSON.stringify({ id: r.int(0, 1e6), name: r.pick(WORDS), tags: [r.pick(WORDS), r.pick(WORDS)], ok: r.chance(0.5) }, null, 2)}\n`,
  go: (r) => `func ${r.pick(WORDS)}Sum(xs []int) (int, error) {\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x * ${r.int(1, 9)}\n\t}\n\treturn total, nil\n}\n`,
  rust: (r) => `fn ${r.pick(WORDS)}_len(s: &str) -> usize {\n    s.chars().filter(|c| c.is_alphanumeric()).count() + ${r.int(0, 9)}\n}\n`,
  diff: (r) => `--- a/src/${r.pick(WORDS)}.ts\n+++ b/src/${r.pick(WORDS)}.ts\n@@ -${r.int(1, 99)},3 +${r.int(1, 99)},3 @@\n-const limit = ${r.int(1, 9)};\n+const limit = ${r.int(10, 99)};\n`,
};

/** A sentence with inline Markdown: bold, italic, code, a link, now and then CJK text. */
function sentence(r) {
  const words = Array.from({ length: r.int(5, 16) }, () => r.pick(WORDS));
  const i = r.int(0, words.length - 1);
  words[i] = r.pick([`**${words[i]}**`, `*${words[i]}*`, `\`${words[i]}()\``, `[${words[i]}](https://example.com/${words[i]})`, words[i], words[i]]);
  if (r.chance(0.08)) words.push(r.pick(CJK));
  return `${words.join(' ')}.`;
}

const paragraph = (r) => Array.from({ length: r.int(2, 6) }, () => sentence(r)).join(r.chance(0.3) ? '\n' : ' ');
const heading = (r) => `${'#'.repeat(r.int(1, 3))} ${sentence(r).slice(0, -1)}`;
const list = (r) => {
  const ordered = r.chance(0.4);
  const task = !ordered && r.chance(0.2);
  return Array.from({ length: r.int(2, 7) }, (_, i) => {
    const mark = ordered ? `${i + 1}.` : task ? `- [${r.chance(0.5) ? 'x' : ' '}]` : '-';
    const sub = r.chance(0.2) ? `\n  - ${sentence(r)}\n  - ${sentence(r)}` : '';
    return `${mark} ${sentence(r)}${sub}`;
  }).join('\n');
};
const quote = (r) => Array.from({ length: r.int(1, 3) }, () => `> ${sentence(r)}`).join('\n');
const code = (r) => {
  const lang = r.pick(Object.keys(CODE));
  return `\`\`\`${lang}\n${Array.from({ length: r.int(1, 4) }, () => CODE[lang](r)).join('\n')}\`\`\``;
};
const table = (r) => {
  const cols = r.int(2, 5);
  const row = () => `| ${Array.from({ length: cols }, () => (r.chance(0.3) ? `\`${r.pick(WORDS)}\`` : r.pick(WORDS))).join(' | ')} |`;
  return [row(), `|${Array.from({ length: cols }, () => r.pick(['---', ':--', '--:', ':-:'])).join('|')}|`, ...Array.from({ length: r.int(2, 8) }, row)].join('\n');
};

/** About `chars` characters of Markdown, as a model's answers mix it; `r` a seeded random source. */
export function realisticMarkdown(chars, r) {
  const blocks = [];
  let size = 0;
  while (size < chars) {
    const block = r.pick([paragraph, paragraph, paragraph, heading, list, list, code, code, table, quote])(r);
    blocks.push(block);
    size += block.length + 2;
  }
  return blocks.join('\n\n') + '\n';
}

/** `text` cut into `count` deltas at random places. */
function deltasOf(text, count, r) {
  const cuts = new Set();
  while (cuts.size < count - 1) cuts.add(r.int(1, text.length - 1));
  const at = [0, ...[...cuts].sort((a, b) => a - b), text.length];
  return at.slice(1).map((end, i) => text.slice(at[i], end));
}

/** CPU ms (user + system) and wall ms of streaming `deltas` with a push and a live per delta, and the lines it committed. */
function stream(api, deltas) {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const s = new api.MarkdownStream(100, { color: true });
  let lines = 0;
  let live = 0;
  for (const d of deltas) {
    lines += s.push(d).length;
    live += s.live().length;
  }
  lines += s.end().length;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - t, lines, live };
}

/**
 * Per delta, ms from the start of push() until what the screen writes for it is one string: the
 * lines committed to the scrollback, then the live region's lines (joined as Screen.flush joins
 * them; its cursor moves and its fitting of each line to the width are the screen's own cost).
 */
function latencies(api, deltas) {
  const s = new api.MarkdownStream(100, { color: true });
  const times = new Float64Array(deltas.length);
  let chars = 0;
  deltas.forEach((d, i) => {
    const t = performance.now();
    const committed = s.push(d);
    let frame = '';
    for (const line of committed) frame += `${line}\r\n`;
    frame += s.live().join('\r\n');
    times[i] = performance.now() - t;
    chars += frame.length;
  });
  s.end();
  if (chars === 0) throw new Error('nothing drawn');
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], p99: sorted[Math.floor(sorted.length * 0.99)] };
}

export async function markdownBenchmarks({ root, work, report }) {
  const bundle = await bundleFromSrc({
    root,
    work,
    name: 'markdown-api',
    contents: ["export { MarkdownStream, renderMarkdown } from './src/interactive/markdown.ts';", "export { lexMarkdown } from './src/session/markdown-html.ts';", "export { seededRandom } from './test/support/seeded-random.ts';"],
  });
  const api = await import(pathToFileURL(bundle).href);
  const runs = Number(process.env.BENCH_MARKDOWN_RUNS ?? 4);
  const oneMb = realisticMarkdown(2 ** 20, api.seededRandom(1));
  const fourMb = realisticMarkdown(4 * 2 ** 20, api.seededRandom(2));
  const deltas1 = deltasOf(oneMb, 10_000, api.seededRandom(3));
  const deltas4 = deltasOf(fourMb, 40_000, api.seededRandom(4));

  // Warm-up: the first 20,000 deltas run while V8 still compiles (marked's, highlight.js's and our
  // code go through its tiers), at up to twice the steady cost. Then rounds of: the 1 MB stream
  // (the CPU figure is its best run), the four quarters of the 4 MB text streamed each on its own
  // (10,000 deltas each), and the 4 MB stream. Linearity compares, round by round, the 4 MB stream
  // with its own quarters: the same text, so that only the length differs (two random texts differ
  // in cost by several per cent), and the same minutes on the machine (the best of short runs finds
  // quiet moments that a run four times as long cannot).
  stream(api, deltas1);
  stream(api, deltas1);
  const quarters = [0, 1, 2, 3].map((k) => deltas4.slice(k * 10_000, (k + 1) * 10_000));
  const ones = [];
  const rounds = [];
  for (let i = 0; i < runs; i++) {
    ones.push(stream(api, deltas1));
    const parts = quarters.reduce((sum, q) => sum + stream(api, q).cpuMs, 0);
    rounds.push({ four: stream(api, deltas4).cpuMs, parts });
  }
  const one = ones.reduce((a, b) => (b.cpuMs < a.cpuMs ? b : a));
  const linearity = median(rounds.map((r) => r.four / r.parts)); // 1 when a 4 MB stream costs what its four quarters do
  const fourMs = median(rounds.map((r) => r.four));
  const partsMs = median(rounds.map((r) => r.parts));
  const latency = latencies(api, deltas1);

  // Floors, measured after the streams: lexing a whole megabyte keeps every token alive through
  // many young collections, so V8 then allocates marked's tokens (allocation-site pretenuring)
  // in the old space, where the stream's short-lived ones cost a third more to collect. Measured
  // first, the floor would charge the stream for a document size it never lexes.
  let sink = 0;
  const floorMs = timed(() => (sink += api.lexMarkdown(oneMb).length), runs, 1);
  const deltaLexMs = timed(() => deltas1.slice(0, 1000).forEach((d) => (sink += api.lexMarkdown(d).length)), runs, 1) / 1000;
  if (sink === 0 || one.lines === 0) throw new Error('nothing rendered');
  const whole = JSON.stringify(api.renderMarkdown(oneMb, 100, { color: true }));
  const same = JSON.stringify(collect(api, deltas1, false)) === whole && JSON.stringify(collect(api, deltas1, true)) === whole;

  report('markdown stream 1 MB, 10k deltas: CPU', one.cpuMs, 'marked.lexer 1 MB', floorMs, '< 1 s', one.cpuMs < 1000);
  report('markdown stream 4 MB, 40k deltas: CPU', fourMs, 'its 4 quarters', partsMs, '< 4.5 × 1 MB', 4 * linearity < 4.5);
  const rate = oneMb.length / (one.cpuMs / 1000);
  console.log(
    `${''.padEnd(44)} ${(rate / 1e6).toFixed(2)} M chars/s (1 MB: ${one.lines.toLocaleString('en')} lines committed, wall ${one.wallMs.toFixed(0)} ms; 4 MB: ${(4 * linearity).toFixed(2)}× the CPU of 1 MB of it, ${(fourMs / median(ones.map((r) => r.cpuMs))).toFixed(2)}× the 1 MB text's; medians of ${runs} rounds)`,
  );
  report('markdown delta → screen string: median', latency.median, 'marked.lexer 1 delta', deltaLexMs, '< 16 ms', latency.median < 16);
  report('  … p99', latency.p99, 'marked.lexer 1 delta', deltaLexMs, '—', true);
  report.record?.('markdown stream: committed lines + end() = renderMarkdown(whole), with and without live()', same);
  if (!report.record) console.log(`${'markdown stream = renderMarkdown(whole)'.padEnd(44)} ${same ? 'ok' : 'MISSED'}`);
}

/** Every line a stream commits for `deltas`, end() included; `live`: with a live() after each push (what is committed when differs). */
function collect(api, deltas, live) {
  const s = new api.MarkdownStream(100, { color: true });
  const out = [];
  for (const d of deltas) {
    out.push(...s.push(d));
    if (live) s.live();
  }
  out.push(...s.end());
  return out;
}

if (isMain(import.meta.url)) await runAlone('markdown', markdownBenchmarks, { summary: true });
