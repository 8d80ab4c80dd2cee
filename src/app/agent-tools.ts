// The agent's tools: the registry of createToolRegistry behind the permission stack (the gate,
// then protected paths, then leaving the sandbox) and the hooks (config hooks first, then the
// SDK's). The agent passes what it owns as values and getters; this module keeps no state.
import type { LoadedHooks } from '../extensions/hooks.js';
import type { PermissionRule } from '../tools/permissions.js';
import type { ToolHooks, ToolRegistry } from '../tools/registry.js';
import type { AgentContext } from './agent-context.js';
import { bashSandbox, guardSandbox } from './bash-sandbox.js';
import type { EffectiveConfig } from './config.js';
import type { AgentExtensions } from './extensions.js';
import { permissionGate, type PermissionMode } from './permission-gate.js';
import { agentProtectedSources, guardProtected } from './protected-check.js';
import { createToolRegistry } from './tools.js';
import type { CreateAgentOptions } from './types.js';

/** What the agent owns that its tools read: the config and options, and getters for what changes. */
export interface AgentToolsHost {
  config: () => EffectiveConfig;
  options: CreateAgentOptions;
  ctx: AgentContext;
  loaded: LoadedHooks;
  extensions: AgentExtensions;
  sessionFile: () => string | null;
  grants: () => readonly PermissionRule[];
  mode: () => PermissionMode;
  grant: (rule: string) => void;
}

export function agentTools(h: AgentToolsHost): ToolRegistry {
  const [c, o] = [h.config(), h.options];
  const sources = () => agentProtectedSources({ cwd: h.ctx.place.cwd, home: h.ctx.place.home, config: h.config(), sessionFile: h.sessionFile(), mcpConfig: o.mcpConfig, extensions: h.extensions });
  const sandbox = bashSandbox({ env: h.ctx.env, config: c, sources, approvals: () => c.approvals });
  const sdk: ToolHooks[] = o.hooks?.beforeToolCall || o.hooks?.afterToolCall ? [{ name: 'the SDK hooks', beforeToolCall: o.hooks.beforeToolCall, afterToolCall: o.hooks.afterToolCall }] : [];
  return createToolRegistry({
    tools: o.tools,
    extraTools: o.extraTools,
    enabled: c.tools,
    allowedPaths: c.allowPaths,
    readOnlyPaths: h.extensions.readOnlyPaths,
    dynamicTools: () => h.extensions.tools(),
    dynamicPrefixes: c.mcpServers.map((s) => `${s.name}__`),
    resultNote: (_call, access) => h.extensions.resultNote(access),
    files: o.fileAccess,
    deny: c.permissions.deny, // the search tools leave out what a read deny rule covers
    parallelExecute: c.bash.parallel,
    images: () => h.config().images, // read_file sends images only to a model that takes them
    hooks: [...h.loaded.tools, ...sdk],
    bash: c.bash,
    sandbox,
    secretEnvNames: c.apiKeyEnv ? [c.apiKeyEnv] : [],
    env: h.ctx.env,
    home: h.ctx.place.home,
    outputDir: () => {
      const file = h.sessionFile();
      return file ? file.replace(/\.jsonl$/, '') + '.outputs' : undefined;
    },
    permission: guardSandbox(
      guardProtected(
        // protected paths (protected-check.ts) and leaving the sandbox (bash-sandbox.ts): no rule, mode, grant or --yes opens them
        permissionGate({
          policy: c.permissions,
          approveAll: c.approveAll,
          approvals: () => [...c.approvals, ...h.grants()],
          readOnly: o.readOnly === true,
          mode: h.mode,
          ask: o.onPermissionRequest,
          grant: h.grant,
          check: o.hooks?.permission,
        }),
        { userHome: h.ctx.env.HOME, approvals: () => c.approvals, sources },
      ),
      { sandbox, approvals: () => c.approvals, ask: o.onPermissionRequest },
    ),
  });
}
