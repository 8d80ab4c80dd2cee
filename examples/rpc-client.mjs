// A small RPC client: starts `mini-agent --rpc` on the scripted demo model, sends a prompt,
// prints the events as they come, and exits when the run has settled.
// Run it from the repository: node examples/rpc-client.mjs ["a prompt"]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const demo = fileURLToPath(new URL('./demo/', import.meta.url));
const bin = fileURLToPath(new URL('../bin/mini-agent', import.meta.url));
const agent = spawn(process.execPath, [bin, '--rpc', '--no-session', '--script', 'script.json'], { cwd: demo, stdio: ['pipe', 'pipe', 'inherit'] });

const send = (command) => agent.stdin.write(JSON.stringify(command) + '\n');

// One JSON object per line. Split on "\n" only (never with readline: it also splits on U+2028).
let buffer = '';
agent.stdout.setEncoding('utf8').on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
    const message = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    onMessage(message);
  }
});

function onMessage(m) {
  if (m.type === 'response') {
    if (!m.ok) console.error(`✗ ${m.command}: ${m.error.kind}: ${m.error.message}`);
    else if (m.command === 'get_state') console.log(`session ${m.result.session.id} · ${m.result.model.provider}/${m.result.model.id}`);
    return;
  }
  if (m.type === 'text_delta') process.stdout.write(m.delta);
  else if (m.type === 'message_end') process.stdout.write('\n');
  else if (m.type === 'tool_start') console.log(`→ ${m.name} ${JSON.stringify(m.arguments)}`);
  else if (m.type === 'tool_end') console.log(`${m.result.isError ? '✗' : '✓'} ${m.name} (${m.durationMs} ms)`);
  else if (m.type === 'run_settled') {
    console.log(`settled: ${m.stopReason} after ${m.turns} turns, ${m.toolCalls} tool calls`);
    agent.stdin.end(); // EOF: mini-agent exits once the run has settled (it has)
  }
}

agent.on('close', (code) => {
  console.log(`mini-agent exited with ${code}`);
  process.exitCode = code ?? 1;
});

send({ type: 'get_state', id: 'state' });
send({ type: 'prompt', id: 'p1', message: process.argv[2] ?? 'Summarize notes/todo.md into out/summary.md' });
