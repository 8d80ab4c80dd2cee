// The interactive conversation with a long session (issue 11): the cost of one keystroke in the
// input when the session holds a 2,000-message transcript, measured through the real pieces — a
// key into the Conversation, the editor and live region laid out, the Screen's frame written to
// a terminal stand-in (100×40). The transcript is in the scrollback and is never redrawn, so the
// figure must not grow with it: the same keystroke on an empty session is the floor.
// Imported by run.mjs; also runs alone: node bench/conversation.mjs (no build needed).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { bundleFromSrc, isMain, median, runAlone } from './lib.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

async function conversationApi(root, work) {
  const contents = ["export { createAgent } from './src/app/agent.ts';", "export { Conversation } from './src/interactive/conversation.ts';", "export { Screen } from './src/interactive/screen.ts';"];
  return import(pathToFileURL(await bundleFromSrc({ root, work, name: 'conversation-api', contents })).href);
}

/** A conversation on an agent whose session holds `exchanges` prompts and answers; keys go in, frames come out. */
async function conversationWith(api, dir, exchanges) {
  mkdirSync(dir, { recursive: true });
  const answer = (i) => `Answer ${i}: the **change** is in \`src/file-${i}.ts\`.\n\n- first point\n- second point\n\n\`\`\`ts\nconst x${i} = ${i};\n\`\`\`\n`;
  const turns = Array.from({ length: exchanges }, (_, i) => ({ text: answer(i) }));
  writeFileSync(join(dir, 'script.json'), JSON.stringify({ turns }));
  const agent = await api.createAgent({ cwd: dir, home: join(dir, 'home'), env: {}, script: join(dir, 'script.json') });
  for (let i = 0; i < exchanges; i++) await agent.prompt(`request number ${i}: please look at src/file-${i}.ts and fix what is wrong`);
  let written = 0;
  const out = { columns: 100, rows: 40, write: (s) => (written += s.length) };
  const screen = new api.Screen(out, { schedule: () => {} }); // frames are drawn when the benchmark flushes
  const conversation = new api.Conversation(agent, screen, { color: true, env: {}, onExit: () => {} });
  conversation.start();
  screen.flush();
  for (const ch of 'a draft of the next request, typed so far') conversation.key({ name: 'text', text: ch });
  screen.flush();
  return { agent, screen, conversation, written: () => written, messages: agent.messages().length };
}

function keystrokeMs(c, runs) {
  const x = { name: 'text', text: 'x' };
  const bs = { name: 'backspace', ctrl: false, alt: false, shift: false };
  const times = [];
  for (let i = 0; i < runs + 50; i++) {
    const before = c.written();
    const t = performance.now();
    c.conversation.key(x);
    c.screen.flush();
    const dt = performance.now() - t;
    if (c.written() === before) throw new Error('a keystroke wrote nothing to the terminal');
    if (i >= 50) times.push(dt);
    c.conversation.key(bs);
    c.screen.flush();
  }
  return median(times);
}

export async function conversationBenchmarks({ root, work, report }) {
  const api = await conversationApi(root, work);
  const runs = Number(process.env.BENCH_CONVERSATION_RUNS ?? 1001);
  const empty = await conversationWith(api, join(work, 'conv-empty'), 0);
  const long = await conversationWith(api, join(work, 'conv-long'), 1000);
  if (long.messages < 2000) throw new Error(`the long session has ${long.messages} messages, not 2,000`);
  const floor = keystrokeMs(empty, runs);
  const value = keystrokeMs(long, runs);
  report('keystroke in a 2,000-message conversation', value, 'empty session', floor, '< 5 ms', value < 5);
  await empty.agent.close();
  await long.agent.close();
}

if (isMain(import.meta.url)) await runAlone('conversation', conversationBenchmarks);
