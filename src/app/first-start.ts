// The first start, pure parts and the config write: whether the configured provider can be used,
// which providers have a key in the environment (never the key itself), whether Ollama runs
// locally (GET /api/tags, with an injected fetch and a short timeout), the models to offer, and
// saving the choice into the user config ($MINI_AGENT_HOME/config.json): merged into what is
// there, written whole (a temp file renamed over it), mode 0600.
import { closeSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isPlainObject, UsageError } from '../core/types.js';
import { PROVIDERS } from '../model/models.js';
import { agentHome } from '../session/paths.js';
import { makePrivateDir, openPrivateFile } from '../session/private-fs.js';
import { checkConfig } from './config-check.js';
import type { EffectiveConfig } from './config.js';
import { isLoopback } from './model-factory.js';

/** Where Ollama is looked for unless MINI_AGENT_OLLAMA_URL says otherwise. */
export const DEFAULT_OLLAMA_URL = 'http://localhost:11434';
/** How long the Ollama probe waits for an answer. */
export const OLLAMA_PROBE_MS = 500;

/** A provider and a model to start with. `baseUrl` only when it is not the provider's preset. */
export interface ModelChoice {
  provider: string;
  model: string;
  baseUrl?: string;
}

export type OllamaProbe = { url: string; running: true; models: string[] } | { url: string; running: false; reason: string };

/** The user config file. */
export function userConfigFile(env: NodeJS.ProcessEnv): string {
  return join(agentHome(env), 'config.json');
}

/** The configured provider needs a key and none is set (or it is empty): the interactive mode then starts with the first screen. */
export function missingKey(c: Pick<EffectiveConfig, 'apiKey' | 'preset' | 'baseUrl'>): boolean {
  return (c.apiKey === undefined || c.apiKey === '') && !c.preset.keyOptional && !isLoopback(c.baseUrl);
}

/** The hosted providers whose key is set (non-empty) in `env`, with the variable's name. */
export function keyedProviders(env: NodeJS.ProcessEnv): Array<{ provider: string; envVar: string }> {
  const out: Array<{ provider: string; envVar: string }> = [];
  for (const [provider, preset] of Object.entries(PROVIDERS)) {
    if (!preset.apiKeyEnv || preset.keyOptional || isLoopback(preset.baseUrl)) continue; // openai-compatible: a local server
    if (env[preset.apiKeyEnv]) out.push({ provider, envVar: preset.apiKeyEnv });
  }
  return out;
}

/** The env vars that hold hosted providers' keys (for the "set a key" hint). */
export function keyVariables(): string[] {
  return [
    ...new Set(
      Object.values(PROVIDERS)
        .filter((p) => p.apiKeyEnv && !isLoopback(p.baseUrl))
        .map((p) => p.apiKeyEnv!),
    ),
  ];
}

/** The Ollama server to probe: MINI_AGENT_OLLAMA_URL, else http://localhost:11434 (no trailing slash). */
export function ollamaUrl(env: NodeJS.ProcessEnv): string {
  const url = env.MINI_AGENT_OLLAMA_URL || DEFAULT_OLLAMA_URL;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new UsageError(`MINI_AGENT_OLLAMA_URL is "${url}": give an http(s) URL such as ${DEFAULT_OLLAMA_URL}`);
  }
  return url.replace(/\/+$/, '');
}

/** Asks Ollama for its models (GET /api/tags). Never throws: a server that is down, slow or odd is "not running", with the reason. */
export async function probeOllama(url: string, fetchFn: typeof fetch, timeoutMs = OLLAMA_PROBE_MS): Promise<OllamaProbe> {
  try {
    const res = await fetchFn(`${url}/api/tags`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return { url, running: false, reason: `HTTP ${res.status} from ${url}/api/tags` };
    const body = (await res.json()) as unknown;
    const list = isPlainObject(body) && Array.isArray(body.models) ? body.models : undefined;
    if (!list) return { url, running: false, reason: `${url}/api/tags did not answer with a model list` };
    const models = list.map((m) => (isPlainObject(m) && typeof m.name === 'string' ? m.name : undefined)).filter((n): n is string => !!n);
    return { url, running: true, models: [...new Set(models)].sort() };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why = e.name === 'TimeoutError' || e.name === 'AbortError' ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { url, running: false, reason: why };
  }
}

/** What the first screen offers: Ollama's models, then each keyed provider's default model. */
export function firstStartChoices(keyed: ReadonlyArray<{ provider: string }>, ollama: OllamaProbe): ModelChoice[] {
  const out: ModelChoice[] = [];
  if (ollama.running) {
    const preset = PROVIDERS.ollama.baseUrl;
    const baseUrl = `${ollama.url}/v1`;
    for (const model of ollama.models) out.push({ provider: 'ollama', model, ...(baseUrl === preset ? {} : { baseUrl }) });
  }
  for (const { provider } of keyed) out.push({ provider, model: PROVIDERS[provider].defaultModel });
  return out;
}

/**
 * Saves the choice into the user config: `provider` and `model` (and `baseUrl` when it is not the
 * preset's; a `baseUrl` or `apiKey` kept for another provider is dropped, as it would no longer
 * apply). Every other key stays. A malformed file is not overwritten: a usage error names it.
 * Returns the file written.
 */
export function saveModelChoice(env: NodeJS.ProcessEnv, choice: ModelChoice): string {
  const file = userConfigFile(env);
  let data: Record<string, unknown> = {};
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`cannot read config ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (text !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`${file}: not valid JSON (${(err as Error).message}); fix it or remove it, then start again`);
    }
    if (!isPlainObject(parsed)) throw new UsageError(`${file}: must hold a JSON object; fix it or remove it, then start again`);
    data = parsed;
  }
  const sameProvider = data.provider === undefined || data.provider === choice.provider;
  const next: Record<string, unknown> = { ...data, provider: choice.provider, model: choice.model };
  if (!sameProvider) {
    delete next.baseUrl;
    delete next.apiKey;
  }
  if (choice.baseUrl !== undefined) next.baseUrl = choice.baseUrl;
  checkConfig(next, file);
  makePrivateDir(dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const fd = openPrivateFile(tmp, 'wx');
  try {
    writeFileSync(fd, JSON.stringify(next, null, 2) + '\n');
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  return file;
}
