// `mini-agent trust [DIR]`: trust a workspace, so that the hooks and MCP servers its own config lists may run.
import { trustWorkspace } from '../extensions/trust.js';
import { EXIT } from './exit-codes.js';

export function trustCommand(args: { dir?: string }): number {
  const { path, added } = trustWorkspace(args.dir ?? process.cwd(), process.env);
  process.stdout.write(added ? `trusted ${path}: the hooks and MCP servers in its .mini-agent/config.json will run\n` : `${path} was already trusted\n`);
  return EXIT.completed;
}
