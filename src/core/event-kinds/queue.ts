// The events of the messages sent while a run is in progress: the queue changed, a steer or a
// follow-up was delivered (became a user message).
import { Type } from '../type-builders.js';
import { QueueItemSchema, Str } from '../message-schema.js';
import { ev } from './parts.js';

/** The messages waiting to be delivered changed (sent, delivered, cancelled or handed back). */
export const QueueUpdate = ev('queue_update', { items: Type.Array(QueueItemSchema) }, 'The steers and follow-ups waiting to be delivered changed.');
/** A steer became a user message (entryId), after the tool batch and before the next request. */
export const SteerDelivered = ev('steer_delivered', { id: Str, entryId: Str, text: Str }, 'A steer became a user message, after the tool batch and before the next request.');
/** A follow-up became a user message (entryId) when the run would have ended; the run goes on. */
export const FollowUpDelivered = ev('follow_up_delivered', { id: Str, entryId: Str, text: Str }, 'A follow-up became a user message when the run would have ended; the run goes on.');
