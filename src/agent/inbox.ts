// Messages sent while a run is in progress. A steer is delivered after the current tool batch,
// before the next model request; a follow-up only when the run would otherwise end. Items have
// ids, can be listed and cancelled, and are never dropped silently: what is not delivered is
// handed back to the caller. A message may carry attachments (its `@path` files and images, read
// when it was queued): they stay here, with the item, and go into its user message when it is
// delivered; events and listings show the item alone.
import { randomBytes } from 'node:crypto';
import type { ImageContent, QueueItem, QueueKind, TextContent } from '../core/types.js';

export type { QueueItem, QueueKind };

/** What a queued message carries after its text; the images may still be scaling (never rejects). */
export type QueuedAttachments = Promise<readonly (TextContent | ImageContent)[]>;

/** A waiting message: the item every listing shows, and its attachments. */
export interface QueuedMessage {
  item: QueueItem;
  attachments?: QueuedAttachments;
}

/** What the loop asks of the queue; the runner implements it (and reports each change). */
export interface Inbox {
  /** The steering messages waiting now, removed from the queue, in the order they were sent. */
  takeSteers(): QueuedMessage[];
  /** True when a steering message waits. */
  hasSteers(): boolean;
  /** The oldest follow-up, removed from the queue. */
  takeFollowUp(): QueuedMessage | undefined;
}

export class MessageQueue {
  private items: QueuedMessage[] = [];

  add(kind: QueueKind, text: string, attachments?: QueuedAttachments): QueueItem {
    const item = { id: `q_${randomBytes(4).toString('hex')}`, kind, text };
    this.items.push(attachments ? { item, attachments } : { item });
    return item;
  }

  /** A copy of the waiting items, oldest first. */
  list(): QueueItem[] {
    return this.items.map((i) => ({ ...i.item }));
  }

  get size(): number {
    return this.items.length;
  }

  /** Removes an item that has not been delivered yet; false when there is none with that id. */
  cancel(id: string): boolean {
    const before = this.items.length;
    this.items = this.items.filter((i) => i.item.id !== id);
    return this.items.length < before;
  }

  takeSteers(): QueuedMessage[] {
    const steers = this.items.filter((i) => i.item.kind === 'steer');
    if (steers.length > 0) this.items = this.items.filter((i) => i.item.kind !== 'steer');
    return steers;
  }

  hasSteers(): boolean {
    return this.items.some((i) => i.item.kind === 'steer');
  }

  takeFollowUp(): QueuedMessage | undefined {
    const i = this.items.findIndex((x) => x.item.kind === 'follow_up');
    return i < 0 ? undefined : this.items.splice(i, 1)[0];
  }

  /** Takes every item (oldest first): what an aborted or failed run hands back (the items; a front end sends them again). */
  drain(): QueueItem[] {
    const all = this.items;
    this.items = [];
    return all.map((i) => i.item);
  }

  /** Takes the oldest message. */
  shift(): QueuedMessage | undefined {
    return this.items.shift();
  }
}
