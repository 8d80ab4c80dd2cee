// The files a command line visibly writes: the targets of its output redirections (`>`, `>>`,
// `>|`, `&>`, `&>>`, `<>`, `N>`, `>& FILE`) and the file arguments of `tee`. Pure: a small
// scanner that follows bash's quoting (single and double quotes, `$'…'`, backslashes, line
// continuations), skips comments and here-document bodies, and looks inside `$(…)`, backticks and
// `<(…)`/`>(…)`, whose redirections are as real as the outer ones. It is not a shell: words that
// expand (`$X`, `$(…)`) cannot be read off the text and are marked `dynamic`; the bash sandbox,
// not this scanner, is what confines commands (DESIGN §5). Why not a library: `shell-quote`
// reads `a#b` as a comment (so `echo a#b > .git/config` would hide its redirection), misses
// redirections inside `"$(…)"`, and reports here-document bodies as commands.

/** A file the command writes, as its word reads after quote removal. */
export interface WriteTarget {
  /** The operator (`>`, `>>`, `2>`, `&>`, …) or `tee`. */
  via: string;
  /** The word after quote removal, with `~` and the known variables expanded. */
  text: string;
  /** It holds an expansion whose value is unknown ($X, $(…), `…`): `text` is not the file. */
  dynamic: boolean;
  /** Literal text before the first unknown expansion (the whole text when not dynamic). */
  prefix: string;
  /** Unquoted glob characters (* ? [): bash expands the word when it matches one file. */
  glob: boolean;
  /** For a glob: the word as a pattern, quoted characters escaped with a backslash. */
  pattern: string;
}

export interface ScanOptions {
  /** Variables whose values are known (e.g. HOME, PWD): `$NAME`, `${NAME}` and `~` expand to them. */
  vars?: Readonly<Record<string, string>>;
}

interface Word {
  kind: 'word';
  text: string;
  pattern: string;
  prefix: string;
  dynamic: boolean;
  glob: boolean;
  /** Only unquoted digits: an fd number when a redirection follows at once. */
  digits: boolean;
}
type Token = Word | { kind: 'op'; op: string };

const OPERATORS = ['&>>', '<<-', '<<<', ';;', '&&', '||', '|&', '>>', '>|', '<>', '<<', '<&', '>&', '&>', ';', '&', '|', '(', ')', '<', '>', '\n'];
const SEPARATORS = new Set([';', ';;', '&', '&&', '||', '|', '|&', '(', ')', '\n']);
const WRAPPERS = new Set(['sudo', 'doas', 'command', 'exec', 'nohup', 'time', 'env', 'nice', 'stdbuf', 'builtin']);
const SINGLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** The files the command line writes through redirections or `tee`, in order. */
export function writeTargets(command: string, opts: ScanOptions = {}): WriteTarget[] {
  const out: WriteTarget[] = [];
  collect(command, opts.vars ?? {}, out);
  return out;
}

function collect(command: string, vars: Readonly<Record<string, string>>, out: WriteTarget[]): void {
  walk(new Lexer(command, vars, out).tokens(), out);
}

/** `tee [OPTION]… FILE…`, after assignments and wrappers such as sudo or env. */
function teeTargets(words: Word[], out: WriteTarget[]): void {
  let i = 0;
  while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i].text) || WRAPPERS.has(base(words[i].text)) || (i > 0 && words[i].text.startsWith('-')))) i++;
  if (i >= words.length || base(words[i].text) !== 'tee') return;
  let options = true;
  for (const w of words.slice(i + 1)) {
    if (options && w.text === '--') options = false;
    else if (options && w.text.startsWith('-') && w.text !== '-') continue;
    else out.push(target('tee', w));
  }
}

function base(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

function target(via: string, w: Word): WriteTarget {
  return { via, text: w.text, dynamic: w.dynamic, prefix: w.prefix, glob: w.glob, pattern: w.pattern };
}

class Lexer {
  private i = 0;
  private readonly out: Token[] = [];
  private word: Word | null = null;
  /** Here-documents whose bodies start after the next newline: [delimiter, strip tabs]. */
  private heredocs: [string, boolean][] = [];

  constructor(
    private readonly s: string,
    private readonly vars: Readonly<Record<string, string>>,
    private readonly targets: WriteTarget[],
    /** Inside $(…) or <(…): stop at the `)` that closes it. */
    private readonly nested = false,
  ) {}

  /** The tokens; in a nested scan, stops after the closing parenthesis (see `end`). */
  tokens(): Token[] {
    this.run();
    return this.out;
  }

  /** Where a nested scan ended (just after its closing parenthesis). */
  end(): number {
    return this.i;
  }

  private run(): void {
    const s = this.s;
    let depth = 0;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === ' ' || c === '\t') {
        this.flush();
        this.i++;
      } else if (c === '\\' && s[this.i + 1] === '\n') {
        this.i += 2; // a line continuation
      } else if (c === '#' && this.word === null) {
        while (this.i < s.length && s[this.i] !== '\n') this.i++;
      } else if ((c === '<' || c === '>') && s[this.i + 1] === '(' && this.word === null) {
        this.i += 2;
        this.substitution();
      } else if (this.operatorAt() !== undefined) {
        const op = this.operatorAt()!;
        if (this.nested && op === ')' && depth === 0) {
          this.flush();
          this.i++;
          return;
        }
        if (op === '(') depth++;
        if (op === ')') depth = Math.max(0, depth - 1);
        // Digits right before a redirection are its descriptor (2>), not a word.
        const fd = (op.startsWith('<') || op.startsWith('>')) && this.word?.digits === true;
        if (fd) this.word = null;
        else this.flush();
        this.push({ kind: 'op', op });
        this.i += op.length;
        if (op === '\n') this.skipHeredocBodies();
      } else {
        this.wordChar();
      }
    }
    this.flush();
  }

  private operatorAt(): string | undefined {
    return OPERATORS.find((op) => this.s.startsWith(op, this.i));
  }

  private push(t: Token): void {
    const prev = this.out[this.out.length - 1];
    if (t.kind === 'word' && prev?.kind === 'op' && (prev.op === '<<' || prev.op === '<<-')) this.heredocs.push([t.text, prev.op === '<<-']);
    this.out.push(t);
  }

  private flush(): void {
    if (this.word) this.push(this.word);
    this.word = null;
  }

  private cur(): Word {
    return (this.word ??= { kind: 'word', text: '', pattern: '', prefix: '', dynamic: false, glob: false, digits: true });
  }

  private literal(text: string, quoted: boolean): void {
    const w = this.cur();
    w.text += text;
    if (!w.dynamic) w.prefix += text;
    w.pattern += quoted ? text.replace(/[\\*?[\]{}()!+@]/g, '\\$&') : text;
    if (quoted || !/^\d+$/.test(text)) w.digits = false;
    if (!quoted && /[*?[]/.test(text)) w.glob = true;
  }

  private unknown(): void {
    const w = this.cur();
    w.dynamic = true;
    w.digits = false;
  }

  private wordChar(): void {
    const s = this.s;
    const c = s[this.i];
    if (c === '\\') {
      this.literal(s[this.i + 1] ?? '', true);
      this.i += 2;
    } else if (c === "'") {
      const close = s.indexOf("'", this.i + 1);
      const stop = close < 0 ? s.length : close;
      this.literal(s.slice(this.i + 1, stop), true);
      if (this.word) this.word.digits = false;
      this.i = stop + 1;
    } else if (c === '$' && s[this.i + 1] === "'") {
      this.ansiC();
    } else if (c === '$' && s[this.i + 1] === '"') {
      this.i++; // $"...": a translated string, read as a double-quoted one
    } else if (c === '"') {
      this.i++;
      this.cur().digits = false;
      this.doubleQuoted();
    } else if (c === '$' || c === '`') {
      this.expansion(false);
    } else if (c === '~' && this.word === null) {
      const m = /^~(?=\/|$|[\s;&|<>()])/.exec(s.slice(this.i));
      if (m && this.vars.HOME !== undefined) this.literal(this.vars.HOME, true);
      else this.literal('~', false);
      this.i++;
    } else {
      this.literal(c, false);
      this.i++;
    }
  }

  private doubleQuoted(): void {
    const s = this.s;
    while (this.i < s.length && s[this.i] !== '"') {
      const c = s[this.i];
      if (c === '\\' && this.i + 1 < s.length && '$`"\\\n'.includes(s[this.i + 1])) {
        if (s[this.i + 1] !== '\n') this.literal(s[this.i + 1], true);
        this.i += 2;
      } else if (c === '$' || c === '`') {
        this.expansion(true);
      } else {
        this.literal(c, true);
        this.i++;
      }
    }
    this.i++; // the closing quote
  }

  /** $NAME, ${…}, $(…), $((…)), `…`: known variables expand, the rest is unknown; substitutions are scanned too. */
  private expansion(quoted: boolean): void {
    const s = this.s;
    if (s[this.i] === '`') {
      let j = this.i + 1;
      let inner = '';
      while (j < s.length && s[j] !== '`') {
        if (s[j] === '\\' && j + 1 < s.length) inner += '$`\\'.includes(s[j + 1]) ? s[++j] : s[j];
        else inner += s[j];
        j++;
      }
      collect(inner, this.vars, this.targets);
      this.unknown();
      this.i = j + 1;
      return;
    }
    const rest = s.slice(this.i);
    const simple = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})/.exec(rest);
    if (simple) {
      const value = this.vars[simple[1] ?? simple[2]];
      if (value !== undefined) this.literal(value, true);
      else this.unknown();
      this.i += simple[0].length;
    } else if (rest.startsWith('$((')) {
      this.i = this.closing(this.i + 3, '(', ')', 2);
      this.unknown();
    } else if (rest.startsWith('$(')) {
      this.i += 2;
      this.substitution();
    } else if (rest.startsWith('${')) {
      this.i = this.closing(this.i + 2, '{', '}', 1);
      this.unknown();
    } else if (/^\$[0-9#?$!@*-]/.test(rest)) {
      this.i += 2;
      this.unknown();
    } else {
      this.literal('$', quoted);
      this.i++;
    }
  }

  /** $(…) or <(…)/>(…) from just after the parenthesis: its own commands, scanned for targets too. */
  private substitution(): void {
    const inner = new Lexer(this.s.slice(this.i), this.vars, this.targets, true);
    walk(inner.tokens(), this.targets);
    this.i += inner.end();
    this.unknown();
  }

  /** The index after the `count` closing characters that balance an opening (quotes skipped roughly). */
  private closing(from: number, open: string, close: string, count: number): number {
    const s = this.s;
    let depth = count;
    let j = from;
    while (j < s.length && depth > 0) {
      const c = s[j];
      if (c === '\\') j++;
      else if (c === "'" || c === '"') {
        const end = s.indexOf(c, j + 1);
        j = end < 0 ? s.length : end;
      } else if (c === open) depth++;
      else if (c === close) depth--;
      j++;
    }
    return j;
  }

  private ansiC(): void {
    const s = this.s;
    let j = this.i + 2;
    let text = '';
    while (j < s.length && s[j] !== "'") {
      if (s[j] !== '\\' || j + 1 >= s.length) {
        text += s[j++];
        continue;
      }
      const e = s[j + 1];
      const hex = /^(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3}))/.exec(s.slice(j + 1));
      if (hex) {
        const code = hex[4] !== undefined ? parseInt(hex[4], 8) : parseInt(hex[1] ?? hex[2] ?? hex[3], 16);
        text += code <= 0x10ffff ? String.fromCodePoint(code) : '';
        j += 1 + hex[0].length;
      } else {
        text += SINGLE_ESCAPES[e] ?? `\\${e}`;
        j += 2;
      }
    }
    this.literal(text, true);
    if (this.word) this.word.digits = false;
    this.i = j + 1;
  }

  /** After a newline: the bodies of the here-documents opened on the line before are data, not commands. */
  private skipHeredocBodies(): void {
    const s = this.s;
    for (const [delimiter, stripTabs] of this.heredocs) {
      while (this.i < s.length) {
        const nl = s.indexOf('\n', this.i);
        const lineEnd = nl < 0 ? s.length : nl;
        const line = s.slice(this.i, lineEnd);
        this.i = nl < 0 ? s.length : nl + 1;
        if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
      }
    }
    this.heredocs = [];
  }
}

/**
 * The targets of lexed tokens: the operand of each output redirection (an fd number before it
 * was already dropped by the lexer; `>&N` and `>&-` duplicate or close descriptors), and tee's
 * files at the end of each simple command.
 */
function walk(tokens: Token[], out: WriteTarget[]): void {
  let words: Word[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'word') {
      words.push(t);
      continue;
    }
    if (SEPARATORS.has(t.op)) {
      teeTargets(words, out);
      words = [];
      continue;
    }
    const next = tokens[i + 1];
    if (next?.kind !== 'word') continue;
    i++;
    if (t.op.startsWith('<') && t.op !== '<>') continue; // input, here-document, here-string, input duplication
    if (t.op === '>&' && /^(\d+-?|-)$/.test(next.text) && !next.dynamic) continue;
    out.push(target(t.op, next));
  }
  teeTargets(words, out);
}
