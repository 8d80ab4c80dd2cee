// The environment a command runs with, scrubbed of secrets. The model chooses the commands, so a
// variable holding a key or a password must not be one `env` or `echo $X` away from its context.
// A name is secret when it ends in one of SECRET_SUFFIXES (or is one without its leading
// underscore), is a provider key, or is named by the caller; an allowlisted name is always kept.
// Names are compared without regard to case. Pure: nothing here reads or changes process.env.

/**
 * Name endings taken as secret (each matched on its own: AWS_SECRET_ACCESS_KEY ends in
 * `_SECRET_ACCESS_KEY`, not in `_SECRET`). `_KEY` alone is not one: it also ends names that hold
 * no secret (GPG_KEY is usually a key id, SORT_KEY a setting).
 */
export const SECRET_SUFFIXES: readonly string[] = [
  '_API_KEY',
  '_APIKEY',
  '_TOKEN',
  '_SECRET',
  '_SECRET_KEY',
  '_SECRET_ACCESS_KEY',
  '_PRIVATE_KEY',
  '_PASSWORD',
  '_PASSWD',
];

/** The providers' key variables, scrubbed even if the suffix list changes. */
export const PROVIDER_KEY_NAMES: readonly string[] = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'DEEPSEEK_API_KEY', 'OPENROUTER_API_KEY'];

export interface ScrubOptions {
  /** Names or simple globs (`*` any run of characters, `?` one) kept even if they look secret. */
  allowlist?: readonly string[];
  /** More names or globs to remove (e.g. the configured provider's key variable). */
  extraNames?: readonly string[];
}

export interface ScrubbedEnv {
  env: Record<string, string>;
  /** The names removed, sorted (never their values). */
  removed: string[];
}

/** A matcher for names and simple globs, case-insensitive; an empty list matches nothing. */
export function nameMatcher(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set<string>();
  const globs: RegExp[] = [];
  for (const p of patterns) {
    if (typeof p !== 'string' || p === '') continue;
    if (!/[*?]/.test(p)) exact.add(p.toUpperCase());
    else globs.push(new RegExp(`^${[...p].map(globChar).join('')}$`, 'i'));
  }
  return (name) => exact.has(name.toUpperCase()) || globs.some((g) => g.test(name));
}

function globChar(c: string): string {
  if (c === '*') return '.*';
  if (c === '?') return '.';
  return c.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
}

/** True when the name looks like it holds a secret (by its ending or as a provider key). */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (PROVIDER_KEY_NAMES.includes(upper)) return true;
  return SECRET_SUFFIXES.some((s) => upper.endsWith(s) || upper === s.slice(1));
}

/** The environment without its secret variables (and without unset ones), and the names removed. */
export function scrubEnv(env: Readonly<Record<string, string | undefined>>, options: ScrubOptions = {}): ScrubbedEnv {
  const allowed = nameMatcher(options.allowlist ?? []);
  const extra = nameMatcher(options.extraNames ?? []);
  const out: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (!allowed(name) && (isSecretName(name) || extra(name))) removed.push(name);
    else out[name] = value;
  }
  return { env: out, removed: removed.sort() };
}
