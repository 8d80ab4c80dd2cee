// The permission presets a front end switches between (ACP's session modes), through the SDK:
// default (the policy as configured), accept-edits (file changes the policy would ask about are
// approved; commands still ask), read-only (only read tools run). Deny rules hold in every mode.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/app/agent.js';
import type { AgentEvent } from '../src/core/events.js';
import { ScriptedModel } from '../src/model/scripted.js';
import { tempDir } from './support/helpers.js';

function results(events: AgentEvent[]) {
  return events.flatMap((e) => (e.type === 'tool_end' ? [{ name: e.name, isError: e.result.isError, text: e.result.content.map((c) => (c.type === 'text' ? c.text : '')).join('') }] : []));
}

describe('permission modes', () => {
  it('default asks for a write outside the workspace, accept-edits approves it (bash still asks), read-only refuses writes; deny rules hold', async () => {
    const cwd = tempDir();
    const outside = tempDir();
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ permissions: { deny: ['write_file(**/secret.txt)'] } }));
    const write = (id: string, path: string) => ({ id, name: 'write_file', arguments: { path, content: id } });
    const turn = (id: string) => ({ toolCalls: [write(id, join(outside, `${id}.txt`)), { id: `${id}-b`, name: 'bash', arguments: { command: 'true' } }, write(`${id}-s`, 'secret.txt')] });
    const model = new ScriptedModel({ turns: [turn('a'), { text: 'ok' }, turn('b'), { text: 'ok' }, turn('c'), { text: 'ok' }] });
    const agent = await createAgent({ cwd, home: tempDir(), env: {}, modelAdapter: model, allowPaths: [outside] });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => events.push(e));
    expect(agent.permissionMode).toBe('default');
    await agent.prompt('default');
    agent.setPermissionMode('accept-edits');
    await agent.prompt('accept edits');
    agent.setPermissionMode('read-only');
    await agent.prompt('read only');
    const r = results(events);
    // default: the write outside asks (no one to ask: refused), bash asks, the deny rule refuses.
    expect(r.slice(0, 3).map((x) => x.isError)).toEqual([true, true, true]);
    expect(r[0].text).toContain('needs approval');
    // accept-edits: the write outside runs; bash still asks; the deny rule still refuses.
    expect(r.slice(3, 6).map((x) => x.isError)).toEqual([false, true, true]);
    expect(readFileSync(join(outside, 'b.txt'), 'utf8')).toBe('b');
    expect(r[5].text).toContain('refused by policy');
    // read-only: nothing that changes anything runs, and the message names the mode.
    expect(r.slice(6, 9).map((x) => x.isError)).toEqual([true, true, true]);
    expect(r[6].text).toContain('read-only (the read-only mode)');
    expect(() => agent.setPermissionMode('yolo' as never)).toThrow(/unknown permission mode "yolo" \(modes: default, accept-edits, read-only\)/);
    await agent.close();
  });

  it('permissionMode at creation', async () => {
    const cwd = tempDir();
    const model = new ScriptedModel({ turns: [{ toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }] }, { text: 'ok' }] });
    const agent = await createAgent({ cwd, home: tempDir(), env: {}, modelAdapter: model, permissionMode: 'read-only' });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => events.push(e));
    await agent.prompt('write');
    expect(results(events)[0]).toMatchObject({ isError: true, text: expect.stringContaining('read-only') });
    await agent.close();
  });
});
