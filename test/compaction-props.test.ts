// Property tests for compaction, over random sessions: user messages; assistant messages with
// text, sometimes thinking, and 0..3 tool calls; their results in call order (sometimes only some:
// a killed run); aborted or failed (empty) responses; branch summaries; earlier compactions. The
// planner never orphans a tool result and splits the live entries exactly into summarized and kept;
// compaction leaves a valid next request and a smaller context; the token estimate never
// undercounts a real tokenizer by more than a measured margin.
//
// The token margin was measured with MEASURE_TOKEN_RATIOS=20000 npx vitest run test/compaction-props.test.ts
// (the last block prints the estimate/tokenizer ratio per kind of text; figures by the margin below).
import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import { compactSession } from '../src/agent/compactor.js';
import { emptyUsage, userMessage, type AssistantContent, type Message, type ToolCall } from '../src/core/types.js';
import { liveEntries, planCompaction } from '../src/session/compaction-plan.js';
import type { CompactionEntry, ContentEntry } from '../src/session/entries.js';
import { projectMessages, summaryMessage, unansweredToolCalls } from '../src/session/projector.js';
import { SessionStore } from '../src/session/store.js';
import { estimateMessageTokens, estimateRequestTokens, estimateTextTokens } from '../src/session/tokens.js';
import { compactionFor, quotingSummarizer, wholeSummary } from './support/compaction.js';
import { seededRandom, type SeededRandom } from './support/seeded-random.js';

const CWD = '/w';

// ---------------------------------------------------------------------------------------------
// Text: seeded generators of realistic text, one per kind (also used for the messages below).
// ---------------------------------------------------------------------------------------------

const rng = seededRandom;
type Rng = SeededRandom;

const WORDS = (
  'the of and to in is that for it with as was on be by this are from or have an they which you were not but all can ' +
  'there when one will more what about if out up so into than then them only some could other also just over new after ' +
  'first well way even because any these give most us function session compaction summary request response token window ' +
  'configuration implementation repository dependency performance error message directory file update test property value ' +
  'number string however therefore although should would might must never always before between without through agent ' +
  'model provider user assistant tool result call branch entry path cut kept estimate tokenizer characters punctuation ' +
  'internationalization misconfigured asynchronously deterministic serialization unexpectedly straightforward rewrite ' +
  'migrate deploy cache timeout retry overflow context budget chunk merge handler buffer stream parse schema'
).split(' ');
const IDENT_PARTS = [
  'session',
  'store',
  'plan',
  'entry',
  'token',
  'count',
  'result',
  'message',
  'path',
  'index',
  'value',
  'config',
  'options',
  'handler',
  'buffer',
  'stream',
  'event',
  'error',
  'kept',
  'cut',
  'chunk',
  'budget',
  'window',
  'file',
  'id',
  'map',
  'list',
  'tree',
];
const TYPES = ['string', 'number', 'boolean', 'Message[]', 'Promise<void>', 'Record<string, unknown>', 'SessionEntry | undefined', 'readonly string[]'];
const EXTS = ['ts', 'js', 'mjs', 'json', 'md', 'py', 'rs', 'go', 'tsx', 'yaml', 'lock', 'txt', 'sh'];
const DIRS = ['src', 'lib', 'test', 'docs', 'bench', 'session', 'agent', 'model', 'tools', 'node_modules', 'dist', 'fixtures', '.github', 'workflows', 'packages', 'core', 'utils', 'internal'];

const cap = (w: string) => w[0].toUpperCase() + w.slice(1);
const camel = (r: Rng) => {
  const n = r.int(1, 3);
  const parts = Array.from({ length: n }, () => r.pick(IDENT_PARTS));
  return parts.map((p, i) => (i === 0 ? p : cap(p))).join('');
};
const snake = (r: Rng) => Array.from({ length: r.int(1, 3) }, () => r.pick(IDENT_PARTS)).join('_');
const ident = (r: Rng) => (r.chance(0.15) ? r.pick(['i', 'j', 'n', 'x', 'e', 'm', 'k']) : camel(r));

function sentence(r: Rng): string {
  const n = r.int(3, 18);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(r.pick(WORDS) + (i < n - 1 && r.chance(0.08) ? ',' : ''));
  return cap(words.join(' ')) + r.pick(['.', '.', '.', '?', '!', ':']);
}

function english(r: Rng, size: number): string {
  const out: string[] = [];
  for (let i = 0; i < size; i++) out.push(sentence(r) + (r.chance(0.15) ? '\n\n' : ' '));
  return out.join('').trim();
}

function literal(r: Rng): string {
  return r.pick([
    () => String(r.int(0, 9)),
    () => String(r.int(0, 100_000)),
    () => `'${r.pick(WORDS)}'`,
    () => `"${r.pick(WORDS)} ${r.pick(WORDS)}"`,
    () => 'null',
    () => 'undefined',
    () => 'true',
    () => `${r.int(0, 99)}.${r.int(0, 99)}`,
  ])();
}

const CODE_LINES: ((r: Rng) => string)[] = [
  (r) => `const ${ident(r)} = ${ident(r)}.${ident(r)}(${ident(r)}, ${literal(r)});`,
  (r) => `if (${ident(r)} === ${literal(r)} && ${ident(r)}.length > ${r.int(0, 99)}) {`,
  (r) => `return { ${ident(r)}: ${ident(r)}, ${ident(r)}: [${r.int(0, 9)}, ${r.int(0, 99)}] };`,
  (r) => `for (let i = 0; i < ${ident(r)}.length; i++) ${ident(r)}[i] += ${r.int(1, 9)};`,
  () => '}',
  () => '});',
  (r) => `// ${sentence(r)}`,
  (r) => `export function ${camel(r)}(${ident(r)}: ${r.pick(TYPES)}, ${ident(r)}?: ${r.pick(TYPES)}): ${r.pick(TYPES)} {`,
  (r) => `import { ${camel(r)}, ${camel(r)} } from '../${r.pick(DIRS)}/${snake(r).replace(/_/g, '-')}.js';`,
  (r) => `await ${ident(r)}(\`${ident(r)}: \${${ident(r)}}\`);`,
  (r) => `${ident(r)}[i][j] = (${ident(r)}[i] * ${ident(r)}[j]) >> ${r.int(1, 8)};`,
  (r) => `throw new Error(\`expected ${r.pick(WORDS)} ${r.pick(WORDS)}, got \${typeof ${ident(r)}}\`);`,
  (r) => `def ${snake(r)}(self, ${snake(r)}=None, *args, **kwargs):`,
  (r) => `${snake(r)} = [x ** 2 for x in range(${r.int(1, 1000)}) if x % ${r.int(2, 9)} == 0]`,
  (r) => `fn ${snake(r)}(&mut self, ${snake(r)}: &[u8]) -> Result<usize, Error> {`,
  (r) => `$ git diff --stat HEAD~${r.int(1, 9)} -- ${r.pick(DIRS)}/${camel(r)}.${r.pick(EXTS)} | grep -E '^\\s+[0-9]+'`,
  (r) => `} else if (!${ident(r)}?.${ident(r)} || ${ident(r)} !== ${literal(r)}) {`,
  (r) => `  ${ident(r)}: ${literal(r)},`,
  (r) => `expect(${ident(r)}(${literal(r)})).toEqual({ ${ident(r)}: ${literal(r)} });`,
];

function code(r: Rng, size: number): string {
  const lines: string[] = [];
  let depth = 0;
  for (let i = 0; i < size * 2; i++) {
    const line = r.pick(CODE_LINES)(r);
    if (line.startsWith('}')) depth = Math.max(0, depth - 1);
    lines.push(' '.repeat(depth * r.pick([2, 4])) + line);
    if (line.endsWith('{') || line.endsWith(':')) depth = Math.min(4, depth + 1);
  }
  return lines.join('\n');
}

function jsonValue(r: Rng, depth: number): unknown {
  const kind = r.int(0, depth > 2 ? 5 : 7);
  if (kind === 0) return r.int(-1000, 1_000_000);
  if (kind === 1) return Math.round(r.next() * 1e6) / 100;
  if (kind === 2) return r.chance(0.5);
  if (kind === 3) return r.chance(0.3) ? null : r.pick(WORDS);
  if (kind === 4) return `${r.pick(DIRS)}/${camel(r)}.${r.pick(EXTS)}`;
  if (kind === 5) return sentence(r);
  if (kind === 6) return Array.from({ length: r.int(0, 5) }, () => jsonValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = r.int(1, 5); i > 0; i--) o[r.chance(0.5) ? camel(r) : snake(r)] = jsonValue(r, depth + 1);
  return o;
}

function json(r: Rng, size: number): string {
  const o: Record<string, unknown> = {};
  for (let i = 0; i < size; i++) o[camel(r)] = jsonValue(r, 0);
  return JSON.stringify(o, null, r.pick([0, 0, 2]));
}

function numbers(r: Rng, size: number): string {
  const number = () =>
    r.pick([
      () => String(r.int(0, 9)),
      () => String(r.int(0, 99_999)),
      () => String(r.int(0, 2 ** 31)),
      () => `-${r.int(0, 9999)}.${r.int(0, 999)}`,
      () => `${r.int(0, 100)}.${r.int(0, 9)}%`,
      () => r.int(0, 999_999_999).toLocaleString('en'),
      () => `${r.int(0, 9)}.${r.int(0, 30)}.${r.int(0, 99)}`,
      () => new Date(r.int(0, 2e12)).toISOString(),
      () => `0x${r.int(0, 0xffff).toString(16)}`,
      () => `${r.int(1, 999)}e-${r.int(1, 12)}`,
    ])();
  const out: string[] = [];
  for (let i = 0; i < size * 4; i++) out.push(number() + r.pick([' ', ', ', '\t', '\n', ' | ']));
  return out.join('').trim();
}

function path(r: Rng): string {
  const segs = Array.from({ length: r.int(1, 5) }, () => (r.chance(0.5) ? r.pick(DIRS) : r.chance(0.5) ? snake(r).replace(/_/g, '-') : camel(r)));
  const file = `${r.chance(0.5) ? camel(r) : snake(r)}.${r.pick(EXTS)}`;
  return r.pick([
    () => `/home/${r.pick(['dev', 'alice', 'runner'])}/${segs.join('/')}/${file}`,
    () => `./${segs.join('/')}/${file}`,
    () => `../${segs.join('/')}/${file}:${r.int(1, 2000)}:${r.int(1, 80)}`,
    () => `${segs.join('/')}/${file}`,
    () => `C:\\Users\\${r.pick(['dev', 'alice'])}\\${segs.join('\\')}\\${file}`,
    () => `https://github.com/${camel(r)}/${snake(r).replace(/_/g, '-')}/blob/main/${segs.join('/')}/${file}#L${r.int(1, 999)}`,
  ])();
}

function paths(r: Rng, size: number): string {
  return Array.from({ length: size * 2 }, () => path(r)).join(r.pick(['\n', '\n', ' ']));
}

const CJK = [
  // Chinese
  '请帮我检查这个函数为什么会返回空值。',
  '我已经修改了配置文件，现在可以重新运行测试了。',
  '这个错误通常是因为网络连接超时导致的。',
  '会话压缩之后，模型只能看到摘要和最近的消息。',
  '我们需要在提交之前确认所有的测试都通过。',
  '文件路径不存在，请确认当前的工作目录是否正确。',
  '今天天气很好，我们去公园散步吧。',
  '读取文件时出现了权限错误，需要管理员权限。',
  '性能测试的结果比预期的要慢两倍。',
  '请不要修改公共接口，只改内部实现。',
  // Japanese
  'このファイルを読み込んで、内容を要約してください。',
  'テストがすべて成功したので、次の作業に進みます。',
  '設定ファイルの形式が正しくないようです。',
  '会話の前半は要約され、最近のメッセージだけが残ります。',
  'エラーメッセージをそのまま引用してください。',
  '東京の天気は明日から雨になるでしょう。',
  'ツールの呼び出しが中断されたため、結果は不明です。',
  'ありがとうございます。よろしくお願いします。',
  // Korean
  '이 함수가 왜 빈 값을 반환하는지 확인해 주세요.',
  '설정 파일을 수정했으니 테스트를 다시 실행해 보겠습니다.',
  '네트워크 연결 시간이 초과되어 요청이 실패했습니다.',
  '대화의 앞부분은 요약되고 최근 메시지만 남습니다.',
  '파일 경로가 존재하지 않습니다. 작업 디렉터리를 확인하세요.',
  '오늘은 날씨가 좋아서 산책하기에 좋습니다.',
  '모든 테스트가 통과한 후에 커밋하겠습니다.',
];

function cjk(r: Rng, size: number): string {
  return Array.from({ length: size }, () => r.pick(CJK)).join(r.pick(['', '', '\n', ' ']));
}

/** Latin with accents, and Cyrillic: both estimated well enough (measured ≥ 0.9) to be part of mixed text. */
const EUROPEAN = ['Grüße aus München, schöne Größe.', 'Déjà vu : le café est très chaud, naïve idée.', 'Привет, мир! Как дела с тестами?', 'Niño, año, mañana — ¿qué tal?'];

/** At least three parts, so that a sample is a mix (one part alone is its own kind, asserted on its own). */
function mixed(r: Rng, size: number): string {
  const parts: string[] = [];
  for (let i = 0; i < size + 2; i++) {
    parts.push(
      r.pick([
        () => `## ${cap(r.pick(WORDS))} ${r.pick(WORDS)}\n\n${english(r, 2)}`,
        () => `- \`${path(r)}\`: ${sentence(r)}`,
        () => '```ts\n' + code(r, 2) + '\n```',
        () => json(r, 2),
        () => numbers(r, 1),
        () => cjk(r, 1),
        () => r.pick(EUROPEAN),
        () => `Ran \`${r.pick(['npm test', 'npx vitest run', 'cargo build', 'pytest -x'])}\`: ${r.int(0, 500)} passed, ${r.int(0, 9)} failed (${r.int(1, 99)}.${r.int(0, 9)} s).`,
      ])(),
    );
  }
  return parts.join('\n\n');
}

// Kinds measured but not asserted (see the report of the measurement block).
const HEX_CHARS = '0123456789abcdef';
function hexIds(r: Rng, size: number): string {
  const hex = (n: number) => Array.from({ length: n }, () => HEX_CHARS[r.int(0, 15)]).join('');
  return Array.from({ length: size * 2 }, () => r.pick([() => hex(40), () => `${hex(7)} ${sentence(r)}`, () => `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`, () => `sha256-${hex(64)}`])()).join('\n');
}
function base64(r: Rng, size: number): string {
  const bytes = Buffer.from(Array.from({ length: size * 60 }, () => r.int(0, 255)));
  return bytes.toString('base64');
}
const EMOJI = ['🎉', '🚀', '✅', '❌', '🔥', '👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', '🤖', '⚠️', '🐛'];
function emoji(r: Rng, size: number): string {
  return Array.from({ length: size * 3 }, () => `${r.pick(EMOJI)}${r.chance(0.6) ? ' ' + r.pick(WORDS) : ''}`).join(' ');
}
/** Alphabets the estimate counts at half a token a character, which cl100k splits much finer (Greek, Hebrew, Arabic, Thai, Devanagari), and symbols. */
const OTHER_SCRIPTS = [
  'Ελληνικά γράμματα: αβγδε.',
  'Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο.',
  'שלום, מזג האוויר יפה מאוד היום.',
  'مرحبا، الطقس جميل جدا اليوم.',
  'สวัสดีครับ วันนี้อากาศดีมาก',
  'नमस्ते, आज मौसम बहुत अच्छा है।',
  '┌────┬────┐ │ a  │ b  │ └────┴────┘',
  '→ ← ✓ ✗ • … « » ≤ ≥ ≠ ± × ∞',
];
function otherScripts(r: Rng, size: number): string {
  return Array.from({ length: size }, () => r.pick(OTHER_SCRIPTS)).join(' ');
}

type Kind = (r: Rng, size: number) => string;
/** The kinds the estimate is held to (≥ 0.7 × the larger of the o200k and cl100k counts). */
const ASSERTED_KINDS: Record<string, Kind> = { english, code, json, numbers, cjk, paths, mixed, hexIds, otherScripts };
/** Kinds only measured, so that their ratio is known (see the measurement block). */
const MEASURED_KINDS: Record<string, Kind> = { base64, emoji };

const textArb = (kind: Kind, maxSize = 12) => fc.record({ seed: fc.nat(), size: fc.integer({ min: 1, max: maxSize }) }).map(({ seed, size }) => kind(rng(seed), size));

// ---------------------------------------------------------------------------------------------
// Sessions: a list of operations interpreted the way the loop and the store would produce them.
// ---------------------------------------------------------------------------------------------

interface CallSpec {
  tool: 'read_file' | 'write_note' | 'list_files';
  path: string;
  result: string;
  failed: boolean;
}

type Op =
  | { kind: 'user'; text: string }
  /** How the response ended: its calls all answered; killed after `answered` results; aborted or cut off (every call answered with an error, as the loop does). */
  | { kind: 'assistant'; text: string; thinking: string | null; calls: CallSpec[]; end: 'results' | 'killed' | 'aborted' | 'length'; answered: number }
  | { kind: 'empty'; stopReason: 'error' | 'aborted' }
  | { kind: 'branch'; summary: string; left: string }
  | { kind: 'compaction'; keepRecentTokens: number };

const shortText = fc.oneof(textArb(english, 3), textArb(mixed, 2), textArb(cjk, 2));
const longText = fc.oneof(textArb(code, 25), textArb(json, 20), textArb(english, 25), textArb(paths, 15), textArb(mixed, 8));

const callArb: fc.Arbitrary<CallSpec> = fc.record({
  tool: fc.constantFrom('read_file' as const, 'write_note' as const, 'list_files' as const),
  path: fc.nat().map((seed) => path(rng(seed))),
  result: fc.oneof({ weight: 3, arbitrary: shortText }, { weight: 2, arbitrary: longText }),
  failed: fc.boolean(),
});

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: shortText.map((text): Op => ({ kind: 'user', text })) },
  {
    weight: 8,
    arbitrary: fc
      .record({
        text: fc.oneof(fc.constant(''), shortText, longText),
        thinking: fc.option(shortText, { freq: 4 }),
        calls: fc.array(callArb, { maxLength: 3 }),
        end: fc.constantFrom('results' as const, 'results' as const, 'results' as const, 'results' as const, 'killed' as const, 'aborted' as const, 'length' as const),
        answered: fc.nat({ max: 2 }),
      })
      .map((a): Op => ({ kind: 'assistant', ...a })),
  },
  { weight: 1, arbitrary: fc.constantFrom('error' as const, 'aborted' as const).map((stopReason): Op => ({ kind: 'empty', stopReason })) },
  { weight: 1, arbitrary: fc.record({ summary: shortText, left: shortText }).map((b): Op => ({ kind: 'branch', ...b })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 1000 }).map((keepRecentTokens): Op => ({ kind: 'compaction', keepRecentTokens })) },
);

const sessionArb = fc.array(opArb, { minLength: 1, maxLength: 60, size: 'medium' });
const keepArb = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 2000 }));

const interruptedResult = (call: ToolCall): Message => ({
  role: 'toolResult',
  toolCallId: call.id,
  toolName: call.name,
  content: [{ type: 'text', text: `Tool "${call.name}" was interrupted before completion; its effects are unknown.` }],
  isError: true,
  details: { reason: 'interrupted' },
});

interface Built {
  store: SessionStore;
  /** The calls left without results by a killed run at the end of the session. */
  pending: ToolCall[];
}

/**
 * Builds the session the way the loop writes one: a run starts with a user message (first
 * answering the calls a killed run left, as `runLoop` does); results follow their assistant
 * message in call order; a failed or aborted response gets error results for its calls and
 * ends the run; a compaction is made only where the loop (or a manual compact between runs of
 * an intact session) would make one. With `endAtBoundary`, a session that ended mid-turn gets
 * the next run's repair and prompt, so that it ends at a turn boundary.
 */
function build(ops: readonly Op[], endAtBoundary = false): Built {
  const store = SessionStore.inMemory({ cwd: CWD });
  let ids = 0;
  let runOpen = false;
  let pending: ToolCall[] = [];
  const startRun = (text: string) => {
    // The loop's repair, modelled independently: it must agree with unansweredToolCalls.
    expect(unansweredToolCalls(store.activePath()).map((c) => c.id)).toEqual(pending.map((c) => c.id));
    for (const call of pending) store.appendMessage(interruptedResult(call));
    pending = [];
    store.appendMessage(userMessage(text));
    runOpen = true;
  };
  for (const op of ops) {
    if (op.kind === 'user') startRun(op.text);
    else if (op.kind === 'assistant') {
      if (!runOpen) continue; // a response only comes inside a run
      const calls: ToolCall[] = op.calls.map((c) => ({
        type: 'toolCall',
        id: `call_${ids++}`,
        name: c.tool,
        arguments: c.tool === 'write_note' ? { path: c.path, text: c.result.slice(0, 200) } : { path: c.path },
      }));
      const content: AssistantContent[] = [...(op.thinking ? [{ type: 'thinking' as const, thinking: op.thinking }] : []), ...(op.text ? [{ type: 'text' as const, text: op.text }] : []), ...calls];
      const stopReason = op.end === 'aborted' ? 'aborted' : op.end === 'length' ? 'length' : calls.length ? 'toolUse' : 'stop';
      store.appendMessage({ role: 'assistant', content, stopReason, usage: emptyUsage(), ...(op.end === 'aborted' ? { errorMessage: 'aborted by the user' } : {}) });
      const answer = (i: number, error: string | null) =>
        store.appendMessage({
          role: 'toolResult',
          toolCallId: calls[i].id,
          toolName: calls[i].name,
          content: [{ type: 'text', text: error ?? op.calls[i].result }],
          isError: error !== null || op.calls[i].failed,
          ...(error === null && !op.calls[i].failed ? { details: { path: op.calls[i].path } } : {}),
        });
      if (op.end === 'results') {
        calls.forEach((_, i) => answer(i, null));
        runOpen = calls.length > 0; // a response without calls ends the run
      } else if (op.end === 'killed') {
        const answered = calls.length === 0 ? 0 : op.answered % calls.length; // at least one call is left without its result
        for (let i = 0; i < answered; i++) answer(i, null);
        pending = calls.slice(answered);
        runOpen = false;
      } else {
        calls.forEach((_, i) => answer(i, `Tool "${calls[i].name}" was not run: the response ${op.end === 'aborted' ? 'was aborted' : 'was cut off'}.`));
        runOpen = false;
      }
    } else if (op.kind === 'empty') {
      if (!runOpen) continue;
      store.appendMessage({ role: 'assistant', content: [], stopReason: op.stopReason, usage: emptyUsage(), errorMessage: op.stopReason === 'error' ? '529 overloaded' : 'aborted' });
      runOpen = false;
    } else if (op.kind === 'branch') {
      // Another branch explored from the leaf, then left with a summary (summarizeBranch's shape).
      // Only from a leaf without unanswered calls: see the report on branching onto a killed turn.
      const target = store.leafId;
      if (target === null || pending.length > 0) continue;
      store.appendMessage(userMessage(op.left));
      const leftLeaf = store.appendMessage({ role: 'assistant', content: [{ type: 'text', text: op.left }], stopReason: 'stop', usage: emptyUsage() });
      const left = store.activePath().slice(-2);
      store.append({ type: 'branch_summary', parentId: target, summary: op.summary, fromId: leftLeaf.id, summarizedIds: left.map((e) => e.id), details: { readFiles: [], modifiedFiles: [] } });
      runOpen = false;
    } else {
      if (pending.length > 0) continue; // the loop compacts after its repair; see the mid-turn property
      const planned = planCompaction(store.activePath(), op.keepRecentTokens, CWD);
      if (!planned.ok) continue;
      const p = planned.plan;
      store.append({ type: 'compaction', summary: wholeSummary(`earlier work (${p.summarizedIds.length} entries)`), firstKeptEntryId: p.firstKeptEntryId, summarizedIds: p.summarizedIds, details: p.files, reason: 'threshold' });
    }
  }
  if (endAtBoundary && pending.length > 0) startRun('carry on');
  return { store, pending };
}

// ---------------------------------------------------------------------------------------------
// What a valid request is.
// ---------------------------------------------------------------------------------------------

/**
 * The problems of a request's messages, strictly as providers check them (OpenAI: the tool
 * messages answering an assistant message's tool_calls must follow it directly; Anthropic: every
 * tool_use needs its tool_result in the very next user turn, and a tool_result needs its tool_use
 * in the turn before): after each assistant message with tool calls comes an unbroken run of
 * tool results that answers each of its calls exactly once, and no tool result appears anywhere else.
 */
function requestProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'toolResult') {
      problems.push(`message ${i}: result ${m.toolCallId} without its call right before it`);
      continue;
    }
    if (m.role !== 'assistant') continue;
    const open = new Set(m.content.filter((c) => c.type === 'toolCall').map((c) => (c as ToolCall).id));
    let j = i + 1;
    for (; j < messages.length; j++) {
      const r = messages[j];
      if (r.role !== 'toolResult') break;
      if (!open.delete(r.toolCallId)) problems.push(`message ${j}: result ${r.toolCallId} does not answer an open call of message ${i}`);
    }
    if (open.size > 0) problems.push(`message ${i}: calls ${[...open].join(', ')} have no result before message ${j}`);
    i = j - 1;
  }
  return problems;
}

/**
 * The request the next run sends, made exactly as runLoop makes it: it answers the calls
 * `unansweredToolCalls` finds on the active path (a run killed mid-turn), appends its prompt,
 * then projects the active path. Mutates the store.
 */
function nextRequest(store: SessionStore): Message[] {
  for (const call of unansweredToolCalls(store.activePath())) store.appendMessage(interruptedResult(call));
  store.appendMessage(userMessage('the next prompt'));
  return projectMessages(store.activePath());
}

async function compact(store: SessionStore, keepRecentTokens: number) {
  return compactSession({
    store,
    config: compactionFor(quotingSummarizer(), 16_384, { keepRecentTokens }),
    reason: 'manual',
    cwd: CWD,
    signal: new AbortController().signal,
    emit: () => {},
  });
}

const isMessage = (e: ContentEntry, role: Message['role']) => e.type === 'message' && e.message.role === role;
const callIds = (e: ContentEntry) => (e.type === 'message' && e.message.role === 'assistant' ? e.message.content.filter((c) => c.type === 'toolCall').map((c) => (c as ToolCall).id) : []);
/** A content entry as it is projected (undefined: not projected, e.g. an empty assistant message). */
function projected(e: ContentEntry): Message | undefined {
  return projectMessages([e])[0];
}

// numRuns: the whole file runs in a few seconds on a busy 2-core machine.
const RUNS = { numRuns: 150 };
const ASYNC_RUNS = { numRuns: 80 };

describe('planning a compaction over random sessions', () => {
  it('the cut never orphans a tool result, and summarizedIds and the kept part partition the live entries', () => {
    const seen = { plans: 0, splitTurns: 0, afterCompaction: 0 };
    fc.assert(
      fc.property(sessionArb, keepArb, (ops, keep) => {
        const path = build(ops).store.activePath();
        const planned = planCompaction(path, keep, CWD);
        if (!planned.ok) return;
        const plan = planned.plan;
        seen.plans++;
        if (plan.turnPrefix.length > 0) seen.splitTurns++;
        if (plan.previous) seen.afterCompaction++;
        const { live } = liveEntries(path);
        const cut = live.findIndex((e) => e.id === plan.firstKeptEntryId);
        expect(cut, 'the first kept entry is a live entry, after at least one summarized one').toBeGreaterThan(0);
        const kept = live.slice(cut);
        expect(isMessage(kept[0], 'toolResult'), 'the first kept entry is a tool result').toBe(false);
        // Partition: the summarized ids, then the kept part, are exactly the live entries, in order.
        expect([...plan.summarizedIds, ...kept.map((e) => e.id)]).toEqual(live.map((e) => e.id));
        expect([...plan.history, ...plan.turnPrefix].map((e) => e.id)).toEqual(plan.summarizedIds);
        // Every result kept has its call kept before it (the summary replaces everything earlier).
        const calls = new Set<string>();
        for (const e of kept) {
          for (const id of callIds(e)) calls.add(id);
          if (e.type === 'message' && e.message.role === 'toolResult') expect(calls.has(e.message.toolCallId), `result ${e.message.toolCallId} kept without its call`).toBe(true);
        }
      }),
      RUNS,
    );
    // Not vacuous: most sessions get a plan, some cut inside a turn, some follow an earlier compaction.
    expect(seen.plans).toBeGreaterThan(RUNS.numRuns / 3);
    expect(seen.splitTurns).toBeGreaterThan(5);
    expect(seen.afterCompaction).toBeGreaterThan(5);
  });
});

describe('compacting random sessions (compactSession with a deterministic summarizer)', () => {
  // "Valid" (requestProblems above) is what a provider accepts: every call answered by the tool
  // results right after its assistant message, no result without its call. The only calls
  // allowed to lack a result in the stored projection are those of a run killed mid-turn, and only
  // because the next run answers them before it sends anything (runLoop: unansweredToolCalls on
  // the active path). So the property is on the request the next run actually sends
  // (nextRequest): projection + the loop's repair + the prompt must be valid, after compacting
  // exactly as before. It holds before compacting by construction (checked as a precondition).
  const validAfterCompaction = async (ops: Op[], keep: number, endAtBoundary: boolean) => {
    // Precondition, on an identical copy (the build is deterministic): the session is valid before compacting.
    expect(requestProblems(nextRequest(build(ops, endAtBoundary).store)), 'the next request before compacting').toEqual([]);
    const { store } = build(ops, endAtBoundary);
    const out = await compact(store, keep);
    if (!out.ok) return;
    expect(requestProblems(nextRequest(store)), `the next request after compacting (keepRecentTokens ${keep})`).toEqual([]);
  };

  it('the next request is valid after compacting a session that ended at a turn boundary', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, keepArb, (ops, keep) => validAfterCompaction(ops, keep, true)),
      ASYNC_RUNS,
    );
  });

  // Fails as of this writing: the compaction entry is appended after the killed run's assistant
  // message, and unansweredToolCalls stops at the first entry that is not a message (it returns []),
  // so the next run does not answer those calls and sends them unanswered.
  it('the next request is valid after compacting a session that ended mid-turn (a killed run)', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, keepArb, (ops, keep) => validAfterCompaction(ops, keep, false)),
      ASYNC_RUNS,
    );
  });

  it('the projection shrinks whenever the plan summarized an entry bigger than the summary', async () => {
    let shrank = 0;
    await fc.assert(
      fc.asyncProperty(sessionArb, keepArb, async (ops, keep) => {
        const { store } = build(ops, true);
        const pathBefore = store.activePath();
        const tokensBefore = estimateRequestTokens(projectMessages(pathBefore));
        const planned = planCompaction(pathBefore, keep, CWD);
        const out = await compact(store, keep);
        // Never backwards: a plan whose summary would leave more tokens than it found is refused.
        if (planned.ok && !out.ok) return void expect(out.error).toMatch(/^refused: the summary would leave \d+ tokens, not fewer than the \d+ before/);
        expect(out.ok).toBe(planned.ok);
        if (!out.ok || !planned.ok) return;
        const summaryTokens = estimateMessageTokens(summaryMessage(out.entry.summary));
        const tokensAfter = estimateRequestTokens(projectMessages(store.activePath()));
        expect(out.tokensAfter).toBe(tokensAfter);
        const byId = new Map(pathBefore.map((e) => [e.id, e]));
        const bigger = planned.plan.summarizedIds.some((id) => {
          const m = projected(byId.get(id)!);
          return m !== undefined && estimateMessageTokens(m) > summaryTokens;
        });
        if (!bigger) return;
        shrank++;
        expect(tokensAfter, `summary of ${summaryTokens} tokens`).toBeLessThan(tokensBefore);
      }),
      ASYNC_RUNS,
    );
    expect(shrank, 'sessions where an entry bigger than the summary was summarized').toBeGreaterThan(5);
  });

  it('across every compaction on the path, nothing is summarized twice and nothing is lost', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, keepArb, async (ops, keep) => {
        const { store } = build(ops, true);
        const pathBefore = store.activePath();
        const planned = planCompaction(pathBefore, keep, CWD);
        const out = await compact(store, keep);
        if (!out.ok || !planned.ok) return;
        expect(out.entry.summarizedIds).toEqual(planned.plan.summarizedIds);
        expect(out.entry.firstKeptEntryId).toBe(planned.plan.firstKeptEntryId);
        const path = store.activePath();
        const compactions = path.filter((e): e is CompactionEntry => e.type === 'compaction');
        const summarized = compactions.flatMap((c) => c.summarizedIds ?? []);
        expect(new Set(summarized).size, 'an entry summarized twice').toBe(summarized.length);
        const firstKept = path.findIndex((e) => e.id === out.entry.firstKeptEntryId);
        const kept = path.slice(firstKept).filter((e) => e.type !== 'compaction');
        const content = path.filter((e) => e.type !== 'compaction').map((e) => e.id);
        expect([...summarized, ...kept.map((e) => e.id)].sort()).toEqual([...content].sort());
        // And the projection is the summary, then exactly the kept entries.
        expect(projectMessages(path)).toEqual([summaryMessage(out.entry.summary), ...kept.map(projected).filter((m) => m !== undefined)]);
      }),
      ASYNC_RUNS,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The token estimate against real tokenizers.
// ---------------------------------------------------------------------------------------------

let tokenizers: Tiktoken[] = [];
const tokenizerCount = (text: string) => Math.max(...tokenizers.map((t) => t.encode(text).length));

describe('the token estimate against o200k_base and cl100k_base', () => {
  beforeAll(() => {
    tokenizers = [new Tiktoken(o200k), new Tiktoken(cl100k)];
  });

  /**
   * The margin: at least 0.7 × the larger tokenizer count, less one token for rounding (a text of
   * a few tokens, such as a two-line JSON object, can be one token short of 0.7×).
   *
   * Measured with the block below, 5,000 samples per kind (estimate / max(o200k, cl100k)), after
   * the estimate learned digit groups, case changes and other scripts (a first version undercounted
   * numbers to 0.455×, hex ids to 0.536×, other scripts to 0.416×):
   *
   *   kind          worst   p1     median  below 0.7 (−1 token)
   *   english       0.750   1.190  1.455   0.00%
   *   code          0.917   1.042  1.218   0.00%
   *   json          0.750   0.941  1.338   0.00%
   *   numbers       1.048   1.133  1.195   0.00%
   *   cjk           0.766   0.870  1.079   0.00%
   *   paths         0.882   1.069  1.256   0.00%
   *   mixed         0.824   1.068  1.224   0.00%
   *   hexIds        1.044   1.089  1.164   0.00%   (git hashes, UUIDs, sha256)
   *   otherScripts  0.776   0.788  0.974   0.00%   (Greek, Hebrew, Arabic, Thai, Devanagari, box drawing)
   *   measured only, not asserted:
   *   base64        0.632   0.712  0.789   0.28%
   *   emoji         0.647   0.729  0.861   0.00%   (⚠️ ❤️: a symbol + U+FE0F; family emoji with joiners)
   */
  const MARGIN = 0.7;
  const ROUNDING = 1;

  it.each(Object.keys(ASSERTED_KINDS))('the estimate of %s text is at least 0.7 × the tokenizer count', (name) => {
    fc.assert(
      fc.property(textArb(ASSERTED_KINDS[name], 20), (text) => {
        const count = tokenizerCount(text);
        expect(estimateTextTokens(text), `${count} tokens: ${JSON.stringify(text.slice(0, 200))}`).toBeGreaterThanOrEqual(MARGIN * count - ROUNDING);
      }),
      { numRuns: 60 },
    );
  });

  // A one-off measurement, run on demand: MEASURE_TOKEN_RATIOS=<samples per kind>.
  it('measures the estimate/tokenizer ratio per kind', (ctx) => {
    if (!process.env.MEASURE_TOKEN_RATIOS) return ctx.skip('a measurement, run on demand: MEASURE_TOKEN_RATIOS=<samples per kind>');
    const samples = Number(process.env.MEASURE_TOKEN_RATIOS) || 2000;
    const rows: Record<string, Record<string, string | number>> = {};
    for (const [name, kind] of Object.entries({ ...ASSERTED_KINDS, ...MEASURED_KINDS })) {
      const ratios: number[] = [];
      let worst = { ratio: Infinity, text: '' };
      let estimated = 0;
      let counted = 0;
      let below = 0;
      let belowWithRounding = 0;
      // Ten seeds, so that fast-check's bias (small sizes, edge values) shows as it does in the test runs.
      const texts = Array.from({ length: 10 }, (_, seed) => fc.sample(textArb(kind, 20), { numRuns: Math.ceil(samples / 10), seed: seed + 1 })).flat();
      for (const text of texts) {
        const count = tokenizerCount(text);
        const estimate = estimateTextTokens(text);
        estimated += estimate;
        counted += count;
        const ratio = estimate / count;
        if (ratio < MARGIN) below++;
        if (estimate < MARGIN * count - ROUNDING) belowWithRounding++;
        ratios.push(ratio);
        if (ratio < worst.ratio) worst = { ratio, text };
      }
      ratios.sort((a, b) => a - b);
      const q = (p: number) => ratios[Math.floor(p * (ratios.length - 1))].toFixed(3);
      rows[name] = {
        samples: texts.length,
        [`< ${MARGIN}`]: `${((100 * below) / texts.length).toFixed(2)}%`,
        [`< ${MARGIN} − ${ROUNDING}`]: `${((100 * belowWithRounding) / texts.length).toFixed(2)}%`,
        worst: worst.ratio.toFixed(3),
        p1: q(0.01),
        median: q(0.5),
        max: q(1),
        overall: (estimated / counted).toFixed(3),
        worstText: JSON.stringify(worst.text.slice(0, 60)),
      };
    }
    console.table(rows);
  }, 900_000);
});
