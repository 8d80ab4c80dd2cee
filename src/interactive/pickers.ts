// The pickers of /resume and /model with no argument. Each lists what the command could take and,
// on Enter, runs the command with the chosen argument (the same `/resume ID` or `/model P/M` the
// user could type: one code path). The items are built by pure functions, tested on their own.
import { statSync } from 'node:fs';
import type { Agent } from '../app/agent.js';
import { preview } from '../core/types.js';
import { knownModelIds, modelInfo, PROVIDERS, type ProviderPreset } from '../model/models.js';
import type { SessionSummary } from '../session/catalog.js';
import type { Key } from './keys.js';
import { Picker, type Overlay, type PickerFrame, type PickerItem } from './picker.js';
import { clean, type Paint } from './view.js';

/** Runs a command line as if typed (the conversation echoes it in the scrollback). */
/** Runs a command line as if typed; settles when the command is done (a picker may read the session again then). */
export type RunLine = (line: string) => Promise<void> | void;

/** A picker that runs `line(item)` when an item is chosen. */
export function commandPicker<T extends PickerItem>(picker: Picker<T>, line: (item: T) => string, run: RunLine): Overlay {
  return {
    key(key: Key) {
      const r = picker.key(key);
      if (r === 'cancel') return 'close';
      if (r !== 'choose') return undefined;
      const item = picker.current();
      if (item) run(line(item));
      return 'close';
    },
    frame: (width: number, room: number, p: Paint): PickerFrame => picker.frame(width, room, p),
  };
}

export interface SessionItem extends PickerItem {
  id: string;
}

/** One item per session, newest first: its name (or first prompt), date, size and first prompt. `current` is marked. */
export function sessionItems(rows: readonly SessionSummary[], current: string, bytes: (file: string) => number | undefined = fileSize): SessionItem[] {
  return rows.map((r) => {
    const first = r.firstUserMessage ? clean(preview(r.firstUserMessage, 200)) : '(no prompt yet)';
    const size = bytes(r.file);
    // No-break spaces keep a date, a count and a size whole when the detail wraps.
    const facts = [r.lastUsed.slice(0, 16).replace('T', '\u00a0'), `${r.entries}\u00a0entries`, ...(size === undefined ? [] : [sizeText(size).replace(' ', '\u00a0')]), r.id.slice(0, 8)];
    return {
      id: r.id,
      title: `${r.id === current ? '* ' : ''}${r.name ? clean(r.name) : first}`,
      detail: `${facts.join(' · ')}${r.name ? ` · ${first}` : ''}`,
      search: `${r.id} ${first}`,
    };
  });
}

export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function fileSize(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

export function sessionPicker(rows: readonly SessionSummary[], current: string, run: RunLine): Overlay {
  const items = sessionItems(rows, current);
  const picker = new Picker(items, { title: `Resume a session (${items.length} in this workspace)`, hint: 'type to filter · ↑↓ PgUp PgDn move · Enter resume · Esc cancel' });
  return commandPicker(picker, (i) => `/resume ${i.id}`, run);
}

export interface ModelItem extends PickerItem {
  provider: string;
  model: string;
}

/** How a provider stands for its key, never the key itself: set in the environment, set in the config, not needed, or missing. */
export function keyStatus(provider: string, preset: ProviderPreset, env: NodeJS.ProcessEnv, configured?: { provider: string; apiKey?: string }): string {
  if (preset.apiKeyEnv && env[preset.apiKeyEnv]) return `key set (${preset.apiKeyEnv})`;
  if (configured?.provider === provider && configured.apiKey) return 'key set (config)';
  if (preset.keyOptional) return 'no key needed';
  return `no key (set ${preset.apiKeyEnv ?? 'apiKey'})`;
}

/** The models each provider can take: its default, the model table's models of its family, and the model in use. */
export function modelsOf(provider: string, preset: ProviderPreset, current?: { provider: string; id: string }): string[] {
  const table = knownModelIds();
  const family = (id: string) => (id.startsWith('claude-') ? 'anthropic' : id.startsWith('deepseek-') ? 'deepseek' : 'openai');
  const own = provider === 'openrouter' ? table.map((id) => `${family(id)}/${id}`) : provider === 'openai' || provider === 'anthropic' || provider === 'deepseek' ? table.filter((id) => family(id) === provider) : [];
  const ids = [preset.defaultModel, ...own, ...(current?.provider === provider ? [current.id] : [])];
  return [...new Set(ids)];
}

export function modelItems(env: NodeJS.ProcessEnv, current: { provider: string; id: string }, configured?: { provider: string; apiKey?: string }): ModelItem[] {
  const items: ModelItem[] = [];
  for (const [provider, preset] of Object.entries(PROVIDERS)) {
    const status = keyStatus(provider, preset, env, configured);
    for (const model of modelsOf(provider, preset, current)) {
      const info = modelInfo(model);
      const price = info.pricing ? `$${info.pricing.input}/$${info.pricing.output} per M` : 'price unknown';
      const here = current.provider === provider && current.id === model;
      items.push({ provider, model, title: `${here ? '* ' : ''}${provider}/${model}`, detail: `${status} · ${Math.round(info.contextWindow / 1000)}k context · ${price}` });
    }
  }
  // The model in use, when it is none of the presets' (a --script run, a custom provider), first.
  if (!items.some((i) => i.provider === current.provider && i.model === current.id)) {
    items.unshift({ provider: current.provider, model: current.id, title: `* ${current.provider}/${current.id}`, detail: 'in use' });
  }
  return items;
}

export function modelPicker(agent: Agent, env: NodeJS.ProcessEnv, run: RunLine): Overlay {
  const current = agent.model;
  const items = modelItems(env, current, agent.config);
  const at = items.findIndex((i) => i.provider === current.provider && i.model === current.id);
  const picker = new Picker(items, { title: 'Switch model (* in use; keys are never shown)', hint: 'type to filter · ↑↓ PgUp PgDn move · Enter switch · Esc cancel', initial: Math.max(0, at) });
  return commandPicker(picker, (i) => `/model ${i.provider}/${i.model}`, run);
}
