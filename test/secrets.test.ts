// Issue 21, part 4: keys stay where they belong. The bash environment scrub by pattern (a table of
// real variable names, then `env` through the bash tool in a scripted CLI run); `--show-config`
// and `mcp list` with `${VAR}` arguments, env and headers; a provider that echoes the key in its
// error (both dialects: stderr, --json events, the trace and the session file); the `--api-key`
// warning; and the redactor's shapes on their own.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isSecretValue, maskKey, redactConfigValue, redactSecrets } from '../src/core/redact.js';
import { ALWAYS_KEPT, scrubEnv } from '../src/tools/env-scrub.js';
import { describeTransport } from '../src/extensions/mcp-tools.js';
import { cliInProcess } from './support/cli-in-process.js';
import { parseJsonl, runCli, tempDir, writeScript } from './support/helpers.js';
import { servePerTest, sse } from './support/http-server.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/mcp/fixture-server.mjs', import.meta.url));

// Fake secrets, each unlike any other text in the run, so a search for them is a real check.
const GH = 'ghp_' + 'Q7wErT9yUiOp3AsDfG5hJkL1zXcVbN8mQ2wE';
const SK = 'sk-proj-' + 'Zq8Xw7Cv6Bn5Mm4Ll3Kk2Jj1Hh0GgFfEeDdCcBbAa9';
const SK_ANT = 'sk-ant-api03-' + 'Pp9Oo8Ii7Uu6Yy5Tt4Rr3Ee2Ww1Qq0AaSsDdFfGg';
const AWS = 'AKIA' + 'IOSFODNN7EXAMPLE';
const SLACK = 'xoxb-' + '1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUv';

/** Variables the scrub must remove: real names people have, with values that would hurt. */
const SCRUBBED: Record<string, string> = {
  GH_PAT: GH,
  NPM_AUTH: 'npm-auth-value-1',
  NPM_TOKEN: 'npm_' + 'a'.repeat(36),
  NODE_AUTH_TOKEN: 'node-auth-value-2',
  AZURE_OPENAI_KEY: 'azure-key-value-3',
  AZURE_CLIENT_SECRET: 'azure-secret-value-4',
  DATABASE_URL: 'postgres://u:pass-value-5@db.example:5432/app',
  REDIS_URL: 'redis://:pass-value-6@cache.example:6379',
  MONGODB_URI: 'mongodb+srv://app:pass-value-7@cluster0.example.net/db',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.example/services/T0/B0/webhook-value-8',
  DISCORD_WEBHOOK: 'https://discord.example/api/webhooks/webhook-value-9',
  MY_PASSWORD: 'password-value-10',
  PGPASSWORD: 'password-value-11',
  MYSQL_PWD: 'password-value-12',
  DOCKER_PASS: 'password-value-13',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-value-14',
  AWS_ACCESS_KEY_ID: AWS,
  AWS_SESSION_TOKEN: 'aws-session-value-15',
  GITHUB_TOKEN: 'github-token-value-16',
  GITLAB_PRIVATE_TOKEN: 'gitlab-value-17',
  SENTRY_DSN: 'https://public-value-18@o0.ingest.sentry.example/1',
  SENTRY_AUTH_TOKEN: 'sentry-value-19',
  OPENAI_API_KEY: SK,
  ANTHROPIC_API_KEY: SK_ANT,
  GOOGLE_APPLICATION_CREDENTIALS: '/home/u/credentials-value-20.json',
  HF_TOKEN: 'hf-value-21',
  STRIPE_SECRET_KEY: 'stripe-value-22',
  TWILIO_AUTH_TOKEN: 'twilio-value-23',
  SESSION_SECRET: 'session-value-24',
  COOKIE_SECRET: 'cookie-value-25',
  JWT_PRIVATE_KEY: 'jwt-value-26',
  SLACK_BOT: SLACK,
  VAULT_TOKEN: 'vault-value-27',
  CLOUDFLARE_API_TOKEN: 'cloudflare-value-28',
  HEROKU_API_KEY: 'heroku-value-29',
  BASIC_AUTH: 'basic-auth-value-30',
  HTTPS_PROXY: 'http://me:proxy-pass-value-31@proxy.example:8080',
  SSH_AUTH_SOCK: '/tmp/ssh-agent-value-32/agent.1',
  API_AUTHORIZATION: 'authorization-value-33',
};

/** Variables that must reach commands. */
const KEPT: Record<string, string> = {
  ...Object.fromEntries(ALWAYS_KEPT.map((n) => [n, n === 'PATH' ? (process.env.PATH ?? '/usr/bin:/bin') : `kept-${n.toLowerCase()}`])),
  GIT_AUTHOR_NAME: 'kept-author',
  GIT_AUTHOR_EMAIL: 'kept@example.com',
  CLASSPATH: 'kept-classpath',
  NODE_PATH: 'kept-node-path',
  NODE_ENV: 'kept-env',
  LC_ALL: 'kept-lc',
  OLDPWD: 'kept-oldpwd',
  HTTP_PROXY: 'http://proxy.example:8080',
  PLAIN_URL: 'postgres://db.example/app',
  CI: 'true',
};

describe('the bash environment scrub, by pattern', () => {
  it(`removes ${Object.keys(SCRUBBED).length} real secret variables and keeps the ${Object.keys(KEPT).length} that must stay`, () => {
    expect(Object.keys(SCRUBBED).length).toBeGreaterThanOrEqual(30);
    const { env, removed } = scrubEnv({ ...SCRUBBED, ...KEPT });
    expect(removed).toEqual(Object.keys(SCRUBBED).sort());
    expect(env).toEqual(KEPT);
  });

  it('the names that always stay stay even when a caller or a value pattern would remove them', () => {
    const { env } = scrubEnv({ PATH: '/bin', HOME: 'https://u:pw@h/x', EDITOR: 'vi' }, { extraNames: ['*'] });
    expect(env).toEqual({ PATH: '/bin', HOME: 'https://u:pw@h/x', EDITOR: 'vi' });
  });

  it('bash.envAllowlist lets one through by name (and glob), the rest stay out', () => {
    const { env, removed } = scrubEnv({ NPM_TOKEN: 'n', GITHUB_TOKEN: 'g', DATABASE_URL: SCRUBBED.DATABASE_URL }, { allowlist: ['npm_token', 'DATABASE_*'] });
    expect(env).toEqual({ NPM_TOKEN: 'n', DATABASE_URL: SCRUBBED.DATABASE_URL });
    expect(removed).toEqual(['GITHUB_TOKEN']);
  });

  it('through the CLI: `env` in bash shows none of the secrets and every name that must stay; the allowlist works', async () => {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ bash: { envAllowlist: ['NPM_AUTH'] } }));
    const script = writeScript(tempDir(), [{ toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'env' } }] }, { text: 'done' }]);
    const session = join(cwd, 'run.jsonl');
    const env = { ...SCRUBBED, ...KEPT, HOME: home, MINI_AGENT_HOME: home };
    const r = await cliInProcess(['--script', script, '--yes', '--session', session, 'show the environment'], { cwd, home, env });
    expect(r.code, r.stderr).toBe(0);
    const stored = readFileSync(session, 'utf8');
    const result = stored
      .split('\n')
      .filter((l) => l.includes('"toolResult"'))
      .join('\n');
    expect(result).toContain('NPM_AUTH=npm-auth-value-1'); // allowlisted
    for (const [name, value] of Object.entries(SCRUBBED)) {
      if (name === 'NPM_AUTH') continue;
      expect(result, name).not.toContain(`${name}=`);
      expect(result, name).not.toContain(value);
    }
    // (bash sets OLDPWD itself as it starts, so it is left out here.)
    for (const name of Object.keys(KEPT).filter((n) => n !== 'OLDPWD')) expect(result, name).toContain(`${name}=`);
  });
});

describe('the redactor', () => {
  it.each([
    [`Incorrect API key provided: ${SK}.`, 'sk-proj-[redacted]'],
    [`key ${SK_ANT} is invalid`, 'sk-ant-[redacted]'],
    [`token ${GH} revoked`, 'ghp_[redacted]'],
    [`github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstu`, 'github_pat_[redacted]'],
    [`slack said ${SLACK}`, 'xoxb-[redacted]'],
    [`aws ${AWS} denied`, 'AKIA[redacted]'],
    ['Authorization: Bearer abc123def456ghi789', 'Bearer [redacted]'],
    ['connect to postgres://app:hunter2secret@db:5432/x failed', 'postgres://app:[redacted]@db'],
    ['{"api_key": "a1b2c3d4e5f6g7h8i9j0k1l2"}', '"api_key": "[redacted]"'],
    ['https://h/x?token=Zx81hd72hsd7f6s5d4f3', 'token=[redacted]'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK==\n-----END RSA PRIVATE KEY-----', '[redacted]'],
  ])('hides %s', (text, shown) => {
    const out = redactSecrets(text);
    expect(out).toContain(shown);
    expect(out).not.toMatch(/Q7wErT9|Zq8Xw7|Pp9Oo8|IOSFODNN|AbCdEfGh|abc123def|hunter2|a1b2c3d4|Zx81hd|MIIEow/);
  });

  it('leaves ordinary text alone', () => {
    for (const text of ['Basic authentication failed', 'the token expired', 'key: value', 'sk-learn is a library', 'monkey=banana', 'see https://example.com/a?b=c', 'invalid x-api-key']) {
      expect(redactSecrets(text)).toBe(text);
    }
  });

  it('hides the key in use, whatever its shape, whole or as a fragment a provider quoted', () => {
    const key = 'k3y-Qw8Rt5Yu2Io9Pa7Sd4Fg6Hj';
    expect(redactSecrets(`bad key ${key}!`, [key])).toBe('bad key [redacted]!');
    expect(redactSecrets(`bad key ${key.slice(0, 16)}…`, [key])).toBe('bad key [redacted]…');
    expect(redactSecrets('short keys are not searched for: abc', ['abc'])).toContain('abc');
  });

  it('show-config keeps its masked key; values shaped like secrets are secret values', () => {
    expect(maskKey(SK)).toBe(`sk-p…(redacted, ${SK.length} chars)`);
    expect(isSecretValue('postgres://u:p@h/db')).toBe(true);
    expect(isSecretValue('postgres://h/db')).toBe(false);
    expect(redactConfigValue('Authorization', 'Bearer ${TOKEN}')).toBe('Bearer ${TOKEN}');
    expect(redactConfigValue('Authorization', 'Bearer plain-literal-token')).toBe('Bearer [redacted]');
    expect(redactConfigValue('X-Api-Key', 'literal')).toBe('[redacted]');
    expect(redactConfigValue('X-Trace', 'on')).toBe('on');
  });

  it('describeTransport shows what the config wrote, not what it expanded to', () => {
    const stdio = describeTransport(
      { type: 'stdio', command: 'node', args: ['srv.js', '--token', GH, `--key=${SK}`], env: { API_TOKEN: GH, LEVEL: 'info' } },
      { command: 'node', args: ['srv.js', '--token', '${GH_TOKEN}', '--key=${OPENAI_API_KEY}'], env: { API_TOKEN: '${GH_TOKEN}', LEVEL: 'info' } },
    );
    expect(stdio).toBe('stdio: node srv.js --token "${GH_TOKEN}" "--key=${OPENAI_API_KEY}" · env: API_TOKEN=${GH_TOKEN}, LEVEL=info');
    const literal = describeTransport({ type: 'stdio', command: 'node', args: ['srv.js', '--password', 'hunter2-literal'], env: { DB_PASSWORD: 'hunter2-literal' } });
    expect(literal).not.toContain('hunter2');
    const http = describeTransport(
      { type: 'http', url: 'https://u:pw@h.example/mcp?key=abc', headers: { Authorization: `Bearer ${GH}`, 'X-Api-Key': 'literal-key' } },
      { url: 'https://u:pw@h.example/mcp?key=${K}', headers: { Authorization: 'Bearer ${GH_TOKEN}', 'X-Api-Key': 'literal-key' } },
    );
    expect(http).toBe('http: https://h.example/mcp?… · headers: Authorization: Bearer ${GH_TOKEN}, X-Api-Key: [redacted]');
  });
});

describe('--show-config and mcp list never show a value read from the environment', () => {
  function setup(): { cwd: string; home: string; env: Record<string, string> } {
    const cwd = tempDir();
    const home = tempDir('mini-agent-home-');
    const mcpServers = {
      fx: {
        command: process.execPath,
        args: [FIXTURE, '--token', '${FAKE_GH}', '--api-key=${FAKE_SK}'],
        env: { FIXTURE_SHOW: 'FX_TOKEN', FX_TOKEN: '${FAKE_GH}', LITERAL_SECRET: 'literal-secret-value-42' },
        risk: 'read',
      },
      remote: { url: 'http://127.0.0.1:9/mcp?key=${FAKE_SK}', headers: { Authorization: 'Bearer ${FAKE_SK}', 'X-Api-Key': 'literal-header-value-43' } },
    };
    writeFileSync(join(home, 'config.json'), JSON.stringify({ mcpServers }));
    return { cwd, home, env: { FAKE_GH: GH, FAKE_SK: SK } };
  }
  const leaks = (text: string) => [GH, SK, 'Q7wErT9', 'Zq8Xw7', 'literal-secret-value-42', 'literal-header-value-43'].filter((s) => text.includes(s));

  it('--show-config (text and --json)', async () => {
    const { cwd, home, env } = setup();
    for (const json of [false, true]) {
      const r = await cliInProcess(['--show-config', ...(json ? ['--json'] : [])], { cwd, home, env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('${FAKE_GH}');
      expect(r.stdout).toContain('Bearer ${FAKE_SK}');
      expect(leaks(r.stdout + r.stderr)).toEqual([]);
    }
  });

  it('mcp list (text and --json): the server started with the expanded values, the listing shows the templates', async () => {
    const { cwd, home, env } = setup();
    for (const json of [false, true]) {
      const r = await cliInProcess(['mcp', 'list', ...(json ? ['--json'] : [])], { cwd, home, env, timeoutMs: 30_000 });
      expect(r.stdout).toMatch(json ? /"state": "ready"/ : /^fx {2}ready {2}stdio: /m);
      expect(r.stdout).toContain('${FAKE_GH}');
      expect(leaks(r.stdout + r.stderr)).toEqual([]);
    }
    // The expansion itself is unchanged: the server got the real value.
    const script = writeScript(tempDir(), [{ toolCalls: [{ id: 'c1', name: 'fx__env', arguments: {} }] }, { text: 'ok' }]);
    const run = await cliInProcess(['--script', script, '--json', '--no-session', '--tools', 'fx__env', 'go'], { cwd, home, env, timeoutMs: 30_000 });
    const end = parseJsonl(run.stdout).find((e) => e.type === 'tool_end');
    expect(JSON.stringify(end)).toContain(GH);
  });
});

// ---- a provider that echoes the key ----
const serve = servePerTest();
const KEY = 'k3y-Qw8Rt5Yu2Io9Pa7Sd4Fg6Hj2Kl'; // the key in use: no known shape, found because it is the key
const FOREIGN = SK_ANT; // another key, found by its shape
const echo = (key: string) => `Incorrect API key provided: ${key} (prefix ${key.slice(0, 14)}). Also tried ${FOREIGN} and Bearer ${key}`;

const cases = [
  {
    dialect: 'openai',
    env: { OPENAI_API_KEY: KEY } as Record<string, string>,
    args: (url: string) => ['--provider', 'openai-compatible', '--base-url', `${url}/v1`],
    status: { status: 401, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { message: echo(KEY), type: 'invalid_request_error', code: 'invalid_api_key' } }) },
    stream: { headers: { 'content-type': 'text/event-stream' }, body: sse([{ error: { message: echo(KEY), type: 'server_error' } }]) },
  },
  {
    dialect: 'anthropic',
    env: { ANTHROPIC_API_KEY: KEY } as Record<string, string>,
    args: (url: string) => ['--provider', 'anthropic', '--base-url', url],
    status: { status: 401, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: echo(KEY) } }) },
    stream: { headers: { 'content-type': 'text/event-stream' }, body: sse([{ type: 'error', error: { type: 'api_error', message: echo(KEY) } }], { named: true }) },
  },
];

describe.each(cases)('a $dialect provider that echoes the key in its error', ({ env, args, status, stream }) => {
  const found = (text: string) => [KEY, KEY.slice(0, 14), FOREIGN, 'Pp9Oo8'].filter((s) => text.includes(s));

  it.each([
    ['an HTTP 401 body', status],
    ['an error inside the stream', stream],
  ])('%s: not in stderr, the --json events, the trace or the session file', async (_what, reply) => {
    const server = await serve([reply]);
    const cwd = tempDir();
    mkdirSync(join(cwd, '.mini-agent'));
    writeFileSync(join(cwd, '.mini-agent', 'config.json'), JSON.stringify({ retry: { maxRetries: 0 } }));
    const text = await cliInProcess([...args(server.url), '--model', 'm', '--no-session', 'hi'], { cwd, env });
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/error: .*\[redacted\]/);
    expect(found(text.stderr + text.stdout)).toEqual([]);

    const session = join(cwd, 's.jsonl');
    const trace = join(cwd, 't.jsonl');
    const json = await cliInProcess([...args(server.url), '--model', 'm', '--json', '--session', session, '--trace', trace, 'hi'], { cwd, env });
    expect(json.code).toBe(1);
    const settled = parseJsonl(json.stdout).at(-1) as { type: string; error?: { message: string } };
    expect(settled.type).toBe('run_settled');
    expect(settled.error?.message).toContain('[redacted]');
    expect(found(json.stdout + json.stderr)).toEqual([]);
    expect(found(readFileSync(session, 'utf8'))).toEqual([]);
    expect(found(readFileSync(trace, 'utf8'))).toEqual([]);
    expect(server.requests.length).toBeGreaterThan(0);
  });
});

describe('--api-key on the command line', () => {
  it('warns once that other users can see it in the process list, and points to the environment or a 0600 file', async () => {
    const cwd = tempDir();
    for (const flag of [['--api-key', KEY], [`--api-key=${KEY}`]]) {
      const r = await runCli(['--show-config', '--provider', 'anthropic', ...flag], { cwd });
      expect(r.code).toBe(0);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^mini-agent: warning: --api-key is visible to other users .* process list \(ps\).*environment.*chmod 600/);
      expect(r.stderr + r.stdout).not.toContain(KEY);
    }
    const quiet = await cliInProcess(['--show-config', '--provider', 'anthropic'], { cwd, env: { ANTHROPIC_API_KEY: KEY } });
    expect(quiet.stderr).toBe('');
  });
});
