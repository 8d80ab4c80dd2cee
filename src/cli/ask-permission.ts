// Print mode on a terminal: a call that needs approval is put to the user on stderr, answered on
// stdin: yes, no, or always (for the rest of the session). One question at a time; a stopped run
// (Ctrl-C) withdraws the question. Without a terminal there is no asker: the gate refuses instead.
import type { PermissionAsker, PermissionReply, PermissionRequest } from '../app/permission-gate.js';
import { preview } from '../core/types.js';

export function terminalAsker(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): PermissionAsker {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const answer = queue.then(() => ask(input, output, request));
    queue = answer.catch(() => undefined);
    return answer;
  };
}

function what(request: PermissionRequest): string {
  const a = request.arguments;
  if (typeof a.command === 'string') return `${request.tool} wants to run: ${a.command}`;
  if (typeof a.path === 'string') return `${request.tool} wants to ${request.risk === 'read' ? 'read' : 'change'} ${a.path}`;
  return `${request.tool} wants to run with ${preview(JSON.stringify(a), 200)}`;
}

async function ask(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, request: PermissionRequest): Promise<PermissionReply> {
  if (request.signal.aborted) return 'deny';
  const { createInterface } = await import('node:readline'); // only when a question is asked (issue 14)
  if (request.signal.aborted) return 'deny';
  return new Promise((resolve) => {
    const rl = createInterface({ input, output, terminal: false });
    let settled = false;
    const done = (reply: PermissionReply) => {
      if (settled) return;
      settled = true;
      request.signal.removeEventListener('abort', onAbort);
      rl.close();
      resolve(reply);
    };
    const onAbort = () => {
      output.write('\n');
      done('deny');
    };
    request.signal.addEventListener('abort', onAbort, { once: true });
    rl.on('close', () => done('deny')); // stdin ended: no answer is a no
    output.write(`\nmini-agent: ${what(request)}\n  (it needs approval: ${request.reason})\n`);
    const prompt = () =>
      rl.question(`  Allow? [y]es, [n]o, [a]lways for this session (${request.suggestedRule}): `, (line) => {
        const a = line.trim().toLowerCase();
        if (a === 'y' || a === 'yes') done('allow');
        else if (a === 'a' || a === 'always') done('always');
        else if (a === 'n' || a === 'no' || a === '') done('deny');
        else prompt();
      });
    prompt();
  });
}
