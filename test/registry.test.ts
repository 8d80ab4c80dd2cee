// The ToolRegistry as the loop uses it: every call becomes a ToolResult, never a rejection.
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { textOf, type ToolCall } from '../src/core/types.js';
import { createReadFileTool } from '../src/tools/read-file.js';
import { errorResult, ToolRegistry, type PermissionCheck, type RegistryOptions } from '../src/tools/registry.js';
import { ToolError, type ToolContext, type ToolDefinition, type ToolOutput } from '../src/tools/tool.js';
import { createWriteNoteTool } from '../src/tools/write-note.js';
import { tempDir } from './support/helpers.js';

let ids = 0;
function call(name: string, args: Record<string, unknown> = {}, extra: Partial<ToolCall> = {}): ToolCall {
  return { type: 'toolCall', id: `call-${++ids}`, name, arguments: args, ...extra };
}

function ctx(signal: AbortSignal = new AbortController().signal): { cwd: string; signal: AbortSignal } {
  return { cwd: tempDir(), signal };
}

/** A tool that records how it was called and returns (or does) whatever `run` says. */
function spyTool(name: string, run: (args: any, c: ToolContext) => Promise<ToolOutput> | ToolOutput = () => ({ content: 'ok' }), extra: Partial<ToolDefinition> = {}): ToolDefinition & { calls: Array<{ args: unknown; ctx: ToolContext }> } {
  const calls: Array<{ args: unknown; ctx: ToolContext }> = [];
  return {
    name,
    description: `the ${name} tool`,
    parameters: Type.Object(
      {
        text: Type.String(),
        count: Type.Optional(Type.Integer({ minimum: 0 })),
      },
      { additionalProperties: false },
    ),
    risk: 'read',
    async execute(args, c) {
      calls.push({ args, ctx: c });
      return run(args, c);
    },
    ...extra,
    calls,
  };
}

describe('ToolRegistry: lookup and specs', () => {
  it('refuses an unknown tool, naming the tools that exist', async () => {
    const echo = spyTool('echo');
    const reg = new ToolRegistry([echo, spyTool('shout')]);
    const res = await reg.execute(call('ehco', { text: 'hi' }), ctx());
    expect(res.isError).toBe(true);
    const text = textOf(res.content);
    expect(text).toContain('Unknown tool "ehco"');
    expect(text).toContain('echo');
    expect(text).toContain('shout');
    expect(res.details).toMatchObject({ reason: 'unknown_tool' });
    expect(echo.calls).toHaveLength(0);
  });

  it('says "none" when no tool is registered', async () => {
    const res = await new ToolRegistry().execute(call('anything'), ctx());
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toMatch(/Available tools: none/);
  });

  it('refuses to register two tools with the same name', () => {
    const reg = new ToolRegistry([spyTool('echo')]);
    expect(() => reg.register(spyTool('echo'))).toThrow(/already registered/);
    expect(() => new ToolRegistry([spyTool('a'), spyTool('a')])).toThrow(/already registered/);
  });

  it('get, names and riskOf describe the registered tools', () => {
    const reg = new ToolRegistry([createReadFileTool(), createWriteNoteTool()]);
    expect(reg.names()).toEqual(['read_file', 'write_note']);
    expect(reg.get('read_file')?.name).toBe('read_file');
    expect(reg.get('nope')).toBeUndefined();
    expect(reg.riskOf('read_file')).toBe('read');
    expect(reg.riskOf('write_note')).toBe('write');
    expect(reg.riskOf('nope')).toBeUndefined();
  });

  it('specs() gives each tool its name, description and a JSON Schema of its parameters', () => {
    const reg = new ToolRegistry([createReadFileTool(), createWriteNoteTool()]);
    const specs = reg.specs();
    expect(specs.map((s) => s.name)).toEqual(['read_file', 'write_note']);
    for (const s of specs) {
      expect(typeof s.description).toBe('string');
      expect(s.description.length).toBeGreaterThan(20);
      // What a provider receives is the JSON text of the schema; it must survive that round trip.
      const schema = JSON.parse(JSON.stringify(s.parameters)) as Record<string, any>;
      expect(schema).toEqual(s.parameters);
      expect(schema.type).toBe('object');
      expect(schema.additionalProperties).toBe(false);
      expect(schema.properties.path.type).toBe('string');
      expect(schema.required).toContain('path');
    }
    const read = JSON.parse(JSON.stringify(specs[0].parameters));
    expect(read.properties.offset).toMatchObject({ type: 'integer' }); // negative: counted from the end
    expect(read.properties.offset).not.toHaveProperty('minimum');
    expect(read.properties.limit).toMatchObject({ type: 'integer', minimum: 1 });
    expect(read.required).toEqual(['path']);
    const write = JSON.parse(JSON.stringify(specs[1].parameters));
    expect(write.required.sort()).toEqual(['path', 'text']);
    expect(JSON.stringify(write.properties.mode)).toContain('overwrite');
    expect(JSON.stringify(write.properties.mode)).toContain('append');
  });
});

describe('ToolRegistry: argument validation', () => {
  it.each([
    ['a wrong type', { text: 42 }, /text: must be string/],
    ['a missing required property', {}, /arguments: must have required propert(y|ies) text/],
    ['an extra property', { text: 'x', verbose: true }, /arguments: must not have additional properties/],
    ['an integer out of range', { text: 'x', count: -1 }, /count: must be >= 0/],
    ['a non-integer number', { text: 'x', count: 1.5 }, /count: must be integer/],
  ])('refuses %s without running the tool', async (_what, args, problem) => {
    const tool = spyTool('echo');
    const reg = new ToolRegistry([tool]);
    const res = await reg.execute(call('echo', args), ctx());
    expect(res.isError).toBe(true);
    const text = textOf(res.content);
    expect(text).toContain('Invalid arguments for tool "echo"');
    expect(text).toMatch(problem);
    expect(text).toMatch(/call the tool again/);
    expect(res.details).toMatchObject({ reason: 'invalid_arguments' });
    expect(tool.calls).toHaveLength(0);
  });

  it('lists several problems at once, one per line', async () => {
    const tool = spyTool('echo');
    const res = await new ToolRegistry([tool]).execute(call('echo', { text: 1, count: 'x' }), ctx());
    expect(res.isError).toBe(true);
    const lines = textOf(res.content)
      .split('\n')
      .filter((l) => l.startsWith('- '));
    expect(lines.some((l) => l.startsWith('- text:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('- count:'))).toBe(true);
    expect(tool.calls).toHaveLength(0);
  });

  it('names nested properties with dots', async () => {
    const tool = spyTool('nested', undefined, {
      parameters: Type.Object({ opts: Type.Object({ depth: Type.Integer() }) }),
    });
    const res = await new ToolRegistry([tool]).execute(call('nested', { opts: { depth: 'deep' } }), ctx());
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toMatch(/- opts\.depth: must be integer/);
    expect(tool.calls).toHaveLength(0);
  });

  it('runs the tool with the arguments and the call id when they are valid', async () => {
    const tool = spyTool('echo', (args) => ({ content: `echo: ${args.text}` }));
    const c = ctx();
    const theCall = call('echo', { text: 'hello', count: 2 });
    const res = await new ToolRegistry([tool]).execute(theCall, c);
    expect(res).toEqual({ content: [{ type: 'text', text: 'echo: hello' }], isError: false });
    expect(tool.calls).toHaveLength(1);
    expect(tool.calls[0].args).toEqual({ text: 'hello', count: 2 });
    expect(tool.calls[0].ctx).toMatchObject({ cwd: c.cwd, toolCallId: theCall.id });
    expect(tool.calls[0].ctx.signal).toBe(c.signal);
  });

  it('a call whose arguments could not be parsed is refused and never run, even if `arguments` would validate', async () => {
    const tool = spyTool('echo');
    const reg = new ToolRegistry([tool]);
    const res = await reg.execute(call('echo', { text: 'fine' }, { argumentsError: 'Unexpected end of JSON input' }), ctx());
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toContain('Unexpected end of JSON input');
    expect(textOf(res.content)).toContain('was not run');
    expect(res.details).toMatchObject({ reason: 'invalid_json' });
    expect(tool.calls).toHaveLength(0);
  });
});

describe('ToolRegistry: failures never reject', () => {
  it('a tool that throws an Error becomes an isError result with its message', async () => {
    const tool = spyTool('boom', () => {
      throw new Error('disk on fire');
    });
    const p = new ToolRegistry([tool]).execute(call('boom', { text: 'x' }), ctx());
    await expect(p).resolves.toBeDefined();
    const res = await p;
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toContain('disk on fire');
    expect(textOf(res.content)).toContain('"boom"');
    expect(res.details).toMatchObject({ reason: 'exception' });
  });

  it('a ToolError, a rejected promise and a thrown non-Error are all reported', async () => {
    const reg = new ToolRegistry([
      spyTool('tool_error', () => {
        throw new ToolError('expected failure');
      }),
      spyTool('rejects', () => Promise.reject(new TypeError('bad type'))),
      spyTool('throws_string', () => {
        throw 'just a string';
      }),
    ]);
    const c = ctx();
    const results = await Promise.all([reg.execute(call('tool_error', { text: 'x' }), c), reg.execute(call('rejects', { text: 'x' }), c), reg.execute(call('throws_string', { text: 'x' }), c)]);
    expect(results.map((r) => r.isError)).toEqual([true, true, true]);
    expect(textOf(results[0].content)).toContain('expected failure');
    expect(textOf(results[1].content)).toContain('bad type');
    expect(textOf(results[2].content)).toContain('just a string');
  });

  it('a tool that throws synchronously (not an async function) is still caught', async () => {
    const tool: ToolDefinition = {
      name: 'sync_throw',
      description: 'throws before returning a promise',
      parameters: Type.Object({}),
      risk: 'read',
      execute() {
        throw new Error('sync failure');
      },
    };
    const res = await new ToolRegistry([tool]).execute(call('sync_throw'), ctx());
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toContain('sync failure');
  });

  it('an isError output from the tool is kept as an error, with its details', async () => {
    const tool = spyTool('soft_fail', () => ({ content: 'nothing matched', isError: true, details: { matches: 0 } }));
    const res = await new ToolRegistry([tool]).execute(call('soft_fail', { text: 'x' }), ctx());
    expect(res).toEqual({ content: [{ type: 'text', text: 'nothing matched' }], isError: true, details: { matches: 0 } });
  });

  it('content given as an array of text parts is passed through', async () => {
    const parts = [
      { type: 'text' as const, text: 'one' },
      { type: 'text' as const, text: 'two' },
    ];
    const res = await new ToolRegistry([spyTool('parts', () => ({ content: parts }))]).execute(call('parts', { text: 'x' }), ctx());
    expect(res.isError).toBe(false);
    expect(res.content).toEqual(parts);
  });

  it('errorResult builds an isError result', () => {
    expect(errorResult('nope', { reason: 'x' })).toEqual({ content: [{ type: 'text', text: 'nope' }], isError: true, details: { reason: 'x' } });
    expect(errorResult('nope')).toEqual({ content: [{ type: 'text', text: 'nope' }], isError: true });
  });
});

describe('ToolRegistry: permission', () => {
  it('a denied call is an isError "Permission denied" with the reason, and the tool never runs', async () => {
    const tool = spyTool('echo');
    const seen: Array<[string, string]> = [];
    const permission: PermissionCheck = (c, t) => {
      seen.push([c.name, t.name]);
      return { allow: false, reason: 'the user said no' };
    };
    const res = await new ToolRegistry([tool], { permission }).execute(call('echo', { text: 'x' }), ctx());
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toContain('Permission denied');
    expect(textOf(res.content)).toContain('the user said no');
    expect(res.details).toMatchObject({ reason: 'denied' });
    expect(tool.calls).toHaveLength(0);
    expect(seen).toEqual([['echo', 'echo']]);
  });

  it('an async deny works the same way', async () => {
    const tool = spyTool('echo');
    const permission: PermissionCheck = async () => {
      await new Promise((r) => setTimeout(r, 5));
      return { allow: false, reason: 'policy' };
    };
    const res = await new ToolRegistry([tool], { permission }).execute(call('echo', { text: 'x' }), ctx());
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toMatch(/Permission denied.*policy/);
    expect(tool.calls).toHaveLength(0);
  });

  it.each([
    [
      'throws',
      (() => {
        throw new Error('hook crashed');
      }) as PermissionCheck,
    ],
    ['rejects', (() => Promise.reject(new Error('hook crashed'))) as PermissionCheck],
  ])('a permission hook that %s denies the call', async (_how, permission) => {
    const tool = spyTool('echo');
    const res = await new ToolRegistry([tool], { permission }).execute(call('echo', { text: 'x' }), ctx());
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toContain('Permission denied');
    expect(textOf(res.content)).toContain('hook crashed');
    expect(res.details).toMatchObject({ reason: 'denied' });
    expect(tool.calls).toHaveLength(0);
  });

  it('an allowed call runs', async () => {
    const tool = spyTool('echo', () => ({ content: 'ran' }));
    const res = await new ToolRegistry([tool], { permission: async () => ({ allow: true }) }).execute(call('echo', { text: 'x' }), ctx());
    expect(res).toEqual({ content: [{ type: 'text', text: 'ran' }], isError: false });
    expect(tool.calls).toHaveLength(1);
  });

  it('the permission hook is not asked about calls that fail validation', async () => {
    let asked = 0;
    const reg = new ToolRegistry([spyTool('echo')], {
      permission: () => {
        asked++;
        return { allow: true };
      },
    });
    await reg.execute(call('echo', { wrong: 1 }), ctx());
    await reg.execute(call('nope', {}), ctx());
    await reg.execute(call('echo', {}, { argumentsError: 'bad json' }), ctx());
    expect(asked).toBe(0);
  });
});

describe('ToolRegistry: abort', () => {
  it('a call made after the signal was aborted is refused and the tool never runs', async () => {
    const tool = spyTool('echo');
    const ac = new AbortController();
    ac.abort();
    let asked = 0;
    const reg = new ToolRegistry([tool], {
      permission: () => {
        asked++;
        return { allow: true };
      },
    });
    const res = await reg.execute(call('echo', { text: 'x' }), ctx(ac.signal));
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toMatch(/aborted/);
    expect(res.details).toMatchObject({ reason: 'aborted' });
    expect(tool.calls).toHaveLength(0);
    expect(asked).toBe(0);
  });

  it('a tool that rejects because the run was aborted is reported as aborted, not as a failure', async () => {
    const ac = new AbortController();
    const tool = spyTool('slow', (_args, c) => {
      return new Promise<ToolOutput>((_resolve, reject) => {
        c.signal.addEventListener('abort', () => reject(new Error('some low-level EABORT noise')), { once: true });
      });
    });
    const p = new ToolRegistry([tool]).execute(call('slow', { text: 'x' }), ctx(ac.signal));
    await new Promise((r) => setTimeout(r, 5));
    expect(tool.calls).toHaveLength(1);
    ac.abort();
    const res = await p;
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toMatch(/aborted/);
    expect(textOf(res.content)).not.toContain('EABORT');
    expect(res.details).toMatchObject({ reason: 'aborted' });
  });

  it('a tool that finishes despite an abort keeps its result, marked abortedAfterCompletion', async () => {
    const ac = new AbortController();
    const tool = spyTool('quick', async () => {
      ac.abort();
      return { content: 'done anyway', details: { n: 1 } };
    });
    const res = await new ToolRegistry([tool]).execute(call('quick', { text: 'x' }), ctx(ac.signal));
    expect(res.isError).toBe(false);
    expect(textOf(res.content)).toBe('done anyway');
    expect(res.details).toEqual({ n: 1, abortedAfterCompletion: true });
  });

  it('a run aborted while the permission hook is deciding is refused, and the tool never runs', async () => {
    const ac = new AbortController();
    const tool = spyTool('echo');
    const reg = new ToolRegistry([tool], {
      permission: async () => {
        await new Promise((r) => setTimeout(r, 5));
        ac.abort(); // e.g. the user pressed Ctrl-C at the permission prompt, then answered
        return { allow: true };
      },
    });
    const res = await reg.execute(call('echo', { text: 'x' }), ctx(ac.signal));
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toMatch(/aborted/);
    expect(res.details).toMatchObject({ reason: 'aborted' });
    expect(tool.calls).toHaveLength(0);
  });
});

describe('ToolRegistry: the hard cap on output', () => {
  const limits: RegistryOptions['limits'] = { maxLines: 10, maxBytes: 200 };

  it('cuts output over the line limit, with a notice and details.truncated', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `l${i + 1}`);
    const tool = spyTool('many', () => ({ content: lines.join('\n'), details: { own: 'kept' } }));
    const res = await new ToolRegistry([tool], { limits }).execute(call('many', { text: 'x' }), ctx());
    expect(res.isError).toBe(false);
    const text = textOf(res.content);
    const [body, notice] = text.split('\n\n[');
    expect(body).toBe(lines.slice(0, 10).join('\n'));
    expect(notice).toMatch(/^Output truncated: showing 10 of 50 lines/);
    expect(res.details).toMatchObject({ own: 'kept', truncated: true, totalLines: 50, totalBytes: Buffer.byteLength(lines.join('\n')) });
  });

  it('cuts output over the byte limit at a line boundary', async () => {
    const lines = Array.from({ length: 8 }, (_, i) => `${i}`.repeat(40)); // 8 lines of 40 bytes: 327 bytes
    const all = lines.join('\n');
    const tool = spyTool('wide', () => ({ content: all }));
    const res = await new ToolRegistry([tool], { limits }).execute(call('wide', { text: 'x' }), ctx());
    const text = textOf(res.content);
    const body = text.slice(0, text.indexOf('\n\n[Output truncated'));
    expect(body).toBe(lines.slice(0, 4).join('\n')); // 4*40 + 3 = 163 bytes; a 5th line would make 204
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(200);
    expect(text).toMatch(/\[Output truncated: showing 4 of 8 lines, 163 B of 327 B\.\]$/);
    expect(res.details).toMatchObject({ truncated: true, totalLines: 8, totalBytes: 327 });
  });

  it('cuts a single line longer than the byte limit without splitting a character', async () => {
    const long = 'é'.repeat(500); // 1000 bytes, 2 bytes per character
    const tool = spyTool('long', () => ({ content: long }));
    const res = await new ToolRegistry([tool], { limits: { maxLines: 10, maxBytes: 101 } }).execute(call('long', { text: 'x' }), ctx());
    const text = textOf(res.content);
    const body = text.slice(0, text.indexOf('\n\n[Output truncated'));
    expect(body).toBe('é'.repeat(50));
    expect(body).not.toContain('\uFFFD');
    expect(res.details).toMatchObject({ truncated: true });
  });

  it('also cuts error output, and keeps it an error', async () => {
    const tool = spyTool('noisy_fail', () => ({ content: 'x\n'.repeat(100), isError: true }));
    const res = await new ToolRegistry([tool], { limits }).execute(call('noisy_fail', { text: 'x' }), ctx());
    expect(res.isError).toBe(true);
    expect(textOf(res.content)).toContain('[Output truncated');
    expect(res.details).toMatchObject({ truncated: true });
  });

  it('leaves output within both limits untouched', async () => {
    const exact = Array.from({ length: 10 }, () => 'y'.repeat(10)).join('\n'); // 10 lines, 109 bytes
    const tool = spyTool('fits', () => ({ content: exact }));
    const res = await new ToolRegistry([tool], { limits }).execute(call('fits', { text: 'x' }), ctx());
    expect(res).toEqual({ content: [{ type: 'text', text: exact }], isError: false });
  });

  it('gives a self-truncating tool twice the room, but still caps it', async () => {
    const lines = Array.from({ length: 15 }, (_, i) => `s${i}`);
    const within = spyTool('self_ok', () => ({ content: lines.join('\n') }), { selfTruncating: true });
    const over = spyTool('self_over', () => ({ content: [...lines, ...lines].join('\n') }), { selfTruncating: true });
    const reg = new ToolRegistry([within, over], { limits });
    const a = await reg.execute(call('self_ok', { text: 'x' }), ctx());
    expect(textOf(a.content)).toBe(lines.join('\n'));
    expect(a.details).toBeUndefined();
    const b = await reg.execute(call('self_over', { text: 'x' }), ctx());
    expect(textOf(b.content)).toMatch(/showing 20 of 30 lines/);
    expect(b.details).toMatchObject({ truncated: true, totalLines: 30 });
  });

  it('uses the default cap (2000 lines, 50 KB) when no limits are given', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => `${i}`).join('\n');
    const res = await new ToolRegistry([spyTool('many', () => ({ content: many }))]).execute(call('many', { text: 'x' }), ctx());
    expect(textOf(res.content)).toMatch(/showing 2000 of 3000 lines/);
    const wide = 'w'.repeat(80 * 1024);
    const res2 = await new ToolRegistry([spyTool('wide', () => ({ content: wide }))]).execute(call('wide', { text: 'x' }), ctx());
    const body = textOf(res2.content).split('\n\n[')[0];
    expect(Buffer.byteLength(body)).toBe(50 * 1024);
  });
});

describe('ToolRegistry: the real tools through execute', () => {
  it('write_note then read_file round-trips text inside the workspace', async () => {
    const c = ctx();
    const reg = new ToolRegistry([createReadFileTool(), createWriteNoteTool()]);
    const w = await reg.execute(call('write_note', { path: 'notes/a.md', text: 'alpha\nbeta\n' }), c);
    expect(w.isError).toBe(false);
    const r = await reg.execute(call('read_file', { path: 'notes/a.md' }), c);
    expect(r.isError).toBe(false);
    expect(textOf(r.content)).toBe('alpha\nbeta');
  });
});
