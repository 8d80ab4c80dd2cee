// The byte-stable prefix (issue 23 §1): over random sessions (prompts, tool calls, their results,
// answers; the session closed and reopened from its file between prompts), each request the
// agent sends is, once its cache_control markers are left out, a prefix of the next one: the same
// fields, the same tools in the same order, the same system prompt (dated by the session's start,
// whatever day it is), then the earlier messages unchanged, then the new ones. Both dialects, real
// adapters, requests captured by local fake servers. Compaction is off: it rewrites the history
// by design.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import { SESSION_FORMAT_VERSION } from '../src/session/entries.js';
import { tempDir } from './support/helpers.js';
import { servePerTest, sse, type RecordedRequest } from './support/http-server.js';

const serve = servePerTest();

type Step = { calls: Array<{ tool: 'read_file' | 'list_dir'; path: string }>; thinking: boolean } | { answer: string };

const text = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== '');
const call = fc.record({ tool: fc.constantFrom('read_file' as const, 'list_dir' as const), path: fc.constantFrom('a.txt', 'b.md', 'missing.txt', '.') });
const toolStep = fc.record({ calls: fc.array(call, { minLength: 1, maxLength: 3 }), thinking: fc.boolean() });
/** A prompt, the model's steps for it, and whether the session is closed and opened again from its file before it. */
const run = fc.record({ prompt: text, steps: fc.tuple(fc.array(toolStep, { maxLength: 3 }), text).map(([tools, answer]): Step[] => [...tools, { answer }]), reopen: fc.boolean() });
const session = fc.array(run, { minLength: 2, maxLength: 4 });

/** The request with its cache markers left out, serialized so that an unchanged prefix is a string prefix: the other fields, then one line per message. */
function canonical(body: any): string {
  const plain = JSON.parse(JSON.stringify(body, (k, v) => (k === 'cache_control' ? undefined : v)));
  const { messages, ...rest } = plain;
  return [JSON.stringify(rest), ...messages.map((m: unknown) => JSON.stringify(m))].join('\n') + '\n';
}

let ids = 0;
function anthropicReply(step: Step): string {
  const events: object[] = [{ type: 'message_start', message: { id: 'msg', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }];
  if ('answer' in step) {
    events.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: step.answer } }, { type: 'content_block_stop', index: 0 });
  } else {
    let i = 0;
    if (step.thinking) {
      events.push(
        { type: 'content_block_start', index: i, content_block: { type: 'thinking', thinking: '' } },
        { type: 'content_block_delta', index: i, delta: { type: 'thinking_delta', thinking: 'let me look' } },
        { type: 'content_block_delta', index: i, delta: { type: 'signature_delta', signature: `sig${ids}` } },
        { type: 'content_block_stop', index: i++ },
      );
    }
    for (const c of step.calls) {
      events.push(
        { type: 'content_block_start', index: i, content_block: { type: 'tool_use', id: `toolu_${ids++}`, name: c.tool, input: {} } },
        { type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ path: c.path }) } },
        { type: 'content_block_stop', index: i++ },
      );
    }
  }
  events.push({ type: 'message_delta', delta: { stop_reason: 'answer' in step ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } }, { type: 'message_stop' });
  return sse(events, { named: true });
}

function openaiReply(step: Step): string {
  const chunk = (delta: object, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
  const chunks =
    'answer' in step
      ? [chunk({ role: 'assistant', content: step.answer }), chunk({}, 'stop')]
      : [
          ...(step.thinking ? [chunk({ reasoning_content: 'let me look' })] : []),
          chunk({ tool_calls: step.calls.map((c, index) => ({ index, id: `call_${ids++}`, type: 'function', function: { name: c.tool, arguments: JSON.stringify({ path: c.path }) } })) }),
          chunk({}, 'tool_calls'),
        ];
  return sse([...chunks, { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }], { done: true });
}

const DIALECTS = [
  { dialect: 'anthropic', reply: anthropicReply, options: (url: string) => ({ provider: 'anthropic', baseUrl: url, model: 'claude-sonnet-4-6' }) },
  { dialect: 'openai', reply: openaiReply, options: (url: string) => ({ provider: 'openai', baseUrl: `${url}/v1`, apiKey: 'sk-test', model: 'gpt-4.1' }) },
] as const;

describe.each(DIALECTS)('the $dialect request prefix is stable from turn to turn', ({ reply, options }) => {
  it('property: each request without its cache markers is a prefix of the next, across prompts and reopening the session', async () => {
    let queue: Step[] = [];
    const server = await serve(() => ({ body: reply(queue.shift() ?? { answer: 'extra' }) }));
    await fc.assert(
      fc.asyncProperty(session, async (runs) => {
        const cwd = tempDir();
        const home = tempDir('mini-agent-home-');
        writeFileSync(join(cwd, 'a.txt'), 'alpha\nbeta\n');
        writeFileSync(join(cwd, 'b.md'), '# B\n\nsome notes\n');
        // A session that started on another day: its date, not today's, is in every request.
        const file = join(home, 'session.jsonl');
        const header = { type: 'session', version: SESSION_FORMAT_VERSION, id: `s-${ids++}`, cwd, timestamp: '2020-03-04T10:00:00.000Z' };
        writeFileSync(file, JSON.stringify(header) + '\n');
        const first = server.requests.length;
        const open = () => createAgent({ cwd, home, env: {}, compact: false, session: { file }, ...options(server.url) });
        let agent = await open();
        try {
          for (const r of runs) {
            if (r.reopen) {
              await agent.close();
              agent = await open();
            }
            queue = [...r.steps];
            const result = await agent.prompt(r.prompt);
            expect(result.stopReason, result.error?.message).toBe('completed');
          }
        } finally {
          await agent.close();
        }
        const bodies = server.requests.slice(first).map((q: RecordedRequest) => q.body);
        expect(bodies.length).toBe(runs.reduce((n, r) => n + r.steps.length, 0));
        for (let i = 1; i < bodies.length; i++) {
          const before = canonical(bodies[i - 1]);
          const after = canonical(bodies[i]);
          if (!after.startsWith(before)) expect(after.slice(0, before.length)).toBe(before); // shows where they part
        }
        for (const body of bodies) expect(JSON.stringify(body)).toContain('Session started: 2020-03-04.');
        expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(JSON.stringify(header));
      }),
      { numRuns: 8 },
    );
  }, 120_000);
});
