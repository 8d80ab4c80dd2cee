// `mini-agent rewind [SESSION] ENTRY`: restore the files the agent changed to their state at ENTRY
// and move the session's leaf there (--files-only, --conversation-only: one of the two). The plan
// is printed first; on a terminal it asks, otherwise it needs --yes and without it only prints the
// plan. A file changed outside the agent since its last change is refused unless --force (--yes
// alone does not override it). The session takes the lock, like label and name.
import { createInterface } from 'node:readline/promises';
import { EXIT } from '../app/exit-codes.js';
import type { FrontEndIo } from '../app/front-end-io.js';
import { rewindPlanLines, shownPath } from '../app/rewind-text.js';
import { openForWrite } from '../app/session-open.js';
import { rewindTo } from '../session/file-rewind.js';
import { agentHome, sessionPlace } from '../session/paths.js';
import { continueSession, resolveEntry, resolveSession } from '../session/resolve.js';

export interface RewindArgs {
  session?: string;
  entry: string;
  filesOnly: boolean;
  conversationOnly: boolean;
  force: boolean;
  yes: boolean;
}

export async function rewindCommand(args: RewindArgs, io: FrontEndIo): Promise<number> {
  const place = sessionPlace(agentHome(io.env), io.cwd);
  const file = args.session === undefined ? continueSession(place) : resolveSession(args.session, place);
  const { store, lock } = openForWrite(file, io.cwd);
  try {
    const entryId = resolveEntry(store, args.entry);
    const opts = { filesOnly: args.filesOnly, conversationOnly: args.conversationOnly, force: args.force };
    const { plan } = await rewindTo(store, entryId, { ...opts, dryRun: true });
    const shown = (path: string) => shownPath(store.header.cwd, path);
    const lines = [...(args.conversationOnly ? [] : rewindPlanLines(plan, entryId, store.header.cwd)), ...(args.filesOnly ? [] : [`move the leaf to ${entryId}`])];
    io.stdout.write(lines.map((l) => `${l}\n`).join(''));
    if (plan.changedOutside.length > 0 && !args.force) {
      io.stderr.write(`mini-agent: not rewound: ${plan.changedOutside.map(shown).join(', ')} changed outside the agent since its last change; give --force to overwrite\n`);
      return EXIT.usage;
    }
    if (!args.yes) {
      if (!io.stdin.isTTY) {
        io.stderr.write('nothing was changed: give --yes to rewind (without a terminal there is no one to ask)\n');
        return EXIT.completed;
      }
      if (!(await confirm(io))) {
        io.stderr.write('nothing was changed\n');
        return EXIT.completed;
      }
    }
    const done = await rewindTo(store, entryId, opts);
    io.stdout.write(`rewound to ${entryId}: ${done.restored.length} file${done.restored.length === 1 ? '' : 's'} restored${done.moved ? ', the leaf moved there' : ''}\n`);
    return EXIT.completed;
  } finally {
    store.close();
    lock.release();
  }
}

async function confirm(io: FrontEndIo): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question('Rewind? [y/N] ')).trim());
  } finally {
    rl.close();
  }
}
