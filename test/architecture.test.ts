// The block boundaries DESIGN.md promises, checked on the source: every relative import of a
// file in src/ points at its own block or at a block below it, and no source file grows past
// the size a reader can hold in their head.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../src/app/tools.js';
import { CONFIG_KEYS } from '../src/core/config-table.js';
import { ENTRY_KINDS } from '../src/session/entry-kinds/index.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * What each block may import, besides itself: front ends → app → agent → session/model/tools → core.
 * Extensions (hooks, trust; later context files, skills, MCP) sit beside the agent: they plug
 * into the registry, the app layer and the events, and only the app and front ends use them.
 * Front ends (cli/, and the ones to come) never import one another, and nothing imports them.
 */
const BLOCKS = ['core', 'session', 'model', 'tools', 'agent', 'extensions', 'app'];
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  session: ['core'],
  model: ['core'],
  tools: ['core'],
  agent: ['core', 'session', 'model', 'tools'],
  extensions: ['core', 'session', 'tools'],
  app: ['core', 'session', 'model', 'tools', 'agent', 'extensions'],
  // Front ends: each a thin user of the app layer (and of the blocks below it).
  cli: BLOCKS,
  rpc: BLOCKS,
  interactive: BLOCKS,
  acp: BLOCKS,
  // The library entry re-exports the blocks and the SDK; it must not reach into a front end.
  '.': BLOCKS,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

function blockOf(file: string): string {
  const rel = relative(SRC, file);
  return rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : '.';
}

/** Relative specifiers of static imports, re-exports and dynamic imports (type-only ones too: they are dependencies of the design). */
function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) out.push(m[1]);
  return out;
}

/** The front ends: they learn what a call is from its tool's description (tools/descriptions.ts), never from its name. */
const FRONT_ENDS = ['acp', 'interactive', 'rpc', 'cli'];

/**
 * Where a front end may write a built-in tool's name, and why: none of these decides how a call
 * looks. Each is `file: word`.
 */
const TOOL_NAME_EXCEPTIONS: readonly string[] = [
  // A highlighting language (shell code in Markdown), not the tool.
  'interactive/highlight.ts: bash',
  // The @ picker walks the workspace as the find tool does, so it hides what the deny rules (which name tools) hide from find.
  'interactive/file-picker.ts: find',
];

/** The values of the string literals of TypeScript source (quoted, and templates without substitutions); comments and regexes skipped. */
function stringLiterals(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  let prev = ''; // the last significant character, to tell a regex from a division
  const quoted = (q: string): string => {
    let value = '';
    for (i++; i < text.length && text[i] !== q; i++) {
      if (text[i] === '\\') value += text[++i];
      else value += text[i];
    }
    i++;
    return value;
  };
  const template = (): { value: string; plain: boolean } => {
    let value = '';
    let plain = true;
    for (i++; i < text.length && text[i] !== '`'; i++) {
      if (text[i] === '\\') value += text[++i];
      else if (text[i] === '$' && text[i + 1] === '{') {
        plain = false;
        let depth = 0;
        for (i++; i < text.length; i++) {
          if (text[i] === '{') depth++;
          else if (text[i] === '}' && --depth === 0) break;
          else if (text[i] === "'" || text[i] === '"') {
            out.push(quoted(text[i]));
            i--;
          } else if (text[i] === '`') {
            const t = template();
            if (t.plain) out.push(t.value);
            i--;
          }
        }
      } else value += text[i];
    }
    i++;
    return { value, plain };
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (c === '/' && text[i + 1] === '*') i = text.indexOf('*/', i + 2) + 2;
    else if (c === "'" || c === '"') {
      out.push(quoted(c));
      prev = c;
    } else if (c === '`') {
      const t = template();
      if (t.plain) out.push(t.value);
      prev = c;
    } else if (c === '/' && (prev === '' || '(,=:[!&|?{};+-*%<>~^'.includes(prev) || /\b(return|typeof|case|of|in)$/.test(text.slice(Math.max(0, i - 8), i).trimEnd()))) {
      let inClass = false;
      for (i++; i < text.length && (text[i] !== '/' || inClass); i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '[') inClass = true;
        else if (text[i] === ']') inClass = false;
      }
      i++;
      prev = '/';
    } else {
      if (!/\s/.test(c)) prev = c;
      i++;
    }
  }
  return out;
}

/**
 * Where session/ and extensions/ may take the environment, and why: everything else there is given
 * the plain values it uses (a folder, a flag), worked out once by createAgent (app/agent-context.ts)
 * or a CLI entry point. Each is `file: name`, the function or field that takes it.
 */
const ENV_EXCEPTIONS: readonly string[] = [
  // The edge's one read of MINI_AGENT_HOME, and the SDK's sessionsDir (src/index.ts), which reads it too.
  'session/paths.ts: agentHome',
  'session/paths.ts: sessionsDir',
  'session/paths.ts: newSessionFile',
  // MCP servers: what `${VAR}` in their settings expands from, and what a stdio server inherits of ours.
  'extensions/mcp-config.ts: env',
  'extensions/mcp-config.ts: expandVars',
  'extensions/mcp-client.ts: env',
  'extensions/mcp-tools.ts: serverEnv',
];

/** Each line of TEXT that takes or reads the environment, as `name` (the function, or else the field, it belongs to). */
function environmentTakers(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /NodeJS\.ProcessEnv|process\.env\b/.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line))
    .map((line) => line.match(/function\s+(\w+)/)?.[1] ?? line.match(/^\s*(?:readonly\s+)?(\w+)\??:/)?.[1] ?? line.trim());
}

/**
 * Where a value of the config table's defaults may be written again beside its key's name, and
 * why. Each is `file: key`.
 */
const DEFAULT_EXCEPTIONS: readonly string[] = [
  // A model request that names no thinking level asks for none: the request's meaning, not the configuration's default.
  'model/anthropic-convert.ts: thinking',
  'model/openai-convert.ts: thinking',
];

/** A number as the source writes it (`300_000`, `64 * 1024`), or undefined. */
function numberOf(expression: string): number | undefined {
  const factors = expression.split('*').map((f) => Number(f.trim().replaceAll('_', '')));
  return factors.every((f) => Number.isFinite(f)) ? factors.reduce((a, b) => a * b, 1) : undefined;
}

/**
 * The keys whose default TEXT writes again: a line that names the key (its last part, or its
 * flag: `maxTurns`, `DEFAULT_MAX_TURNS`, `--max-turns`) and gives it the table's value as a
 * fallback or a default (`?? 50`, `= 300_000`, `maxRetries: 4`, `|| 'auto'`, `(default 120)`).
 * Comments are skipped; booleans are not checked (too common to tell apart).
 */
function defaultCopies(text: string, rows: readonly { key: string; flag?: string; default?: unknown }[]): string[] {
  const found: string[] = [];
  const squash = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  // Comments and type aliases (`type ProviderApi = 'openai' | …` names a kind, not a default) are not values.
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*|(export\s+)?type\s)/.test(line))
    .map((line) => line.replace(/\s\/\/ .*$/, ''));
  for (const row of rows) {
    if (typeof row.default !== 'number' && typeof row.default !== 'string') continue;
    const names = [row.key.split('.').pop()!, ...(row.flag ? [row.flag.split(' ')[0]] : [])].map(squash);
    const given = /(?:\?\?|\|\||(?<![=!<>])=(?!=)|:|\(default)\s*('[^']*'|"[^"]*"|\d[\d_]*(?:\s*\*\s*\d[\d_]*)*)/g;
    for (const line of code) {
      if (!names.some((n) => squash(line).includes(n))) continue;
      for (const m of line.matchAll(given)) {
        const value = /^['"]/.test(m[1]) ? m[1].slice(1, -1) : numberOf(m[1]);
        if (value === row.default) found.push(row.key);
      }
    }
  }
  return [...new Set(found)];
}

/**
 * Where a file outside src/session/entry-kinds/ may compare an entry's type to a kind's name,
 * and why. Each is `file: kind`.
 */
const ENTRY_KIND_EXCEPTIONS: readonly string[] = [
  // The export page's script runs in the browser on the entries as data; importing the kinds'
  // modules (their `is`) would bundle their schemas, and TypeBox, into every exported page.
  'session/export-page/page-script.ts: branch_summary',
  'session/export-page/page-script.ts: compaction',
];

/** The entry kinds a source text compares a `type` to (`type === 'k'`, `'k' !== x.type`, `case 'k'` of a `switch (….type)`); comments skipped. */
function entryKindComparisons(text: string, kinds: readonly string[]): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
  const names = kinds.join('|');
  const found: string[] = [];
  const compared = new RegExp(`\\btype\\s*[!=]==?\\s*(['"\`])(${names})\\1|(['"\`])(${names})\\3\\s*[!=]==?\\s*[\\w.\\[\\]]*\\btype\\b`, 'g');
  for (const m of code.matchAll(compared)) found.push(m[2] ?? m[4]);
  const switchOrCase = new RegExp(`\\bswitch\\s*\\(([^)]*)\\)|\\bcase\\s+(['"\`])(${names})\\2\\s*:`, 'g');
  let onType = false;
  for (const m of code.matchAll(switchOrCase)) {
    if (m[1] !== undefined) onType = /\btype\s*$/.test(m[1]);
    else if (onType) found.push(m[3]);
  }
  return found;
}

describe('architecture', () => {
  const files = sourceFiles(SRC);

  it('finds the blocks', () => {
    expect(new Set(files.map(blockOf))).toEqual(new Set(Object.keys(ALLOWED)));
  });

  it('imports point one way: front ends → agent → session, model, tools → core', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = blockOf(file);
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        const to = blockOf(resolve(dirname(file), spec));
        if (to !== from && !ALLOWED[from].includes(to)) violations.push(`${relative(SRC, file)} imports ${spec} (${from} → ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('no front end imports another, and nothing below imports a front end', () => {
    const frontEnds = ['cli', 'rpc', 'interactive', 'acp'];
    for (const block of Object.keys(ALLOWED)) for (const fe of frontEnds) if (block !== fe) expect(ALLOWED[block], `${block} may not import ${fe}`).not.toContain(fe);
  });

  it('the provider adapters do not depend on the scripted test model', () => {
    const users = files.filter((f) => importsOf(readFileSync(f, 'utf8')).some((spec) => resolve(dirname(f), spec) === join(SRC, 'model', 'scripted.js')));
    expect(users.map((f) => relative(SRC, f)).sort()).toEqual(['app/model-factory.ts', 'index.ts']);
  });

  it('the check sees every kind of import', () => {
    const text = `import { a } from './x.js';\nimport type { B } from '../model/y.js';\nexport { c } from "../cli/z.js";\nconst m = await import('../agent/w.js');\nimport './side-effect.js';`;
    expect(importsOf(text)).toEqual(['./x.js', '../model/y.js', '../cli/z.js', '../agent/w.js', './side-effect.js']);
  });

  it('print, RPC and ACP mode read `process` only in their process entries: the rest runs in process on a FrontEndIo', () => {
    // rpc-mode.ts also keeps takeOverStdout and runRpcProcess, the process version for an embedder's own entry.
    const entries = new Set([join('cli', 'main.ts'), join('rpc', 'main.ts'), join('rpc', 'rpc-mode.ts'), join('acp', 'main.ts')]);
    const found: string[] = [];
    for (const file of files.filter((f) => ['cli', 'rpc', 'acp'].includes(blockOf(f)) && !entries.has(relative(SRC, f)))) {
      const code = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
        .join('\n');
      if (/\bprocess\.\w/.test(code)) found.push(relative(SRC, file));
    }
    expect(found).toEqual([]);
  });

  it('no source file is over 400 lines', () => {
    const long = files.map((f) => ({ f: relative(SRC, f), lines: readFileSync(f, 'utf8').split('\n').length })).filter((x) => x.lines > 400);
    expect(long).toEqual([]);
  });

  it('no front end names a built-in tool: what a call is comes from its tool (tools/descriptions.ts), apart from the listed exceptions', () => {
    const names = new Set(builtinTools().map((t) => t.name));
    expect(names.size).toBeGreaterThan(5);
    const found: string[] = [];
    for (const file of files.filter((f) => FRONT_ENDS.includes(blockOf(f)))) {
      for (const value of stringLiterals(readFileSync(file, 'utf8'))) if (names.has(value)) found.push(`${relative(SRC, file)}: ${value}`);
    }
    expect([...new Set(found)].sort()).toEqual([...TOOL_NAME_EXCEPTIONS].sort());
  });

  it('the check sees every kind of string literal, and not comments or regexes', () => {
    const text = [`const a = 'read_file'; // 'not_this'`, `const b = "grep" /* 'nor_this' */;`, 'const c = `bash`, d = `x ${"find"} ${`nested`} y`;', `const r = /'[a-z]'/.test(x) ? 1 : n / 2 / 'q'.length;`, `const e = 'it\\'s';`].join(
      '\n',
    );
    expect(stringLiterals(text)).toEqual(['read_file', 'grep', 'bash', 'find', 'nested', 'q', "it's"]);
  });

  it('session/ and extensions/ take no options and no environment, only the values they use, apart from the listed exceptions', () => {
    const found: string[] = [];
    for (const file of files.filter((f) => ['session', 'extensions'].includes(blockOf(f)))) {
      for (const name of environmentTakers(readFileSync(file, 'utf8'))) found.push(`${relative(SRC, file)}: ${name}`);
      // The SDK's options stay in the app layer.
      if (/\bCreateAgentOptions\b/.test(readFileSync(file, 'utf8'))) found.push(`${relative(SRC, file)}: CreateAgentOptions`);
    }
    expect([...new Set(found)].sort()).toEqual([...ENV_EXCEPTIONS].sort());
  });

  it("no literal default outside the config table: every other block takes the value, or the table's own (core/config-table.ts), apart from the listed exceptions", () => {
    const found: string[] = [];
    for (const file of files.filter((f) => !f.endsWith('.generated.ts') && relative(SRC, f) !== join('core', 'config-table.ts'))) {
      for (const key of defaultCopies(readFileSync(file, 'utf8'), CONFIG_KEYS)) found.push(`${relative(SRC, file)}: ${key}`);
    }
    expect(found.sort()).toEqual([...DEFAULT_EXCEPTIONS].sort());
  });

  it('the default check sees fallbacks, constants, fields and help text, and not comments or other numbers', () => {
    const rows = [
      { key: 'maxTurns', flag: '--max-turns N', default: 50 },
      { key: 'idleTimeoutMs', default: 300_000 },
      { key: 'contextFiles.maxBytes', default: 65536 },
      { key: 'cache.retention', default: '5m' },
      { key: 'bash.timeoutSeconds', flag: '--bash-timeout S', default: 120 },
    ];
    const copies = (line: string) => defaultCopies(line, rows);
    expect(copies('const maxTurns = opts.maxTurns ?? 50;')).toEqual(['maxTurns']);
    expect(copies('export const DEFAULT_MAX_TURNS = 50;')).toEqual(['maxTurns']);
    expect(copies('  --max-turns N       stop after N model turns (default 50)')).toEqual(['maxTurns']);
    expect(copies('const DEFAULT_IDLE_TIMEOUT_MS = 300_000;')).toEqual(['idleTimeoutMs']);
    expect(copies('export const DEFAULT_CONTEXT_MAX_BYTES = 64 * 1024;')).toEqual(['contextFiles.maxBytes']);
    expect(copies("const retention = c.retention ?? '5m';")).toEqual(['cache.retention']);
    expect(copies("  --bash-timeout S    bash's default timeout in seconds (default 120)")).toEqual(['bash.timeoutSeconds']);
    expect(copies('if (maxTurns === 50) x();')).toEqual([]);
    expect(copies('// maxTurns ?? 50 in a comment')).toEqual([]);
    expect(copies("export type Retention = '5m' | '1h';")).toEqual([]);
    expect(copies('const maxTurns = opts.maxTurns ?? DEFAULT_MAX_TURNS;')).toEqual([]);
    expect(copies('const other = opts.rounds ?? 50;')).toEqual([]);
  });

  it("each entry kind lives in one module: no file outside src/session/entry-kinds/ compares an entry's type to a kind's name (kinds answer `is`), apart from the listed exceptions", () => {
    const kinds = ENTRY_KINDS.map((k) => k.type);
    const found: string[] = [];
    for (const file of files.filter((f) => !relative(SRC, f).startsWith('session/entry-kinds/') && !f.endsWith('.generated.ts'))) {
      for (const kind of entryKindComparisons(readFileSync(file, 'utf8'), kinds)) found.push(`${relative(SRC, file)}: ${kind}`);
    }
    expect([...new Set(found)].sort()).toEqual([...ENTRY_KIND_EXCEPTIONS].sort());
  });

  it('the entry kind check sees comparisons both ways and switches on a type, and not other switches or comments', () => {
    const text = [
      `if (e.type === 'compaction_failed') x();`,
      `const n = path.filter((p) => p.type !== "message");`,
      `if ('leaf' === entry.type) y();`,
      'switch (entry.type) {',
      `  case 'branch_summary':`,
      '}',
      'switch (args.command) {',
      `  case 'label':`,
      `  case 'run':`,
      '}',
      `// if (e.type === 'model_window')`,
      `const ev = { type: 'message' }; if (c.type === 'text') z();`,
    ].join('\n');
    expect(
      entryKindComparisons(
        text,
        ENTRY_KINDS.map((k) => k.type),
      ),
    ).toEqual(['compaction_failed', 'message', 'leaf', 'branch_summary']);
  });

  it('the environment check sees parameters, fields and reads, and not comments', () => {
    const text = ['export function f(a: string, env: NodeJS.ProcessEnv): void {', '  readonly env?: NodeJS.ProcessEnv;', '  const x = process.env.HOME;', '// env: NodeJS.ProcessEnv in a comment', ' * process.env in a doc comment'].join(
      '\n',
    );
    expect(environmentTakers(text)).toEqual(['f', 'env', 'const x = process.env.HOME;']);
  });
});
