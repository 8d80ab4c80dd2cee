// Error bodies in the shape the OpenAI SDK reads. The SDK takes a failed response's `error` field
// as the provider's error; older vLLM (and other servers built on its protocol module) answer with
// the error at the top level, `{"object": "error", "message": …, "type": …, "code": …}`, and the SDK
// then reports "400 status code (no body)": the message, with the window an overflow states, is
// lost. This fetch wrapper moves such a body under `error`; every other response passes untouched.
/** A fetch whose failed responses with a top-level error message carry it under `error`. */
export function withNestedErrorBody(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    if (res.status < 400 || !(res.headers.get('content-type') ?? '').includes('json')) return res;
    const text = await res.text();
    return new Response(nestedErrorBody(text), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The body with a top-level error (`message` and no `error`) moved under `error`; anything else as it was. */
export function nestedErrorBody(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return text;
  const b = body as Record<string, unknown>;
  if ('error' in b || typeof b.message !== 'string') return text;
  return JSON.stringify({ error: b });
}
