// What a bash command line is, read by a real parser: tree-sitter-bash (the grammar Codex uses)
// on web-tree-sitter (WASM, no native code), loaded lazily the first time a rule needs it.
// The parser gives the structure; every word it reports is then read again by a strict scanner
// of our own (literal()), and every gap between nodes must be blank, so a grammar that reads a
// line differently from bash can only make a line "not literal" (the user is asked), never
// make a foreign command look like an allowed one. Two uses (permissions.ts, DESIGN §5):
// - `failure` null and `commands`: the line is only simple commands of literal words joined by
//   `;`, `&&`, `||`, `|` and newlines, with literal redirection targets (`writes`): the only
//   shape an allow rule with a pattern may cover;
// - `seen`: every simple command the parser can find anywhere (inside substitutions, functions,
//   control structures, `sh -c`/`eval` strings), in several spellings, for deny and ask rules.
import { createRequire } from 'node:module';
import type { Node, Parser as TsParser } from 'web-tree-sitter';

export interface ShellCommand {
  /** The command's words as written (quotes kept), joined by one space; redirections left out. */
  text: string;
  /** The words after quote removal. */
  words: string[];
}

export interface ShellSyntax {
  /** Why an allow rule with a pattern cannot cover this line, or null when it may. */
  failure: string | null;
  /** The simple commands, in order (when failure is null). */
  commands: ShellCommand[];
  /** The files the line's redirections write, as written after quote removal (not /dev/null, /dev/stdout, /dev/stderr). */
  writes: string[];
  /** Every simple command the parser sees anywhere, in each spelling a deny rule may name. */
  seen: string[];
}

let parser: TsParser | null = null;
let loading: Promise<void> | null = null;

/** Loads the parser once (about 50 ms, then a parse costs well under 1 ms: bench/permissions.mjs). */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const { Parser, Language } = await import('web-tree-sitter');
    await Parser.init({ locateFile: () => require.resolve('web-tree-sitter/tree-sitter.wasm') });
    const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const p = new Parser();
    p.setLanguage(language);
    parser = p;
  })();
  return loading;
}

export function shellParserLoaded(): boolean {
  return parser !== null;
}

/**
 * The longest line the parser reads. Parsing grows faster than the line on some shapes (120 KB of
 * `ls a; ` took 2 s, on the main thread); a longer line is not read: it asks, and deny rules see
 * it through the text split only. Nested commands repeat their text in every level around them,
 * so collecting them stops after SEEN_BUDGET characters (the line then asks too).
 */
export const MAX_PARSED_LINE = 4096;
const SEEN_BUDGET = 1_000_000;

/** The line's syntax, or null when the parser is not loaded yet (callers then fail closed). */
export function parseShell(line: string): ShellSyntax | null {
  if (!parser) return null;
  if (line.length > MAX_PARSED_LINE) return { failure: `the line is longer than ${MAX_PARSED_LINE} characters, too long to read`, commands: [], writes: [], seen: [] };
  return analyze(parser, line, 0);
}

function analyze(p: TsParser, line: string, depth: number): ShellSyntax {
  const tree = p.parse(line);
  if (!tree) return { failure: 'the line could not be parsed', commands: [], writes: [], seen: [] };
  try {
    const root = tree.rootNode;
    const seen: string[] = [];
    const complete = collectSeen(p, root, depth, seen);
    const out: ShellSyntax = { failure: null, commands: [], writes: [], seen };
    if (root.hasError) out.failure = 'the line does not parse as bash';
    else if (!complete) out.failure = 'the line nests too many commands to read';
    else {
      try {
        statements(root, line, out, 0, line.length);
      } catch (err) {
        if (!(err instanceof NotSimple)) throw err;
        out.failure = err.message;
      }
    }
    if (out.failure) {
      out.commands = [];
      out.writes = [];
    }
    return out;
  } finally {
    tree.delete();
  }
}

class NotSimple extends Error {}
const fail = (why: string): never => {
  throw new NotSimple(why);
};

const SHAPES: Record<string, string> = {
  subshell: 'a subshell',
  compound_statement: 'a { … } group',
  if_statement: 'an if',
  for_statement: 'a for loop',
  c_style_for_statement: 'a for loop',
  while_statement: 'a while loop',
  case_statement: 'a case',
  function_definition: 'a function',
  negated_command: 'a negated command',
  test_command: 'a [[ … ]] test',
  declaration_command: 'a declaration',
  unset_command: 'unset',
  variable_assignment: 'a variable assignment',
  variable_assignments: 'variable assignments',
  heredoc_redirect: 'a here-document',
  herestring_redirect: 'a here-string',
  arithmetic_expansion: 'arithmetic',
};
const shape = (type: string) => SHAPES[type] ?? `a ${type.replace(/_/g, ' ')}`;

/** The children of a list-like node: statements, the allowed operators, comments; the gaps blank. */
function statements(node: Node, line: string, out: ShellSyntax, from: number, to: number): void {
  const ops = node.type === 'pipeline' ? ['|'] : node.type === 'list' ? ['&&', '||'] : [';'];
  let at = from;
  for (const c of node.children) {
    if (!c) continue;
    gap(line, at, c.startIndex, /^(?:\s|\\\n)*$/);
    at = c.endIndex;
    if (!c.isNamed) {
      if (!ops.includes(c.type)) fail(c.type === '&' ? 'a command in the background (&)' : `the operator ${c.type}`);
      continue;
    }
    if (c.type === 'comment') comment(c, line);
    else if (c.type === 'command') command(c, line, out);
    else if (c.type === 'redirected_statement') redirected(c, line, out);
    else if (c.type === 'pipeline' || c.type === 'list') statements(c, line, out, c.startIndex, c.endIndex);
    else fail(shape(c.type));
  }
  gap(line, at, to, /^(?:\s|\\\n)*$/);
}

function gap(line: string, from: number, to: number, blank: RegExp): void {
  if (to < from || !blank.test(line.slice(from, to))) fail('text the parser did not place');
}

/** A comment must be one bash reads as one: `#` at the start of a word, running to the end of the line. */
function comment(c: Node, line: string): void {
  const before = c.startIndex === 0 ? '' : line[c.startIndex - 1];
  const after = line[c.endIndex];
  if (!(before === '' || /[\s;&|()]/.test(before)) || c.text.includes('\n') || !(after === undefined || after === '\n')) fail('a comment bash may read otherwise');
}

function redirected(node: Node, line: string, out: ShellSyntax): void {
  // The grammar hangs `a && b > f` on the list; bash binds the redirection to `b`. Either way it is a write of f.
  const body = node.childForFieldName('body');
  if (!body || !['command', 'list', 'pipeline'].includes(body.type)) fail(`redirections around ${body ? shape(body.type) : 'nothing'}`);
  let at = node.startIndex;
  for (const c of node.children) {
    if (!c) continue;
    gap(line, at, c.startIndex, /^(?:[ \t]|\\\n)*$/);
    at = c.endIndex;
    if (c.id === body!.id) {
      if (c.type === 'command') command(c, line, out);
      else statements(c, line, out, c.startIndex, c.endIndex);
    } else if (c.type === 'file_redirect') redirect(c, out);
    else fail(shape(c.type));
  }
}

const WRAPPERS = new Set([
  'eval',
  'exec',
  'env',
  'command',
  'builtin',
  'xargs',
  'source',
  '.',
  'sudo',
  'doas',
  'su',
  'runuser',
  'nohup',
  'nice',
  'timeout',
  'time',
  'stdbuf',
  'setsid',
  'chroot',
  'trap',
  'bind',
  'complete',
  'compgen',
  'enable',
  'hash',
  'alias',
  'shopt',
  'set',
  'let',
  'fc',
  'coproc',
  'function',
]);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'fish', 'busybox']);
/** Builtins that evaluate some arguments (array subscripts, `-v NAME`): a `$` or backtick in a word asks. */
const EVALUATING = new Set(['test', '[', 'printf', 'read', 'mapfile', 'readarray', 'unset', 'declare', 'typeset', 'local', 'export', 'readonly', 'wait', 'getopts', 'kill', 'cd', 'pushd', 'popd']);

function command(node: Node, line: string, out: ShellSyntax): void {
  const texts: string[] = [];
  const words: string[] = [];
  let at = node.startIndex;
  let nameGlob = false;
  let first = true;
  let afterRedirect = false;
  for (const c of node.children) {
    if (!c) continue;
    // Words need a blank between them (else the parser split one word); a redirection may touch its neighbours.
    gap(line, at, c.startIndex, first ? /^$/ : afterRedirect || c.type === 'file_redirect' ? /^(?:[ \t]|\\\n)*$/ : /^(?:[ \t]|\\\n)+$/);
    first = false;
    afterRedirect = c.type === 'file_redirect';
    at = c.endIndex;
    if (c.type === 'file_redirect') {
      redirect(c, out);
      continue;
    }
    if (c.type !== 'variable_assignment' && c.type !== 'command_name' && !['word', 'string', 'raw_string', 'concatenation', 'number'].includes(c.type)) fail(shape(c.type));
    const lit = literal(c.text);
    if (!lit) fail(`the word ${c.text} is not literal`);
    if (c.type === 'variable_assignment') {
      if (words.length > 0) fail('an assignment after the command name');
      texts.push(c.text);
      continue;
    }
    if (c.type === 'command_name') nameGlob = lit!.glob || lit!.tilde;
    texts.push(c.text);
    words.push(lit!.value);
  }
  if (words.length === 0) fail('no command name');
  if (nameGlob) fail('a command name that expands');
  const name = words[0].slice(words[0].lastIndexOf('/') + 1);
  if (WRAPPERS.has(name)) fail(`${name} runs what its arguments say`);
  if (SHELLS.has(name) && words.slice(1).some((w) => /^-[A-Za-z]*c/.test(w))) fail(`${name} -c runs a string`);
  if (EVALUATING.has(name) && words.some((w) => /[$`]/.test(w))) fail(`${name} may evaluate ${'$'} in its arguments`);
  out.commands.push({ text: texts.join(' '), words });
}

const HARMLESS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

function redirect(node: Node, out: ShellSyntax): void {
  let op = '';
  const dests: Node[] = [];
  for (const c of node.children) {
    if (!c) continue;
    if (!c.isNamed) op = c.type;
    else if (c.type !== 'file_descriptor') dests.push(c);
  }
  if (dests.length !== 1) fail('a redirection the parser reads differently from bash');
  const dest = dests[0];
  const lit = literal(dest.text);
  if (!lit) fail(`the redirection target ${dest.text} is not literal`);
  if (op === '<') return; // a read
  if ((op === '>&' || op === '<&') && /^(?:\d+|-)$/.test(dest.text)) return; // a descriptor copied or closed
  if (op === '<&') fail('a redirection the parser reads differently from bash');
  if (!['>', '>>', '&>', '&>>', '>|', '>&'].includes(op)) fail(`the redirection ${op}`);
  if (lit!.glob || lit!.tilde) fail(`the redirection target ${dest.text} expands`);
  if (!HARMLESS.has(lit!.value)) out.writes.push(lit!.value);
}

/** A word with nothing that expands: unquoted text without $ ` ( ) { ; & | < >, '…', "…" without $ or `; or null. */
export function literal(text: string): { value: string; glob: boolean; tilde: boolean } | null {
  let value = '';
  let glob = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return null;
      value += text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) {
        const d = text[i];
        if (d === '$' || d === '`') return null;
        if (d === '\\') {
          const n = text[i + 1];
          if (n === undefined) return null;
          if (n === '\n') i++;
          else if ('$`"\\'.includes(n)) value += text[++i];
          else value += d;
        } else value += d;
      }
      if (i >= text.length) return null;
    } else if (c === '\\') {
      const n = text[++i];
      if (n === undefined) return null;
      if (n !== '\n') value += n;
    } else {
      if (/[\s$`;&|<>()]/.test(c) || (c === '#' && i === 0) || (c === '{' && text[i + 1] !== '}')) return null;
      if ('*?['.includes(c)) glob = true;
      value += c;
    }
  }
  return { value, glob, tilde: text.startsWith('~') };
}

const STRIPPED = new Set(['env', 'command', 'exec', 'builtin', 'sudo', 'doas', 'nohup', 'nice', 'time', 'stdbuf', 'setsid', 'xargs', 'timeout']);

/** Every simple command in the tree, each in several spellings: as written, words joined by one space, quotes removed, path and wrappers dropped. */
function collectSeen(p: TsParser, root: Node, depth: number, seen: string[]): boolean {
  let budget = SEEN_BUDGET;
  const known = new Set(seen);
  const add = (s: string) => {
    const t = s.trim();
    if (t && !known.has(t)) {
      known.add(t);
      seen.push(t);
    }
  };
  for (const node of root.descendantsOfType('command')) {
    if (!node) continue;
    budget -= node.endIndex - node.startIndex;
    if (budget < 0) return false;
    add(node.text);
    const parts = node.namedChildren.filter((c): c is Node => !!c && !/redirect$/.test(c.type) && c.type !== 'comment');
    add(parts.map((c) => c.text).join(' '));
    let words = parts.map((c) => literal(c.text)?.value ?? c.text);
    add(words.join(' '));
    for (let guard = 0; guard < 8 && words.length > 0; guard++) {
      while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) words = words.slice(1);
      if (!words.length) break;
      const name = words[0].slice(words[0].lastIndexOf('/') + 1);
      add([name, ...words.slice(1)].join(' '));
      if ((name === 'eval' || SHELLS.has(name)) && depth < 3) {
        const at = words.findIndex((w, i) => i > 0 && /^-[A-Za-z]*c/.test(w));
        const script = name === 'eval' ? words.slice(1).join(' ') : at > 0 ? words[at + 1] : undefined;
        if (script) for (const s of analyze(p, script, depth + 1).seen) add(s);
      }
      if (name === 'find') {
        const at = words.findIndex((w) => /^-(exec|execdir|ok|okdir)$/.test(w));
        if (at > 0)
          add(
            words
              .slice(at + 1)
              .filter((w) => w !== ';' && w !== '+')
              .join(' '),
          );
      }
      if (!STRIPPED.has(name)) break;
      // After a wrapper, its options and their values cannot be told apart without knowing each
      // program: every tail of the words is a command a deny rule may name (`nice -n 1 rm x`).
      const tails = words.slice(1).map((_, k) => words.slice(k + 1).join(' '));
      for (const t of tails) add(name === 'xargs' ? `${t} ARGS` : t);
      let rest = words.slice(1);
      while (rest.length && (rest[0].startsWith('-') || /^\d/.test(rest[0]))) rest = rest.slice(1);
      words = rest;
    }
  }
  return true;
}
