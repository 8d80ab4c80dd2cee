// The library entry. `createAgent` is the SDK: one agent session (configuration, model, tools,
// session file, runner) for any program. The lower blocks stay reachable for people who build
// their own loop or front end.
export { createAgent } from './app/agent.js';
export type { Agent, AgentHooks, AgentSessionHandle, AgentState, CreateAgentOptions, ExportFormat, SessionChoice } from './app/types.js';
export { AgentError, errorKindOf, type AgentErrorKind } from './app/errors.js';
export * from './core/types.js';
export * from './core/events.js';
export * from './session/entries.js';
export { SessionStore } from './session/store.js';
export { SessionFileError, parseSessionText } from './session/session-file.js';
export { projectMessages, summaryMessage } from './session/projector.js';
export { planCompaction, compactionSettings, serializeEntry, chunkBlocks, uncompact, type CompactionPlan, type CompactionSettings } from './session/compaction-plan.js';
export { estimateTextTokens, estimateMessageTokens, estimateRequestTokens, contextTokens } from './session/tokens.js';
export { compactSession, modelSummarizer, summaryOutputTokens, type CompactionConfig, type Summarizer } from './agent/compactor.js';
export type { ModelAdapter, ModelRequest, ModelStreamEvent, ToolSpec } from './model/adapter.js';
export { ScriptedModel } from './model/scripted.js';
export { parseScript, type Script, type ScriptTurn } from './model/script.js';
export { ToolRegistry, errorResult, type PermissionCheck, type PermissionDecision } from './tools/registry.js';
export type { ToolDefinition, ToolContext, ToolResult, ToolRisk } from './tools/tool.js';
export { createReadFileTool } from './tools/read-file.js';
export { createWriteNoteTool } from './tools/write-note.js';
export { runLoop, DEFAULT_MAX_TURNS, type LoopOptions, type RunOutcome } from './agent/loop.js';
export type { Inbox } from './agent/inbox.js';
export { SessionRunner, type RunnerOptions, type RunResult } from './agent/runner.js';
export { buildSystemPrompt } from './agent/system-prompt.js';
export { createOpenAIAdapter } from './model/openai.js';
export { createAnthropicAdapter } from './model/anthropic.js';
export { classifyError } from './model/errors.js';
export { PROVIDERS, modelInfo, computeCost, type AdapterConfig, type Pricing } from './model/models.js';
export { decideRetry, DEFAULT_RETRY, type RetryPolicy } from './agent/retry.js';
export { sessionsDir, agentHome } from './session/paths.js';
