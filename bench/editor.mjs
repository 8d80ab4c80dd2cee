// Line editor benchmark (issue 11): the cost of one keystroke in the interactive mode's input
// area (a character inserted, then the buffer laid out for a 100-column terminal) in an editor
// holding a 20-line draft (code, prose, CJK, emoji) with 2,000 history entries. Its floor, measured
// in the same run: the display width (string-width) of each of the draft's 20 lines, the least
// any layout of them must compute. Shown beside it for information: a keystroke with a collapsed
// 240-line paste in the draft, and Up walking the history (one entry loaded, then laid out).
// Imported by run.mjs; also runs alone: node bench/editor.mjs (no build needed).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { bundleFromSrc, isMain, median, runAlone } from './lib.mjs';

/** The editor (not exported from src/index.ts), string-width and the seeded random source, bundled from src with esbuild. */
async function editorApi(root, work) {
  const contents = ["export { LineEditor } from './src/interactive/editor.ts';", "export { default as stringWidth } from 'string-width';", "export { seededRandom } from './test/support/seeded-random.ts';"];
  return import(pathToFileURL(await bundleFromSrc({ root, work, name: 'editor-api', contents })).href);
}

const WORDS = 'the session file loop model tool result branch entry path render cursor width history paste draft please fix check why does this test fail on node twenty'.split(' ');
const LINES = [() => `  const ${WORDS[0]}Count = items.filter((x) => x.ok).length; // keep`, () => '请帮我检查这个函数为什么会返回空值，然后修复它。', () => 'Ship it 🚀 once the tests pass ✅ and the 👨‍👩‍👧 review is done'];

/** `n` lines of a realistic draft: mostly prose of 40 to 120 characters, some code, CJK and emoji. */
function draftLines(n, r) {
  return Array.from({ length: n }, (_, i) => (i % 5 === 4 ? LINES[i % 3]() : Array.from({ length: r.int(6, 20) }, () => r.pick(WORDS)).join(' ')));
}

/** Median time (ms) of `step` over `runs` runs, each followed by the untimed `undo` (so the draft keeps its size). */
function medianOf(step, undo, runs, warm = 50) {
  for (let i = 0; i < warm; i++) step(), undo();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    step();
    times.push(performance.now() - t);
    undo();
  }
  return median(times);
}

export async function editorBenchmarks({ root, work, report }) {
  const { LineEditor, stringWidth, seededRandom } = await editorApi(root, work);
  const runs = Number(process.env.BENCH_EDITOR_RUNS ?? 2001);
  const r = seededRandom(11);
  const history = Array.from({ length: 2000 }, (_, i) => draftLines(i % 7 === 0 ? r.int(2, 30) : 1, r).join('\n'));
  const draft = draftLines(20, r);
  const width = 100;
  let sink = 0;

  const editor = new LineEditor({ history });
  editor.setText(draft.join('\n'));
  for (let i = 0; i < 10; i++) editor.handleKey({ name: 'up', ctrl: false, alt: false, shift: false }); // the cursor in the middle of line 10
  const keystroke = () => {
    editor.handleKey({ name: 'text', text: 'x' });
    sink += editor.render(width).lines.length;
  };
  const backspace = () => editor.handleKey({ name: 'backspace', ctrl: false, alt: false, shift: false });
  const floor = () => {
    for (const line of draft) sink += stringWidth(line);
  };
  const floorMs = medianOf(floor, () => {}, runs);
  const value = medianOf(keystroke, backspace, runs);
  if (editor.text !== draft.join('\n')) throw new Error('the draft changed: the benchmark did not undo its keystrokes');
  report('editor keystroke (insert + render), 20 lines', value, 'width of lines', floorMs, '< 5 ms', value < 5);

  // For information: the same with a collapsed 240-line paste in the draft, and Up through the history.
  editor.handleKey({ name: 'paste', text: Array.from({ length: 240 }, (_, i) => `pasted line ${i}`).join('\n') });
  const withPaste = medianOf(keystroke, backspace, runs);
  report('  … with a 240-line paste collapsed in it', withPaste, 'width of lines', floorMs, '—', true);
  const fresh = new LineEditor({ history });
  const up = { name: 'up', ctrl: false, alt: false, shift: false };
  const down = { name: 'down', ctrl: false, alt: false, shift: false };
  const walk = medianOf(
    () => {
      fresh.handleKey(up);
      sink += fresh.render(width).lines.length;
    },
    () => fresh.handleKey(down),
    runs,
  );
  report('  history Up (2,000 entries) + render', walk, 'width of lines', floorMs, '—', true);
  if (sink === 0) throw new Error('nothing rendered');
}

// Alone: the same report format as run.mjs.
if (isMain(import.meta.url)) await runAlone('editor', editorBenchmarks);
