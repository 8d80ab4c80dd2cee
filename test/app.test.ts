// The application layer through the SDK, with no CLI involved: new, continue, resume, branch,
// fork, the lock, migration and memory sessions; the handle rules (close releases the lock, a
// stale handle and a closed agent refuse); the queues; set_model; state and messages.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent, type Agent, type CreateAgentOptions } from '../src/app/agent.js';
import { AgentError, errorKindOf } from '../src/app/errors.js';
import type { AgentEvent } from '../src/core/events.js';
import { textOf, type Message } from '../src/core/types.js';
import type { ScriptTurn } from '../src/model/script.js';
import { SessionLockedError } from '../src/session/lock.js';
import { SessionStore } from '../src/session/store.js';
import { summaryTurn } from './support/compaction.js';
import { tempDir, writeScript } from './support/helpers.js';
import { servePerTest, sse } from './support/http-server.js';
import { SESSION_FORMAT_VERSION as CURRENT } from '../src/session/entries.js';

const serve = servePerTest();

interface Setup {
  cwd: string;
  home: string;
  make(turns: ScriptTurn[], more?: Partial<CreateAgentOptions>): Promise<Agent>;
}

function setup(): Setup {
  const cwd = tempDir();
  const home = tempDir('mini-agent-home-');
  let n = 0;
  return {
    cwd,
    home,
    make: (turns, more = {}) => createAgent({ cwd, home, env: {}, script: writeScript(cwd, turns, `s${n++}.json`), ...more }),
  };
}

/** The MINI_AGENT_HOME a session file lives under ($HOME/sessions/<workspace>/file). */
const setupHome = (file: string) => join(file, '..', '..', '..');

const users = (agent: Agent) => agent.messages().flatMap((m) => (m.role === 'user' ? [textOf(m.content)] : []));
const thrownKind = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return errorKindOf(err);
  }
  throw new Error('did not throw');
};

describe('sessions, through the app layer', () => {
  it('new: a locked file under the home; close() releases the lock; continue reopens the same file', async () => {
    const { make, home } = setup();
    const a = await make([{ text: 'first answer' }]);
    const file = a.session.file!;
    expect(file).toContain(join('sessions', ''));
    // The sessions folder of the home this agent was given (the env names none): what /resume lists.
    expect(a.sessionsFolder.startsWith(join(home, 'sessions'))).toBe(true);
    expect(file.startsWith(join(a.sessionsFolder, ''))).toBe(true);
    expect(existsSync(`${file}.lock`)).toBe(true);
    expect((await a.prompt('hello')).stopReason).toBe('completed');
    await a.close();
    expect(existsSync(`${file}.lock`)).toBe(false);

    const b = await make([{ text: 'second answer' }], { session: 'continue' });
    expect(b.session.file).toBe(file);
    await b.prompt('again');
    expect(users(b)).toEqual(['hello', 'again']);
    await b.close();
  });

  it('resume by id prefix and by name; a miss is a not_found error', async () => {
    const { make } = setup();
    const a = await make([{ text: 'x' }]);
    await a.prompt('remember this');
    a.session.setName('auth refactor');
    const id = a.session.id;
    await a.close();
    for (const resume of [id.slice(0, 6), 'auth refactor']) {
      const b = await make([], { session: { resume } });
      expect(b.session.id).toBe(id);
      expect(b.session.name).toBe('auth refactor');
      await b.close();
    }
    await expect(make([], { session: { resume: 'nothing-like-it' } })).rejects.toSatisfy((e) => errorKindOf(e) === 'not_found');
  });

  it('a second writer is refused with a locked error naming the holder; readers are not', async () => {
    const { make } = setup();
    const a = await make([]);
    const file = a.session.file!;
    const err = await make([], { session: { file } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SessionLockedError);
    expect(errorKindOf(err)).toBe('locked');
    expect((err as Error).message).toMatch(new RegExp(`is in use by pid ${process.pid}`));
    expect(SessionStore.open(file).id).toBe(a.session.id);
    await a.close();
  });

  it('branch: from an option or the handle; the old branch stays in the file', async () => {
    const { make } = setup();
    const a = await make([{ text: 'A1' }, { text: 'A2' }, { text: 'B2' }]);
    await a.prompt('one');
    const first = a.session.tree().entries[1].id; // the first answer
    await a.prompt('two');
    expect(a.session.branch(first)).toBe(first);
    await a.prompt('two, differently');
    expect(users(a)).toEqual(['one', 'two, differently']);
    expect(a.session.tree().branches).toBe(2);
    const file = a.session.file!;
    await a.close();

    const b = await make([{ text: 'C' }], { session: { file }, branch: first });
    expect(users(b)).toEqual(['one']);
    await b.close();
  });

  it('fork: a new file holding root → entry; the agent works there and the old handle goes stale', async () => {
    const { make } = setup();
    const a = await make([{ text: 'A1' }, { text: 'A2' }, { text: 'F' }]);
    await a.prompt('one');
    await a.prompt('two');
    const old = a.session;
    const at = old.tree().entries[1].id;
    const forked = a.session.fork(at);
    expect(forked.id).not.toBe(old.id);
    expect(a.session).toBe(forked);
    expect(a.notes.at(-1)).toMatch(/^forked session .* into /);
    await a.prompt('three');
    expect(users(a)).toEqual(['one', 'three']);
    expect(SessionStore.open(forked.file!).header.parentSession).toMatchObject({ id: old.id, entryId: at });
    expect(thrownKind(() => old.tree())).toBe('stale_session');
    expect(() => old.label(at, 'x')).toThrow(/this handle is for session .* but the agent has switched to session/);
    // The parent is untouched and no longer locked.
    expect(existsSync(`${old.file}.lock`)).toBe(false);
    await a.close();
  });

  it('migration: an older file is migrated into place on open, the original kept, a note says so', async () => {
    const { make, cwd } = setup();
    const file = join(cwd, 'old.jsonl');
    const ts = new Date().toISOString();
    const v1 = [
      { type: 'session', version: 1, id: '11111111-2222-3333-4444-555555555555', cwd, timestamp: ts },
      { type: 'message', id: 'aaaaaaaa', parentId: null, timestamp: ts, message: { role: 'user', content: [{ type: 'text', text: 'from v1' }] } },
    ];
    writeFileSync(file, v1.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const a = await make([{ text: 'ok' }], { session: { file } });
    expect(a.notes.join('\n')).toMatch(new RegExp(`migrated .*old\\.jsonl from session format 1 to ${CURRENT}; the original is kept as .*old\\.jsonl\\.v1\\.bak`));
    expect(existsSync(`${file}.v1.bak`)).toBe(true);
    await a.prompt('and now');
    expect(users(a)).toEqual(['from v1', 'and now']);
    await a.close();
  });

  it('memory: no file at all', async () => {
    const { make, home } = setup();
    const a = await make([{ text: 'ok' }], { session: 'memory' });
    expect(a.session.file).toBeNull();
    await a.prompt('hi');
    expect(existsSync(join(home, 'sessions'))).toBe(false);
    await a.close();
  });
});

describe('handle rules', () => {
  it('a closed agent refuses everything with a clear error; close() twice is harmless', async () => {
    const { make } = setup();
    const a = await make([]);
    const handle = a.session;
    await a.close();
    await a.close();
    await expect(a.prompt('hi')).rejects.toSatisfy((e) => e instanceof AgentError && e.kind === 'closed');
    expect(thrownKind(() => a.session)).toBe('closed');
    expect(thrownKind(() => handle.tree())).toBe('closed');
    expect(thrownKind(() => a.steer('x'))).toBe('closed');
  });

  it('close() during a run aborts it, waits for it to settle and releases the lock', async () => {
    const { make } = setup();
    const a = await make([{ text: 'a long answer that takes a while to stream', delayMs: 20 }]);
    const events: AgentEvent[] = [];
    a.subscribe((e) => events.push(e));
    const run = a.prompt('go');
    await new Promise((r) => setTimeout(r, 30));
    const file = a.session.file!;
    await a.close();
    expect((await run).stopReason).toBe('aborted');
    expect(events.at(-1)).toMatchObject({ type: 'run_settled', stopReason: 'aborted' });
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('session changes are refused while a run is in progress (busy); an empty prompt is an invalid argument', async () => {
    const { make } = setup();
    const a = await make([{ text: 'slow answer here', delayMs: 15 }]);
    await expect(a.prompt('  ')).rejects.toSatisfy((e) => errorKindOf(e) === 'invalid_argument');
    const run = a.prompt('go');
    expect(a.running).toBe(true);
    expect(thrownKind(() => a.session.branch('x'))).toBe('busy');
    expect(thrownKind(() => a.newSession())).toBe('busy');
    await expect(a.setModel({ model: 'other' })).rejects.toSatisfy((e) => errorKindOf(e) === 'busy');
    await run;
    expect(a.running).toBe(false);
    await a.close();
  });
});

describe('the agent', () => {
  it('state(): session, model, running, queue and context use; messages() is the projection', async () => {
    const { make } = setup();
    const a = await make([{ text: 'answer', usage: { input: 1000, output: 24 } }]);
    expect(a.state()).toMatchObject({ running: false, queue: [], model: { provider: 'scripted' }, context: { tokens: null } });
    await a.prompt('hi');
    const s = a.state();
    expect(s.session).toEqual({ id: a.session.id, file: a.session.file, name: null });
    expect(s.context.tokens).toBe(1024);
    expect(s.context.fraction).toBeCloseTo(1024 / s.context.contextWindow);
    expect(a.messages().map((m) => m.role)).toEqual(['user', 'assistant']);
    await a.close();
  });

  it('steer and follow-up through the SDK; abort hands back what was not delivered', async () => {
    const { make } = setup();
    const a = await make([{ text: 'first', delayMs: 5 }, { text: 'after the follow-up' }]);
    const events: AgentEvent[] = [];
    a.subscribe((e) => events.push(e));
    const run = a.prompt('go');
    await new Promise((r) => setTimeout(r, 5));
    const item = a.followUp('and then?');
    expect(a.queue()).toEqual([item]);
    const result = await run;
    expect(result).toMatchObject({ stopReason: 'completed', turns: 2 });
    expect(events.find((e) => e.type === 'follow_up_delivered')).toMatchObject({ id: item.id });
    await a.close();
  });

  it('a listener that throws never breaks the run; its error is kept', async () => {
    const { make } = setup();
    const a = await make([{ text: 'fine' }]);
    a.subscribe(() => {
      throw new Error('listener bug');
    });
    const seen: string[] = [];
    a.subscribe((e) => seen.push(e.type));
    expect((await a.prompt('go')).stopReason).toBe('completed');
    expect(seen.at(-1)).toBe('run_settled');
    expect((a.listenerErrors[0] as Error).message).toBe('listener bug');
    await a.close();
  });

  it('setModel switches to a configured provider between runs; the session goes on', async () => {
    const { make } = setup();
    const server = await serve([{ body: sse([{ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'from the server' }, finish_reason: 'stop' }] }], { done: true }) }]);
    const a = await make([{ text: 'from the script' }]);
    await a.prompt('one');
    expect(await a.setModel({ provider: 'openai-compatible', baseUrl: `${server.url}/v1`, model: 'local-model' })).toEqual({ provider: 'openai-compatible', id: 'local-model' });
    await a.prompt('two');
    const answers = a.messages().flatMap((m) => (m.role === 'assistant' ? [textOf(m.content)] : []));
    expect(answers).toEqual(['from the script', 'from the server']);
    expect(server.requests[0].body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const file = a.session.file!;
    await a.close();
    // The switch is a model_change entry; a resume without a provider or model continues with it.
    const changes = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"model_change"'))
      .map((l) => JSON.parse(l));
    expect(changes).toEqual([expect.objectContaining({ type: 'model_change', provider: 'openai-compatible', model: 'local-model', parentId: null })]);
    const resumed = await createAgent({ cwd: a.cwd, env: { MINI_AGENT_HOME: setupHome(file) }, session: { file } });
    expect(resumed.model).toEqual({ provider: 'openai-compatible', id: 'local-model' });
    expect(resumed.notes.join('\n')).toContain('continuing with openai-compatible/local-model, the model this session last switched to');
    await resumed.close();
    const chosen = await createAgent({ cwd: a.cwd, env: { MINI_AGENT_HOME: setupHome(file) }, session: { file }, provider: 'openai-compatible', model: 'explicit' });
    expect(chosen.model.id).toBe('explicit');
    await chosen.close();
  });

  it('tools: extraTools add to the built-ins, tools replace them, readOnly and the permission hook decide', async () => {
    const { make, cwd } = setup();
    const echo = {
      name: 'echo',
      description: 'echo',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      risk: 'read' as const,
      execute: async (args: { text: string }) => ({ content: args.text }),
    };
    const withExtra = await make(
      [
        {
          toolCalls: [
            { name: 'echo', arguments: { text: 'hi' } },
            { name: 'write_note', arguments: { path: 'n.md', text: 'x' } },
          ],
        },
        { text: 'ok' },
      ],
      {
        session: 'memory',
        extraTools: [echo],
        hooks: { permission: (call) => (call.name === 'write_note' ? { allow: false, reason: 'not today' } : { allow: true }) },
      },
    );
    const events: AgentEvent[] = [];
    withExtra.subscribe((e) => events.push(e));
    await withExtra.prompt('go');
    const ends = events.filter((e): e is Extract<AgentEvent, { type: 'tool_end' }> => e.type === 'tool_end');
    expect(ends.map((e) => [e.name, e.result.isError])).toEqual([
      ['echo', false],
      ['write_note', true],
    ]);
    expect(textOf(ends[1].result.content)).toMatch(/not today/);
    expect(existsSync(join(cwd, 'n.md'))).toBe(false);
    await withExtra.close();

    const only = await make([], { session: 'memory', tools: [echo] });
    expect(only.state().model.provider).toBe('scripted');
    await only.close();
  });

  it('export writes a file the user names, relative to the workspace', async () => {
    const { make, cwd } = setup();
    const a = await make([{ text: 'exported answer' }]);
    await a.prompt('export me');
    const path = await a.session.export('md', 'out.md');
    expect(path).toBe(join(cwd, 'out.md'));
    expect(readFileSync(path, 'utf8')).toContain('exported answer');
    expect((await a.session.export('jsonl')).split('\n')[0]).toContain('"type":"session"');
    await a.close();
  });

  it('treeText, filesTouched and showConfig: what the interactive /tree, /status and /show-config print', async () => {
    const { make, cwd } = setup();
    writeFileSync(join(cwd, 'notes.md'), 'notes\n');
    const a = await make([
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'notes.md' } },
          { name: 'write_file', arguments: { path: 'out.md', content: 'x\n' } },
        ],
      },
      { text: 'written' },
    ]);
    await a.prompt('read and write');
    const tree = a.session.treeText(60);
    expect(tree).toMatch(/user\s+"read and write"/);
    expect(tree).toMatch(/assistant\s+"written" ◀ leaf/);
    expect(tree).toMatch(/assistant\s+"→ read_file.{20,60}…"/); // previews cut to the width
    expect(a.session.filesTouched()).toEqual({ readFiles: ['notes.md'], modifiedFiles: ['out.md'] });
    const config = a.showConfig();
    expect(config.find((r) => r.key === 'provider')).toEqual({ key: 'provider', value: 'scripted', source: 'flag --script' }); // the model in use, not the configured default
    expect(config.every((r) => typeof r.source === 'string' && r.source !== '')).toBe(true);
    await a.close();
    expect(() => a.showConfig()).toThrow(/closed/);
  });

  it('session.branchMessages: the whole active branch, the messages a compaction summarized included', async () => {
    const { make, cwd } = setup();
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ compaction: { keepRecentTokens: 150 } }));
    const a = await make([{ toolCalls: [{ name: 'write_file', arguments: { path: 'early.txt', content: 'x\n' } }] }, { text: 'a long answer '.repeat(50) }, { text: 'another long answer '.repeat(50) }, summaryTurn('FACT: compacted here')]);
    await a.prompt('write it');
    await a.prompt('two');
    expect((await a.compact()).ok).toBe(true);
    const toolResults = (ms: readonly Message[]) => ms.flatMap((m) => (m.role === 'toolResult' ? [m.toolName] : []));
    expect(toolResults(a.messages())).toEqual([]); // the model sees the summary instead
    const branch = a.session.branchMessages();
    expect(toolResults(branch)).toEqual(['write_file']);
    expect(branch.flatMap((m) => (m.role === 'user' ? [textOf(m.content)] : []))).toEqual(['write it', 'two']);
    await a.close();
    expect(() => a.session.branchMessages()).toThrow(/closed/);
  });
});
