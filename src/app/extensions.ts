// The extensions of one agent, in one place for every front end: context files (AGENTS.md,
// CLAUDE.md) and skills in the system prompt, nested AGENTS.md files with the first tool result
// under their folder, prompt templates, and the MCP servers' tools. The loop knows none of this:
// the runner asks `prepareRun` as each run begins, the registry asks `tools()` and `resultNote`.
import type { Message } from '../core/types.js';
import { contextSection, loadContextFiles, nestedContextTracker, type LoadedContext } from '../extensions/context-files.js';
import type { McpManager, McpServerStatus } from '../extensions/mcp-client.js';
import { describeTransport } from '../extensions/mcp-tools.js';
import { expandTemplate, findTemplateCall, loadPromptTemplates, type PromptTemplate } from '../extensions/prompt-templates.js';
import { findSkillCall, loadSkills, skillMessage, skillsInConversation, skillsSection, type Skill } from '../extensions/skills.js';
import type { RunPreparation } from '../agent/runner.js';
import { estimateTextTokens } from '../session/tokens.js';
import type { CallAccess } from '../tools/registry.js';
import type { ToolDefinition } from '../tools/tool.js';
import type { EffectiveConfig } from './config.js';
import type { ConfigRow } from './config-show.js';
import { join } from 'node:path';

export interface ExtensionsOptions {
  cwd: string;
  /** The agent's home folder: the user's skills, prompt templates and AGENTS.md are there. */
  home: string;
  /** The environment MCP servers start from (each server adds its own `env`). */
  env: NodeJS.ProcessEnv;
  config: EffectiveConfig;
  /** The workspace is trusted (or --trust-workspace): its own MCP servers may start. */
  trusted: boolean;
  clientVersion?: string;
}

export class AgentExtensions {
  readonly skills: readonly Skill[];
  /** Loaded at the start, read again by reloadPromptTemplates() (a template added after start-up is found). */
  promptTemplates: readonly PromptTemplate[];
  /** Problems found while loading (bad front matter), one line each, naming the file. */
  readonly warnings: readonly string[];
  /** Folders outside the workspace that read_file may read: the user's skills. */
  readonly readOnlyPaths: readonly string[];
  private readonly nested;
  private readonly told = new Set<string>();

  /** Reads the skills and prompt templates (their front matter may need the YAML parser, loaded only then). */
  static async load(opts: ExtensionsOptions): Promise<AgentExtensions> {
    const [skills, templates] = await Promise.all([loadSkills(opts), loadPromptTemplates(opts)]);
    // The MCP client (and the SDK under it) loads only when servers are configured (issue 14).
    const servers = opts.config.mcpServers;
    const { cwd, env, trusted, clientVersion } = opts;
    const mcp = servers.length > 0 ? new (await import('../extensions/mcp-client.js')).McpManager({ servers, trusted, cwd, env, clientName: 'mini-agent', clientVersion }) : undefined;
    return new AgentExtensions(opts, skills, templates, mcp);
  }

  private constructor(
    private readonly opts: ExtensionsOptions,
    skills: { skills: Skill[]; warnings: string[] },
    templates: { templates: PromptTemplate[]; warnings: string[] },
    private readonly mcp: McpManager | undefined,
  ) {
    this.skills = skills.skills;
    this.promptTemplates = templates.templates;
    this.warnings = [...skills.warnings, ...templates.warnings];
    this.readOnlyPaths = this.skills.some((s) => s.source === 'user') ? [join(opts.home, 'skills')] : [];
    this.nested = nestedContextTracker({ cwd: opts.cwd });
  }

  /**
   * The start of a run: the MCP servers it needs start (in parallel, each waited for up to its
   * startup timeout) while the context files are read afresh; then the skills are listed, those
   * already in the conversation marked so. Warnings are given once per agent, not every run.
   * A compaction asks too (its size estimate includes the system prompt), but starts nothing.
   */
  async prepareRun(ctx: { signal: AbortSignal; messages: () => Message[]; purpose?: 'run' | 'compaction' }): Promise<RunPreparation> {
    this.nested.reset();
    // A compaction only measures the prompt: it starts no server.
    const starting = this.mcp && ctx.purpose !== 'compaction' ? this.mcp.start({ only: (name) => this.serverNeeded(name), signal: ctx.signal }) : Promise.resolve([]);
    const sections: string[] = [];
    const notices: string[] = [];
    const context = this.loadContext();
    if (context) {
      sections.push(contextSection(context, this.opts.cwd));
      notices.push(...context.notices);
    }
    if (this.skills.length > 0) {
      const inConversation = skillsInConversation(ctx.messages(), this.skills, this.opts.cwd);
      sections.push(skillsSection(this.skills, { cwd: this.opts.cwd, inConversation }));
    }
    notices.push(...(await starting));
    const warnings = notices.filter((line) => !this.told.has(line));
    for (const line of warnings) this.told.add(line);
    return { systemContext: sections.filter((s) => s !== '').join('\n\n'), warnings };
  }

  /** The MCP tools now available (of ready servers), those that `--tools` leaves on. */
  tools(): ToolDefinition[] {
    const all = this.mcp?.tools() ?? [];
    const enabled = this.opts.config.tools;
    return enabled ? all.filter((t) => enabled.includes(t.name) || enabled.includes(`${t.name.split('__')[0]}__*`)) : all;
  }

  /** The nested AGENTS.md text for what a successful file-tool call touched (once per folder and run). */
  resultNote(access: CallAccess): string | undefined {
    if (this.opts.config.contextFiles.enabled === false || access.paths.length === 0) return undefined;
    return this.nested.forPaths(access.paths);
  }

  /** The two prompt folders read again: templates added, changed or removed since start-up count (issue 24). */
  async reloadPromptTemplates(): Promise<readonly PromptTemplate[]> {
    this.promptTemplates = (await loadPromptTemplates(this.opts)).templates;
    return this.promptTemplates;
  }

  /** `/name args` naming a prompt template: its text with the arguments filled in. */
  expandPromptTemplate(text: string): { name: string; text: string } | undefined {
    const call = findTemplateCall(text, this.promptTemplates);
    return call && { name: call.template.name, text: expandTemplate(call.template.body, call.args) };
  }

  /** `/skill:name args`: the skill's instructions wrapped for the model, the arguments after them. */
  expandSkill(text: string): { name: string; text: string } | undefined {
    const call = findSkillCall(text, this.skills);
    return call && { name: call.skill.name, text: skillMessage(call.skill, call.args) };
  }

  /** The skill NAME inlined before `prompt` (`--skill NAME`); a usage error names the known skills. */
  skillPrompt(name: string, prompt: string): string | undefined {
    const skill = this.skills.find((s) => s.name === name);
    return skill && skillMessage(skill, prompt);
  }

  mcpStatus(): McpServerStatus[] {
    return this.mcp?.status() ?? [];
  }

  /** Starts every configured server that may start (for `mini-agent mcp list`); the problems, one line each. */
  startAllServers(signal?: AbortSignal): Promise<string[]> {
    return this.mcp ? this.mcp.start({ signal }) : Promise.resolve([]);
  }

  /** The rows for `--show-config` and `/status`: each context file with its path and size, the skills, templates and servers. */
  rows(): ConfigRow[] {
    const rows: ConfigRow[] = [];
    const context = this.loadContext();
    if (!context) rows.push({ key: 'context files', value: '(off)', source: '--no-context-files, or contextFiles.enabled false in a config file' });
    else if (context.files.length === 0) rows.push({ key: 'context files', value: '(none found)', source: 'AGENTS.md or CLAUDE.md, home and root → workspace' });
    else {
      for (const f of context.files) {
        const size = `${f.bytes} bytes, ~${f.tokens} tokens${f.omitted ? ', omitted: over the cap' : f.truncated ? ', cut to fit the cap' : ''}`;
        rows.push({ key: `context file (${f.scope})`, value: f.path, source: size });
      }
      rows.push({ key: 'context files total', value: `${context.includedBytes} of ${context.maxBytes} bytes`, source: 'contextFiles.maxBytes' });
    }
    for (const s of this.skills) rows.push({ key: `skill ${s.name}`, value: s.file, source: `${s.source}, ~${estimateTextTokens(`- ${s.name}: ${s.description}`)} tokens in the system prompt` });
    for (const t of this.promptTemplates) rows.push({ key: `prompt template /${t.name}`, value: t.file, source: t.source });
    const statuses = this.mcp?.status() ?? [];
    for (const server of this.opts.config.mcpServers) {
      const status = statuses.find((s) => s.name === server.name);
      const state = !server.enabled ? 'disabled' : server.scope === 'project' && !this.opts.trusted ? 'not trusted: starts after `mini-agent trust`' : (status?.state ?? 'idle');
      const tools = status && status.tools.length > 0 ? `, ${status.tools.length} tools, ~${status.toolTokens.toLocaleString('en-US')} tokens` : '';
      // State first: /status cuts long lines at the terminal's width.
      rows.push({ key: `mcp server ${server.name}`, value: `${state}${tools} · ${describeTransport(server.transport, server.shown)}`, source: server.source });
    }
    return rows;
  }

  close(): Promise<void> {
    return this.mcp?.close() ?? Promise.resolve();
  }

  private loadContext(): LoadedContext | undefined {
    const { config, cwd, home } = this.opts;
    return config.contextFiles.enabled ? loadContextFiles({ cwd, home, maxBytes: config.contextFiles.maxBytes }) : undefined;
  }

  /** A server is needed unless `--tools` lists no tool of it (`server__x` or `server__*`). */
  private serverNeeded(name: string): boolean {
    const enabled = this.opts.config.tools;
    return !enabled || enabled.some((t) => t.startsWith(`${name}__`));
  }
}
