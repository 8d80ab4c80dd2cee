// The loop guard: the same tool with the same arguments several times in a row is a model going
// in circles. From `warnAfter` repeats its result carries a warning; at `stopAfter` the call is not
// run and the run stops with stopReason "loop_detected". Counted across the turns of one run.
import { CONFIG_TABLE } from '../core/config-table.js';
import type { ToolCall } from '../core/types.js';

export interface LoopGuardSettings {
  /** Repeats (counting the first call) from which a warning is added to the result. */
  warnAfter: number;
  /** Repeats at which the run stops. */
  stopAfter: number;
}

/** The configuration's defaults (core/config-table.ts), for callers that give none. */
export const DEFAULT_LOOP_GUARD: LoopGuardSettings = { warnAfter: CONFIG_TABLE['loopGuard.warnAfter'].default, stopAfter: CONFIG_TABLE['loopGuard.stopAfter'].default };

/** The same name with the same arguments (key order does not matter) gives the same signature. */
export function callSignature(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  return `${call.name}\u0000${canonical(call.arguments)}`;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Counts consecutive identical calls. */
export class RepeatCounter {
  private last: string | undefined;
  private count = 0;

  /** Records a call; returns how many times in a row it has now been made. */
  see(call: Pick<ToolCall, 'name' | 'arguments'>): number {
    const sig = callSignature(call);
    this.count = sig === this.last ? this.count + 1 : 1;
    this.last = sig;
    return this.count;
  }
}

export function repeatWarning(name: string, times: number, settings: LoopGuardSettings): string {
  return `[mini-agent: you have called ${name} with the same arguments ${times} times in a row. If it is not working, ` + `change the approach instead of repeating it; at ${settings.stopAfter} the run stops.]`;
}
