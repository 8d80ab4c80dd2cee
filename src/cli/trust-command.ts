// `mini-agent trust [DIR]`, `trust --list`, `untrust [DIR]`: the workspaces whose own config may
// widen what the user allowed (its allow rules, hooks, MCP servers, provider settings), each for
// the version of its config it was trusted with.
import { agentHome } from '../session/paths.js';
import { projectConfigHash, projectConfigFile, trustRecords, trustWorkspace, untrustWorkspace } from '../extensions/trust.js';
import { readConfigFile } from '../app/config.js';
import { ruleFor } from '../app/project-config.js';
import { EXIT } from '../app/exit-codes.js';
import type { FrontEndIo } from '../app/front-end-io.js';

export function trustCommand(args: { dir?: string; list?: boolean; json?: boolean }, io: FrontEndIo): number {
  if (args.list) return listTrusted(args.json === true, io);
  const { path, change } = trustWorkspace(args.dir ?? io.cwd, io.cwd, agentHome(io.env));
  const widening = wideningKeys(path);
  const what = widening.length > 0 ? `its .mini-agent/config.json may now widen what you allowed (${widening.join(', ')})` : 'its .mini-agent/config.json widens nothing now';
  const line =
    change === 'unchanged'
      ? `${path} was already trusted for its current config`
      : `${change === 'renewed' ? 'trusted again' : 'trusted'} ${path}: ${what}; the hooks and MCP servers it lists will run. If the config changes, its widening keys are ignored until you trust it again`;
  io.stdout.write(line + '\n');
  return EXIT.completed;
}

export function untrustCommand(args: { dir?: string }, io: FrontEndIo): number {
  const { path, removed } = untrustWorkspace(args.dir ?? io.cwd, io.cwd, agentHome(io.env));
  io.stdout.write(removed ? `untrusted ${path}: its .mini-agent/config.json may only narrow what you allowed from now on\n` : `${path} was not trusted\n`);
  return EXIT.completed;
}

/** The project config's keys that need trust (a config that cannot be read lists none: the run will say why). */
function wideningKeys(dir: string): string[] {
  let data;
  try {
    data = readConfigFile(projectConfigFile(dir));
  } catch {
    return [];
  }
  if (!data) return [];
  const keys: string[] = [];
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix ? `${prefix}.${k}` : k;
      const found = ruleFor(key);
      if (found && found.key === key) {
        if (found.rule.effect === 'widening') keys.push(key);
      } else if (v && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, key);
    }
  };
  walk(data as Record<string, unknown>, '');
  return keys;
}

function listTrusted(json: boolean, io: FrontEndIo): number {
  const rows = trustRecords(agentHome(io.env)).map((r) => {
    let state: string;
    if (r.configHash === null) state = 'trusted before config versions were recorded: trust it again';
    else state = projectConfigHash(r.path) === r.configHash ? 'config unchanged' : 'config changed since: trust it again';
    return { path: r.path, trustedAt: r.trustedAt, configHash: r.configHash, state };
  });
  if (json) io.stdout.write(JSON.stringify({ workspaces: rows }, null, 2) + '\n');
  else if (rows.length === 0) io.stdout.write('no trusted workspaces (mini-agent trust [DIR] adds one)\n');
  else for (const r of rows) io.stdout.write(`${r.path}  ${r.trustedAt ?? '(date not recorded)'}  ${r.state}\n`);
  return EXIT.completed;
}
