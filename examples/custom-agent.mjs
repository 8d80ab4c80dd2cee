// @ts-check
import { createAgent } from 'mini-agent';

/** @type {import('mini-agent').ToolDefinition<{ text: string }>} */
const wordCount = {
  name: 'word_count',
  description: 'Count the words of a text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  risk: 'read',
  execute: async ({ text }) => ({ content: String(text.split(/\s+/).filter(Boolean).length) }),
};

const agent = await createAgent({
  // Provider, model and key come from flags-like options, env or config; MINI_AGENT_SCRIPT replays a script instead.
  ...(process.env.MINI_AGENT_SCRIPT ? { script: process.env.MINI_AGENT_SCRIPT } : { provider: 'anthropic' }),
  session: 'memory',
  extraTools: [wordCount],
});
agent.subscribe((e) => e.type === 'text_delta' && process.stdout.write(e.delta));
const result = await agent.prompt(process.argv[2] ?? 'How many words are in "to be or not to be"?');
console.log(`\n[${result.stopReason} after ${result.turns} turns, ${result.usage.output} output tokens]`);
await agent.close();
