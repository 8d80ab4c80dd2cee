// The scripted-model file format: {"turns": [ ... ]}, one assistant response per turn.
// Parsing is pure and gives errors that name the file and the field.
import { isPlainObject, UsageError, type ModelErrorKind, type Refusal, type StopReason, type Usage } from '../core/types.js';

export interface ScriptToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Raw argument text to stream instead of JSON.stringify(arguments), e.g. to simulate a broken stream. */
  rawArguments?: string;
}

export interface ScriptTurn {
  text?: string;
  thinking?: string;
  toolCalls?: ScriptToolCall[];
  error?: { kind: ModelErrorKind; message: string; retryable?: boolean; status?: number; retryAfterMs?: number };
  stopReason?: StopReason;
  /** The response was refused (implies stopReason `contentFilter`). */
  refusal?: Refusal;
  usage?: Partial<Usage>;
  delayMs?: number;
}

export interface Script {
  turns: ScriptTurn[];
}

/** Every error kind, checked against the type: a kind added to ModelErrorKind must be added here. */
const ERROR_KINDS = Object.keys({
  auth: 1,
  rate_limit: 1,
  overloaded: 1,
  server: 1,
  context_overflow: 1,
  network: 1,
  invalid_response: 1,
  bad_request: 1,
  aborted: 1,
  unknown: 1,
} satisfies Record<ModelErrorKind, 1>) as ModelErrorKind[];
const STOP_REASONS: readonly StopReason[] = ['stop', 'toolUse', 'length', 'contentFilter', 'error', 'aborted'];
const TURN_KEYS = new Set(['text', 'thinking', 'toolCalls', 'error', 'stopReason', 'refusal', 'usage', 'delayMs']);
const REFUSAL_KEYS = new Set(['reason', 'category', 'explanation']);
const USAGE_KEYS = new Set(['input', 'output', 'cacheRead', 'cacheWrite', 'cost', 'costUnknown']);

/** Parses and checks a script. Throws UsageError naming `label` and the offending field. */
export function parseScript(text: string, label: string): Script {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${label}: not valid JSON (${(err as Error).message})`);
  }
  const fail = (where: string, what: string): never => {
    throw new UsageError(`${label}: ${where} ${what}`);
  };
  if (!isPlainObject(value)) fail('the script', 'must be a JSON object {"turns": [...]}');
  const turns = (value as Record<string, unknown>).turns;
  if (!Array.isArray(turns)) fail('"turns"', 'must be an array');
  (turns as unknown[]).forEach((turn, i) => checkTurn(turn, `turns[${i}]`, fail));
  return { turns: turns as ScriptTurn[] };
}

function checkTurn(turn: unknown, at: string, fail: (where: string, what: string) => never): void {
  if (!isPlainObject(turn)) fail(at, 'must be an object');
  const t = turn as Record<string, unknown>;
  for (const key of Object.keys(t)) if (!TURN_KEYS.has(key)) fail(`${at}.${key}`, `is not a known field (known: ${[...TURN_KEYS].join(', ')})`);
  if (t.text !== undefined && typeof t.text !== 'string') fail(`${at}.text`, 'must be a string');
  if (t.thinking !== undefined && typeof t.thinking !== 'string') fail(`${at}.thinking`, 'must be a string');
  if (t.delayMs !== undefined && !(typeof t.delayMs === 'number' && t.delayMs >= 0)) fail(`${at}.delayMs`, 'must be a number >= 0');
  if (t.stopReason !== undefined && !STOP_REASONS.includes(t.stopReason as StopReason)) {
    fail(`${at}.stopReason`, `must be one of ${STOP_REASONS.join(', ')}`);
  }
  if (t.toolCalls !== undefined) {
    if (!Array.isArray(t.toolCalls)) fail(`${at}.toolCalls`, 'must be an array');
    (t.toolCalls as unknown[]).forEach((call, j) => {
      const where = `${at}.toolCalls[${j}]`;
      if (!isPlainObject(call)) fail(where, 'must be an object');
      const c = call as Record<string, unknown>;
      if (typeof c.name !== 'string' || c.name === '') fail(`${where}.name`, 'must be a non-empty string');
      if (c.id !== undefined && typeof c.id !== 'string') fail(`${where}.id`, 'must be a string');
      if (c.arguments === undefined) c.arguments = {};
      if (!isPlainObject(c.arguments)) fail(`${where}.arguments`, 'must be an object');
      if (c.rawArguments !== undefined && typeof c.rawArguments !== 'string') fail(`${where}.rawArguments`, 'must be a string');
    });
  }
  if (t.error !== undefined) {
    const e = t.error as Record<string, unknown>;
    if (!isPlainObject(e)) fail(`${at}.error`, 'must be an object {"kind", "message"}');
    if (!ERROR_KINDS.includes(e.kind as ModelErrorKind)) fail(`${at}.error.kind`, `must be one of ${ERROR_KINDS.join(', ')}`);
    if (typeof e.message !== 'string') fail(`${at}.error.message`, 'must be a string');
  }
  if (t.refusal !== undefined) {
    if (!isPlainObject(t.refusal)) fail(`${at}.refusal`, 'must be an object {"reason", "category"?, "explanation"?}');
    const r = t.refusal as Record<string, unknown>;
    for (const key of Object.keys(r)) if (!REFUSAL_KEYS.has(key)) fail(`${at}.refusal.${key}`, `is not a known field (known: ${[...REFUSAL_KEYS].join(', ')})`);
    if (r.reason !== 'refusal' && r.reason !== 'content_filter') fail(`${at}.refusal.reason`, 'must be "refusal" or "content_filter"');
    for (const key of ['category', 'explanation']) if (r[key] !== undefined && typeof r[key] !== 'string') fail(`${at}.refusal.${key}`, 'must be a string');
    if (t.stopReason !== undefined && t.stopReason !== 'contentFilter') fail(`${at}.refusal`, 'needs stopReason "contentFilter" (or no stopReason)');
  }
  if (t.usage !== undefined) {
    if (!isPlainObject(t.usage)) fail(`${at}.usage`, 'must be an object');
    for (const [k, v] of Object.entries(t.usage as object)) {
      if (!USAGE_KEYS.has(k)) fail(`${at}.usage.${k}`, `is not a known field (known: ${[...USAGE_KEYS].join(', ')})`);
      if (k === 'costUnknown') {
        if (v !== true) fail(`${at}.usage.costUnknown`, 'must be true when present (the price was unknown)');
      } else if (typeof v !== 'number' || v < 0) fail(`${at}.usage.${k}`, 'must be a number >= 0');
    }
  }
}
