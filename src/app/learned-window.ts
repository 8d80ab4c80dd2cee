// The context window compaction works with: the configured one, or one learned from the provider
// (an overflow error that stated it, or the server asked once per session for a model the table
// does not know). A learned window is a `model_window` entry in the session, so a resume keeps it.
import type { FileTracker } from '../session/file-lists.js';
import { compactionSettings, type CompactionSettings } from '../session/compaction-plan.js';
import type { ModelWindowEntry, SessionEntry } from '../session/entries.js';
import type { SessionStore } from '../session/store.js';
import { modelSummarizer, type CompactionConfig } from '../agent/compactor.js';
import type { ModelAdapter } from '../model/adapter.js';
import { probeContextWindow, type WindowProbe } from '../model/window-probe.js';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SessionPlace } from '../session/paths.js';
import { continueSession, resolveSession } from '../session/resolve.js';
import { parseSessionText } from '../session/session-file.js';
import type { Resolved } from './config.js';
import type { SessionChoice } from './session-open.js';
import { modelWindowKind } from '../session/entry-kinds/index.js';

/**
 * The server is asked once the context reaches this size: below it, no window is worth a request
 * (a request's fixed part, tools and system prompt, is already about 4k tokens), and an overflow
 * error states the window anyway.
 */
export const PROBE_FROM_TOKENS = 8_192;

/** The source config.ts gives a window that nobody set and the model table does not know. */
export const UNKNOWN_WINDOW_SOURCE = 'default (unknown model)';

/** The last window learned for `provider`/`model` in these entries. */
export function learnedWindow(entries: readonly SessionEntry[], provider: string, model: string): ModelWindowEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (modelWindowKind.is(e) && e.provider === provider && e.model === model) return e;
  }
  return undefined;
}

/** How --show-config names a learned window's source. */
export function learnedSource(e: ModelWindowEntry): string {
  return e.source === 'server' ? `learned from the server (${e.detail ?? 'its model listing'})` : 'learned from an overflow error';
}

/**
 * The window in use and where it comes from. A window an overflow error stated wins when it is
 * smaller than the configured one (the provider knows); one the server reported only stands in
 * for the default of an unknown model.
 */
export function effectiveWindow(resolved: Resolved, learned: ModelWindowEntry | undefined): { contextWindow: number; source: string } {
  const configured = resolved.config.contextWindow;
  const source = resolved.sources.contextWindow;
  const unknown = source === UNKNOWN_WINDOW_SOURCE;
  if (learned && (unknown || (learned.source === 'error' && learned.contextWindow < configured))) {
    return { contextWindow: learned.contextWindow, source: learnedSource(learned) };
  }
  return { contextWindow: configured, source };
}

/** The settings for `window`: compaction's reserve and keep as configured, or the defaults for that window when they were not set or do not fit it. */
export function settingsForWindow(resolved: Resolved, window: number): CompactionSettings {
  const c = resolved.config.compaction;
  const set = (key: 'reserveTokens' | 'keepRecentTokens') => {
    const explicit = !String(resolved.sources[`compaction.${key}`] ?? 'default').startsWith('default');
    return explicit && c[key] < window / 2 ? c[key] : undefined;
  };
  return compactionSettings(window, { reserveTokens: set('reserveTokens'), keepRecentTokens: set('keepRecentTokens') });
}

/** Whether the server should be asked: an OpenAI-compatible server (not OpenAI's own API), an unknown model, no window set. */
export function shouldProbe(resolved: Resolved): boolean {
  return resolved.config.preset.api === 'openai' && resolved.config.provider !== 'openai' && resolved.sources.contextWindow === UNKNOWN_WINDOW_SOURCE;
}

/** Asks the server for the window (at most PROBE_TIMEOUT_MS); injected fetch for tests. */
export function probeFor(resolved: Resolved, model: string, signal?: AbortSignal, fetchImpl?: typeof fetch): Promise<WindowProbe> {
  return probeContextWindow({ baseUrl: resolved.config.baseUrl, model, apiKey: resolved.config.apiKey, fetch: fetchImpl, signal });
}

/**
 * Compaction for a session, with the session's own model as the summarizer. Its settings follow
 * the window learned so far (read from the session each time); `prepare` asks the server once.
 */
export function sessionCompaction(resolved: Resolved, store: SessionStore, model: ModelAdapter, files: FileTracker): CompactionConfig {
  const learned = () => learnedWindow(store.entries(), model.provider, model.model);
  const settingsNow = () => settingsForWindow(resolved, effectiveWindow(resolved, learned()).contextWindow);
  let asked = false;
  const remember = (contextWindow: number, source: 'error' | 'server', detail?: string) => {
    store.append({ type: 'model_window', provider: model.provider, model: model.model, contextWindow, source, ...(detail ? { detail } : {}) });
    store.sync();
  };
  return {
    enabled: resolved.config.compaction.enabled,
    get settings() {
      return settingsNow();
    },
    summarize: modelSummarizer(model),
    model: `${model.provider}/${model.model}`,
    files,
    learnWindow: (contextWindow) => {
      remember(contextWindow, 'error');
      return settingsNow();
    },
    prepare: async (signal, contextTokens) => {
      if (asked || contextTokens < PROBE_FROM_TOKENS || model.provider === 'scripted' || !shouldProbe(resolved) || learned()) return;
      asked = true;
      const found = await probeFor(resolved, model.model, signal);
      if (found.ok) remember(found.contextWindow, 'server', found.source);
    },
  };
}

/** `resolved` with the window in use (learned or configured) and the compaction defaults that follow from it, for --show-config. */
export function withWindow(resolved: Resolved, learned: ModelWindowEntry | undefined, note?: string): Resolved {
  const { contextWindow, source } = effectiveWindow(resolved, learned);
  const sources = { ...resolved.sources, contextWindow: note && source === UNKNOWN_WINDOW_SOURCE ? `${source}; ${note}` : source };
  if (contextWindow === resolved.config.contextWindow) return { ...resolved, sources };
  const s = settingsForWindow(resolved, contextWindow);
  return { ...resolved, sources, config: { ...resolved.config, contextWindow, compaction: { ...resolved.config.compaction, reserveTokens: s.reserveTokens, keepRecentTokens: s.keepRecentTokens } } };
}

/**
 * For `--show-config`: the window learned in the session (if one is named), else, for an unknown
 * model, what the server says now (probed; its failure is shown, never fatal).
 */
export async function showConfigWindow(resolved: Resolved, entries: readonly SessionEntry[] | undefined, fetchImpl?: typeof fetch): Promise<Resolved> {
  const learned = entries ? learnedWindow(entries, resolved.config.provider, resolved.config.model) : undefined;
  if (learned || !shouldProbe(resolved)) return withWindow(resolved, learned);
  const found = await probeFor(resolved, resolved.config.model, undefined, fetchImpl);
  if (!found.ok) return withWindow(resolved, undefined, found.error);
  return withWindow(resolved, { type: 'model_window', id: '', parentId: null, timestamp: '', provider: resolved.config.provider, model: resolved.config.model, contextWindow: found.contextWindow, source: 'server', detail: found.source });
}

/** The entries of the session a --show-config names (--session, --resume, --continue), read only; undefined when none or unreadable. */
export function sessionEntriesFor(choice: SessionChoice | undefined, place: SessionPlace): SessionEntry[] | undefined {
  if (choice === undefined || choice === 'new' || choice === 'memory') return undefined;
  try {
    const file = choice === 'continue' ? continueSession(place) : 'file' in choice ? resolve(place.cwd, choice.file) : resolveSession(choice.resume, place);
    return existsSync(file) ? parseSessionText(readFileSync(file), file).entries : undefined;
  } catch {
    return undefined;
  }
}
