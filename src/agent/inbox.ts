// Messages sent while a run is in progress. A steer is delivered after the current tool batch,
// before the next model request; a follow-up only when the run would otherwise end. Items have
// ids, can be listed and cancelled, and are never dropped silently: what is not delivered is
// handed back to the caller.
import { randomBytes } from 'node:crypto';
import type { QueueItem, QueueKind } from '../core/types.js';

export type { QueueItem, QueueKind };

/** What the loop asks of the queue; the runner implements it (and reports each change). */
export interface Inbox {
  /** The steering messages waiting now, removed from the queue, in the order they were sent. */
  takeSteers(): QueueItem[];
  /** True when a steering message waits. */
  hasSteers(): boolean;
  /** The oldest follow-up, removed from the queue. */
  takeFollowUp(): QueueItem | undefined;
}

export class MessageQueue {
  private items: QueueItem[] = [];

  add(kind: QueueKind, text: string): QueueItem {
    const item = { id: `q_${randomBytes(4).toString('hex')}`, kind, text };
    this.items.push(item);
    return item;
  }

  /** A copy of the waiting items, oldest first. */
  list(): QueueItem[] {
    return this.items.map((i) => ({ ...i }));
  }

  get size(): number {
    return this.items.length;
  }

  /** Removes an item that has not been delivered yet; false when there is none with that id. */
  cancel(id: string): boolean {
    const before = this.items.length;
    this.items = this.items.filter((i) => i.id !== id);
    return this.items.length < before;
  }

  takeSteers(): QueueItem[] {
    const steers = this.items.filter((i) => i.kind === 'steer');
    if (steers.length > 0) this.items = this.items.filter((i) => i.kind !== 'steer');
    return steers;
  }

  hasSteers(): boolean {
    return this.items.some((i) => i.kind === 'steer');
  }

  takeFollowUp(): QueueItem | undefined {
    const i = this.items.findIndex((x) => x.kind === 'follow_up');
    return i < 0 ? undefined : this.items.splice(i, 1)[0];
  }

  /** Takes every item (oldest first): what an aborted or failed run hands back. */
  drain(): QueueItem[] {
    const all = this.items;
    this.items = [];
    return all;
  }

  /** Takes the oldest item. */
  shift(): QueueItem | undefined {
    return this.items.shift();
  }
}
