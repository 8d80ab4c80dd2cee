// The ToolRegistry: find → validate → hooks before → permission → execute → hooks after →
// truncate → result. Every failure becomes an isError result that tells the model what went wrong.
import type { EventBody } from '../core/events.js';
import type { ToolCall, ToolSpec } from '../core/types.js';
import { precompiledCheck, type ArgCheck } from './arg-checks.js';
import type { SchemaValidator } from './schema-validator.js';
import { runAfterHooks, runBeforeHooks, type ToolHooks } from './hook-runner.js';
import type { FileAccess, ToolContext, ToolDefinition, ToolOutput, ToolResult, ToolRisk } from './tool.js';
import { DEFAULT_LIMITS, formatBytes, truncateHead, type TruncateLimits } from './truncate.js';
import { resolveForRead } from './workspace.js';

export type { ToolHooks };

/** A permission check's answer: the rule (or default) that decided and where it came from, for the permission_decision event. */
export type PermissionDecision = { allow: true; rule?: string | null; source?: string; asked?: boolean; reason?: string } | { allow: false; reason: string; rule?: string | null; source?: string; asked?: boolean };

/** What a permission check may use besides the call: the workspace, the abort signal and the run's events. */
export interface PermissionContext {
  cwd: string;
  allowedPaths?: readonly string[];
  signal: AbortSignal;
  emit?: (event: EventBody) => void;
}

/** Asked before every execution (after the hooks). The policy, the approvals and the front end's prompts plug in here. */
export type PermissionCheck = (call: ToolCall, tool: ToolDefinition, ctx: PermissionContext) => PermissionDecision | Promise<PermissionDecision>;

export interface RegistryOptions {
  permission?: PermissionCheck;
  /** The hard cap applied to every result. */
  limits?: TruncateLimits;
  /** Folders outside the workspace that file tools may use too (`--allow-path`). */
  allowedPaths?: readonly string[];
  /** Hooks around every call, in order (user hooks, then trusted project hooks, then the SDK's). */
  hooks?: readonly ToolHooks[];
  /** Let calls of `execute` tools (bash) run beside other calls; by default each runs alone. */
  parallelExecute?: boolean;
  /** Folders outside the workspace that read tools may read (never write): the user's skills. */
  readOnlyPaths?: readonly string[];
  /**
   * Tools that come and go (MCP servers start, stop and change their lists): asked afresh each
   * time, after the fixed tools. A name already taken by a fixed tool is ignored.
   */
  dynamicTools?: () => readonly ToolDefinition[];
  /**
   * A note for a successful call, from what it touched (nested AGENTS.md files): appended after
   * truncation, as a text part of its own, so a long output never cuts it off.
   */
  resultNote?: (call: ToolCall, access: CallAccess) => string | undefined;
  /**
   * A client's file access (an editor's buffers over ACP): given to every call, so the file tools
   * read and write through it instead of the disk. The boundary and the permission check still come first.
   */
  files?: FileAccess;
  /**
   * The paths a tool's searches leave out, by tool name (see search-deny.ts: those a read deny
   * rule covers); given to each call as ToolContext.hidden. Absent: nothing is hidden.
   */
  hiddenPaths?: (tool: string) => ((path: string) => boolean) | undefined;
  /** Whether the model takes images now (it may change with the model): given to each call as ToolContext.images. */
  images?: () => boolean;
}

/** The context of one execution: the workspace, the abort signal and, in a run, its event sink. */
export interface ExecuteContext {
  cwd: string;
  signal: AbortSignal;
  emit?: (event: EventBody) => void;
  /** Keeps a file's state before the call changes it (ToolContext.checkpoint); not given to a client's files. */
  checkpoint?: (path: string) => Promise<void>;
  /**
   * Keeps the state of the workspace's files before a call that declares no files runs (risk
   * `execute`: bash), leaving out the paths `hidden` covers; the caller compares after the call.
   * Not given to a client's files. Never throws.
   */
  checkpointWorkspace?: (hidden?: (path: string) => boolean) => Promise<void>;
}

/** What a call touches, for the loop's scheduler: reads share, writes to a path are exclusive on it, `exclusive` runs alone. */
export interface CallAccess {
  kind: 'read' | 'write' | 'exclusive';
  /** Real paths (for `read` and `write`). */
  paths: string[];
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  /** By definition, not by name: a dynamic tool may come back with another schema. */
  private readonly validators = new WeakMap<ToolDefinition, SchemaValidator | null>();
  /** The built-in tools' checks, generated at build time (arg-checks.ts); null: none for this schema. */
  private readonly precompiled = new WeakMap<ToolDefinition, ArgCheck | null>();
  private readonly limits: TruncateLimits;

  constructor(
    tools: readonly ToolDefinition[] = [],
    private readonly options: RegistryOptions = {},
  ) {
    this.limits = options.limits ?? DEFAULT_LIMITS;
    for (const tool of tools) this.register(tool);
  }

  register(tool: ToolDefinition): void {
    if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is already registered`);
    this.tools.set(tool.name, tool);
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name) ?? this.dynamic().find((t) => t.name === name);
  }

  names(): string[] {
    return this.all().map((t) => t.name);
  }

  riskOf(name: string): ToolRisk | undefined {
    return this.get(name)?.risk;
  }

  /** Every tool now: the fixed ones, then the dynamic ones. */
  all(): ToolDefinition[] {
    return [...this.tools.values(), ...this.dynamic()];
  }

  /** The tools as the model sees them. */
  specs(): ToolSpec[] {
    return this.all().map((t) => ({ name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown>, ...(t.source ? { source: t.source } : {}) }));
  }

  private dynamic(): ToolDefinition[] {
    const extra = this.options.dynamicTools?.() ?? [];
    return extra.length === 0 ? [] : extra.filter((t) => !this.tools.has(t.name));
  }

  /** What a call touches (see CallAccess). A call that will fail early (unknown tool, a path outside) touches nothing. */
  access(call: ToolCall, cwd: string): CallAccess {
    const tool = this.get(call.name);
    if (!tool) return { kind: 'read', paths: [] };
    if (tool.risk === 'execute') return this.options.parallelExecute ? { kind: 'read', paths: [] } : { kind: 'exclusive', paths: [] };
    const kind = tool.risk === 'write' ? 'write' : 'read';
    const boundary = { cwd, allowedPaths: this.options.allowedPaths, readOnlyPaths: this.options.readOnlyPaths };
    try {
      const paths = tool.paths ? tool.paths(call.arguments as never, boundary) : [resolveForRead(boundary, '.')];
      return { kind, paths: paths.filter((p) => typeof p === 'string') };
    } catch {
      return { kind: 'read', paths: [] };
    }
  }

  /** Runs one call. Never throws: every failure is an isError result. */
  async execute(call: ToolCall, ctx: ExecuteContext): Promise<ToolResult> {
    const tool = this.get(call.name);
    if (!tool) {
      const known = this.names().join(', ') || 'none';
      return errorResult(`Unknown tool "${call.name}". Available tools: ${known}.`, { reason: 'unknown_tool' });
    }
    if (call.argumentsError) {
      // The history re-sent to the provider holds `{}` for this call, so quote what was really sent.
      const sent = call.rawArguments ? ` Your arguments began: ${quoteStart(call.rawArguments, 200)}.` : '';
      return errorResult(`Tool "${call.name}" was not run: ${call.argumentsError}.${sent} Send the call again with a valid JSON object.`, {
        reason: 'invalid_json',
      });
    }
    const problems = await this.validate(tool, call.arguments);
    if (problems) {
      return errorResult(`Invalid arguments for tool "${call.name}":\n${problems}\nFix the arguments and call the tool again.`, {
        reason: 'invalid_arguments',
      });
    }
    if (ctx.signal.aborted) return errorResult(`Tool "${call.name}" was not run: the run was aborted.`, { reason: 'aborted' });
    const toolCtx: ToolContext = {
      cwd: ctx.cwd,
      allowedPaths: this.options.allowedPaths,
      readOnlyPaths: this.options.readOnlyPaths,
      signal: ctx.signal,
      toolCallId: call.id,
      ...(this.options.files ? { files: this.options.files } : {}),
      ...(this.options.images ? { images: this.options.images() } : {}),
      ...(ctx.emit ? { onOutput: (tail: string) => ctx.emit!({ type: 'tool_update', toolCallId: call.id, name: call.name, tail }) } : {}),
      ...(ctx.checkpoint && !this.options.files ? { checkpoint: ctx.checkpoint } : {}),
    };
    const hidden = this.options.hiddenPaths?.(tool.name);
    if (hidden) toolCtx.hidden = hidden;
    let args = call.arguments;
    let rewrittenBy: string[] = [];
    if (this.options.hooks?.length) {
      const before = await runBeforeHooks(this.options.hooks, call, tool.risk, toolCtx);
      if (before.blocked) return errorResult(`Tool "${call.name}" was blocked by ${before.blocked.hook}: ${before.blocked.reason}`, { reason: 'blocked_by_hook', hook: before.blocked.hook });
      if (before.rewrittenBy.length > 0) {
        const again = await this.validate(tool, before.arguments);
        if (again) {
          return errorResult(`Tool "${call.name}" was not run: ${before.rewrittenBy.join(', ')} rewrote its arguments into invalid ones:\n${again}`, {
            reason: 'blocked_by_hook',
            hook: before.rewrittenBy.join(', '),
          });
        }
        args = before.arguments;
        rewrittenBy = before.rewrittenBy;
      }
    }
    const effective: ToolCall = args === call.arguments ? call : { ...call, arguments: args };
    if (this.options.permission) {
      const decision = await this.decide(effective, tool, ctx);
      ctx.emit?.({
        type: 'permission_decision',
        toolCallId: call.id,
        tool: call.name,
        decision: decision.allow ? 'allow' : 'deny',
        rule: decision.rule ?? null,
        source: decision.source ?? 'check',
        asked: decision.asked ?? false,
        reason: decision.reason ?? '',
      });
      if (!decision.allow) {
        return errorResult(`Permission denied for tool "${call.name}": ${decision.reason}`, { reason: 'denied', ...(decision.rule ? { rule: decision.rule } : {}) });
      }
      // The check may have waited on the user; a stop pressed meanwhile must still prevent the run.
      if (ctx.signal.aborted) return errorResult(`Tool "${call.name}" was not run: the run was aborted.`, { reason: 'aborted' });
    }
    if (tool.risk === 'execute' && ctx.checkpointWorkspace && !this.options.files) await ctx.checkpointWorkspace(toolCtx.hidden);
    let output: ToolOutput;
    try {
      output = await tool.execute(args, toolCtx);
    } catch (err) {
      if (ctx.signal.aborted) return errorResult(`Tool "${call.name}" was aborted before it finished.`, { reason: 'aborted' });
      return errorResult(`Tool "${call.name}" failed: ${messageOf(err)}`, { reason: 'exception' });
    }
    if (typeof output !== 'object' || output === null || (typeof output.content !== 'string' && !Array.isArray(output.content))) {
      return errorResult(`Tool "${call.name}" returned no usable output (a bug in the tool).`, { reason: 'bad_output' });
    }
    if (ctx.signal.aborted && !output.isError) {
      // The tool finished its work, so report it; the loop stops after this batch.
      output = { ...output, details: { ...output.details, abortedAfterCompletion: true } };
    }
    if (rewrittenBy.length > 0) output = { ...output, details: { ...output.details, argumentsRewrittenBy: rewrittenBy } };
    if (this.options.hooks?.length) output = await runAfterHooks(this.options.hooks, effective, output, tool.risk, toolCtx);
    return this.withNote(effective, this.finish(output, tool), ctx.cwd);
  }

  private withNote(call: ToolCall, result: ToolResult, cwd: string): ToolResult {
    if (!this.options.resultNote || result.isError) return result;
    let note: string | undefined;
    try {
      note = this.options.resultNote(call, this.access(call, cwd));
    } catch {
      note = undefined; // a note is extra: never let it break the call
    }
    return note ? { ...result, content: [...result.content, { type: 'text', text: note }] } : result;
  }

  private async decide(call: ToolCall, tool: ToolDefinition, ctx: ExecuteContext): Promise<PermissionDecision> {
    try {
      const decision = await this.options.permission!(call, tool, { cwd: ctx.cwd, allowedPaths: this.options.allowedPaths, signal: ctx.signal, emit: ctx.emit });
      if (typeof decision !== 'object' || decision === null || typeof decision.allow !== 'boolean') {
        return { allow: false, reason: 'the permission check gave no decision', source: 'check' };
      }
      return decision;
    } catch (err) {
      return { allow: false, reason: `the permission check failed: ${messageOf(err)}`, source: 'check' };
    }
  }

  private async validate(tool: ToolDefinition, args: unknown): Promise<string | undefined> {
    let fast = this.precompiled.get(tool);
    if (fast === undefined) this.precompiled.set(tool, (fast = precompiledCheck(tool.parameters) ?? null));
    if (fast?.(args)) return undefined; // invalid: the validator below says why
    let validator = this.validators.get(tool);
    if (validator === undefined) {
      // The validator loads at the first call, not at start-up (issue 14).
      const { compileValidator } = await import('./schema-validator.js');
      try {
        // A schema from elsewhere (an MCP server) that points at another document, which TypeBox
        // would never match, or that it cannot compile at all: the tool checks its own arguments.
        validator = tool.source && /"\$ref":"(?!#)/.test(JSON.stringify(tool.parameters)) ? null : compileValidator(tool.parameters);
      } catch {
        validator = null;
      }
      this.validators.set(tool, validator);
    }
    if (validator === null || validator.check(args)) return undefined;
    const lines = new Set<string>();
    for (const e of validator.errors(args)) {
      if (e.keyword === 'boolean') continue; // "schema is false": repeated by the additionalProperties error
      const extra = e.keyword === 'additionalProperties' ? ` (${[(e as { params?: { additionalProperties?: string[] } }).params?.additionalProperties ?? []].flat().join(', ')})` : '';
      lines.add(`- ${e.instancePath === '' ? 'arguments' : e.instancePath.slice(1).replaceAll('/', '.')}: ${e.message}${extra}`);
      if (lines.size >= 10) break;
    }
    return [...lines].join('\n') || '- arguments do not match the schema';
  }

  private finish(output: ToolOutput, tool: ToolDefinition): ToolResult {
    // Only text is truncated: images (read_file, MCP tools) come after it as they are.
    const images = typeof output.content === 'string' ? [] : output.content.filter((c) => c.type === 'image');
    const text = typeof output.content === 'string' ? output.content : output.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
    // A self-truncating tool has already cut its output and added its own continuation hint;
    // the registry only enforces a looser ceiling on it, so that hint is never cut off.
    const limits = tool.selfTruncating ? { maxLines: this.limits.maxLines * 2, maxBytes: this.limits.maxBytes * 2 } : this.limits;
    const t = truncateHead(text, limits);
    if (!t.truncated) {
      const content = typeof output.content === 'string' ? [{ type: 'text' as const, text }] : output.content;
      return { content, isError: output.isError ?? false, ...(output.details ? { details: output.details } : {}) };
    }
    const notice = `\n\n[Output truncated: showing ${t.shownLines} of ${t.totalLines} lines, ${formatBytes(Buffer.byteLength(t.text))} of ${formatBytes(t.totalBytes)}.]`;
    return {
      content: [{ type: 'text', text: t.text + notice }, ...images],
      isError: output.isError ?? false,
      details: { ...output.details, truncated: true, totalLines: t.totalLines, totalBytes: t.totalBytes },
    };
  }
}

export function errorResult(text: string, details?: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text }], isError: true, ...(details ? { details } : {}) };
}

function quoteStart(text: string, max: number): string {
  return text.length <= max ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, max))}… (${text.length} chars)`;
}

export function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 2000 ? text.slice(0, 2000) + '… (message truncated)' : text;
}
