// Hook modules from the config: ES modules exporting any of `beforeToolCall(call, ctx)`,
// `afterToolCall(call, result, ctx)` and `onEvent(event)`. User hooks (in the user config) load
// as they are; project hooks (in the workspace's .mini-agent/config.json) load only in a trusted
// workspace: otherwise they are refused with a warning that says how to trust it. A module that
// cannot be loaded stops the start with a usage error that names it: running without a hook the
// user asked for (a guard, say) would be worse than not running.
import { pathToFileURL } from 'node:url';
import type { EventListener } from '../core/events.js';
import { UsageError } from '../core/types.js';
import type { ToolHooks } from '../tools/hook-runner.js';

export interface HookModuleSpec {
  path: string;
  scope: 'user' | 'project';
  source: string;
}

export interface LoadedHooks {
  tools: ToolHooks[];
  listeners: EventListener[];
  /** Why some hooks were not loaded (an untrusted workspace), one line each. */
  warnings: string[];
}

export async function loadHooks(specs: readonly HookModuleSpec[], opts: { trusted: boolean; cwd: string }): Promise<LoadedHooks> {
  const out: LoadedHooks = { tools: [], listeners: [], warnings: [] };
  const refused = specs.filter((s) => s.scope === 'project' && !opts.trusted);
  if (refused.length > 0) {
    out.warnings.push(
      `the workspace config lists ${refused.length === 1 ? 'a hook' : `${refused.length} hooks`} (${refused.map((s) => s.path).join(', ')}), ` +
        `which would run code from this repository; they were not loaded because ${opts.cwd} is not trusted. ` +
        `Read them, then run "mini-agent trust" in this folder (or pass --trust-workspace) to load them.`,
    );
  }
  for (const spec of specs) {
    if (spec.scope === 'project' && !opts.trusted) continue;
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(spec.path).href)) as Record<string, unknown>;
    } catch (err) {
      throw new UsageError(`cannot load hook ${spec.path} (from ${spec.source}): ${(err as Error)?.message ?? String(err)}`);
    }
    const { beforeToolCall, afterToolCall, onEvent } = mod;
    for (const [name, fn] of Object.entries({ beforeToolCall, afterToolCall, onEvent })) {
      if (fn !== undefined && typeof fn !== 'function') throw new UsageError(`hook ${spec.path}: its export ${name} is not a function`);
    }
    if (beforeToolCall === undefined && afterToolCall === undefined && onEvent === undefined) {
      throw new UsageError(`hook ${spec.path} (from ${spec.source}) exports none of beforeToolCall, afterToolCall, onEvent`);
    }
    if (beforeToolCall || afterToolCall) {
      out.tools.push({
        name: `hook ${spec.path}`,
        ...(beforeToolCall ? { beforeToolCall: beforeToolCall as ToolHooks['beforeToolCall'] } : {}),
        ...(afterToolCall ? { afterToolCall: afterToolCall as ToolHooks['afterToolCall'] } : {}),
      });
    }
    if (onEvent) out.listeners.push(onEvent as EventListener);
  }
  return out;
}
