// Generated from the built-in tools' parameter schemas by scripts/arg-checks.mjs (TypeBox's code
// generator): do not edit. test/arg-checks.test.ts fails when it is stale; `npm run gen:arg-checks`
// rewrites it. What it is for: src/tools/arg-checks.ts.
// @ts-nocheck
import { Guard } from 'typebox/guard';
import { Hashing } from 'typebox/system';

export const GENERATED_CHECKS: ReadonlyMap<string, (value: unknown) => boolean> = new Map([
  // read_file
  [
    "{\"type\":\"object\",\"required\":[\"path\"],\"properties\":{\"path\":{\"type\":\"string\"},\"offset\":{\"type\":\"integer\"},\"limit\":{\"type\":\"integer\",\"minimum\":1},\"byteOffset\":{\"type\":\"integer\",\"minimum\":0},\"byteLength\":{\"type\":\"integer\",\"minimum\":1}},\"additionalProperties\":false}",
    (() => {
      const External = [/(^path$|^offset$|^limit$|^byteOffset$|^byteLength$)/u];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (("path" in value && Object.getOwnPropertyNames(value).every((unique_0, unique_1) => ((External[0].test(unique_0) || false)))) && ((((typeof value.path === "string" && (value.offset === undefined || (!("offset" in value) || Number.isInteger(value.offset)))) && (value.limit === undefined || (!("limit" in value) || (Number.isInteger(value.limit) && (!((Number.isFinite(value.limit) || typeof value.limit === "bigint")) || value.limit >= 1))))) && (value.byteOffset === undefined || (!("byteOffset" in value) || (Number.isInteger(value.byteOffset) && (!((Number.isFinite(value.byteOffset) || typeof value.byteOffset === "bigint")) || value.byteOffset >= 0))))) && (value.byteLength === undefined || (!("byteLength" in value) || (Number.isInteger(value.byteLength) && (!((Number.isFinite(value.byteLength) || typeof value.byteLength === "bigint")) || value.byteLength >= 1))))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // list_dir
  [
    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5}},\"additionalProperties\":false}",
    (() => {
      const External = [/(^path$|^depth$)/u];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (Object.getOwnPropertyNames(value).every((unique_0, unique_1) => ((External[0].test(unique_0) || false))) && ((value.path === undefined || (!("path" in value) || typeof value.path === "string")) && (value.depth === undefined || (!("depth" in value) || (Number.isInteger(value.depth) && (!((Number.isFinite(value.depth) || typeof value.depth === "bigint")) || (value.depth >= 1 && value.depth <= 5)))))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // grep
  [
    "{\"type\":\"object\",\"required\":[\"pattern\"],\"properties\":{\"pattern\":{\"type\":\"string\",\"minLength\":1},\"path\":{\"type\":\"string\"},\"glob\":{\"type\":\"string\"},\"ignoreCase\":{\"type\":\"boolean\"},\"literal\":{\"type\":\"boolean\"},\"context\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10},\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000}},\"additionalProperties\":false}",
    (() => {
      const External = [/(^pattern$|^path$|^glob$|^ignoreCase$|^literal$|^context$|^limit$)/u];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (("pattern" in value && Object.getOwnPropertyNames(value).every((unique_0, unique_1) => ((External[0].test(unique_0) || false)))) && (((((((typeof value.pattern === "string" && (value.pattern.length >= 2 || (value.pattern.length >= 1 && Guard.CodePointCount(value.pattern) >= 1))) && (value.path === undefined || (!("path" in value) || typeof value.path === "string"))) && (value.glob === undefined || (!("glob" in value) || typeof value.glob === "string"))) && (value.ignoreCase === undefined || (!("ignoreCase" in value) || typeof value.ignoreCase === "boolean"))) && (value.literal === undefined || (!("literal" in value) || typeof value.literal === "boolean"))) && (value.context === undefined || (!("context" in value) || (Number.isInteger(value.context) && (!((Number.isFinite(value.context) || typeof value.context === "bigint")) || (value.context >= 0 && value.context <= 10)))))) && (value.limit === undefined || (!("limit" in value) || (Number.isInteger(value.limit) && (!((Number.isFinite(value.limit) || typeof value.limit === "bigint")) || (value.limit >= 1 && value.limit <= 1000)))))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // find
  [
    "{\"type\":\"object\",\"required\":[\"glob\"],\"properties\":{\"glob\":{\"type\":\"string\",\"minLength\":1},\"path\":{\"type\":\"string\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2000}},\"additionalProperties\":false}",
    (() => {
      const External = [/(^glob$|^path$|^limit$)/u];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (("glob" in value && Object.getOwnPropertyNames(value).every((unique_0, unique_1) => ((External[0].test(unique_0) || false)))) && (((typeof value.glob === "string" && (value.glob.length >= 2 || (value.glob.length >= 1 && Guard.CodePointCount(value.glob) >= 1))) && (value.path === undefined || (!("path" in value) || typeof value.path === "string"))) && (value.limit === undefined || (!("limit" in value) || (Number.isInteger(value.limit) && (!((Number.isFinite(value.limit) || typeof value.limit === "bigint")) || (value.limit >= 1 && value.limit <= 2000)))))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // write_file
  [
    "{\"type\":\"object\",\"required\":[\"path\",\"content\"],\"properties\":{\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},\"additionalProperties\":false}",
    (() => {
      const External = [];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((("path" in value && "content" in value) && Object.getOwnPropertyNames(value).length === 2) && (typeof value.path === "string" && typeof value.content === "string"))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // edit_file
  [
    "{\"type\":\"object\",\"required\":[\"path\",\"edits\"],\"properties\":{\"path\":{\"type\":\"string\"},\"edits\":{\"anyOf\":[{\"type\":\"array\",\"items\":{\"type\":\"object\",\"required\":[\"oldText\",\"newText\"],\"properties\":{\"oldText\":{\"type\":\"string\"},\"newText\":{\"type\":\"string\"}},\"additionalProperties\":false},\"minItems\":1},{\"type\":\"string\"}]},\"replaceAll\":{\"type\":\"boolean\"}},\"additionalProperties\":false}",
    (() => {
      const External = [/(^path$|^edits$|^replaceAll$)/u];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((("path" in value && "edits" in value) && Object.getOwnPropertyNames(value).every((unique_0, unique_1) => ((External[0].test(unique_0) || false)))) && ((typeof value.path === "string" && ((Array.isArray(value.edits) && (value.edits.every((unique_2, index) => (((typeof unique_2 === "object" && unique_2 !== null && !(Array.isArray(unique_2))) && ((("oldText" in unique_2 && "newText" in unique_2) && Object.getOwnPropertyNames(unique_2).length === 2) && (typeof unique_2.oldText === "string" && typeof unique_2.newText === "string"))))) && value.edits.length >= 1)) || typeof value.edits === "string")) && (value.replaceAll === undefined || (!("replaceAll" in value) || typeof value.replaceAll === "boolean"))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // write_note
  [
    "{\"type\":\"object\",\"required\":[\"path\",\"text\"],\"properties\":{\"path\":{\"type\":\"string\"},\"text\":{\"type\":\"string\"},\"mode\":{\"anyOf\":[{\"type\":\"string\",\"const\":\"overwrite\"},{\"type\":\"string\",\"const\":\"append\"}]}},\"additionalProperties\":false}",
    (() => {
      const External = [/(^path$|^text$|^mode$)/u];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && ((("path" in value && "text" in value) && Object.getOwnPropertyNames(value).every((unique_0, unique_1) => ((External[0].test(unique_0) || false)))) && ((typeof value.path === "string" && typeof value.text === "string") && (value.mode === undefined || (!("mode" in value) || ((typeof value.mode === "string" && value.mode === "overwrite") || (typeof value.mode === "string" && value.mode === "append"))))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
  // bash
  [
    "{\"type\":\"object\",\"required\":[\"command\"],\"properties\":{\"command\":{\"type\":\"string\"},\"timeout\":{\"type\":\"number\",\"exclusiveMinimum\":0},\"sandbox\":{\"type\":\"boolean\"},\"network\":{\"type\":\"boolean\"}},\"additionalProperties\":false}",
    (() => {
      const External = [/(^command$|^timeout$|^sandbox$|^network$)/u];
      const check_0 = ((value) => ((typeof value === "object" && value !== null && !(Array.isArray(value))) && (("command" in value && Object.getOwnPropertyNames(value).every((unique_0, unique_1) => ((External[0].test(unique_0) || false)))) && (((typeof value.command === "string" && (value.timeout === undefined || (!("timeout" in value) || (Number.isFinite(value.timeout) && value.timeout > 0)))) && (value.sandbox === undefined || (!("sandbox" in value) || typeof value.sandbox === "boolean"))) && (value.network === undefined || (!("network" in value) || typeof value.network === "boolean"))))));
      return function Check(value) { return check_0(value) };
    })(),
  ],
]);
