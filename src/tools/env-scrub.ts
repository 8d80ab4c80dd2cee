// The environment a command runs with, scrubbed of secrets. The model chooses the commands, so a
// variable holding a key or a password must not be one `env` or `echo $X` away from its context.
// By pattern, not by a list: a variable is secret when its name says so (core/redact.ts
// SECRET_NAME_PATTERNS: names containing KEY, TOKEN, SECRET, PASSWORD, AUTH, SESSION, …) or its
// value does (a URL with a password in it, a recognized key shape), or the caller names it.
// `allowlist` (bash.envAllowlist) lets a variable through by name; ALWAYS_KEPT always stay.
// Names are compared without regard to case. Pure: nothing here reads or changes process.env.
import { isSecretName, isSecretValue } from '../core/redact.js';

export { isSecretName };

/** Names every command keeps, whatever the patterns say: without them little works. */
export const ALWAYS_KEPT: readonly string[] = ['PATH', 'HOME', 'PWD', 'LANG', 'TERM', 'SHELL', 'USER', 'TMPDIR', 'EDITOR'];

/** What the scrub removes, in words, for the bash tool's description (the model reads it). */
export const SCRUB_SUMMARY = 'Secret-looking variables (KEY, TOKEN, PASSWORD, …) are removed';

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

const KEPT = new Set(ALWAYS_KEPT);

/** True when the variable looks like it holds a secret, by its name or by its value (before any allowlist). */
export function isSecretVariable(name: string, value: string): boolean {
  if (KEPT.has(name.toUpperCase())) return false;
  return isSecretName(name) || isSecretValue(value);
}

/** The environment without its secret variables (and without unset ones), and the names removed. */
export function scrubEnv(env: Readonly<Record<string, string | undefined>>, options: ScrubOptions = {}): ScrubbedEnv {
  const allowed = nameMatcher(options.allowlist ?? []);
  const extra = nameMatcher(options.extraNames ?? []);
  const out: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const secret = isSecretVariable(name, value) || (extra(name) && !KEPT.has(name.toUpperCase()));
    if (secret && !allowed(name)) removed.push(name);
    else out[name] = value;
  }
  return { env: out, removed: removed.sort() };
}
