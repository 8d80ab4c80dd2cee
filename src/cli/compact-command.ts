// `mini-agent compact [SESSION] [--focus TEXT]` and `mini-agent uncompact [SESSION]`: thin users of
// the app layer. Compacting needs the model (it writes the summary); uncompacting only moves the leaf.
import { createAgent } from '../app/agent.js';
import type { AgentFlags } from '../app/flags.js';
import { openForWrite } from '../app/session-open.js';
import { uncompact } from '../session/compaction-plan.js';
import { agentHome, sessionPlace } from '../session/paths.js';
import { continueSession, resolveSession } from '../session/resolve.js';
import { EXIT } from '../app/exit-codes.js';
import type { FrontEndIo } from '../app/front-end-io.js';

export async function compactCommand(args: { session?: string; focus?: string; agent: AgentFlags }, io: FrontEndIo): Promise<number> {
  const session = args.session !== undefined ? { resume: args.session } : args.agent.session === 'new' ? 'continue' : args.agent.session;
  const agent = await createAgent({ cwd: io.cwd, env: io.env, ...args.agent, session });
  try {
    for (const w of agent.warnings) io.stderr.write(`mini-agent: warning: ${w}\n`);
    const r = await agent.compact({ focus: args.focus });
    if (!r.ok) {
      io.stderr.write(`mini-agent: compaction failed: ${r.error}; nothing was summarized (the attempt is recorded in the session)\n`);
      return EXIT.error;
    }
    io.stdout.write(`compacted session ${agent.session.id}: ${r.summarizedEntries} entries summarized, ${r.tokensBefore} → ${r.tokensAfter} tokens (entry ${r.entryId}); undo with: mini-agent uncompact ${agent.session.id.slice(0, 8)}\n`);
    return EXIT.completed;
  } finally {
    await agent.close();
  }
}

export function uncompactCommand(args: { session?: string }, io: FrontEndIo): number {
  const place = sessionPlace(agentHome(io.env), io.cwd);
  const { cwd } = place;
  const file = args.session !== undefined ? resolveSession(args.session, place) : continueSession(place);
  const { store, lock } = openForWrite(file, cwd);
  try {
    const undone = uncompact(store);
    if (!undone) {
      io.stderr.write(`mini-agent: session ${store.id} has no compaction on its active path\n`);
      return EXIT.usage;
    }
    io.stdout.write(`active leaf of session ${store.id} is now ${undone.leafId ?? '(before the first entry)'}, before compaction ${undone.compactionId}; nothing was deleted\n`);
    return EXIT.completed;
  } finally {
    store.close();
    lock.release();
  }
}
