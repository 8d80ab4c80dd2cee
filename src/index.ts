// The library entry: the blocks, for embedding mini-agent or measuring it.
export * from './core/types.js';
export * from './core/events.js';
export * from './session/entries.js';
export { SessionStore } from './session/store.js';
export { SessionFileError, parseSessionText } from './session/session-file.js';
export { projectMessages, summaryMessage } from './session/projector.js';
export type { ModelAdapter, ModelRequest, ModelStreamEvent, ToolSpec } from './model/adapter.js';
export { ScriptedModel } from './model/scripted.js';
export { parseScript, type Script, type ScriptTurn } from './model/script.js';
export { ToolRegistry, errorResult, type PermissionCheck, type PermissionDecision } from './tools/registry.js';
export type { ToolDefinition, ToolContext, ToolResult, ToolRisk } from './tools/tool.js';
export { createReadFileTool } from './tools/read-file.js';
export { createWriteNoteTool } from './tools/write-note.js';
export { runLoop, DEFAULT_MAX_TURNS, type LoopOptions, type RunOutcome } from './agent/loop.js';
export { SessionRunner, type RunnerOptions, type RunResult } from './agent/runner.js';
export { buildSystemPrompt } from './agent/system-prompt.js';
