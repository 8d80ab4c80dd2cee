// Why each request to a provider first waits one turn of the event loop (issue 14). Node's fetch
// (undici) hands a connection back to its pool a tick after the response body ends. A tool turn
// that finishes within that tick (a read_file is all microtasks) would send the next request
// before the previous connection is free, and undici would open a second one: against a real
// provider, a TCP and TLS handshake (one or more round trips, often 50–150 ms) in the middle of
// the run. Waiting for setImmediate lets the pool take the connection back first, so a run keeps
// one connection. It costs one event-loop turn per request (microseconds).
export function afterConnectionRelease(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
