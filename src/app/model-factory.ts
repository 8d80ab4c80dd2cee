// Builds the model adapter the run uses: the scripted model, or a real provider from the
// resolved configuration. Provider modules (and their SDKs) are imported only here, lazily.
import { closeSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../core/types.js';
import type { ModelAdapter } from '../model/adapter.js';
import type { AdapterConfig } from '../model/models.js';
import { RecordingModel } from '../model/recording.js';
import { openPrivateFile } from '../session/private-fs.js';
import { parseScript } from '../model/script.js';
import { ScriptedModel } from '../model/scripted.js';
import type { Resolved } from './config.js';

/** The model of an agent: the scripted one (`script`), or the configured provider; wrapped for `record`. Paths resolve against `cwd`. */
export async function createModel(opts: { script?: string; record?: string; cwd?: string }, resolved: Resolved): Promise<ModelAdapter> {
  const model = opts.script ? loadScript(opts.script, opts.cwd) : await createProviderModel(resolved);
  if (!opts.record) return model;
  const file = resolve(opts.cwd ?? '.', opts.record);
  checkWritable(file);
  return new RecordingModel(model, (script) => {
    // Atomic: a crash mid-run leaves the turns recorded so far, never half a file. 0600: a
    // recording holds the conversation.
    const tmp = `${file}.${process.pid}.tmp`;
    rmSync(tmp, { force: true });
    writeWhole(openPrivateFile(tmp, 'wx'), JSON.stringify(script, null, 2) + '\n');
    renameSync(tmp, file);
  });
}

function loadScript(file: string, cwd = '.'): ScriptedModel {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read script ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return new ScriptedModel(parseScript(text, file));
}

function checkWritable(file: string): void {
  try {
    writeWhole(openPrivateFile(file, 'w'), JSON.stringify({ turns: [] }, null, 2) + '\n');
  } catch (err) {
    throw new UsageError(`cannot write --record file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function writeWhole(fd: number, text: string): void {
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

export function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host) || host.endsWith('.localhost');
  } catch {
    return false;
  }
}

/** Checks the configuration a real provider needs, then loads its adapter. */
export async function createProviderModel(resolved: Resolved): Promise<ModelAdapter> {
  const c = resolved.config;
  const src = (key: string) => resolved.sources[key] ?? 'default';
  if (c.baseUrl === '') throw new UsageError(`${c.provider}: the base URL is empty (set by ${src('baseUrl')}); give a URL such as ${c.preset.baseUrl}`);
  try {
    const u = new URL(c.baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new UsageError(`${c.provider}: the base URL "${c.baseUrl}" (from ${src('baseUrl')}) is not an http(s) URL`);
  }
  const transport = process.env.MINI_AGENT_TRANSPORT;
  if (transport !== undefined && transport !== '' && transport !== 'fetch' && transport !== 'http') {
    throw new UsageError(`MINI_AGENT_TRANSPORT is "${transport}": use "fetch" (Node's own fetch) or "http" (node:http, the default)`);
  }
  const keyNeeded = !c.preset.keyOptional && !isLoopback(c.baseUrl);
  if (c.apiKey === undefined && keyNeeded) {
    const where = c.apiKeyEnv ? `set ${c.apiKeyEnv}` : 'set "apiKey" in the config';
    throw new UsageError(`${c.provider}: no API key; ${where} (or pass --api-key)`);
  }
  if (c.apiKey === '' && keyNeeded) {
    throw new UsageError(`${c.provider}: the API key is empty (set by ${src('apiKey')}); set a real key${c.apiKeyEnv ? ` in ${c.apiKeyEnv}` : ''}`);
  }
  const cfg: AdapterConfig = {
    provider: c.provider,
    model: c.model,
    baseUrl: c.baseUrl,
    apiKey: c.apiKey || undefined,
    maxOutputTokens: c.maxOutputTokens,
    pricing: c.pricing,
    timeoutMs: c.timeoutMs,
    cacheRetention: c.cache.retention,
    images: c.images,
  };
  if (c.preset.api === 'anthropic') {
    const { createAnthropicAdapter } = await import('../model/anthropic.js');
    return createAnthropicAdapter(cfg);
  }
  const { createOpenAIAdapter } = await import('../model/openai.js');
  return createOpenAIAdapter(cfg);
}
