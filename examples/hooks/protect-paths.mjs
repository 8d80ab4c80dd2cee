// An example hook for mini-agent: keep the agent's hands off some paths. It blocks every file
// tool that would change a protected path (write_file, edit_file, write_note), and bash commands
// that mention one. List it in a config file:
//
//   $MINI_AGENT_HOME/config.json           {"hooks": ["/abs/path/to/protect-paths.mjs"]}
//   <workspace>/.mini-agent/config.json    {"hooks": ["hooks/protect-paths.mjs"]}   (runs once the workspace is trusted)
//
// The protected globs: PROTECT_PATHS (comma-separated), else the defaults below. `*` matches
// within a folder, `**` across folders; a glob without a slash matches a file name anywhere.
// Self-contained on purpose (no imports), so it can be copied anywhere.

const DEFAULTS = ['.env', '.env.*', '*.pem', '*.key', '.git/**', 'secrets/**'];
const globs = (process.env.PROTECT_PATHS ? process.env.PROTECT_PATHS.split(',') : DEFAULTS).map((g) => g.trim()).filter(Boolean);

/** A glob as a regular expression over a workspace-relative path. */
function toRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(glob.includes('/') ? `^${re}$` : `(^|/)${re}$`);
}
const patterns = globs.map((g) => ({ glob: g, re: toRegExp(g) }));

function protectedBy(path) {
  const clean = String(path).replace(/^\.\//, '');
  return patterns.find((p) => p.re.test(clean));
}

const WRITERS = new Set(['write_file', 'edit_file', 'write_note']);

export function beforeToolCall(call) {
  if (WRITERS.has(call.name) && typeof call.arguments.path === 'string') {
    const hit = protectedBy(call.arguments.path);
    if (hit) return { block: true, reason: `${call.arguments.path} is protected (matches ${hit.glob}); leave it as it is` };
  }
  if (call.name === 'bash' && typeof call.arguments.command === 'string') {
    for (const word of call.arguments.command.split(/[\s;&|<>()'"`=]+/)) {
      const hit = word && protectedBy(word);
      if (hit) return { block: true, reason: `the command mentions ${word}, which is protected (matches ${hit.glob})` };
    }
  }
  return undefined; // allow
}
