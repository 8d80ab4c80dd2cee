// `mini-agent mcp list [--json]`: starts every configured MCP server that may start (a workspace's
// own servers only when it is trusted), waits for each up to its startup timeout, and shows its
// state, its tools and what their definitions cost in the context window; then stops them all.
// Exit code 0 when every server that may start is ready, 1 when one failed (scripts can check).
import { agentContext } from '../app/agent-context.js';
import { resolveFor } from '../app/agent-start.js';
import { AgentExtensions } from '../app/extensions.js';
import type { AgentFlags } from '../app/flags.js';
import { EXIT } from '../app/exit-codes.js';
import { preview } from '../core/types.js';
import type { FrontEndIo } from '../app/front-end-io.js';

export async function mcpListCommand(args: { agent: AgentFlags; json: boolean }, io: FrontEndIo): Promise<number> {
  const ctx = agentContext({ cwd: io.cwd, env: io.env }); // the workspace and environment, read once
  const a = args.agent;
  // The same flags → configuration mapping as an agent's (every shared flag counts).
  const resolved = resolveFor(a, ctx);
  const trusted = resolved.trust?.trusted === true;
  for (const w of resolved.warnings ?? []) io.stderr.write(`mini-agent: warning: ${w}\n`);
  const extensions = await AgentExtensions.load({ cwd: ctx.place.cwd, home: ctx.place.home, env: ctx.env, config: resolved.config, trusted });
  // The first SIGINT or SIGTERM closes the servers and exits 130; a later one finds no listener.
  const stopListening = io.onSignal(() => {
    stopListening();
    void extensions.close().finally(() => io.exitNow(130));
  });
  try {
    const problems = await extensions.startAllServers();
    const servers = extensions.mcpStatus();
    if (args.json) {
      io.stdout.write(JSON.stringify({ servers, problems }, null, 2) + '\n');
    } else if (servers.length === 0) {
      io.stdout.write('no MCP servers configured (add "mcpServers" to .mini-agent/config.json or $MINI_AGENT_HOME/config.json, or pass --mcp-config FILE)\n');
    } else {
      for (const s of servers) {
        io.stdout.write(`${s.name}  ${s.state}  ${s.transport}  (${s.source})\n`);
        if (s.error) io.stdout.write(`  ${s.error}\n`);
        if (s.tools.length > 0) {
          io.stdout.write(`  ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}, ~${s.toolTokens.toLocaleString('en-US')} tokens of tool definitions in every request\n`);
          const w = Math.max(...s.tools.map((t) => t.name.length));
          // The risk, with "*" when it is only the server's default (a "read*" tool does not run under --read-only).
          for (const t of s.tools)
            io.stdout.write(`    ${t.name.padEnd(w)}  ~${String(t.tokens).padStart(5)} tokens  ${(t.risk + (t.riskBasis === 'server-default' ? '*' : '')).padEnd(8)}  ${preview(t.description.replace(/^\[MCP server [^\]]+\] /, ''), 80)}\n`);
          if (s.tools.some((t) => t.riskBasis === 'server-default')) io.stdout.write(`  * the server's default risk (the tool has no annotations); set one per tool with "tools": {"NAME": {"risk": …}}\n`);
        }
      }
      for (const p of problems) io.stderr.write(`mini-agent: ${p}\n`);
    }
    return servers.some((s) => s.state === 'failed' || s.state === 'exited' || s.state === 'starting') ? EXIT.error : EXIT.completed;
  } finally {
    stopListening();
    await extensions.close();
  }
}
