// A session for the checkpoint tests (diff, rewind): a file the user wrote (keep.txt, never touched
// by the agent), then two runs: write_file a.txt; then edit_file a.txt and write_note NOTE.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAgent } from '../../src/app/agent.js';
import { tempDir, writeScript } from './helpers.js';

export async function editingSession(notePath: string) {
  const cwd = tempDir();
  const home = tempDir('mini-agent-home-');
  const file = join(cwd, 'session.jsonl');
  writeFileSync(join(cwd, 'keep.txt'), 'the user wrote this\n');
  const script = writeScript(cwd, [
    { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'one\ntwo\n' } }] },
    { text: 'written' },
    {
      toolCalls: [
        { name: 'edit_file', arguments: { path: 'a.txt', edits: [{ oldText: 'two', newText: 'three' }] } },
        { name: 'write_note', arguments: { path: notePath, text: 'note\n' } },
      ],
    },
    { text: 'edited' },
  ]);
  const agent = await createAgent({ cwd, home, env: {}, script, session: { file } });
  await agent.prompt('write');
  await agent.prompt('edit');
  return { cwd, home, file, agent, written: answerId(file, 'written'), edited: answerId(file, 'edited') };
}

/** The id of the assistant message entry whose text is `text`. */
export function answerId(file: string, text: string): string {
  return messageId(file, 'assistant', text);
}

/** The id of the message entry of `role` whose text is `text`. */
export function messageId(file: string, role: 'user' | 'assistant', text: string): string {
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const entry = lines.find((e) => e.type === 'message' && e.message.role === role && JSON.stringify(e.message.content).includes(`"${text}"`));
  if (!entry) throw new Error(`no ${role} message "${text}" in ${file}`);
  return entry.id;
}
