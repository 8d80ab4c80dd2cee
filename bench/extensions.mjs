// Benchmarks of the extensions (issue 12), each next to a floor measured in the same run:
// - start-up with 3 configured MCP servers the run does not need, against none configured:
//   `--version`, and a print-mode run whose --tools leaves the servers out (they start lazily);
// - a call to a server-everything tool through the registry, against the MCP SDK's own client
//   calling the same tool of another instance of the same server, alternately;
// - loading context files and 200 skills (and listing them for the system prompt), against
//   reading the same files with readFileSync.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleFromSrc, isMain, median, runAlone } from './lib.mjs';

function timeSpawn(args, n, opts) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { stdio: 'ignore', ...opts });
    times.push(performance.now() - t);
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  }
  return median(times);
}

export async function extensionBenchmarks({ root, work, report }) {
  const bin = join(root, 'bin', 'mini-agent');
  const require = createRequire(join(root, 'package.json'));
  const everything = join(require.resolve('@modelcontextprotocol/server-everything/package.json'), '..', 'dist', 'index.js');
  const n = Number(process.env.BENCH_SPAWNS ?? 15);

  // 1. Three configured servers, not needed: the same start-up as none.
  {
    const bare = join(work, 'ext-bare');
    const withServers = join(work, 'ext-mcp');
    for (const dir of [bare, withServers]) mkdirSync(join(dir, 'home'), { recursive: true });
    const server = { command: process.execPath, args: [everything, 'stdio'] };
    writeFileSync(join(withServers, 'home', 'config.json'), JSON.stringify({ mcpServers: { one: server, two: server, three: server } }));
    const script = join(work, 'ext-script.json');
    writeFileSync(script, JSON.stringify({ turns: [{ text: 'ok' }] }));
    const env = (dir) => ({ cwd: dir, env: { ...process.env, MINI_AGENT_HOME: join(dir, 'home') } });
    const run = ['--no-session', '--script', script, '--tools', 'read_file', 'hi'];
    timeSpawn([bin, '--version'], 2, env(bare));
    const floorVersion = timeSpawn([bin, '--version'], n, env(bare));
    const version = timeSpawn([bin, '--version'], n, env(withServers));
    report('MCP: --version with 3 servers configured', version, '--version, none', floorVersion, '≤ 1.1×', version / floorVersion <= 1.1);
    timeSpawn([bin, ...run], 2, env(bare));
    const floorRun = timeSpawn([bin, ...run], n, env(bare));
    const lazy = timeSpawn([bin, ...run], n, env(withServers));
    report('MCP: a run that needs none of 3 servers', lazy, 'the run, none configured', floorRun, '≤ 1.1×', lazy / floorRun <= 1.1);
  }

  const mod = await import(
    await bundleFromSrc({
      root,
      work,
      name: 'extensions-bench',
      contents: [
        "export { McpManager } from './src/extensions/mcp-client.ts';",
        "export { parseMcpServers } from './src/extensions/mcp-config.ts';",
        "export { ToolRegistry } from './src/tools/registry.ts';",
        "export { AgentExtensions } from './src/app/extensions.ts';",
        "export { loadConfig } from './src/app/config.ts';",
        "export { Client } from '@modelcontextprotocol/sdk/client/index.js';",
        "export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';",
      ],
    })
  );

  // 2. One tool call: through our registry and McpManager, against the SDK's client alone.
  {
    const specs = mod.parseMcpServers({ everything: { command: process.execPath, args: [everything, 'stdio'], risk: 'read' } }, { source: 'bench', scope: 'user', env: process.env, baseDir: work });
    const manager = new mod.McpManager({ servers: specs, trusted: true, cwd: work, env: process.env });
    await manager.start();
    const registry = new mod.ToolRegistry([], { dynamicTools: () => manager.tools() });
    const client = new mod.Client({ name: 'bench', version: '1' });
    await client.connect(new mod.StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' }));
    const signal = new AbortController().signal;
    const ours = [];
    const sdk = [];
    for (let i = 0; i < 430; i++) {
      let t = performance.now();
      const r = await registry.execute({ id: `c${i}`, name: 'everything__echo', arguments: { message: `m${i}` } }, { cwd: work, signal });
      const a = performance.now() - t;
      if (r.isError) throw new Error(`registry call failed: ${JSON.stringify(r.content)}`);
      t = performance.now();
      await client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
      const b = performance.now() - t;
      if (i >= 30) ours.push(a), sdk.push(b);
    }
    await client.close();
    await manager.close();
    const o = median(ours);
    const s = median(sdk);
    report('MCP: echo through the registry (median)', o, 'the SDK client alone', s, 'overhead < 2 ms', o - s < 2);
    console.log(`  overhead ${((o - s) * 1000).toFixed(0)} µs per call (medians of 400 alternating calls)`);
  }

  // 3. Context files and 200 skills: load and list, as a run begins.
  {
    const home = join(work, 'ext-home');
    const cwd = join(work, 'ext-repo');
    mkdirSync(join(home, 'skills'), { recursive: true });
    mkdirSync(join(cwd, '.mini-agent', 'skills'), { recursive: true });
    writeFileSync(join(cwd, 'AGENTS.md'), '# Rules\n\n' + 'Use the existing helpers; run the tests before you finish.\n'.repeat(100));
    writeFileSync(join(home, 'AGENTS.md'), 'Answer briefly.\n');
    for (let i = 0; i < 200; i++) {
      const dir = join(i % 2 ? home : cwd, ...(i % 2 ? ['skills'] : ['.mini-agent', 'skills']), `skill-${i}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'SKILL.md'), `---\nname: skill-${i}\ndescription: Does task number ${i} the way this team likes it done.\n---\n${'Step.\n'.repeat(40)}`);
    }
    const env = { ...process.env, MINI_AGENT_HOME: home };
    const config = mod.loadConfig(cwd, env, {}).config;
    const files = [];
    for (const [base, sub] of [
      [cwd, ['.mini-agent', 'skills']],
      [home, ['skills']],
    ]) {
      for (const d of readdirSync(join(base, ...sub))) files.push(join(base, ...sub, d, 'SKILL.md'));
    }
    files.push(join(cwd, 'AGENTS.md'), join(home, 'AGENTS.md'));
    const load = async () => {
      const ext = await mod.AgentExtensions.load({ cwd, home, env, config, trusted: false });
      const prepared = await ext.prepareRun({ signal: new AbortController().signal, messages: () => [] });
      if (!prepared.systemContext.includes('skill-199')) throw new Error('the skills were not listed');
    };
    const floorTimes = [];
    const times = [];
    for (let i = 0; i < 25; i++) {
      let t = performance.now();
      for (const f of files) readFileSync(f, 'utf8');
      floorTimes.push(performance.now() - t);
      t = performance.now();
      await load();
      times.push(performance.now() - t);
    }
    const v = median(times.slice(5));
    report('context files + 200 skills: load and list', v, 'readFileSync of the files', median(floorTimes.slice(5)), '< 50 ms', v < 50);
  }
}

if (isMain(import.meta.url)) await runAlone('extensions', extensionBenchmarks, { summary: true });
