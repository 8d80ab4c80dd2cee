// Before anything uses Node's own fetch (undici): the provider transport's fallback
// (model/http-transport.ts: a proxy from the environment, MINI_AGENT_TRANSPORT=fetch) and MCP
// servers over HTTP. Provider requests go over node:http and never need it (issue 14).
//
// undici parses HTTP with a WebAssembly module (llhttp). When V8 optimizes it in the background,
// the process waits for that work at exit: ~170 ms after a run on Node 20, ~90 ms on Node 24
// (Node 22 does not wait). The baseline compiler's code parses our streams just as well, so
// WebAssembly stays there: on Node 20 with --liftoff-only, on Node 24 with a tier-up budget no run
// reaches (--liftoff-only there makes V8 compile eagerly and gains nothing). A V8 flag changed at
// run time makes V8 refuse Node's built-in code cache for the internal modules compiled after it,
// and undici is the largest (~18 ms to compile on Node 24): so undici is loaded first (the global
// Headers is its lazy door). Setting the flag again is harmless. It lives in core because model/
// and extensions/ both call it and may import only core.
export function prepareNodeFetch(): void {
  const major = Number(process.versions.node.split('.')[0]);
  const flag = major < 22 ? '--liftoff-only' : major >= 24 ? '--wasm-tiering-budget=1000000000' : undefined;
  if (flag === undefined) return;
  void globalThis.Headers;
  (process.getBuiltinModule('node:v8') as typeof import('node:v8')).setFlagsFromString(flag);
}
