// What the two SDK adapters (openai.ts, anthropic.ts) share: the SDK's client, made on the first
// request (never at module load: `--version` must not pay for the import) and kept, a failed
// import or constructor tried again at the next request; the fetch it is given (our transport,
// unless the caller passed one); and preconnect. Each adapter adds how it makes its client and
// how it streams.
import type { ModelAdapter, ModelRequest, ModelStreamEvent } from './adapter.js';
import { createHttpTransport, type HttpTransport } from './http-transport.js';
import type { AdapterConfig } from './models.js';

export abstract class SdkAdapter<Client, Deps extends { fetch?: typeof fetch }> implements ModelAdapter {
  readonly provider: string;
  readonly model: string;
  /** The fetch the SDK's client makes its requests with. */
  protected readonly fetch: typeof fetch;
  private client?: Promise<Client>;
  /** Our transport, unless the caller gave a fetch. */
  private readonly transport?: HttpTransport;

  constructor(
    protected readonly cfg: AdapterConfig,
    /** What the caller injects: at least a fetch (tests, benchmarks); the SDK's loader too. */
    protected readonly deps: Deps,
  ) {
    this.provider = cfg.provider;
    this.model = cfg.model;
    if (!deps.fetch) this.transport = createHttpTransport();
    this.fetch = deps.fetch ?? this.transport!.fetch;
  }

  preconnect(): void {
    this.transport?.preconnect(this.cfg.baseUrl);
  }

  abstract stream(request: ModelRequest): AsyncIterable<ModelStreamEvent>;

  /** Loads the SDK and makes its client (called once, or again after a failure). */
  protected abstract makeClient(): Promise<Client>;

  protected getClient(): Promise<Client> {
    if (this.client) return this.client;
    const client = this.makeClient();
    this.client = client;
    client.catch(() => {
      if (this.client === client) this.client = undefined; // a failed load is retried next time
    });
    return client;
  }
}
