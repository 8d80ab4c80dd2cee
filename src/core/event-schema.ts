// The JSON Schema of the events: the list of every event's schema (each declared once, by topic,
// in event-kinds/), in the order of docs/events.schema.json. The event types (events.ts) are
// `Static` of it; docs/events.schema.json is generated from it (`npm run docs:schema`), and a
// test checks that the file is current and that real runs emit only valid events.
// Adding an event: declare it in its topic's module, list it here, regenerate the docs file.
import { Type } from './type-builders.js';
import { CompactionEnd, CompactionStart } from './event-kinds/compaction.js';
import { FollowUpDelivered, QueueUpdate, SteerDelivered } from './event-kinds/queue.js';
import { Retry, RunEnd, RunSettled, RunStart, Warning } from './event-kinds/run.js';
import { MessageEnd, TextDelta, ThinkingDelta, ToolcallStart, TurnEnd, TurnStart } from './event-kinds/stream.js';
import { PermissionDecision, PermissionRequest, ToolEnd, ToolStart, ToolUpdate } from './event-kinds/tools.js';

export const AgentEventSchema = Type.Union(
  [
    RunStart,
    TurnStart,
    TextDelta,
    ThinkingDelta,
    ToolcallStart,
    MessageEnd,
    ToolStart,
    ToolUpdate,
    ToolEnd,
    TurnEnd,
    PermissionRequest,
    PermissionDecision,
    CompactionStart,
    CompactionEnd,
    QueueUpdate,
    SteerDelivered,
    FollowUpDelivered,
    Retry,
    Warning,
    RunEnd,
    RunSettled,
  ],
  {
    $id: 'https://mini-agent.dev/schemas/events.schema.json',
    title: 'mini-agent event',
    description: 'One line of `mini-agent --json` output, or of a --trace file.',
  },
);

/** The document written to docs/events.schema.json. */
export function eventJsonSchema(): Record<string, unknown> {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...JSON.parse(JSON.stringify(AgentEventSchema)) };
}
