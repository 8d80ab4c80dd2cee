// Why each request to a provider first waits one turn of the event loop (issue 14).
// - Node's fetch (undici, still used behind a proxy from the environment: http-transport.ts) hands
//   a connection back to its pool a tick after the response body ends. A tool turn that finishes
//   within that tick (a read_file is all microtasks) would send the next request before the
//   previous connection is free, and undici would open a second one: against a real provider, a
//   TCP and TLS handshake (one or more round trips, often 50–150 ms) in the middle of the run.
//   node:http, our transport, takes the connection back at once and does not need the wait.
// - The work before a request (the SDK's import, the run's preparation) runs without giving the
//   event loop a turn; this one lets a connection opened ahead (preconnect) take its next
//   handshake step before the request is built.
// It costs one event-loop turn per request (microseconds).
export function afterConnectionRelease(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
