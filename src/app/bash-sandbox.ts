// The bash sandbox as the agent sets it up (tools/sandbox.ts does the mounting):
// - `bashSandbox`: the mode and network from the config, and the mounts of a call: the workspace,
//   the --allow-path folders and the output folder writable; the protected paths inside them
//   (protected-paths.ts: `.mini-agent/`, `.git/hooks`, `.git/config`, the session file, config,
//   hook, skill and template files) read-only again.
// - `guardSandbox`, in front of the permission gate: a call that leaves the sandbox (`"sandbox":
//   false`) or opens the network in it (`"network": true`) always asks the user, whatever --yes,
//   the mode, allow rules or session grants say; only the user's answer to this question, or the
//   user's own --approve of exactly that command line, lets it through. And the first bash call
//   of an agent that finds no sandbox (auto) warns once, on stderr (a `warning` event).
import { realpathSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { ToolCall } from '../core/types.js';
import type { BashSandbox } from '../tools/bash.js';
import { exactCommand } from '../tools/permissions.js';
import type { PermissionRule } from '../tools/permissions.js';
import type { PermissionCheck, PermissionContext, PermissionDecision } from '../tools/registry.js';
import { sandboxBinds, sandboxStatus, type SandboxMode } from '../tools/sandbox.js';
import type { PermissionAsker } from './permission-gate.js';
import { resolveProtected, type ProtectedSources } from './protected-paths.js';

export interface SandboxSetup {
  env: Readonly<Record<string, string | undefined>>;
  config: { bash: { sandbox: SandboxMode; network: boolean }; allowPaths: readonly string[] };
  /** What is protected now (the session file changes with the session). */
  sources: () => ProtectedSources;
  /** The user's --approve rules: one naming a command line exactly opens the protected paths to it, as it does for the guard (protected-check.ts). */
  approvals: () => readonly PermissionRule[];
}

/** The bash tool's sandbox for an agent. */
export function bashSandbox(s: SandboxSetup): BashSandbox {
  return {
    mode: s.config.bash.sandbox,
    network: s.config.bash.network,
    status: () => sandboxStatus(s.env),
    binds: (cwd, outputDir, command) => {
      const writable = [cwd, ...s.config.allowPaths, outputDir].map(real);
      const list = resolveProtected(s.sources());
      return sandboxBinds(
        writable,
        list.entries.map((e) => e.path),
        !approvedExactly(s.approvals(), command),
      );
    },
  };
}

function approvedExactly(approvals: readonly PermissionRule[], command: string): boolean {
  const line = command.trim();
  return approvals.some((r) => r.tool === 'bash' && r.pattern !== undefined && exactCommand(r.pattern) === line);
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

export interface GuardOptions {
  sandbox: BashSandbox;
  /** The user's --approve rules (never config rules or session grants). */
  approvals: () => readonly PermissionRule[];
  /** Who answers; undefined when no one can. */
  ask?: PermissionAsker;
}

/** What a call asks to leave of the sandbox, in words; undefined when it stays inside (or there is no sandbox to leave). */
function escalation(call: ToolCall, sb: BashSandbox): string | undefined {
  if (call.name !== 'bash' || sb.mode === 'off') return undefined;
  const outside = call.arguments.sandbox === false;
  const network = call.arguments.network === true && !sb.network;
  if (!outside && !network) return undefined;
  if (outside && sb.mode === 'required') return undefined; // the tool refuses it: nothing to ask
  if (!sb.status().available) return undefined; // nothing to leave: it runs without one anyway
  return outside ? 'it runs OUTSIDE the sandbox ("sandbox": false): the command can change any file you can and reach the network' : 'it gets the network inside the sandbox ("network": true)';
}

export function guardSandbox(gate: PermissionCheck, opts: GuardOptions): PermissionCheck {
  let warned = false;
  return async (call, tool, ctx) => {
    if (call.name === 'bash' && !warned && opts.sandbox.mode === 'auto') {
      const status = opts.sandbox.status();
      warned = true;
      if (!status.available) {
        ctx.emit?.({
          type: 'warning',
          message: `bash runs without a sandbox: ${status.why}. Commands can change any file you can and reach the network. Set bash.sandbox to "required" to refuse instead, or "off" to run without one on purpose.`,
        });
      }
    }
    const what = escalation(call, opts.sandbox);
    const decided = await gate(call, tool, ctx);
    if (what === undefined || !decided.allow) return decided;
    if (decided.asked && decided.source === 'user') return { ...decided, reason: `${decided.reason}; ${what}` };
    const line = typeof call.arguments.command === 'string' ? call.arguments.command.trim() : '';
    if (approvedExactly(opts.approvals(), line)) return { ...decided, source: 'flag --approve', reason: `${what}; approved by --approve of this command line` };
    return askUser(opts.ask, call, tool, ctx, what);
  };
}

/** Asks the user about a call that leaves the sandbox; no one to ask is a refusal that says what to do. */
async function askUser(ask: PermissionAsker | undefined, call: ToolCall, tool: { risk: 'read' | 'write' | 'execute' }, ctx: PermissionContext, what: string): Promise<PermissionDecision> {
  const line = String(call.arguments.command ?? '').trim();
  const rule = `bash(${line.replace(/[\\*?]/g, '\\$&')})`;
  const reason = `${what}; only the user can allow that, for this call (--yes, allow rules and "always" answers do not)`;
  if (!ask) {
    return {
      allow: false,
      source: 'sandbox',
      reason:
        `this call needs the user's own approval: ${reason}, and there is no one to ask. ` +
        `The user can allow exactly this command with --approve '${rule.replace(/'/g, `'\\''`)}'. Otherwise, run it inside the sandbox, or tell the user what you need and why.`,
    };
  }
  const request = { requestId: randomUUID(), toolCallId: call.id, tool: call.name, arguments: call.arguments, risk: tool.risk, reason, suggestedRule: rule };
  ctx.emit?.({ type: 'permission_request', ...request });
  let reply;
  try {
    reply = await Promise.race([
      Promise.resolve(ask({ ...request, signal: ctx.signal })),
      new Promise<'deny'>((resolve) => (ctx.signal.aborted ? resolve('deny') : ctx.signal.addEventListener('abort', () => resolve('deny'), { once: true }))),
    ]);
  } catch {
    reply = 'deny' as const;
  }
  const decision = typeof reply === 'string' ? reply : reply?.decision;
  if (decision === 'allow' || decision === 'always') return { allow: true, asked: true, rule: null, source: 'user', reason: `the user allowed this call: ${what}` };
  const why = typeof reply === 'object' && reply?.reason ? `: ${reply.reason}` : '';
  return { allow: false, asked: true, source: 'user', reason: `the user declined running this command outside the sandbox${why}. Do not retry it as is; ask the user or do something else.` };
}
