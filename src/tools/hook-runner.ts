// Hooks around a tool call, as the registry runs them: `beforeToolCall` may allow, block with a
// reason, or rewrite the arguments; `afterToolCall` may patch the result. Fail-closed: a hook that
// throws, or answers something that is not a hook answer, blocks the call (before) or replaces
// the result with an error (after: the model never sees output a hook could not vet).
import type { ToolCall } from '../core/types.js';
import { isPlainObject } from '../core/types.js';
import type { ToolContext, ToolOutput, ToolRisk } from './tool.js';

/** The call as a hook sees it (a copy: changing it changes nothing). */
export interface HookCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface HookContext {
  cwd: string;
  toolCallId: string;
  risk: ToolRisk;
  signal: AbortSignal;
}

/** What `beforeToolCall` may answer: nothing (allow), a block with a reason, or new arguments. */
export interface BeforeToolCallResult {
  block?: true;
  reason?: string;
  arguments?: Record<string, unknown>;
}

/** A result as `afterToolCall` sees and returns it. */
export interface HookResult {
  content: Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>;
  isError: boolean;
  details?: Record<string, unknown>;
}

export interface ToolHooks {
  /** Shown in messages: the module's path, or a name given by the SDK user. */
  name: string;
  beforeToolCall?(call: HookCall, ctx: HookContext): BeforeToolCallResult | void | undefined | Promise<BeforeToolCallResult | void | undefined>;
  afterToolCall?(call: HookCall, result: HookResult, ctx: HookContext): HookResult | void | undefined | Promise<HookResult | void | undefined>;
}

export interface BeforeOutcome {
  blocked?: { hook: string; reason: string };
  arguments: Record<string, unknown>;
  rewrittenBy: string[];
}

function hookCtx(ctx: ToolContext, risk: ToolRisk): HookContext {
  return { cwd: ctx.cwd, toolCallId: ctx.toolCallId, risk, signal: ctx.signal };
}

function copy<T>(value: T): T {
  return structuredClone(value);
}

/** Runs every `beforeToolCall` in order; each sees the arguments as the hooks before it left them. */
export async function runBeforeHooks(hooks: readonly ToolHooks[], call: ToolCall, risk: ToolRisk, ctx: ToolContext): Promise<BeforeOutcome> {
  let args = call.arguments;
  const rewrittenBy: string[] = [];
  for (const hook of hooks) {
    if (!hook.beforeToolCall) continue;
    let answer: unknown;
    try {
      answer = await hook.beforeToolCall({ id: call.id, name: call.name, arguments: copy(args) }, hookCtx(ctx, risk));
    } catch (err) {
      return { blocked: { hook: hook.name, reason: `the hook failed, so the call is blocked: ${errorText(err)}` }, arguments: args, rewrittenBy };
    }
    if (answer === undefined || answer === null) continue;
    if (!isPlainObject(answer)) return { blocked: { hook: hook.name, reason: `the hook answered ${describe(answer)}, not { block?, reason?, arguments? }, so the call is blocked` }, arguments: args, rewrittenBy };
    if (answer.block === true) {
      const reason = typeof answer.reason === 'string' && answer.reason.trim() !== '' ? answer.reason : 'no reason given';
      return { blocked: { hook: hook.name, reason }, arguments: args, rewrittenBy };
    }
    if (answer.arguments !== undefined) {
      if (!isPlainObject(answer.arguments)) return { blocked: { hook: hook.name, reason: 'the hook returned arguments that are not an object, so the call is blocked' }, arguments: args, rewrittenBy };
      args = answer.arguments;
      rewrittenBy.push(hook.name);
    }
  }
  return { arguments: args, rewrittenBy };
}

/** Runs every `afterToolCall` in order on the tool's output; a failing hook turns it into an error result. */
export async function runAfterHooks(hooks: readonly ToolHooks[], call: ToolCall, output: ToolOutput, risk: ToolRisk, ctx: ToolContext): Promise<ToolOutput> {
  let result: HookResult = {
    content: typeof output.content === 'string' ? [{ type: 'text', text: output.content }] : output.content,
    isError: output.isError ?? false,
    ...(output.details ? { details: output.details } : {}),
  };
  for (const hook of hooks) {
    if (!hook.afterToolCall) continue;
    let answer: unknown;
    try {
      answer = await hook.afterToolCall({ id: call.id, name: call.name, arguments: copy(call.arguments) }, copy(result), hookCtx(ctx, risk));
    } catch (err) {
      return failed(hook.name, `it failed: ${errorText(err)}`);
    }
    if (answer === undefined || answer === null) continue;
    if (!isResult(answer)) return failed(hook.name, `it answered ${describe(answer)}, not a result { content: [{ type: "text", text }], isError }`);
    result = { content: answer.content, isError: answer.isError, ...(answer.details ? { details: answer.details } : {}) };
  }
  return result;
}

function failed(hook: string, why: string): ToolOutput {
  return { content: `The result of this call was withheld by ${hook}: ${why}.`, isError: true, details: { reason: 'blocked_by_hook', hook } };
}

function isResult(v: unknown): v is HookResult {
  return (
    isPlainObject(v) &&
    typeof v.isError === 'boolean' &&
    Array.isArray(v.content) &&
    v.content.every((c) => isPlainObject(c) && ((c.type === 'text' && typeof c.text === 'string') || (c.type === 'image' && typeof c.data === 'string' && typeof c.mimeType === 'string'))) &&
    (v.details === undefined || isPlainObject(v.details))
  );
}

function describe(v: unknown): string {
  return Array.isArray(v) ? 'an array' : typeof v === 'object' ? JSON.stringify(v).slice(0, 80) : `a ${typeof v}`;
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 500 ? text.slice(0, 500) + '…' : text;
}
