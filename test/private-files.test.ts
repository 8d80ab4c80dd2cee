// Private by default: MINI_AGENT_HOME and every folder mini-agent creates under it are 0700;
// session files, locks, traces and recordings are 0600, whatever the umask (000 does not widen
// them). Files the user asks for (exports) keep the user's umask. Existing files are never
// re-permissioned: `sessions` names what others can read, with the chmod that fixes it; a config
// file holding an API key that others can read gets a warning, as ssh gives for private keys.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, runCli, tempDir, writeScript } from './support/helpers.js';

const mode = (p: string) => '0' + (statSync(p).mode & 0o777).toString(8);
const onlyDir = (dir: string) => {
  const names = readdirSync(dir);
  expect(names).toHaveLength(1);
  return join(dir, names[0]);
};
const sessionFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => join(dir, f));

describe.skipIf(process.platform === 'win32')('private by default', () => {
  it.each(['000', '022', '077'])('umask %s: the home, its folders, sessions, traces and recordings are owner-only', async (umask) => {
    const cwd = tempDir();
    const home = join(tempDir(), 'home'); // does not exist yet: mini-agent creates it
    const script = writeScript(cwd, [{ toolCalls: [{ name: 'read_file', arguments: { path: 'script.json' } }] }, { text: 'done' }]);
    const r = await runCli(['--script', script, '--trace', join(cwd, 'trace.jsonl'), '--record', join(cwd, 'rec.json'), 'go'], { cwd, home, umask });
    expect(r.code, r.stderr).toBe(0);
    expect(mode(home)).toBe('0700');
    expect(mode(join(home, 'sessions'))).toBe('0700');
    const workspaceDir = onlyDir(join(home, 'sessions'));
    expect(mode(workspaceDir)).toBe('0700');
    const [session] = sessionFiles(workspaceDir);
    expect(mode(session)).toBe('0600');
    expect(mode(join(cwd, 'trace.jsonl'))).toBe('0600');
    expect(mode(join(cwd, 'rec.json'))).toBe('0600');

    // A fork is a new session file: 0600 too.
    const fork = await runCli(['-c', '--fork', parseFirstEntry(session)], { cwd, home, umask });
    expect(fork.code, fork.stderr).toBe(0);
    for (const f of sessionFiles(workspaceDir)) expect(mode(f)).toBe('0600');

    // An export the user asks for keeps the user's umask.
    const out = join(cwd, 'out.md');
    const exp = await runCli(['export', session, '--format', 'md', '-o', out], { cwd, home, umask });
    expect(exp.code, exp.stderr).toBe(0);
    expect(mode(out)).toBe('0' + (0o666 & ~parseInt(umask, 8)).toString(8));
  });

  it('the lock file is 0600 while a run holds it', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const session = join(cwd, 's.jsonl');
    const script = writeScript(cwd, [{ text: 'slowly answering now', delayMs: 150 }]);
    let lockMode: string | undefined;
    const r = await runCli(['--script', script, '--session', session, '--json', 'go'], {
      cwd,
      home,
      umask: '000',
      onStdout: (soFar) => {
        if (lockMode === undefined && soFar.includes('"turn_start"') && existsSync(`${session}.lock`)) lockMode = mode(`${session}.lock`);
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(lockMode).toBe('0600');
    expect(mode(session)).toBe('0600');
  });

  it('existing open folders and files are left as they are; `sessions` names them with the chmod that fixes it', async () => {
    const cwd = tempDir();
    const home = tempDir();
    chmodSync(home, 0o755);
    const script = writeScript(cwd, [{ text: 'hi' }]);
    expect((await cliInProcess(['--script', script, 'go'], { cwd, home })).code).toBe(0);
    const workspaceDir = onlyDir(join(home, 'sessions'));
    const [session] = sessionFiles(workspaceDir);
    chmodSync(session, 0o644);
    chmodSync(workspaceDir, 0o755);

    // Another run does not silently change them...
    expect((await cliInProcess(['--script', script, '-c', 'again'], { cwd, home })).code).toBe(0);
    expect([mode(home), mode(workspaceDir), mode(session)]).toEqual(['0755', '0755', '0644']);

    // ...but the listing says so, in one line, with the fix.
    const list = await cliInProcess(['sessions'], { cwd, home });
    expect(list.code).toBe(0);
    const warnings = list.stderr.trim().split('\n');
    expect(warnings).toEqual([`warning: 1 session file and 2 folders can be read by other users (${home}, ${workspaceDir}, ${session}); fix with: chmod -R go-rwx ${home}`]);
    const json = await cliInProcess(['sessions', '--json', '--all'], { cwd, home });
    expect(json.stderr).toContain('chmod -R go-rwx');
    expect(JSON.parse(json.stdout)).toHaveLength(1);

    // After the fix, silence.
    chmodSync(home, 0o700);
    chmodSync(workspaceDir, 0o700);
    chmodSync(session, 0o600);
    expect((await cliInProcess(['sessions'], { cwd, home })).stderr).toBe('');
  });

  it('a config file holding an API key that others can read gets a warning like ssh gives; a private one, or one without a key, does not', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const config = join(home, 'config.json');
    writeFileSync(config, JSON.stringify({ provider: 'openai', apiKey: 'sk-secret-key-123' }));
    chmodSync(config, 0o644);
    const line = `mini-agent: warning: ${config} holds an API key and other users can read it (permissions 0644 are too open); fix with: chmod 600 ${config}`;
    const show = await cliInProcess(['--show-config'], { cwd, home });
    expect(show.code).toBe(0);
    expect(show.stderr.trim()).toBe(line);
    expect(show.stdout).not.toContain('sk-secret-key-123');
    const script = writeScript(cwd, [{ text: 'hi' }]);
    const run = await cliInProcess(['--script', script, '--no-session', '--json', 'go'], { cwd, home });
    expect(run.code).toBe(0);
    expect(run.stderr.trim()).toBe(line);
    expect(parseJsonl(run.stdout).at(-1)).toMatchObject({ stopReason: 'completed' });

    // The project config too, when its key applies (a trusted workspace; untrusted, the key is ignored).
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ apiKey: 'sk-project' }));
    chmodSync(join(cwd, '.mini-agent', 'config.json'), 0o640);
    chmodSync(config, 0o600);
    const project = await cliInProcess(['--show-config', '--trust-workspace'], { cwd, home });
    expect(project.stderr).toContain(`.mini-agent/config.json holds an API key and other users can read it (permissions 0640 are too open)`);
    expect(project.stderr.trim().split('\n')).toHaveLength(1);

    chmodSync(join(cwd, '.mini-agent', 'config.json'), 0o600);
    expect((await cliInProcess(['--show-config', '--trust-workspace'], { cwd, home })).stderr).toBe('');
    writeFileSync(config, JSON.stringify({ provider: 'openai', maxTurns: 5 }));
    chmodSync(config, 0o644);
    expect((await cliInProcess(['--show-config', '--trust-workspace'], { cwd, home })).stderr).toBe('');
  });
});

/** The id of the first entry of a session file (line 2). */
function parseFirstEntry(file: string): string {
  const lines = readFileSync(file, 'utf8').split('\n');
  return JSON.parse(lines[1]).id;
}
