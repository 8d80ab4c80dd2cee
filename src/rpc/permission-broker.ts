// RPC mode's answer to "ask": the agent's permission gate emits a `permission_request` event and
// waits here until the client sends the `permission_response` command with that requestId. An
// abort of the run withdraws the request (the gate refuses the call).
import type { PermissionAsker, PermissionReply } from '../app/permission-gate.js';

export class PermissionBroker {
  private readonly pending = new Map<string, (reply: PermissionReply) => void>();

  /** The asker handed to createAgent. */
  readonly asker: PermissionAsker = (request) =>
    new Promise<PermissionReply>((resolve) => {
      this.pending.set(request.requestId, resolve);
      request.signal.addEventListener('abort', () => this.pending.delete(request.requestId), { once: true });
    });

  /** Answers a waiting request; false when there is none by that id (answered, withdrawn or never sent). */
  answer(requestId: string, reply: PermissionReply): boolean {
    const resolve = this.pending.get(requestId);
    if (!resolve) return false;
    this.pending.delete(requestId);
    resolve(reply);
    return true;
  }

  /** The requests waiting for an answer. */
  waiting(): string[] {
    return [...this.pending.keys()];
  }
}
