// Secrets kept out of what mini-agent prints and stores: every shape of a key, a token or a
// password that we recognize is declared here once, and everything that shows text a secret could
// hide in (provider errors, --show-config, `mcp list`, traces, exports, the bash environment scrub)
// asks this module. Pure: strings in, strings out; nothing reads the environment.

/** What a redacted secret becomes in text. Holds no quote or backslash, so it is safe inside JSON strings. */
export const REDACTED = '[redacted]';

/** A key shown for recognition only: `sk-proj-abc…xyz` → `sk-p…(redacted, 51 chars)`. */
export function maskKey(secret: string | undefined): string {
  if (secret === undefined) return '(not set)';
  if (secret === '') return '(empty)';
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 4)))}…(redacted, ${secret.length} chars)`;
}

/**
 * Shapes of secrets, each with the part to keep (`$1`, a prefix that says what was there) and the
 * part to hide. Token characters never include a quote, a backslash or whitespace, so a match
 * never runs across a JSON string's end. Order matters only for readability of the output: the
 * more specific shapes come first.
 */
export const SECRET_SHAPES: readonly { name: string; pattern: RegExp; keep?: boolean }[] = [
  { name: 'private key block', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[A-Za-z0-9+/=\s\\]*?-----END [A-Z ]*PRIVATE KEY-----/g },
  { name: 'Anthropic key', pattern: /\b(sk-ant-)[A-Za-z0-9_-]{16,}/g, keep: true },
  { name: 'OpenAI key (sk-, sk-proj-, sk-svcacct-, sk-admin-)', pattern: /\b(sk-(?:proj-|svcacct-|admin-|or-v1-)?)[A-Za-z0-9_-]{16,}/g, keep: true },
  { name: 'Stripe key', pattern: /\b([rs]k_(?:live|test)_)[A-Za-z0-9]{16,}/g, keep: true },
  { name: 'GitHub token', pattern: /\b(gh[pousr]_)[A-Za-z0-9]{20,}/g, keep: true },
  { name: 'GitHub fine-grained token', pattern: /\b(github_pat_)[A-Za-z0-9_]{20,}/g, keep: true },
  { name: 'GitLab token', pattern: /\b(glpat-)[A-Za-z0-9_-]{20,}/g, keep: true },
  { name: 'Slack token', pattern: /\b(xox[abposr]-)[A-Za-z0-9-]{10,}/g, keep: true },
  { name: 'AWS access key id', pattern: /\b((?:AKIA|ASIA))[A-Z0-9]{16}\b/g, keep: true },
  { name: 'Google API key', pattern: /\b(AIza)[A-Za-z0-9_-]{35}/g, keep: true },
  { name: 'Hugging Face token', pattern: /\b(hf_)[A-Za-z0-9]{30,}/g, keep: true },
  { name: 'npm token', pattern: /\b(npm_)[A-Za-z0-9]{36}/g, keep: true },
  { name: 'JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { name: 'bearer or basic credentials', pattern: /\b((?:Bearer|Basic|Token)\s+)(?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}/gi, keep: true },
  { name: 'password in a URL', pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s/@:"'\\]*:)[^\s/@"'\\]+(?=@)/gi, keep: true },
];

/**
 * A long token after a word that names a secret (`api_key=…`, `"token": "…"`, `password: …`):
 * hidden when it looks random (letters and digits mixed, at least 16 characters).
 */
const KEYED_VALUE = /((?:api[_-]?key|apikey|access[_-]?key|secret|token|passw(?:or)?d|pwd|auth|credential|key)s?["']?\s*[=:]\s*["']?)([A-Za-z0-9._~+/-]{16,}={0,2})/gi;

function looksRandom(token: string): boolean {
  return /[A-Za-z]/.test(token) && /[0-9]/.test(token) && !/^[a-z]+(?:[._-][a-z]+)*$/i.test(token);
}

/** Known secrets shorter than this are not searched for: "test" or "1234" would hide ordinary words. */
export const MIN_KNOWN_SECRET = 8;
/** A run of token characters this long that is part of a known secret counts as the secret (a provider quoting half the key). */
const MIN_FRAGMENT = 12;

/**
 * `text` with every secret it holds replaced: the `known` secrets (the key in use) wherever they
 * appear, whole or as a fragment of 12 or more characters, then every recognized shape.
 */
export function redactSecrets(text: string, known: readonly (string | undefined)[] = []): string {
  let out = text;
  const secrets = known.filter((k): k is string => typeof k === 'string' && k.length >= MIN_KNOWN_SECRET);
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  if (secrets.length > 0) {
    out = out.replace(/[A-Za-z0-9_-]{12,}/g, (run) => (run.length >= MIN_FRAGMENT && secrets.some((s) => s.includes(run)) ? REDACTED : run));
  }
  for (const shape of SECRET_SHAPES) out = out.replace(shape.pattern, (_m, prefix?: string) => (shape.keep && typeof prefix === 'string' ? prefix + REDACTED : REDACTED));
  return out.replace(KEYED_VALUE, (m, lead: string, token: string) => (looksRandom(token) ? lead + REDACTED : m));
}

/** True when `text` holds something `redactSecrets` would hide (shapes only). */
export function holdsSecret(text: string): boolean {
  return redactSecrets(text) !== text;
}

/**
 * Parts of a variable (or header) name that say it holds a secret. A name is secret when it
 * contains one of them, ignoring case. Contained, not as whole words: `GITHUB_TOKEN`,
 * `NPM_AUTH_TOKEN`, `MYAPIKEY`, `PGPASSWORD` all count. The price is a few names that hold no
 * secret (`KEYBOARD_LAYOUT`, `XDG_SESSION_TYPE`); losing them from a command's environment is
 * cheap, missing a key is not. Three refinements, all written out below: `PAT` counts only as a
 * whole word (`GH_PAT`, not `PATH` or `CLASSPATH`); `AUTH` does not count inside the word AUTHOR
 * (`GIT_AUTHOR_NAME`), though it does inside `AUTHORIZATION`; and `_PWD` counts (`MYSQL_PWD`)
 * where `PWD` and `OLDPWD`, the working folder, do not.
 */
export const SECRET_NAME_PATTERNS: readonly RegExp[] = [
  /KEY/i,
  /TOKEN/i,
  /SECRET/i,
  /PASSWORD/i,
  /PASSWD/i,
  /_PASS/i,
  /_PWD/i,
  /CREDENTIAL/i,
  /AUTH(?!ORS?(?:_|$))/i,
  /COOKIE/i,
  /SESSION/i,
  /PRIVATE/i,
  /WEBHOOK/i,
  /DSN/i,
  /(?:^|[_-])PAT(?:$|[_-])/i,
];

/** True when a variable or header name says it holds a secret (see SECRET_NAME_PATTERNS). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME_PATTERNS.some((p) => p.test(name));
}

/** A URL with a password in it, anywhere in the value: `postgres://user:pass@host/db`. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;

/** True when a variable's value holds a secret whatever its name: a URL with a password, or a recognized key shape. */
export function isSecretValue(value: string): boolean {
  return URL_WITH_PASSWORD.test(value) || holdsSecret(value);
}

/** `${VAR}` or `${VAR:-default}`: a reference to the environment, as written in a config file. */
const VAR_REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/;

/**
 * A config value as it may be shown (MCP `args`, `env`, `headers`): `${VAR}` references stay as
 * written (the value they expand to is never shown); recognized shapes are hidden; and when the
 * name says it holds a secret (`Authorization`, `X-Api-Key`, `GITHUB_TOKEN`) and the value is
 * typed literally, it is hidden whole, but for a `Bearer `/`Basic ` scheme in front.
 */
export function redactConfigValue(name: string, value: string): string {
  const shown = redactSecrets(value);
  if (!isSecretName(name) || VAR_REFERENCE.test(value) || value === '') return shown;
  const scheme = /^((?:Bearer|Basic|Token)\s+)/i.exec(value)?.[1] ?? '';
  return scheme + REDACTED;
}
