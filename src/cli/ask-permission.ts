// Print mode on a terminal: a call that needs approval is put to the user on stderr, answered on
// stdin: yes, no (with an optional reason for the model: `n: reason`), or always (for the rest of
// the session; the rule it stores is named). The call is shown whole, every line, with nothing
// invisible in it. One question at a time; a stopped run (Ctrl-C) withdraws the question. Without
// a terminal there is no asker: the gate refuses instead.
import type { PermissionAsker, PermissionReply, PermissionRequest } from '../app/permission-gate.js';
import { visibleText } from '../core/visible-text.js';
import { exactCommand, ruleInBrief } from '../tools/permissions.js';

export function terminalAsker(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): PermissionAsker {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const answer = queue.then(() => ask(input, output, request));
    queue = answer.catch(() => undefined);
    return answer;
  };
}

/** What the call does, whole: a command's every line, a write's path, size and content, an edit's old and new text. */
function what(request: PermissionRequest): string {
  const a = request.arguments;
  const block = (text: string, mark: string) =>
    visibleText(text)
      .split('\n')
      .map((l) => `  ${mark} ${l}`)
      .join('\n');
  if (typeof a.command === 'string') return `${request.tool} wants to run:\n${block(a.command, '$')}`;
  if (typeof a.path === 'string') {
    const head = `${request.tool} wants to ${request.risk === 'read' ? 'read' : 'change'} ${visibleText(a.path)}`;
    const content = typeof a.content === 'string' ? a.content : typeof a.text === 'string' ? a.text : undefined;
    if (content !== undefined) return `${head} (${Buffer.byteLength(content, 'utf8')} bytes):\n${block(content.replace(/\r\n/g, '\n').replace(/\n$/, ''), '│')}`;
    const edits = Array.isArray(a.edits) ? (a.edits as Array<{ oldText?: unknown; newText?: unknown }>) : [];
    if (edits.length > 0) return `${head}:\n${edits.map((e) => `${block(String(e.oldText ?? ''), '-')}\n${block(String(e.newText ?? ''), '+')}`).join('\n  @\n')}`;
    return `${head}${a.edits !== undefined ? `:\n${block(String(a.edits), '│')}` : ''}`;
  }
  return `${request.tool} wants to run with:\n${block(JSON.stringify(a, null, 2), '│')}`;
}

/** "always" in words: the rule it stores, and for a command that it is this exact line. */
function alwaysNote(request: PermissionRequest): string {
  const pattern = /^[^(]+\((.*)\)$/s.exec(request.suggestedRule)?.[1];
  const exact = typeof request.arguments.command === 'string' && pattern !== undefined && exactCommand(pattern) !== undefined;
  return `"always" stores ${visibleText(ruleInBrief(request.suggestedRule))}${exact ? ' (this exact command line, nothing else)' : ''}; "n: why" tells the model why not`;
}

/** The reply a typed answer gives, or undefined for an answer that is not one: y, n, a, `n: reason`. */
export function typedReply(line: string): PermissionReply | undefined {
  const m = /^\s*(y|yes|n|no|a|always)?\s*(?::\s*(.*))?$/is.exec(line);
  if (!m) return undefined;
  const word = (m[1] ?? '').toLowerCase();
  const reason = m[2]?.trim() ?? '';
  if (m[2] !== undefined && word !== 'n' && word !== 'no') return undefined; // a reason goes with "no" only
  if (word === 'y' || word === 'yes') return 'allow';
  if (word === 'a' || word === 'always') return 'always';
  if (word === 'n' || word === 'no' || word === '') return reason === '' ? 'deny' : { decision: 'deny', reason };
  return undefined;
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
    output.write(`\nmini-agent: ${what(request)}\n  (it needs approval: ${visibleText(request.reason)})\n  (${alwaysNote(request)})\n`);
    const prompt = () =>
      rl.question(`  Allow? [y]es, [n]o, [a]lways for this session: `, (line) => {
        const reply = typedReply(line);
        if (reply !== undefined) done(reply);
        else prompt();
      });
    prompt();
  });
}
