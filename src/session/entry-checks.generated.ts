// Generated from the entry kinds' schemas (src/session/entry-kinds/: reading.ts) by scripts/entry-checks.mjs
// (TypeBox's code generator): do not edit. test/entry-checks.test.ts fails when it is stale;
// `npm run gen:entry-checks` rewrites it. What it is for: src/session/entry-shape.ts.
// @ts-nocheck
import { Guard } from 'typebox/guard';
import { Hashing } from 'typebox/system';

/** Each kind's reading schema: what a line may hold and still be read. */
export const ENTRY_CHECKS: ReadonlyMap<string, (value: unknown) => boolean> = new Map([
  // message
  [
    "message",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "message" in value) && (((((typeof value.type === "string" && value.type === "message") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && ((((typeof value.message === "object" && value.message !== null && !(Array.isArray(value.message))) && (("role" in value.message && "content" in value.message) && ((typeof value.message.role === "string" && value.message.role === "user") && (Array.isArray(value.message.content) && value.message.content.every((unique_0, index) => (((((typeof unique_0 === "object" && unique_0 !== null && !(Array.isArray(unique_0))) && (("type" in unique_0 && "text" in unique_0) && ((typeof unique_0.type === "string" && unique_0.type === "text") && typeof unique_0.text === "string"))) || ((typeof unique_0 === "object" && unique_0 !== null && !(Array.isArray(unique_0))) && ("type" in unique_0 && (((typeof unique_0.type === "string" && unique_0.type === "image") && (unique_0.data === undefined || (!("data" in unique_0) || true))) && (unique_0.mimeType === undefined || (!("mimeType" in unique_0) || true)))))) || ((typeof unique_0 === "object" && unique_0 !== null && !(Array.isArray(unique_0))) && ("type" in unique_0 && (typeof unique_0.type === "string" && !((unique_0.type === "text" || unique_0.type === "image")))))))))))) || ((typeof value.message === "object" && value.message !== null && !(Array.isArray(value.message))) && (((("role" in value.message && "content" in value.message) && "stopReason" in value.message) && "usage" in value.message) && ((((((((typeof value.message.role === "string" && value.message.role === "assistant") && (Array.isArray(value.message.content) && value.message.content.every((unique_1, index) => ((((((typeof unique_1 === "object" && unique_1 !== null && !(Array.isArray(unique_1))) && (("type" in unique_1 && "text" in unique_1) && ((typeof unique_1.type === "string" && unique_1.type === "text") && typeof unique_1.text === "string"))) || ((typeof unique_1 === "object" && unique_1 !== null && !(Array.isArray(unique_1))) && ("type" in unique_1 && (((typeof unique_1.type === "string" && unique_1.type === "thinking") && (unique_1.thinking === undefined || (!("thinking" in unique_1) || true))) && (unique_1.signature === undefined || (!("signature" in unique_1) || true)))))) || ((typeof unique_1 === "object" && unique_1 !== null && !(Array.isArray(unique_1))) && ((("type" in unique_1 && "id" in unique_1) && "name" in unique_1) && ((((((typeof unique_1.type === "string" && unique_1.type === "toolCall") && typeof unique_1.id === "string") && typeof unique_1.name === "string") && (unique_1.arguments === undefined || (!("arguments" in unique_1) || true))) && (unique_1.argumentsError === undefined || (!("argumentsError" in unique_1) || true))) && (unique_1.rawArguments === undefined || (!("rawArguments" in unique_1) || true)))))) || ((typeof unique_1 === "object" && unique_1 !== null && !(Array.isArray(unique_1))) && ("type" in unique_1 && (typeof unique_1.type === "string" && !(((unique_1.type === "text" || unique_1.type === "thinking") || unique_1.type === "toolCall")))))))))) && typeof value.message.stopReason === "string") && ((typeof value.message.usage === "object" && value.message.usage !== null && !(Array.isArray(value.message.usage))) || Array.isArray(value.message.usage))) && (value.message.model === undefined || (!("model" in value.message) || true))) && (value.message.provider === undefined || (!("provider" in value.message) || true))) && (value.message.errorMessage === undefined || (!("errorMessage" in value.message) || true))) && (value.message.refusal === undefined || (!("refusal" in value.message) || true)))))) || ((typeof value.message === "object" && value.message !== null && !(Array.isArray(value.message))) && ((("role" in value.message && "toolCallId" in value.message) && "content" in value.message) && ((((((typeof value.message.role === "string" && value.message.role === "toolResult") && typeof value.message.toolCallId === "string") && (value.message.toolName === undefined || (!("toolName" in value.message) || true))) && (Array.isArray(value.message.content) && value.message.content.every((unique_2, index) => (((((typeof unique_2 === "object" && unique_2 !== null && !(Array.isArray(unique_2))) && (("type" in unique_2 && "text" in unique_2) && ((typeof unique_2.type === "string" && unique_2.type === "text") && typeof unique_2.text === "string"))) || ((typeof unique_2 === "object" && unique_2 !== null && !(Array.isArray(unique_2))) && ("type" in unique_2 && (((typeof unique_2.type === "string" && unique_2.type === "image") && (unique_2.data === undefined || (!("data" in unique_2) || true))) && (unique_2.mimeType === undefined || (!("mimeType" in unique_2) || true)))))) || ((typeof unique_2 === "object" && unique_2 !== null && !(Array.isArray(unique_2))) && ("type" in unique_2 && (typeof unique_2.type === "string" && !((unique_2.type === "text" || unique_2.type === "image")))))))))) && (value.message.isError === undefined || (!("isError" in value.message) || true))) && (value.message.details === undefined || (!("details" in value.message) || true))))))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // compaction
  [
    "compaction",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "summary" in value) && "firstKeptEntryId" in value) && (((((((((((((typeof value.type === "string" && value.type === "compaction") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && typeof value.summary === "string") && typeof value.firstKeptEntryId === "string") && (value.tokensBefore === undefined || (!("tokensBefore" in value) || true))) && (value.tokensAfter === undefined || (!("tokensAfter" in value) || true))) && (value.summarizedIds === undefined || (!("summarizedIds" in value) || true))) && (value.details === undefined || (!("details" in value) || true))) && (value.reason === undefined || (!("reason" in value) || true))) && (value.model === undefined || (!("model" in value) || true))) && (value.warnings === undefined || (!("warnings" in value) || true))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // branch_summary
  [
    "branch_summary",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "summary" in value) && "fromId" in value) && (((((((((typeof value.type === "string" && value.type === "branch_summary") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && typeof value.summary === "string") && typeof value.fromId === "string") && (value.summarizedIds === undefined || (!("summarizedIds" in value) || true))) && (value.details === undefined || (!("details" in value) || true))) && (value.model === undefined || (!("model" in value) || true))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // compaction_failed
  [
    "compaction_failed",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "reason" in value) && "error" in value) && (((((((((typeof value.type === "string" && value.type === "compaction_failed") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && (value.targetId === undefined || (!("targetId" in value) || true))) && typeof value.reason === "string") && typeof value.error === "string") && (value.tokensBefore === undefined || (!("tokensBefore" in value) || true))) && (value.model === undefined || (!("model" in value) || true))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // label
  [
    "label",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "targetId" in value) && "label" in value) && ((((((typeof value.type === "string" && value.type === "label") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && typeof value.targetId === "string") && (typeof value.label === "string" || value.label === null)))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // leaf
  [
    "leaf",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "targetId" in value) && (((((typeof value.type === "string" && value.type === "leaf") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && (typeof value.targetId === "string" || value.targetId === null)))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // session_info
  [
    "session_info",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "name" in value) && (((((typeof value.type === "string" && value.type === "session_info") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && (typeof value.name === "string" || value.name === null)))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // model_change
  [
    "model_change",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "provider" in value) && "model" in value) && ((((((typeof value.type === "string" && value.type === "model_change") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && typeof value.provider === "string") && typeof value.model === "string"))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // model_window
  [
    "model_window",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "provider" in value) && "model" in value) && "contextWindow" in value) && "source" in value) && (((((((((typeof value.type === "string" && value.type === "model_window") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && typeof value.provider === "string") && typeof value.model === "string") && (Number.isFinite(value.contextWindow) && value.contextWindow > 0)) && ((typeof value.source === "string" && value.source === "error") || (typeof value.source === "string" && value.source === "server"))) && (value.detail === undefined || (!("detail" in value) || true))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // permission_grant
  [
    "permission_grant",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "rule" in value) && ((((((typeof value.type === "string" && value.type === "permission_grant") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && (typeof value.rule === "string" && (value.rule.length >= 2 || (value.rule.length >= 1 && Guard.CodePointCount(value.rule) >= 1)))) && (value.seal === undefined || (!("seal" in value) || true))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // run
  [
    "run",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "runId" in value) && "snapshot" in value) && ((((((((((((((((typeof value.type === "string" && value.type === "run") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && typeof value.runId === "string") && (value.startedAt === undefined || (!("startedAt" in value) || true))) && (value.durationMs === undefined || (!("durationMs" in value) || true))) && (value.stopReason === undefined || (!("stopReason" in value) || true))) && (value.turns === undefined || (!("turns" in value) || true))) && (value.toolCalls === undefined || (!("toolCalls" in value) || true))) && (value.toolErrors === undefined || (!("toolErrors" in value) || true))) && (value.usage === undefined || (!("usage" in value) || true))) && (value.error === undefined || (!("error" in value) || true))) && (value.refusal === undefined || (!("refusal" in value) || true))) && (value.leafId === undefined || (!("leafId" in value) || true))) && ((typeof value.snapshot === "object" && value.snapshot !== null && !(Array.isArray(value.snapshot))) || Array.isArray(value.snapshot))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
]);

/** Each kind's read form: an entry that passes is used as it is, others are filled in first. */
export const READ_FORM_CHECKS: ReadonlyMap<string, (value: unknown) => boolean> = new Map([
  // message
  [
    "message",
    (() => {
      const External = [/^.*$/u, /^.*$/u];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "message" in value) && (((((typeof value.type === "string" && value.type === "message") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && ((((typeof value.message === "object" && value.message !== null && !(Array.isArray(value.message))) && (("role" in value.message && "content" in value.message) && ((typeof value.message.role === "string" && value.message.role === "user") && (Array.isArray(value.message.content) && value.message.content.every((unique_0, index) => (((((typeof unique_0 === "object" && unique_0 !== null && !(Array.isArray(unique_0))) && (("type" in unique_0 && "text" in unique_0) && ((typeof unique_0.type === "string" && unique_0.type === "text") && typeof unique_0.text === "string"))) || ((typeof unique_0 === "object" && unique_0 !== null && !(Array.isArray(unique_0))) && ((("type" in unique_0 && "data" in unique_0) && "mimeType" in unique_0) && (((typeof unique_0.type === "string" && unique_0.type === "image") && typeof unique_0.data === "string") && typeof unique_0.mimeType === "string")))) || ((typeof unique_0 === "object" && unique_0 !== null && !(Array.isArray(unique_0))) && ("type" in unique_0 && (typeof unique_0.type === "string" && !((unique_0.type === "text" || unique_0.type === "image")))))))))))) || ((typeof value.message === "object" && value.message !== null && !(Array.isArray(value.message))) && (((("role" in value.message && "content" in value.message) && "stopReason" in value.message) && "usage" in value.message) && ((((((((typeof value.message.role === "string" && value.message.role === "assistant") && (Array.isArray(value.message.content) && value.message.content.every((unique_1, index) => ((((((typeof unique_1 === "object" && unique_1 !== null && !(Array.isArray(unique_1))) && (("type" in unique_1 && "text" in unique_1) && ((typeof unique_1.type === "string" && unique_1.type === "text") && typeof unique_1.text === "string"))) || ((typeof unique_1 === "object" && unique_1 !== null && !(Array.isArray(unique_1))) && (("type" in unique_1 && "thinking" in unique_1) && (((typeof unique_1.type === "string" && unique_1.type === "thinking") && typeof unique_1.thinking === "string") && (unique_1.signature === undefined || (!("signature" in unique_1) || typeof unique_1.signature === "string")))))) || ((typeof unique_1 === "object" && unique_1 !== null && !(Array.isArray(unique_1))) && (((("type" in unique_1 && "id" in unique_1) && "name" in unique_1) && "arguments" in unique_1) && ((((((typeof unique_1.type === "string" && unique_1.type === "toolCall") && typeof unique_1.id === "string") && typeof unique_1.name === "string") && ((typeof unique_1.arguments === "object" && unique_1.arguments !== null && !(Array.isArray(unique_1.arguments))) && Object.entries(unique_1.arguments).every(([unique_2, unique_3], _) => ((!(External[0].test(unique_2)) || true))))) && (unique_1.argumentsError === undefined || (!("argumentsError" in unique_1) || typeof unique_1.argumentsError === "string"))) && (unique_1.rawArguments === undefined || (!("rawArguments" in unique_1) || typeof unique_1.rawArguments === "string")))))) || ((typeof unique_1 === "object" && unique_1 !== null && !(Array.isArray(unique_1))) && ("type" in unique_1 && (typeof unique_1.type === "string" && !(((unique_1.type === "text" || unique_1.type === "thinking") || unique_1.type === "toolCall")))))))))) && typeof value.message.stopReason === "string") && ((typeof value.message.usage === "object" && value.message.usage !== null && !(Array.isArray(value.message.usage))) && ((((("input" in value.message.usage && "output" in value.message.usage) && "cacheRead" in value.message.usage) && "cacheWrite" in value.message.usage) && "cost" in value.message.usage) && (((((Number.isFinite(value.message.usage.input) && Number.isFinite(value.message.usage.output)) && Number.isFinite(value.message.usage.cacheRead)) && Number.isFinite(value.message.usage.cacheWrite)) && Number.isFinite(value.message.usage.cost)) && (value.message.usage.costUnknown === undefined || (!("costUnknown" in value.message.usage) || typeof value.message.usage.costUnknown === "boolean")))))) && (value.message.model === undefined || (!("model" in value.message) || typeof value.message.model === "string"))) && (value.message.provider === undefined || (!("provider" in value.message) || typeof value.message.provider === "string"))) && (value.message.errorMessage === undefined || (!("errorMessage" in value.message) || typeof value.message.errorMessage === "string"))) && (value.message.refusal === undefined || (!("refusal" in value.message) || ((typeof value.message.refusal === "object" && value.message.refusal !== null && !(Array.isArray(value.message.refusal))) && ("reason" in value.message.refusal && ((((typeof value.message.refusal.reason === "string" && value.message.refusal.reason === "refusal") || (typeof value.message.refusal.reason === "string" && value.message.refusal.reason === "content_filter")) && (value.message.refusal.category === undefined || (!("category" in value.message.refusal) || typeof value.message.refusal.category === "string"))) && (value.message.refusal.explanation === undefined || (!("explanation" in value.message.refusal) || typeof value.message.refusal.explanation === "string"))))))))))) || ((typeof value.message === "object" && value.message !== null && !(Array.isArray(value.message))) && ((((("role" in value.message && "toolCallId" in value.message) && "toolName" in value.message) && "content" in value.message) && "isError" in value.message) && ((((((typeof value.message.role === "string" && value.message.role === "toolResult") && typeof value.message.toolCallId === "string") && typeof value.message.toolName === "string") && (Array.isArray(value.message.content) && value.message.content.every((unique_4, index) => (((((typeof unique_4 === "object" && unique_4 !== null && !(Array.isArray(unique_4))) && (("type" in unique_4 && "text" in unique_4) && ((typeof unique_4.type === "string" && unique_4.type === "text") && typeof unique_4.text === "string"))) || ((typeof unique_4 === "object" && unique_4 !== null && !(Array.isArray(unique_4))) && ((("type" in unique_4 && "data" in unique_4) && "mimeType" in unique_4) && (((typeof unique_4.type === "string" && unique_4.type === "image") && typeof unique_4.data === "string") && typeof unique_4.mimeType === "string")))) || ((typeof unique_4 === "object" && unique_4 !== null && !(Array.isArray(unique_4))) && ("type" in unique_4 && (typeof unique_4.type === "string" && !((unique_4.type === "text" || unique_4.type === "image")))))))))) && typeof value.message.isError === "boolean") && (value.message.details === undefined || (!("details" in value.message) || ((typeof value.message.details === "object" && value.message.details !== null && !(Array.isArray(value.message.details))) && Object.entries(value.message.details).every(([unique_5, unique_6], _) => ((!(External[1].test(unique_5)) || true))))))))))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // compaction
  [
    "compaction",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "summary" in value) && "firstKeptEntryId" in value) && (((((((((((((typeof value.type === "string" && value.type === "compaction") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && typeof value.summary === "string") && typeof value.firstKeptEntryId === "string") && (value.tokensBefore === undefined || (!("tokensBefore" in value) || Number.isFinite(value.tokensBefore)))) && (value.tokensAfter === undefined || (!("tokensAfter" in value) || Number.isFinite(value.tokensAfter)))) && (value.summarizedIds === undefined || (!("summarizedIds" in value) || (Array.isArray(value.summarizedIds) && value.summarizedIds.every((unique_0, index) => (typeof unique_0 === "string")))))) && (value.details === undefined || (!("details" in value) || ((typeof value.details === "object" && value.details !== null && !(Array.isArray(value.details))) && (("readFiles" in value.details && "modifiedFiles" in value.details) && ((Array.isArray(value.details.readFiles) && value.details.readFiles.every((unique_1, index) => (typeof unique_1 === "string"))) && (Array.isArray(value.details.modifiedFiles) && value.details.modifiedFiles.every((unique_2, index) => (typeof unique_2 === "string"))))))))) && (value.reason === undefined || (!("reason" in value) || (((typeof value.reason === "string" && value.reason === "threshold") || (typeof value.reason === "string" && value.reason === "overflow")) || (typeof value.reason === "string" && value.reason === "manual"))))) && (value.model === undefined || (!("model" in value) || typeof value.model === "string"))) && (value.warnings === undefined || (!("warnings" in value) || (Array.isArray(value.warnings) && value.warnings.every((unique_3, index) => (typeof unique_3 === "string")))))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // branch_summary
  [
    "branch_summary",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "summary" in value) && "fromId" in value) && "summarizedIds" in value) && "details" in value) && (((((((((typeof value.type === "string" && value.type === "branch_summary") && typeof value.id === "string") && typeof value.timestamp === "string") && (typeof value.parentId === "string" || value.parentId === null)) && typeof value.summary === "string") && typeof value.fromId === "string") && (Array.isArray(value.summarizedIds) && value.summarizedIds.every((unique_0, index) => (typeof unique_0 === "string")))) && ((typeof value.details === "object" && value.details !== null && !(Array.isArray(value.details))) && (("readFiles" in value.details && "modifiedFiles" in value.details) && ((Array.isArray(value.details.readFiles) && value.details.readFiles.every((unique_1, index) => (typeof unique_1 === "string"))) && (Array.isArray(value.details.modifiedFiles) && value.details.modifiedFiles.every((unique_2, index) => (typeof unique_2 === "string"))))))) && (value.model === undefined || (!("model" in value) || typeof value.model === "string"))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // compaction_failed
  [
    "compaction_failed",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "targetId" in value) && "reason" in value) && "error" in value) && "tokensBefore" in value) && (((((((((typeof value.type === "string" && value.type === "compaction_failed") && typeof value.id === "string") && typeof value.timestamp === "string") && value.parentId === null) && (typeof value.targetId === "string" || value.targetId === null)) && typeof value.reason === "string") && typeof value.error === "string") && Number.isFinite(value.tokensBefore)) && (value.model === undefined || (!("model" in value) || typeof value.model === "string"))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // label
  [
    "label",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "targetId" in value) && "label" in value) && ((((((typeof value.type === "string" && value.type === "label") && typeof value.id === "string") && typeof value.timestamp === "string") && value.parentId === null) && typeof value.targetId === "string") && (typeof value.label === "string" || value.label === null)))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // leaf
  [
    "leaf",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "targetId" in value) && (((((typeof value.type === "string" && value.type === "leaf") && typeof value.id === "string") && typeof value.timestamp === "string") && value.parentId === null) && (typeof value.targetId === "string" || value.targetId === null)))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // session_info
  [
    "session_info",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "name" in value) && (((((typeof value.type === "string" && value.type === "session_info") && typeof value.id === "string") && typeof value.timestamp === "string") && value.parentId === null) && (typeof value.name === "string" || value.name === null)))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // model_change
  [
    "model_change",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "provider" in value) && "model" in value) && ((((((typeof value.type === "string" && value.type === "model_change") && typeof value.id === "string") && typeof value.timestamp === "string") && value.parentId === null) && typeof value.provider === "string") && typeof value.model === "string"))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // model_window
  [
    "model_window",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "provider" in value) && "model" in value) && "contextWindow" in value) && "source" in value) && (((((((((typeof value.type === "string" && value.type === "model_window") && typeof value.id === "string") && typeof value.timestamp === "string") && value.parentId === null) && typeof value.provider === "string") && typeof value.model === "string") && (Number.isFinite(value.contextWindow) && value.contextWindow > 0)) && ((typeof value.source === "string" && value.source === "error") || (typeof value.source === "string" && value.source === "server"))) && (value.detail === undefined || (!("detail" in value) || typeof value.detail === "string"))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // permission_grant
  [
    "permission_grant",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "rule" in value) && ((((((typeof value.type === "string" && value.type === "permission_grant") && typeof value.id === "string") && typeof value.timestamp === "string") && value.parentId === null) && (typeof value.rule === "string" && (value.rule.length >= 2 || (value.rule.length >= 1 && Guard.CodePointCount(value.rule) >= 1)))) && (value.seal === undefined || (!("seal" in value) || typeof value.seal === "string"))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // run
  [
    "run",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (((((((((((((("type" in value && "id" in value) && "timestamp" in value) && "parentId" in value) && "runId" in value) && "startedAt" in value) && "durationMs" in value) && "stopReason" in value) && "turns" in value) && "toolCalls" in value) && "toolErrors" in value) && "usage" in value) && "leafId" in value) && "snapshot" in value) && ((((((((((((((((typeof value.type === "string" && value.type === "run") && typeof value.id === "string") && typeof value.timestamp === "string") && value.parentId === null) && typeof value.runId === "string") && typeof value.startedAt === "string") && Number.isFinite(value.durationMs)) && typeof value.stopReason === "string") && (Number.isInteger(value.turns) && (!((Number.isFinite(value.turns) || typeof value.turns === "bigint")) || value.turns >= 0))) && (Number.isInteger(value.toolCalls) && (!((Number.isFinite(value.toolCalls) || typeof value.toolCalls === "bigint")) || value.toolCalls >= 0))) && (Number.isInteger(value.toolErrors) && (!((Number.isFinite(value.toolErrors) || typeof value.toolErrors === "bigint")) || value.toolErrors >= 0))) && ((typeof value.usage === "object" && value.usage !== null && !(Array.isArray(value.usage))) && ((((("input" in value.usage && "output" in value.usage) && "cacheRead" in value.usage) && "cacheWrite" in value.usage) && "cost" in value.usage) && (((((Number.isFinite(value.usage.input) && Number.isFinite(value.usage.output)) && Number.isFinite(value.usage.cacheRead)) && Number.isFinite(value.usage.cacheWrite)) && Number.isFinite(value.usage.cost)) && (value.usage.costUnknown === undefined || (!("costUnknown" in value.usage) || typeof value.usage.costUnknown === "boolean")))))) && (value.error === undefined || (!("error" in value) || typeof value.error === "string"))) && (value.refusal === undefined || (!("refusal" in value) || ((typeof value.refusal === "object" && value.refusal !== null && !(Array.isArray(value.refusal))) && ("reason" in value.refusal && ((((typeof value.refusal.reason === "string" && value.refusal.reason === "refusal") || (typeof value.refusal.reason === "string" && value.refusal.reason === "content_filter")) && (value.refusal.category === undefined || (!("category" in value.refusal) || typeof value.refusal.category === "string"))) && (value.refusal.explanation === undefined || (!("explanation" in value.refusal) || typeof value.refusal.explanation === "string")))))))) && (typeof value.leafId === "string" || value.leafId === null)) && ((typeof value.snapshot === "object" && value.snapshot !== null && !(Array.isArray(value.snapshot))) && (((("entries" in value.snapshot && "branches" in value.snapshot) && "name" in value.snapshot) && "firstUserMessage" in value.snapshot) && (((((Number.isInteger(value.snapshot.entries) && (!((Number.isFinite(value.snapshot.entries) || typeof value.snapshot.entries === "bigint")) || value.snapshot.entries >= 0)) && (Number.isInteger(value.snapshot.branches) && (!((Number.isFinite(value.snapshot.branches) || typeof value.snapshot.branches === "bigint")) || value.snapshot.branches >= 0))) && (typeof value.snapshot.name === "string" || value.snapshot.name === null)) && (typeof value.snapshot.firstUserMessage === "string" || value.snapshot.firstUserMessage === null)) && (value.snapshot.stats === undefined || (!("stats" in value.snapshot) || ((typeof value.snapshot.stats === "object" && value.snapshot.stats !== null && !(Array.isArray(value.snapshot.stats))) && (("session" in value.snapshot.stats && "activePath" in value.snapshot.stats) && (((typeof value.snapshot.stats.session === "object" && value.snapshot.stats.session !== null && !(Array.isArray(value.snapshot.stats.session))) && (((((("usage" in value.snapshot.stats.session && "turns" in value.snapshot.stats.session) && "toolCalls" in value.snapshot.stats.session) && "toolErrors" in value.snapshot.stats.session) && "compactions" in value.snapshot.stats.session) && "wallTimeMs" in value.snapshot.stats.session) && (((((((typeof value.snapshot.stats.session.usage === "object" && value.snapshot.stats.session.usage !== null && !(Array.isArray(value.snapshot.stats.session.usage))) && ((((("input" in value.snapshot.stats.session.usage && "output" in value.snapshot.stats.session.usage) && "cacheRead" in value.snapshot.stats.session.usage) && "cacheWrite" in value.snapshot.stats.session.usage) && "cost" in value.snapshot.stats.session.usage) && (((((Number.isFinite(value.snapshot.stats.session.usage.input) && Number.isFinite(value.snapshot.stats.session.usage.output)) && Number.isFinite(value.snapshot.stats.session.usage.cacheRead)) && Number.isFinite(value.snapshot.stats.session.usage.cacheWrite)) && Number.isFinite(value.snapshot.stats.session.usage.cost)) && (value.snapshot.stats.session.usage.costUnknown === undefined || (!("costUnknown" in value.snapshot.stats.session.usage) || typeof value.snapshot.stats.session.usage.costUnknown === "boolean"))))) && (Number.isInteger(value.snapshot.stats.session.turns) && (!((Number.isFinite(value.snapshot.stats.session.turns) || typeof value.snapshot.stats.session.turns === "bigint")) || value.snapshot.stats.session.turns >= 0))) && (Number.isInteger(value.snapshot.stats.session.toolCalls) && (!((Number.isFinite(value.snapshot.stats.session.toolCalls) || typeof value.snapshot.stats.session.toolCalls === "bigint")) || value.snapshot.stats.session.toolCalls >= 0))) && (Number.isInteger(value.snapshot.stats.session.toolErrors) && (!((Number.isFinite(value.snapshot.stats.session.toolErrors) || typeof value.snapshot.stats.session.toolErrors === "bigint")) || value.snapshot.stats.session.toolErrors >= 0))) && (Number.isInteger(value.snapshot.stats.session.compactions) && (!((Number.isFinite(value.snapshot.stats.session.compactions) || typeof value.snapshot.stats.session.compactions === "bigint")) || value.snapshot.stats.session.compactions >= 0))) && Number.isFinite(value.snapshot.stats.session.wallTimeMs)))) && ((typeof value.snapshot.stats.activePath === "object" && value.snapshot.stats.activePath !== null && !(Array.isArray(value.snapshot.stats.activePath))) && (((((("usage" in value.snapshot.stats.activePath && "turns" in value.snapshot.stats.activePath) && "toolCalls" in value.snapshot.stats.activePath) && "toolErrors" in value.snapshot.stats.activePath) && "compactions" in value.snapshot.stats.activePath) && "wallTimeMs" in value.snapshot.stats.activePath) && (((((((typeof value.snapshot.stats.activePath.usage === "object" && value.snapshot.stats.activePath.usage !== null && !(Array.isArray(value.snapshot.stats.activePath.usage))) && ((((("input" in value.snapshot.stats.activePath.usage && "output" in value.snapshot.stats.activePath.usage) && "cacheRead" in value.snapshot.stats.activePath.usage) && "cacheWrite" in value.snapshot.stats.activePath.usage) && "cost" in value.snapshot.stats.activePath.usage) && (((((Number.isFinite(value.snapshot.stats.activePath.usage.input) && Number.isFinite(value.snapshot.stats.activePath.usage.output)) && Number.isFinite(value.snapshot.stats.activePath.usage.cacheRead)) && Number.isFinite(value.snapshot.stats.activePath.usage.cacheWrite)) && Number.isFinite(value.snapshot.stats.activePath.usage.cost)) && (value.snapshot.stats.activePath.usage.costUnknown === undefined || (!("costUnknown" in value.snapshot.stats.activePath.usage) || typeof value.snapshot.stats.activePath.usage.costUnknown === "boolean"))))) && (Number.isInteger(value.snapshot.stats.activePath.turns) && (!((Number.isFinite(value.snapshot.stats.activePath.turns) || typeof value.snapshot.stats.activePath.turns === "bigint")) || value.snapshot.stats.activePath.turns >= 0))) && (Number.isInteger(value.snapshot.stats.activePath.toolCalls) && (!((Number.isFinite(value.snapshot.stats.activePath.toolCalls) || typeof value.snapshot.stats.activePath.toolCalls === "bigint")) || value.snapshot.stats.activePath.toolCalls >= 0))) && (Number.isInteger(value.snapshot.stats.activePath.toolErrors) && (!((Number.isFinite(value.snapshot.stats.activePath.toolErrors) || typeof value.snapshot.stats.activePath.toolErrors === "bigint")) || value.snapshot.stats.activePath.toolErrors >= 0))) && (Number.isInteger(value.snapshot.stats.activePath.compactions) && (!((Number.isFinite(value.snapshot.stats.activePath.compactions) || typeof value.snapshot.stats.activePath.compactions === "bigint")) || value.snapshot.stats.activePath.compactions >= 0))) && Number.isFinite(value.snapshot.stats.activePath.wallTimeMs))))))))))))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
]);
