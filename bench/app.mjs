// Benchmarks of the application layer and RPC mode (issue 8): each next to a floor measured in
// the same run on the same machine.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median, timedAsync } from './lib.mjs';

/** A child process speaking JSON lines; `ask` sends one and resolves with the matching reply. */
function lineProcess(args, opts) {
  const child = spawn(process.execPath, args, { ...opts, stdio: ['pipe', 'pipe', 'inherit'] });
  let buffer = '';
  const waiting = new Map();
  child.stdout.setEncoding('utf8').on('data', (d) => {
    buffer += d;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const msg = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
    }
  });
  return {
    ask: (cmd) => new Promise((resolve) => (waiting.set(cmd.id, resolve), child.stdin.write(JSON.stringify(cmd) + '\n'))),
    close: () => new Promise((resolve) => (child.on('close', resolve), child.stdin.end())),
  };
}

async function roundTrips(proc, n, make) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await proc.ask(make(i));
    times.push(performance.now() - t);
  }
  return times;
}

export async function appBenchmarks({ root, work, lib, report }) {
  const script = join(work, 'app-script.json');
  writeFileSync(script, JSON.stringify({ turns: Array.from({ length: 400 }, (_, i) => ({ text: `answer ${i}`, usage: { input: 10, output: 2 } })) }));

  // ---- RPC get_state round trip, through the child's pipes ----
  {
    const env = { ...process.env, MINI_AGENT_HOME: join(work, 'rpc-home') };
    const rpc = lineProcess([join(root, 'bin', 'mini-agent'), '--rpc', '--no-session', '--script', script], { cwd: work, env });
    // Floor: the same pipes and JSON framing, to a child that only echoes each line back.
    const echo = lineProcess(
      [
        '-e',
        "let b='';process.stdin.setEncoding('utf8').on('data',d=>{b+=d;let i;while((i=b.indexOf('\\n'))>=0){const l=b.slice(0,i);b=b.slice(i+1);const m=JSON.parse(l);process.stdout.write(JSON.stringify({type:'response',id:m.id,ok:true,result:{}})+'\\n')}})",
      ],
      { cwd: work },
    );
    await roundTrips(rpc, 50, (i) => ({ type: 'get_state', id: `w${i}` }));
    await roundTrips(echo, 50, (i) => ({ type: 'get_state', id: `w${i}` }));
    const floor = median(await roundTrips(echo, 400, (i) => ({ type: 'get_state', id: `e${i}` })));
    const value = median(await roundTrips(rpc, 400, (i) => ({ type: 'get_state', id: `s${i}` })));
    await rpc.close();
    await echo.close();
    report('RPC get_state round trip (median)', value, 'echo child', floor, '< 2 ms', value < 2);
  }

  // ---- createAgent + one scripted prompt, in process ----
  {
    const home = join(work, 'sdk-home');
    const once = async () => {
      const agent = await lib.createAgent({ cwd: work, home, env: {}, script, session: 'memory' });
      const result = await agent.prompt('hello');
      await agent.close();
      if (result.stopReason !== 'completed') throw new Error(`createAgent bench: ${result.stopReason}`);
    };
    // Floor: the blocks without the app layer: a store, the scripted model, a registry, a runner.
    const { readFileSync } = await import('node:fs');
    const bare = async () => {
      const model = new lib.ScriptedModel(lib.parseScript(readFileSync(script, 'utf8'), script));
      const store = lib.SessionStore.inMemory({ cwd: work });
      const runner = new lib.SessionRunner({ store, model, tools: new lib.ToolRegistry([lib.createReadFileTool(), lib.createWriteNoteTool()]), cwd: work });
      const result = await runner.run('hello');
      if (result.stopReason !== 'completed') throw new Error('bare bench');
    };
    for (let i = 0; i < 20; i++) await once(), await bare();
    const floor = await timedAsync(bare, 100);
    const value = await timedAsync(once, 100);
    report('createAgent + 1 scripted prompt (median)', value, 'bare runner', floor, '< 20 ms', value < 20);
  }
}
