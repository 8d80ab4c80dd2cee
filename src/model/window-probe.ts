// Asking an OpenAI-compatible server for a model's context window, where local servers tell it:
// vLLM's GET /v1/models (`data[].max_model_len`), llama.cpp's GET /props
// (`default_generation_settings.n_ctx` or `n_ctx`), Ollama's POST /api/show (`parameters` num_ctx,
// else `model_info["<arch>.context_length"]`). The three are asked at once, with a short timeout;
// the first answer in that order wins. Never throws: a failure says what each place answered.
export type WindowProbe = { ok: true; contextWindow: number; source: string } | { ok: false; error: string };

export interface ProbeOptions {
  /** The provider's base URL as the SDK gets it (OpenAI-style: ending in /v1). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Injected for tests; the global fetch by default. */
  fetch?: typeof fetch;
  /** For all three requests together. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export const PROBE_TIMEOUT_MS = 1_500;

const positive = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined);

/** The server's root: the base URL without a trailing /v1 (llama.cpp and Ollama serve their own routes there). */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

type Place = { source: string; ask: (get: (path: string, init?: RequestInit) => Promise<unknown>) => Promise<number | undefined> };

function places(opts: ProbeOptions): Place[] {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const root = serverRoot(base);
  return [
    {
      source: 'vLLM /v1/models',
      ask: async (get) => {
        const body = (await get(`${base}/models`)) as { data?: Array<Record<string, unknown>> };
        const models = Array.isArray(body?.data) ? body.data : [];
        const row = models.find((m) => m?.id === opts.model) ?? (models.length === 1 ? models[0] : undefined);
        return positive(row?.max_model_len);
      },
    },
    {
      source: 'llama.cpp /props',
      ask: async (get) => {
        const body = (await get(`${root}/props`)) as { default_generation_settings?: { n_ctx?: unknown }; n_ctx?: unknown };
        return positive(body?.default_generation_settings?.n_ctx) ?? positive(body?.n_ctx);
      },
    },
    {
      source: 'Ollama /api/show',
      ask: async (get) => {
        const body = (await get(`${root}/api/show`, { method: 'POST', body: JSON.stringify({ model: opts.model, name: opts.model }), headers: { 'content-type': 'application/json' } })) as {
          parameters?: unknown;
          model_info?: Record<string, unknown>;
        };
        const numCtx = typeof body?.parameters === 'string' ? /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(body.parameters)?.[1] : undefined;
        if (numCtx !== undefined) return positive(Number(numCtx));
        const info = body?.model_info ?? {};
        const arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : undefined;
        return positive(arch ? info[`${arch}.context_length`] : undefined) ?? positive(Object.entries(info).find(([k]) => k.endsWith('.context_length'))?.[1]);
      },
    },
  ];
}

/** Asks the three places at once; the first (in order) that states a window wins. */
export async function probeContextWindow(opts: ProbeOptions): Promise<WindowProbe> {
  const doFetch = opts.fetch ?? globalThis.fetch;
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? PROBE_TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const get = async (url: string, init: RequestInit = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...(init.headers as Record<string, string> | undefined) };
    if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
    const res = await doFetch(url, { ...init, headers, signal });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${res.status}`);
    }
    return res.json();
  };
  const all = places(opts);
  const answers = await Promise.allSettled(all.map((p) => p.ask(get)));
  const why: string[] = [];
  for (let i = 0; i < all.length; i++) {
    const a = answers[i];
    if (a.status === 'fulfilled' && a.value !== undefined) return { ok: true, contextWindow: a.value, source: all[i].source };
    why.push(`${all[i].source}: ${a.status === 'fulfilled' ? 'no window in the answer' : timeout.aborted ? 'no answer in time' : ((a.reason as Error)?.message ?? String(a.reason))}`);
  }
  return { ok: false, error: `the server did not say (${why.join('; ')})` };
}
