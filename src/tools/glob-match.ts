// The globs of `find` and of grep's `glob`, matched in time linear in the path: the glob is
// parsed into a small syntax tree, compiled to an NFA (Thompson's construction) and run as a
// lazily built DFA, whose states are sets of NFA states computed on first use and cached. No
// backtracking, so no glob can take more than (path length × glob size) steps: picomatch's
// regular expressions took 721 s of CPU for `*a*a*…*a*b` against a 200-character name.
//
// The dialect (close to picomatch's, with `dot: true`):
//   *  any run of characters but '/'        ?  one character but '/'
//   ** as a whole segment: any number of segments, none included ("a/**/b" matches "a/b",
//      "a/**" matches "a" and everything below it); elsewhere ("a**b") the same as *
//   [abc] [a-z] [!a] [^a] [[:alpha:]]: one character (never '/'); \x: x itself
//   {a,b} {x,y{z,w}}: alternatives; {1..3} {a..e}: ranges; a brace without ',' or '..' is literal
//   @(a|b) ?(a|b) *(a|b) +(a|b): one, at most one, any number, at least one of the alternatives
//   a leading '!' negates the glob. `!(…)` is refused (it cannot be matched without backtracking
//   or a complement), and so is a glob over 4,096 characters.
// Parentheses, '|', '+' and '.' elsewhere are plain characters. Matching is by UTF-16 code unit.
import { ToolError } from './tool.js';

type Test = (c: number) => boolean;
type Node = { t: 'char'; test: Test } | { t: 'seq'; items: Node[] } | { t: 'alt'; alts: Node[] } | { t: 'rep'; node: Node; min: 0 | 1; many: boolean };

export const GLOB_MAX_CHARS = 4096;
const SLASH = 47;
const RANGE_MAX = 1000;
const DFA_MAX_STATES = 4096;
const notSlash: Test = (c) => c !== SLASH;
const lit = (ch: number): Node => ({ t: 'char', test: (c) => c === ch });
const word = (w: string): Node => ({ t: 'seq', items: [...Array(w.length).keys()].map((k) => lit(w.charCodeAt(k))) });
const STAR: Node = { t: 'rep', node: { t: 'char', test: notSlash }, min: 0, many: true };
const ANYTHING: Node = { t: 'rep', node: { t: 'char', test: () => true }, min: 0, many: true };
const POSIX: Record<string, RegExp> = {
  alpha: /[A-Za-z]/,
  digit: /[0-9]/,
  alnum: /[A-Za-z0-9]/,
  upper: /[A-Z]/,
  lower: /[a-z]/,
  space: /\s/,
  xdigit: /[0-9A-Fa-f]/,
  punct: /[!-/:-@[-`{-~]/,
  word: /\w/,
  blank: /[ \t]/,
  cntrl: /[\x00-\x1f\x7f]/,
  print: /[\x20-\x7e]/,
  graph: /[\x21-\x7e]/,
};

/** Compiles a glob to a test of a whole string; a glob the dialect refuses is a ToolError saying why. */
export function compileGlob(glob: string): (s: string) => boolean {
  if (glob.length > GLOB_MAX_CHARS) throw new ToolError(`glob is ${glob.length} characters long; at most ${GLOB_MAX_CHARS}`);
  const negate = glob.startsWith('!') && !glob.startsWith('!(');
  const body = negate ? glob.slice(1) : glob;
  const dfa = new Dfa(new Parser(body).parse());
  return negate ? (s) => !dfa.matches(s) : (s) => dfa.matches(s);
}

class Parser {
  /** An opening '{' or '(' → its closing partner; a '[' that opens a class → its ']'. */
  private readonly pair = new Map<number, number>();
  private readonly classEnd = new Map<number, number>();

  constructor(private readonly s: string) {
    const braces: number[] = [];
    const parens: number[] = [];
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c === '\\') i++;
      else if (c === '[') {
        const end = this.classClose(i);
        if (end >= 0) {
          this.classEnd.set(i, end);
          i = end;
        }
      } else if (c === '{') braces.push(i);
      else if (c === '(') parens.push(i);
      else if (c === '}' && braces.length > 0) this.pair.set(braces.pop()!, i);
      else if (c === ')' && parens.length > 0) this.pair.set(parens.pop()!, i);
    }
  }

  parse(): Node {
    return this.range(0, this.s.length);
  }

  /** The glob text [from, to) as a sequence. */
  private range(from: number, to: number): Node {
    const s = this.s;
    const items: Node[] = [];
    for (let i = from; i < to; ) {
      const c = s[i];
      const close = s[i + 1] === '(' ? this.pair.get(i + 1) : undefined;
      if ('*?+@!'.includes(c) && close !== undefined && close < to) {
        if (c === '!') throw new ToolError('the glob pattern !(…) is not supported; list what to match instead, e.g. "*.{ts,js}", or use a leading "!" to negate the whole glob');
        const alt: Node = { t: 'alt', alts: this.split(i + 2, close, '|') };
        items.push(c === '@' ? alt : { t: 'rep', node: alt, min: c === '+' ? 1 : 0, many: c !== '?' });
        i = close + 1;
      } else if (c === '\\') {
        items.push(lit(i + 1 < to ? s.charCodeAt(i + 1) : 92));
        i += 2;
      } else if (c === '*') {
        let j = i;
        while (j < to && s[j] === '*') j++;
        const whole = j - i >= 2 && (i === from || s[i - 1] === '/') && (j === to || s[j] === '/');
        if (whole && j < to)
          items.push({ t: 'rep', node: { t: 'seq', items: [STAR, lit(SLASH)] }, min: 0, many: true }); // "**/": any number of segments
        else items.push(whole ? ANYTHING : STAR);
        i = whole && j < to ? j + 1 : j;
      } else if (c === '/' && i + 3 === to && s.startsWith('**', i + 1)) {
        items.push({ t: 'rep', node: { t: 'seq', items: [lit(SLASH), ANYTHING] }, min: 0, many: false }); // "a/**" matches "a" too
        i = to;
      } else if (c === '?') {
        items.push({ t: 'char', test: notSlash });
        i++;
      } else if (c === '[' && this.classEnd.has(i)) {
        items.push({ t: 'char', test: this.charClass(i + 1, this.classEnd.get(i)!) });
        i = this.classEnd.get(i)! + 1;
      } else if (c === '{' && (this.pair.get(i) ?? to) < to && this.brace(i, this.pair.get(i)!)) {
        items.push(this.brace(i, this.pair.get(i)!)!);
        i = this.pair.get(i)! + 1;
      } else {
        items.push(lit(s.charCodeAt(i)));
        i++;
      }
    }
    return items.length === 1 ? items[0] : { t: 'seq', items };
  }

  /** The alternatives of a brace, or undefined when it holds neither ',' nor a range (then it is literal). */
  private brace(open: number, close: number): Node | undefined {
    const parts = this.split(open + 1, close, ',');
    if (parts.length > 1) return { t: 'alt', alts: parts };
    const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.exec(this.s.slice(open + 1, close));
    if (!m || /\d/.test(m[1]) !== /\d/.test(m[2])) return undefined;
    const num = /\d/.test(m[1]);
    const [a, b] = num ? [Number(m[1]), Number(m[2])] : [m[1].charCodeAt(0), m[2].charCodeAt(0)];
    if (Math.abs(b - a) >= RANGE_MAX) return undefined;
    const alts: Node[] = [];
    for (let k = a; ; k += a <= b ? 1 : -1) {
      alts.push(word(num ? String(k) : String.fromCharCode(k)));
      if (k === b) break;
    }
    return { t: 'alt', alts };
  }

  /** [from, to) cut at the separators outside escapes, classes, braces and parentheses. */
  private split(from: number, to: number, sep: string): Node[] {
    const parts: Node[] = [];
    let start = from;
    for (let i = from; i < to; i++) {
      const c = this.s[i];
      if (c === '\\') i++;
      else if (this.classEnd.has(i)) i = this.classEnd.get(i)!;
      else if ((c === '{' || c === '(') && this.pair.has(i)) i = this.pair.get(i)!;
      else if (c === sep) {
        parts.push(this.range(start, i));
        start = i + 1;
      }
    }
    parts.push(this.range(start, to));
    return parts;
  }

  /** Where the class opened by the '[' at `open` ends, or -1 (then the '[' is literal). */
  private classClose(open: number): number {
    const s = this.s;
    let j = open + 1;
    if (s[j] === '!' || s[j] === '^') j++;
    if (s[j] === ']') j++;
    for (; j < s.length; j++) {
      if (s[j] === '\\') j++;
      else if (s[j] === '[' && s[j + 1] === ':') {
        const end = s.indexOf(':]', j + 2);
        if (end >= 0) j = end + 1;
      } else if (s[j] === ']') return j;
    }
    return -1;
  }

  private charClass(from: number, to: number): Test {
    const s = this.s;
    let i = from;
    const negate = s[i] === '!' || s[i] === '^';
    if (negate) i++;
    const ranges: Array<[number, number]> = [];
    const named: RegExp[] = [];
    while (i < to) {
      if (s[i] === '[' && s[i + 1] === ':') {
        const end = s.indexOf(':]', i + 2);
        const re = end >= 0 && end < to ? POSIX[s.slice(i + 2, end)] : undefined;
        if (re) {
          named.push(re);
          i = end + 2;
          continue;
        }
      }
      const esc = s[i] === '\\' && i + 1 < to;
      const lo = s.charCodeAt(esc ? i + 1 : i);
      i += esc ? 2 : 1;
      if (s[i] === '-' && i + 1 < to) {
        const esc2 = s[i + 1] === '\\' && i + 2 < to;
        const hi = s.charCodeAt(esc2 ? i + 2 : i + 1);
        i += esc2 ? 3 : 2;
        ranges.push([lo, hi]);
      } else ranges.push([lo, lo]);
    }
    return (c) => {
      if (c === SLASH) return false;
      const inSet = ranges.some(([lo, hi]) => c >= lo && c <= hi) || named.some((re) => re.test(String.fromCharCode(c)));
      return inSet !== negate;
    };
  }
}

/** NFA state: a test of one character and where it leads, or (test null) empty moves to `outs`. */
interface NState {
  test: Test | null;
  outs: number[];
}

interface DState {
  states: number[];
  accept: boolean;
  /** The transitions found so far: by ASCII code in an array, others in a map. */
  ascii: Array<DState | undefined>;
  next: Map<number, DState>;
}

/** The NFA of a glob, run as a DFA built on demand (a bounded cache of state sets). */
class Dfa {
  private readonly nfa: NState[] = [{ test: null, outs: [] }]; // state 0 accepts
  private readonly cache = new Map<string, DState>();
  private readonly mark: number[] = [];
  private gen = 0;
  private readonly start: DState;

  constructor(root: Node) {
    this.start = this.dstate(this.closure([this.compile(root, 0)]));
  }

  matches(s: string): boolean {
    let d = this.start;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      let n = c < 128 ? d.ascii[c] : d.next.get(c);
      if (!n) {
        const moved: number[] = [];
        for (const q of d.states) {
          const st = this.nfa[q];
          if (st.test?.(c)) moved.push(st.outs[0]);
        }
        n = this.dstate(this.closure(moved));
        if (this.cache.size < DFA_MAX_STATES) {
          if (c < 128) d.ascii[c] = n;
          else d.next.set(c, n);
        }
      }
      if (n.states.length === 0) return false;
      d = n;
    }
    return d.accept;
  }

  /** Builds `node` so that it continues to state `next`; returns its start state. */
  private compile(node: Node, next: number): number {
    switch (node.t) {
      case 'char':
        return this.add(node.test, [next]);
      case 'seq':
        for (let k = node.items.length - 1; k >= 0; k--) next = this.compile(node.items[k], next);
        return next;
      case 'alt':
        return this.add(
          null,
          node.alts.map((a) => this.compile(a, next)),
        );
      case 'rep': {
        if (!node.many) return this.add(null, [this.compile(node.node, next), next]);
        const loop = this.add(null, []);
        const body = this.compile(node.node, loop);
        this.nfa[loop].outs.push(body, next);
        return node.min === 0 ? loop : body;
      }
    }
  }

  private add(test: Test | null, outs: number[]): number {
    this.nfa.push({ test, outs });
    return this.nfa.length - 1;
  }

  /** The states reachable from `from` by empty moves, keeping only those that test a character (and 0, the accept state). */
  private closure(from: number[]): number[] {
    const gen = ++this.gen;
    const out: number[] = [];
    const stack = [...from];
    while (stack.length > 0) {
      const q = stack.pop()!;
      if (this.mark[q] === gen) continue;
      this.mark[q] = gen;
      const st = this.nfa[q];
      if (st.test || q === 0) out.push(q);
      else for (let k = st.outs.length - 1; k >= 0; k--) stack.push(st.outs[k]);
    }
    return out.sort((a, b) => a - b);
  }

  private dstate(states: number[]): DState {
    const key = states.join(',');
    let d = this.cache.get(key);
    if (!d) {
      d = { states, accept: states[0] === 0, ascii: new Array<DState | undefined>(128).fill(undefined), next: new Map() };
      if (this.cache.size < DFA_MAX_STATES) this.cache.set(key, d);
    }
    return d;
  }
}
