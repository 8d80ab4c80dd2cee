// The requests the MCP client makes beyond a plain tools/call (every page of tools/list, a call
// of a tool that the server runs only as a task), and what a failure to start means. Only SDK
// types are imported (the client object is passed in), so this loads without the SDK.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ChildStdioTransport } from './mcp-stdio.js';
import { describeExit, formatSeconds, type McpCallResult, type McpListedTool } from './mcp-tools.js';

/** JSON-RPC error codes of the SDK's McpError (its ErrorCode enum), kept here so nothing loads the SDK for them. */
export const CONNECTION_CLOSED = -32000;
export const REQUEST_TIMEOUT = -32001;
const MAX_LIST_PAGES = 100;

/** Every page of tools/list. */
export async function listAll(client: Client, timeout: number): Promise<McpListedTool[]> {
  const out: McpListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const r = await client.listTools(cursor ? { cursor } : undefined, { timeout });
    out.push(...(r.tools as McpListedTool[]));
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return out;
}

/**
 * A tool the server runs only as a task (execution.taskSupport "required"): created, polled,
 * and its result fetched, all within toolTimeoutMs; on timeout or abort the task is cancelled.
 */
export async function callAsTask(client: Client, tool: string, args: Record<string, unknown>, timeoutMs: number, controller: AbortController, timedOut: { value: boolean }): Promise<McpCallResult> {
  const timer = setTimeout(() => {
    timedOut.value = true;
    controller.abort('timeout');
  }, timeoutMs);
  let taskId: string | undefined;
  try {
    const stream = client.experimental.tasks.callToolStream({ name: tool, arguments: args }, undefined, { signal: controller.signal, timeout: timeoutMs, task: {} });
    for await (const m of stream) {
      if (m.type === 'taskCreated') taskId = m.task.taskId;
      else if (m.type === 'result') return m.result as McpCallResult;
      else if (m.type === 'error') throw m.error;
    }
    throw new Error('the task ended without a result');
  } catch (err) {
    if (taskId && controller.signal.aborted) void client.experimental.tasks.cancelTask(taskId, { timeout: 5000 }).catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // fetch failures say only "fetch failed"; the reason (ECONNREFUSED…) is in the cause.
  const cause = (err as { cause?: unknown }).cause;
  const why = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : undefined;
  return why && !err.message.includes(why) ? `${err.message} (${why})` : err.message;
}

/** Why a server did not become ready: it exited (how, and its last stderr lines), never finished the handshake, or could not be reached or run. */
export function startFailure(err: unknown, stdio: ChildStdioTransport | undefined, deadlineMs: number): string {
  const code = (err as { code?: unknown })?.code;
  if (stdio?.exit || code === CONNECTION_CLOSED) {
    return `the server exited before it was ready (${stdio ? describeExit(stdio.exit, stdio.stderrTail()) : errorText(err)})`;
  }
  if (code === REQUEST_TIMEOUT) {
    const tail = stdio?.stderrTail().slice(-3) ?? [];
    return `the server did not complete the MCP handshake within ${formatSeconds(deadlineMs)}${tail.length ? ` (stderr: ${tail.join(' | ')})` : ''}`;
  }
  return errorText(err);
}
