// The permission gate in front of every tool call, mode-aware: the policy (rules and defaults)
// says allow, ask or deny; an "ask" is approved by --yes, an --approve rule or a grant given
// earlier in the session, else put to the front end (a terminal prompt, an RPC client, the SDK's
// onPermissionRequest). With no one to ask, an ask is a refusal that says how to allow the call.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { ToolCall } from '../core/types.js';
import { coveredBy, coversExactly, decide, needsShellParser, suggestedRule, writeDecisions, type CallFacts, type PermissionPolicy, type PermissionRule } from '../tools/permissions.js';
import { loadShellParser, parseShell } from '../tools/shell-parse.js';
import type { PermissionCheck, PermissionContext, PermissionDecision } from '../tools/registry.js';
import { readOnlyRefusal, runsReadOnly, type ToolDefinition, type ToolRisk } from '../tools/tool.js';
import { displayPath, inWorkspace, resolveForWrite } from '../tools/workspace.js';

/** A call that needs the user's approval, as the front end sees it. */
export interface PermissionRequest {
  requestId: string;
  toolCallId: string;
  tool: string;
  arguments: Record<string, unknown>;
  risk: ToolRisk;
  /** Why it asks: the rule or default that said "ask". */
  reason: string;
  /**
   * The rule an "always" answer grants for the rest of the session (unless the answer names its
   * own): for a command, the exact line (`bash(a; b)` covers `a; b` again, and only it), for a file
   * tool the exact path.
   */
  suggestedRule: string;
  /** Aborted when the run is stopped: stop waiting (the call is refused). */
  signal: AbortSignal;
}

/** "always": allow, and allow calls that the rule covers for the rest of the session. */
export type PermissionAnswer = 'allow' | 'deny' | 'always';
export type PermissionReply = PermissionAnswer | { decision: PermissionAnswer; rule?: string; reason?: string };
export type PermissionAsker = (request: PermissionRequest) => PermissionReply | Promise<PermissionReply>;

/**
 * The permission presets a front end can switch between (ACP's session modes): `default` is the
 * policy as configured; `accept-edits` also approves file changes the policy would ask about
 * (writes outside the workspace, in an --allow-path folder); `read-only` runs only read tools.
 * Deny rules hold in every mode.
 */
export type PermissionMode = 'default' | 'accept-edits' | 'read-only';
export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'accept-edits', 'read-only'];

export interface GateOptions {
  policy: PermissionPolicy;
  /** --yes. */
  approveAll: boolean;
  /** --approve rules and the session's grants, read at each call. */
  approvals: () => readonly PermissionRule[];
  /** --read-only: only read tools run. */
  readOnly: boolean;
  /** The current mode, read at each call (default: 'default'). */
  mode?: () => PermissionMode;
  /** Who answers an ask; undefined when no one can (no terminal, no client). */
  ask?: PermissionAsker;
  /** Records an "always" answer (in the session file). */
  grant: (rule: string) => void;
  /** The SDK's own check, asked after the policy allowed a call. */
  check?: PermissionCheck;
}

export function permissionGate(opts: GateOptions): PermissionCheck {
  return async (call, tool, ctx) => {
    const facts = await withShellFacts(callFacts(call, tool, ctx), opts, ctx);
    const mode = opts.mode?.() ?? 'default';
    if ((opts.readOnly || mode === 'read-only') && !runsReadOnly(tool)) {
      const [why, fix] = opts.readOnly ? ['--read-only', 'The user can run without --read-only.'] : ['the read-only mode', 'The user can switch to another mode.'];
      return { allow: false, reason: `mini-agent runs read-only (${why}); ${call.name} ${readOnlyRefusal(tool)}. ${fix}`, source: 'read-only' };
    }
    const d = decide(opts.policy, facts);
    const rule = d.rule?.text ?? null;
    if (d.level === 'deny') {
      return { allow: false, reason: `refused by policy: ${d.why}. The user can allow it by removing or narrowing that rule.`, rule, source: d.rule?.source ?? 'default' };
    }
    let allowed: PermissionDecision;
    if (d.level === 'allow') allowed = { allow: true, rule, source: d.rule?.source ?? 'default', reason: d.why };
    else {
      const answered = await approve(opts, call, tool, ctx, facts, d.why);
      if (!answered.allow) return answered;
      allowed = answered;
    }
    if (!opts.check) return allowed;
    const extra = await opts.check(call, tool, ctx);
    return extra.allow ? allowed : { ...extra, source: extra.source ?? 'sdk permission hook' };
  };
}

/** An "ask": approved by a flag or an earlier grant, else put to the front end, else refused. */
async function approve(opts: GateOptions, call: ToolCall, tool: ToolDefinition, ctx: PermissionContext, facts: CallFacts, why: string): Promise<PermissionDecision> {
  if (opts.approveAll) return { allow: true, rule: null, source: 'flag --yes', reason: `${why}; approved by --yes` };
  if (tool.risk === 'write' && opts.mode?.() === 'accept-edits') return { allow: true, rule: null, source: 'mode accept-edits', reason: `${why}; approved by the accept-edits mode` };
  let approval = coveredBy(opts.approvals(), facts);
  // A glob approval covers the commands, not a redirection the write rules would ask about (the exact line does).
  if (approval && !coversExactly(approval, facts) && writeDecisions(opts.policy, facts).some((d) => d.level !== 'allow')) approval = null;
  if (approval) {
    const text = approval.map((r) => r.text).join(' + ');
    return { allow: true, rule: text, source: [...new Set(approval.map((r) => r.source))].join('; '), reason: `${why}; approved by ${text}` };
  }
  const suggested = suggestedRule(facts);
  if (!opts.ask) {
    return {
      allow: false,
      source: 'no one to ask',
      reason:
        `this call needs approval (${why}), and there is no one to ask (no terminal or client is attached). ` +
        `The user can approve it with --yes, with --approve ${shellQuoted(suggested)}, or with a permissions.allow rule in .mini-agent/config.json.`,
    };
  }
  const requestId = randomUUID();
  ctx.emit?.({ type: 'permission_request', requestId, toolCallId: call.id, tool: call.name, arguments: call.arguments, risk: tool.risk, reason: why, suggestedRule: suggested });
  const reply = await waitForReply(opts.ask, { requestId, toolCallId: call.id, tool: call.name, arguments: call.arguments, risk: tool.risk, reason: why, suggestedRule: suggested, signal: ctx.signal });
  if (reply.decision === 'deny') {
    return { allow: false, asked: true, source: 'user', reason: `the user declined this call${reply.reason ? `: ${reply.reason}` : ''}. Do not retry it as is; ask the user or do something else.` };
  }
  if (reply.decision === 'always') {
    const granted = reply.rule ?? suggested;
    opts.grant(granted);
    return { allow: true, asked: true, rule: granted, source: 'user', reason: `the user allowed it for the rest of the session (${granted})` };
  }
  return { allow: true, asked: true, rule: null, source: 'user', reason: 'the user allowed this call' };
}

async function waitForReply(ask: PermissionAsker, request: PermissionRequest): Promise<{ decision: PermissionAnswer; rule?: string; reason?: string }> {
  const aborted = new Promise<{ decision: 'deny'; reason: string }>((resolve) => {
    if (request.signal.aborted) resolve({ decision: 'deny', reason: 'the run was aborted while waiting for an answer' });
    request.signal.addEventListener('abort', () => resolve({ decision: 'deny', reason: 'the run was aborted while waiting for an answer' }), { once: true });
  });
  let reply: PermissionReply;
  try {
    reply = await Promise.race([Promise.resolve(ask(request)), aborted]);
  } catch (err) {
    return { decision: 'deny', reason: `asking failed: ${(err as Error)?.message ?? String(err)}` };
  }
  if (typeof reply === 'string') reply = { decision: reply };
  if (reply === null || typeof reply !== 'object' || !['allow', 'deny', 'always'].includes(reply.decision)) {
    return { decision: 'deny', reason: 'the answer was not allow, deny or always' };
  }
  return reply;
}

/** A word for a POSIX shell: in single quotes, a quote inside written '\\''. */
function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * For a command that a rule may judge: the shell parser loaded (lazily: a run without such a
 * rule never loads it) and the files its redirections write, resolved as write_file would
 * (realpath of the deepest existing folder); a target the boundary refuses counts as outside.
 */
async function withShellFacts(facts: CallFacts, opts: GateOptions, ctx: Pick<PermissionContext, 'cwd' | 'allowedPaths'>): Promise<CallFacts> {
  const p = opts.policy;
  if (!needsShellParser([...p.allow, ...p.ask, ...p.deny, ...opts.approvals()], facts)) return facts;
  await loadShellParser();
  const syntax = parseShell(facts.command!.trim());
  const targets = syntax?.writes ?? [];
  const writes = targets.map((target) => {
    try {
      const real = resolveForWrite(ctx, target);
      return { path: displayPath(ctx, real), outsideWorkspace: !inWorkspace(ctx, real) };
    } catch {
      return { path: resolve(ctx.cwd, target), outsideWorkspace: true };
    }
  });
  return { ...facts, writes, syntax };
}

/** What the policy looks at: the tool, its risk, the paths as the user sees them, the command. */
export function callFacts(call: ToolCall, tool: ToolDefinition, ctx: Pick<PermissionContext, 'cwd' | 'allowedPaths'>): CallFacts {
  let real: string[] = [];
  try {
    real = tool.paths ? tool.paths(call.arguments as never, ctx) : [];
  } catch {
    real = []; // a path outside the boundary: the tool refuses it when it runs
  }
  const command = tool.risk === 'execute' && typeof call.arguments.command === 'string' ? call.arguments.command : undefined;
  return {
    tool: call.name,
    risk: tool.risk,
    paths: real.map((p) => displayPath(ctx, p)),
    outsideWorkspace: real.some((p) => !inWorkspace(ctx, p)),
    ...(command !== undefined ? { command } : {}),
  };
}
