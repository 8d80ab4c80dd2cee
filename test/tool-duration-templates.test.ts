// Issue 24 §6 through the SDK: a tool's duration (tool_end.durationMs) leaves out the time the
// call waited for the user's approval; a prompt template written after the agent started is
// found once the folders are read again (the interactive mode does so before each `/`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import type { AgentEvent } from '../src/core/events.js';
import { tempDir, writeScript } from './support/helpers.js';

describe('issue 24 fixes through the SDK', () => {
  it("a tool's duration leaves out the approval wait", async () => {
    const cwd = tempDir();
    const agent = await createAgent({
      cwd,
      home: tempDir('mini-agent-home-'),
      env: {},
      session: 'memory',
      onPermissionRequest: () => new Promise((resolve) => setTimeout(() => resolve('allow'), 2500)),
      script: writeScript(cwd, [{ toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'sleep 0.2' } }] }, { text: 'done' }]),
    });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => events.push(e));
    const started = Date.now();
    const result = await agent.prompt('go');
    const wall = Date.now() - started;
    await agent.close();
    expect(result.stopReason).toBe('completed');
    expect(events.some((e) => e.type === 'permission_request')).toBe(true);
    const end = events.find((e): e is Extract<AgentEvent, { type: 'tool_end' }> => e.type === 'tool_end')!;
    expect(end.result.isError).toBe(false);
    expect(wall).toBeGreaterThanOrEqual(2500); // the wait happened
    expect(end.durationMs).toBeGreaterThanOrEqual(150); // the command's own time counts
    expect(end.durationMs).toBeLessThan(2000); // the 2.5 s wait does not (loose: a busy machine slows `sleep 0.2`)
  });

  it('a prompt template added after start-up is found when the folders are read again', async () => {
    const cwd = tempDir();
    const agent = await createAgent({ cwd, home: tempDir('mini-agent-home-'), env: {}, session: 'memory', script: writeScript(cwd, [{ text: 'ok' }]) });
    expect(agent.expandPromptTemplate('/late x')).toBeUndefined();
    mkdirSync(join(cwd, '.mini-agent', 'prompts'), { recursive: true });
    writeFileSync(join(cwd, '.mini-agent', 'prompts', 'late.md'), '---\ndescription: added late\n---\nLook at $1.\n');
    const templates = await agent.reloadPromptTemplates();
    expect(templates.map((t) => [t.name, t.description])).toEqual([['late', 'added late']]);
    expect(agent.promptTemplates.map((t) => t.name)).toEqual(['late']);
    expect(agent.expandPromptTemplate('/late x')).toEqual({ name: 'late', text: 'Look at x.\n' });
    await agent.close();
  });
});
