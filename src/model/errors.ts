// Typed model errors. Classification uses, in order: the abort signal, the HTTP status,
// the SDK's error class (duck-typed, so the SDKs stay lazily loaded), the provider's error
// code/type, system error codes; message text only as a last resort.
import { redactSecrets } from '../core/redact.js';
import { preview, type ModelError, type ModelErrorKind } from '../core/types.js';
import { withOverflowLimits } from './overflow-limits.js';

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set(['rate_limit', 'overloaded', 'server', 'network', 'invalid_response']);

export function isRetryableKind(kind: ModelErrorKind): boolean {
  return RETRYABLE.has(kind);
}

export function modelError(kind: ModelErrorKind, message: string, extra: Partial<ModelError> = {}): ModelError {
  return { kind, message, retryable: isRetryableKind(kind), ...extra };
}

type HeaderSource = Headers | Record<string, string | string[] | undefined> | undefined | null;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  const v = rec[name] ?? rec[name.toLowerCase()] ?? Object.entries(rec).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : v;
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function parseRetryAfter(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = header(headers, 'retry-after');
  if (ra === undefined || ra.trim() === '') return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Provider error codes and types that decide the kind regardless of status. */
function kindFromCode(code: string | undefined, type: string | undefined, message: string): ModelErrorKind | undefined {
  const c = (code ?? '').toLowerCase();
  const t = (type ?? '').toLowerCase();
  if (c === 'context_length_exceeded' || c === 'string_above_max_length' || c === 'model_context_window_exceeded') return 'context_overflow';
  // llama.cpp's server (with n_ctx and n_prompt_tokens beside the message), whatever the status.
  if (t === 'exceed_context_size_error') return 'context_overflow';
  if (t === 'overloaded_error') return 'overloaded';
  if (t === 'rate_limit_error' || c === 'rate_limit_exceeded') return 'rate_limit';
  if (t === 'authentication_error' || t === 'permission_error' || c === 'invalid_api_key') return 'auth';
  if (t === 'api_error' || t === 'server_error') return 'server';
  if (t === 'invalid_request_error' || t === 'not_found_error' || t === 'request_too_large') {
    // Anthropic reports a too-long prompt only in the message of an invalid_request_error.
    return /prompt is too long|context (length|window)|too many tokens/i.test(message) ? 'context_overflow' : 'bad_request';
  }
  return undefined;
}

export function kindFromStatus(status: number, code?: string, type?: string, message = ''): ModelErrorKind {
  const byCode = kindFromCode(code, type, message);
  if (byCode === 'context_overflow') return byCode;
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'server';
  if (status === 408) return 'network';
  if (byCode) return byCode;
  if (status >= 400) return /prompt is too long|maximum context length|context length/i.test(message) ? 'context_overflow' : 'bad_request';
  return 'unknown';
}

/**
 * Keeps error bodies readable: the API's own message, or the first words of an HTML page. And
 * safe to print and store: `secrets` (the key in use) and anything shaped like a key are hidden,
 * before the text is cut, so no fragment of one survives the cut.
 */
export function cleanErrorText(text: string, max = 300, secrets: readonly (string | undefined)[] = []): string {
  let t = redactSecrets(text, secrets);
  if (/<html|<!doctype|<body/i.test(t)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(t)?.[1];
    t = (title ? title + ': ' : '') + t.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ').replace(/<[^>]+>/g, ' ');
  }
  return preview(t, max);
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** `err` and its causes, innermost last (five at most: a cycle of causes must not hang us). */
// biome-ignore lint/suspicious/noExplicitAny: a cause chain is whatever errors libraries throw; the readers check each field
function* causeChain(err: unknown): Generator<any> {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) yield e;
}

/** The message of the innermost cause that has one (a refused connection, a certificate the TLS check rejected). */
function rootCauseMessage(err: unknown): string | undefined {
  let found: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  for (const e of causeChain((err as any)?.cause)) if (typeof e.message === 'string' && e.message !== '' && e.message !== 'fetch failed') found = e.message;
  return found;
}

function systemCode(err: unknown): string | undefined {
  for (const e of causeChain(err)) if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return e.code;
  return undefined;
}

/** A stream frame that parsed as JSON but is not what the protocol sends (e.g. not an object). */
export class InvalidFrameError extends Error {
  override name = 'InvalidFrameError';
  constructor(readonly frame: string) {
    super('the frame is not a JSON object');
  }
}

/** The logger interface both SDKs accept (`logger` client option). */
export interface SdkLogger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

/**
 * Catches the frame of a stream that failed to parse. Both SDKs, on a `data:` line that is not
 * JSON, log it at level `error` (their only error-level log: the frame's data, then the raw
 * chunk) and then throw the SyntaxError. A per-request logger keeps the first one, so the error
 * can quote what the provider sent; nothing is printed.
 */
export function captureInvalidFrame(): { logger: SdkLogger; frame(): string | undefined } {
  let frame: string | undefined;
  const ignore = () => undefined;
  return {
    logger: {
      error: (_message, ...rest) => {
        if (frame === undefined && typeof rest[0] === 'string') frame = rest[0];
      },
      warn: ignore,
      info: ignore,
      debug: ignore,
    },
    frame: () => frame,
  };
}

/** Frame text quoted in an error message: at most this many characters. */
export const FRAME_QUOTE_CHARS = 200;

/**
 * "the provider sent an invalid stream frame (why; N chars): <the first 200 characters>…".
 * The frame is quoted as it was sent (whitespace runs flattened), so a JSON fragment reads as JSON.
 */
function invalidResponse(provider: string, why: string, frame: string | undefined, secrets: readonly (string | undefined)[]): ModelError {
  const reason = cleanErrorText(why, 120, secrets);
  if (frame === undefined) return modelError('invalid_response', `${provider}: the provider sent an invalid stream frame (${reason})`);
  const flat = redactSecrets(frame, secrets).replace(/\s+/g, ' ');
  const quote = flat.length <= FRAME_QUOTE_CHARS ? flat : `${flat.slice(0, FRAME_QUOTE_CHARS)}…`;
  return modelError('invalid_response', `${provider}: the provider sent an invalid stream frame (${reason}; ${frame.length} chars): ${quote}`);
}

/**
 * Turns anything an SDK or fetch threw into a ModelError. `provider` prefixes the message;
 * `secrets` (the key in use) never appear in it, nor anything shaped like a key.
 */
export function classifyError(err: unknown, opts: { provider: string; signal?: AbortSignal; now?: number; invalidFrame?: string; secrets?: readonly (string | undefined)[] }): ModelError {
  const secrets = opts.secrets ?? [];
  const clean = (text: string) => cleanErrorText(text, 300, secrets);
  // biome-ignore lint/suspicious/noExplicitAny: an SDK error of any shape; every field is checked before use
  const e = err as any;
  // Bundlers rename clashing classes (esbuild: `APIError2`, `_APIError`), so compare the bare name.
  const name: string = String(e?.constructor?.name ?? e?.name ?? '').replace(/^_+|\d+$/g, '');
  const rawMessage: string = typeof e?.message === 'string' ? e.message : String(err);
  if (opts.signal?.aborted || name === 'APIUserAbortError' || e?.name === 'AbortError') {
    return modelError('aborted', `${opts.provider}: the request was aborted`);
  }
  // A frame the SDK could not parse (JSON.parse threw), or one that is not an object.
  if (err instanceof SyntaxError) return invalidResponse(opts.provider, rawMessage, opts.invalidFrame, secrets);
  if (err instanceof InvalidFrameError) return invalidResponse(opts.provider, err.message, err.frame, secrets);
  const status: number | undefined = typeof e?.status === 'number' ? e.status : undefined;
  // SDK APIError: body in e.error; OpenAI {message, code, type}; Anthropic {type:'error', error:{type, message}}.
  const body = e?.error;
  const inner = body?.error && typeof body.error === 'object' ? body.error : body;
  const apiMessage: string | undefined = typeof inner?.message === 'string' ? inner.message : undefined;
  const code: string | undefined = typeof inner?.code === 'string' ? inner.code : typeof e?.code === 'string' ? e.code : undefined;
  const type: string | undefined = typeof inner?.type === 'string' ? inner.type : typeof e?.type === 'string' ? e.type : undefined;
  if (status !== undefined) {
    const text = clean(apiMessage ?? stripStatusPrefix(rawMessage, status) ?? '');
    const kind = kindFromStatus(status, code, type, text);
    const retryAfterMs = parseRetryAfter(e?.headers, opts.now);
    const quota = code === 'insufficient_quota';
    return withOverflowLimits(
      {
        kind,
        message: `${opts.provider} ${status}: ${text || 'no error message'}`,
        retryable: isRetryableKind(kind) && !quota,
        status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      },
      inner,
    );
  }
  // An error the server sent inside a 200 stream (OpenAI: `data: {"error": {...}}`): the SDK throws
  // an APIError with the error object but no status. OpenRouter puts the HTTP status in `code`.
  if (body !== undefined && body !== null && name !== 'APIConnectionError' && name !== 'APIConnectionTimeoutError') {
    const numeric = typeof inner?.code === 'number' && inner.code >= 400 && inner.code < 600 ? (inner.code as number) : undefined;
    const text = clean(apiMessage ?? (typeof body === 'string' ? body : rawMessage));
    const kind = numeric !== undefined ? kindFromStatus(numeric, code, type, text) : (kindFromCode(code, type, text) ?? 'server');
    return withOverflowLimits(
      {
        kind,
        message: `${opts.provider}: the stream reported an error: ${type ? `${type}: ` : ''}${text || 'no error message'}`,
        retryable: isRetryableKind(kind) && code !== 'insufficient_quota',
        ...(numeric !== undefined ? { status: numeric } : {}),
      },
      inner,
    );
  }
  if (name === 'APIConnectionTimeoutError') return modelError('network', `${opts.provider}: the request timed out`);
  // Our transport's body cut off by the connection closing (http-transport.ts).
  if (name === 'ResponseCutError') return modelError('network', `${opts.provider}: the connection closed mid-response${typeof e.code === 'string' ? ` (${e.code})` : ''}`);
  const sys = systemCode(err);
  if (name === 'APIConnectionError' || sys) {
    // The SDK's "Connection error." wraps fetch's "fetch failed", which wraps what went wrong.
    return modelError('network', `${opts.provider}: connection failed${sys ? ` (${sys})` : ''}: ${clean(rootCauseMessage(err) ?? rawMessage)}`);
  }
  // undici reports a body cut off mid-way as a TypeError "terminated" (cause: "other side closed").
  if (/^terminated$|socket hang up|other side closed|premature close/i.test(rawMessage)) {
    return modelError('network', `${opts.provider}: the connection closed mid-response: ${clean(rawMessage)}`);
  }
  return modelError('unknown', `${opts.provider}: ${clean(rawMessage)}`);
}

function stripStatusPrefix(message: string, status: number): string {
  return message.startsWith(`${status} `) ? message.slice(String(status).length + 1) : message;
}

/** For stream `error` events that carry a provider error type but no HTTP status. */
export function errorFromStreamEvent(provider: string, type: string | undefined, message: string | undefined, secrets: readonly (string | undefined)[] = []): ModelError {
  const text = cleanErrorText(message ?? 'the stream reported an error', 300, secrets);
  const kind = kindFromCode(undefined, type, text) ?? 'unknown';
  return withOverflowLimits(modelError(kind, `${provider}: ${type ? `${type}: ` : ''}${text}`));
}

export const INCOMPLETE_STREAM = (provider: string): ModelError => modelError('network', `${provider}: the stream ended before the response was complete`);
