// "Always" approvals are stored in the session file (`permission_grant` entries), so that they
// survive a resume. A session file can come from elsewhere: a repository can ship `work.jsonl`
// with a grant for `bash` in it, and the README's own `--session work.jsonl` would resume it.
// So each grant carries a seal: an HMAC-SHA256 of the session id and the rule, keyed by a secret
// that lives in the user's state home ($MINI_AGENT_HOME/grant-key, 0600, made at the first grant).
// A grant whose seal does not verify (another user's, a repository's, one from before seals) is
// not applied; the user is asked again. The home is a protected path, so the file tools cannot
// read or write the key. Bash is not a sandbox (DESIGN §5): a command could still read it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEntry } from '../session/entries.js';
import { parseRule, type PermissionRule } from '../tools/permissions.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../session/private-fs.js';
import { permissionGrantKind } from '../session/entry-kinds/index.js';

const PREFIX = 'hmac-sha256:';

function keyFile(home: string): string {
  return join(home, 'grant-key');
}

/** The user's grant key; made (32 random bytes, 0600) when `create` and there is none. Undefined: none, or unreadable. */
function grantKey(home: string, create: boolean): Buffer | undefined {
  const file = keyFile(home);
  try {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    if (key.length >= 32) return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !create) return undefined;
  }
  if (!create) return undefined;
  const key = randomBytes(32);
  makePrivateDir(home);
  try {
    writeFileSync(file, key.toString('hex') + '\n', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  } catch (err) {
    // Another process made it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return grantKey(home, false);
    throw err;
  }
  return key;
}

function mac(key: Buffer, sessionId: string, rule: string): Buffer {
  return createHmac('sha256', key).update(`permission_grant\0${sessionId}\0${rule}`).digest();
}

/** The seal of a grant the user gives now. */
export function sealGrant(home: string, sessionId: string, rule: string): string {
  const key = grantKey(home, true)!;
  return PREFIX + mac(key, sessionId, rule).toString('hex');
}

/** The rules of the session's grants whose seals verify, and how many did not (a warning names them). */
function sealedGrants(entries: readonly SessionEntry[], sessionId: string, home: string): { rules: string[]; refused: string[] } {
  const grants = entries.flatMap((e) => (permissionGrantKind.is(e) ? [e] : []));
  if (grants.length === 0) return { rules: [], refused: [] };
  const key = grantKey(home, false);
  const rules: string[] = [];
  const refused: string[] = [];
  for (const g of grants) {
    const seal = typeof g.seal === 'string' && g.seal.startsWith(PREFIX) ? Buffer.from(g.seal.slice(PREFIX.length), 'hex') : undefined;
    const expected = key ? mac(key, sessionId, g.rule) : undefined;
    if (seal && expected && seal.length === expected.length && timingSafeEqual(seal, expected)) rules.push(g.rule);
    else refused.push(g.rule);
  }
  return { rules, refused };
}

/** The session's grants that apply; `note` hears about the ones that do not. */
export function sessionGrants(store: { id: string; file: string | null; entries(): readonly SessionEntry[] }, home: string, note: (text: string) => void): PermissionRule[] {
  const { rules, refused } = sealedGrants(store.entries(), store.id, home);
  if (refused.length > 0) note(refusedGrantsNote(store.file, refused));
  return rules.map((r) => parseRule(r, `session grant (${store.id})`));
}

/** The note for grants that were not applied. */
function refusedGrantsNote(file: string | null, refused: readonly string[]): string {
  return (
    `${file ?? 'this session'} holds ${refused.length === 1 ? 'an "always" approval' : `${refused.length} "always" approvals`} (${refused.join(', ')}) ` +
    `not sealed by this mini-agent home (written elsewhere, by another program, or before approvals were sealed); ` +
    `${refused.length === 1 ? 'it is' : 'they are'} not applied, and you will be asked again`
  );
}
