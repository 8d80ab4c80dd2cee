// Starting an agent: the configuration, the model and the session, in the right order. A new
// session gets its model first (a wrong key fails before a file is created); an existing one is
// opened first, because it may have switched models (a model_change entry) and a resume continues
// with the last one unless the caller chose a model.
import { CONFIG_TABLE } from '../core/config-table.js';
import { mark } from '../core/timings.js';
import { UsageError } from '../core/types.js';
import type { ModelAdapter } from '../model/adapter.js';
import { modelInfo } from '../model/models.js';
import { UnavailableModel } from '../model/unavailable.js';
import type { SessionStore } from '../session/store.js';
import type { BudgetPolicy } from '../agent/budget.js';
import { loadConfig, UnknownProviderError, type EffectiveConfig, type Resolved } from './config.js';
import { createModel } from './model-factory.js';
import { openSession, type OpenedSession } from './session-open.js';
import type { CreateAgentOptions } from './types.js';
import type { AgentContext } from './agent-context.js';
import { modelChangeKind } from '../session/entry-kinds/index.js';

export interface Started {
  resolved: Resolved;
  model: ModelAdapter;
  opened: OpenedSession;
}

export async function startModelAndSession(options: CreateAgentOptions, ctx: AgentContext, resolved: Resolved): Promise<Started> {
  const { cwd } = ctx.place;
  const open = () => {
    const opened = openSession({ place: ctx.place, session: options.session, branch: options.branch, fork: options.fork });
    mark('session');
    return opened;
  };
  const pinned = options.provider !== undefined || options.model !== undefined || options.script !== undefined || options.modelAdapter !== undefined;
  const existing = options.session !== undefined && options.session !== 'new' && options.session !== 'memory';
  if (pinned || !existing) {
    const model = options.modelAdapter ?? (await modelOrDeferred(options, resolved, () => createModel({ script: options.script, record: options.record, cwd }, resolved)));
    mark('model');
    return { resolved, model, opened: open() };
  }
  const opened = open();
  try {
    const last = lastModelChange(opened.store);
    if (last) {
      try {
        const again = resolveFor(options, ctx, { provider: last.provider, model: last.model });
        const model = await createModel({ record: options.record, cwd }, again);
        opened.notes.push(`continuing with ${last.provider}/${last.model}, the model this session last switched to`);
        return { resolved: again, model, opened };
      } catch (err) {
        opened.notes.push(`this session last switched to ${last.provider}/${last.model}, which cannot be used now (${(err as Error).message}); using the configured model`);
      }
    }
    return { resolved, model: await modelOrDeferred(options, resolved, () => createModel({ record: options.record, cwd }, resolved)), opened };
  } catch (err) {
    opened.store.close();
    opened.lock?.release();
    throw err;
  }
}

/**
 * With `deferModelErrors` (ACP: the editor starts us before anyone typed), a provider that cannot
 * be used (no key, a bad URL) does not stop the start: each request fails with the reason instead,
 * so the first prompt reports it. A bad --script or --record file still stops the start.
 */
async function modelOrDeferred(options: CreateAgentOptions, resolved: Resolved, build: () => Promise<ModelAdapter>): Promise<ModelAdapter> {
  try {
    return await build();
  } catch (err) {
    if (!options.deferModelErrors || options.script || !(err instanceof UsageError)) throw err;
    return new UnavailableModel(resolved.config.provider, resolved.config.model, err.message);
  }
}

/** The session's last model switch (a model_change entry), if any. */
function lastModelChange(store: SessionStore): { provider: string; model: string } | undefined {
  const entries = store.entries();
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (modelChangeKind.is(e)) return { provider: e.provider, model: e.model };
  }
  return undefined;
}

/**
 * What setModel (`/model`) resolves with, over the agent's options. Another provider drops the
 * --base-url and --api-key given for the first: each provider keeps its own URL and key (its
 * preset, its env vars, its config), and a missing key is the usual clear error (issue 24).
 */
export function modelSwitch(current: string, opts: { provider?: string; model?: string; baseUrl?: string; apiKey?: string }): ModelSwitch {
  const other = opts.provider !== undefined && opts.provider !== current;
  return { script: undefined, modelAdapter: undefined, ...(other ? { baseUrl: undefined, apiKey: undefined, providerSwitch: true } : {}), ...opts };
}

/** What setModel resolves with: the options it overrides, and whether the provider changed (config.ts's providerSwitch). */
export type ModelSwitch = Partial<CreateAgentOptions> & { providerSwitch?: boolean };

/** A scripted or injected model needs no provider: an unknown one is ignored, the rest of the configuration applies. */
export function resolveFor(options: CreateAgentOptions, ctx: AgentContext, over: ModelSwitch = {}): Resolved {
  const {
    place: { cwd, home },
    env,
  } = ctx;
  const o = { ...options, ...over };
  const flags = {
    provider: o.provider,
    model: o.model,
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    maxTurns: o.maxTurns,
    compact: o.compact,
    contextWindow: o.contextWindow,
    thinking: o.thinking,
    allowPaths: o.allowPaths,
    yes: o.yes,
    approve: o.approve,
    tools: o.enabledTools,
    bashTimeout: o.bashTimeout,
    mcpConfig: o.mcpConfig,
    mcpServers: o.mcpServers,
    contextFiles: o.contextFiles,
    trustWorkspace: o.trustWorkspace,
    maxCost: o.maxCost,
    providerSwitch: o.providerSwitch,
  };
  try {
    const resolved = loadConfig(cwd, env, flags, home);
    mark('config'); // the first resolution only: createAgent's
    return resolved;
  } catch (err) {
    if (!(err instanceof UnknownProviderError) || !(o.script || o.modelAdapter)) throw err;
    return loadConfig(cwd, { ...env, MINI_AGENT_PROVIDER: CONFIG_TABLE.provider.default }, { ...flags, provider: undefined }, home);
  }
}

/**
 * The runner's limits from the configuration: the turn cap, and the budget when one is set (its
 * price is known then: config-cost.ts). The budget counts each price at least at the model table's,
 * so a configured price (an untrusted project's `models` key among them) cannot make it lax.
 */
export function runLimits(c: EffectiveConfig): { maxTurns: number; budget?: BudgetPolicy } {
  const maxCostUsd = c.budget.maxCostUsd;
  if (maxCostUsd === undefined || !c.pricing) return { maxTurns: c.maxTurns };
  const table = modelInfo(c.model).pricing;
  const pricing = table ? { input: Math.max(c.pricing.input, table.input), output: Math.max(c.pricing.output, table.output), cacheRead: c.pricing.cacheRead, cacheWrite: c.pricing.cacheWrite } : c.pricing;
  return { maxTurns: c.maxTurns, budget: { maxCostUsd, pricing, maxOutputTokens: c.maxOutputTokens } };
}
