// Asking the user about a call the permission policy says to ask about: the call as the user
// needs to see it (bash: the command; edits: the changes; writes: the path and the start of the
// content), and y / n / a (always for this session). The run waits; Ctrl+C aborts it.
import type { PermissionReply, PermissionRequest } from '../app/permission-gate.js';
import { clean, cut, type Paint } from './view.js';

export interface PendingQuestion {
  request: PermissionRequest;
  answer(reply: PermissionReply): void;
}

/** The lines that show a request, for the live region. */
export function questionLines(q: PendingQuestion, width: number, p: Paint): string[] {
  const r = q.request;
  const a = r.arguments;
  const lines = [p.yellow(`? ${r.tool} needs your approval`) + p.dim(` (${r.reason})`)];
  const body = (text: string, max: number) => clean(text).split('\n').slice(0, max).map((l) => `  ${cut(l, width - 4)}`);
  if (typeof a.command === 'string') lines.push(...body(`$ ${a.command}`, 8));
  else if (r.tool === 'edit_file' && (Array.isArray(a.edits) || typeof a.edits === 'string')) {
    lines.push(`  ${cut(String(a.path ?? ''), width - 4)}`);
    const edits = Array.isArray(a.edits) ? a.edits : safeParse(a.edits as string);
    for (const e of (Array.isArray(edits) ? edits : []).slice(0, 4) as Array<{ oldText?: unknown; newText?: unknown }>) {
      for (const l of clean(String(e.oldText ?? '')).split('\n').slice(0, 6)) lines.push(p.red(`  - ${cut(l, width - 6)}`));
      for (const l of clean(String(e.newText ?? '')).split('\n').slice(0, 6)) lines.push(p.green(`  + ${cut(l, width - 6)}`));
    }
  } else if (typeof a.path === 'string') {
    lines.push(`  ${cut(a.path, width - 4)}`);
    const content = typeof a.content === 'string' ? a.content : typeof a.text === 'string' ? a.text : undefined;
    if (content !== undefined) lines.push(...body(content, 6).map((l) => p.dim(l)));
  } else lines.push(`  ${cut(clean(JSON.stringify(a)), width - 4)}`);
  lines.push(`  Allow? ${p.bold('[y]')}es, ${p.bold('[n]')}o, ${p.bold('[a]')}lways for this session (${cut(r.suggestedRule, Math.max(10, width - 50))})`);
  return lines;
}

/** The reply a key gives, or undefined for a key that is not an answer. */
export function replyFor(text: string): PermissionReply | undefined {
  const k = text.trim().toLowerCase();
  if (k === 'y') return 'allow';
  if (k === 'n') return 'deny';
  if (k === 'a') return 'always';
  return undefined;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
