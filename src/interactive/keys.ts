// Keyboard input for the interactive mode: raw terminal input (stdin in raw mode, read as UTF-8
// strings) turned into key events. Pure: no timers, no I/O. A chunk may end anywhere (inside an
// escape sequence, a surrogate pair or a bracketed paste): the parser keeps the unfinished part
// for the next chunk. A lone ESC is ambiguous (the Escape key, or the start of a sequence still
// on its way), so it waits until the caller, after a short quiet time, calls flush().

type Chars<S extends string> = S extends `${infer C}${infer Rest}` ? C | Chars<Rest> : never;
export type Letter = Chars<'abcdefghijklmnopqrstuvwxyz'>;
export type CharName = Letter | Chars<'0123456789'> | Chars<'`~!@#$%^&*()-_=+[]{}\\|;:\'",.<>/?'>;
export type SpecialKeyName =
  | 'enter'
  | 'tab'
  | 'backspace'
  | 'delete'
  | 'insert'
  | 'escape'
  | 'space'
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'home'
  | 'end'
  | 'pageup'
  | 'pagedown'
  | 'f1'
  | 'f2'
  | 'f3'
  | 'f4'
  | 'f5'
  | 'f6'
  | 'f7'
  | 'f8'
  | 'f9'
  | 'f10'
  | 'f11'
  | 'f12';

/** A key with its modifiers. Ctrl+A is `{ name: 'a', ctrl: true }`; Alt+Shift+F is `{ name: 'f', alt: true, shift: true }`. */
export interface NamedKey {
  name: SpecialKeyName | CharName;
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}
/** Typed text: one or more whole characters (grapheme clusters are never split within a chunk). */
export interface TextKey {
  name: 'text';
  text: string;
}
/** A paste, bracketed or not, as one event: its text with line endings made "\n", nothing else changed. */
export interface PasteKey {
  name: 'paste';
  text: string;
}
export type Key = NamedKey | TextKey | PasteKey;

export interface KeyParserOptions {
  /** Take a chunk of several characters with a line break in it, and no escape sequence, as a paste (for terminals without bracketed paste). Default true. */
  unbracketedPaste?: boolean;
}

const ESC = '\x1b';
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
/** An unfinished sequence longer than this is garbage, not a sequence still arriving. */
const MAX_SEQUENCE = 256;

type Mods = Partial<Pick<NamedKey, 'ctrl' | 'alt' | 'shift'>>;
const key = (name: NamedKey['name'], mods: Mods = {}): NamedKey => ({ name, ctrl: !!mods.ctrl, alt: !!mods.alt, shift: !!mods.shift });

/** The modifiers of an xterm-style parameter (1 + shift·1 + alt·2 + ctrl·4 + meta·8; meta counts as alt). */
function modifiers(param: number | undefined): Mods {
  const m = Math.max(0, (param || 1) - 1);
  return { shift: (m & 1) !== 0, alt: (m & (2 | 8)) !== 0, ctrl: (m & 4) !== 0 };
}

const CSI_LETTER: Record<string, SpecialKeyName> = { A: 'up', B: 'down', C: 'right', D: 'left', H: 'home', F: 'end', P: 'f1', Q: 'f2', R: 'f3', S: 'f4' };
const RXVT_ARROW: Record<string, SpecialKeyName> = { a: 'up', b: 'down', c: 'right', d: 'left' };
const TILDE: Record<number, SpecialKeyName> = {
  1: 'home',
  2: 'insert',
  3: 'delete',
  4: 'end',
  5: 'pageup',
  6: 'pagedown',
  7: 'home',
  8: 'end',
  11: 'f1',
  12: 'f2',
  13: 'f3',
  14: 'f4',
  15: 'f5',
  17: 'f6',
  18: 'f7',
  19: 'f8',
  20: 'f9',
  21: 'f10',
  23: 'f11',
  24: 'f12',
};
/** SS3 finals in the application keypad mode that stand for characters. */
const KEYPAD_TEXT: Record<string, string> = { j: '*', k: '+', l: ',', m: '-', n: '.', o: '/', X: '=', p: '0', q: '1', r: '2', s: '3', t: '4', u: '5', v: '6', w: '7', x: '8', y: '9' };
const LINUX_F: Record<string, SpecialKeyName> = { A: 'f1', B: 'f2', C: 'f3', D: 'f4', E: 'f5' };
const CHAR_NAME = /^[a-z0-9`~!@#$%^&*()\-_=+[\]{}\\|;:'",.<>/?]$/;

/** The key of a C0 control character or DEL (ESC excepted). */
function controlKey(c: number): NamedKey {
  if (c === 0x0d) return key('enter');
  if (c === 0x09) return key('tab');
  if (c === 0x08 || c === 0x7f) return key('backspace');
  if (c === 0x00) return key('space', { ctrl: true });
  if (c <= 0x1a) return key(String.fromCharCode(c + 0x60) as Letter, { ctrl: true }); // \n is Ctrl+J
  return key((['\\', ']', '^', '_'] as const)[c - 0x1c], { ctrl: true });
}

/** The key of a character code with modifiers (CSI u and xterm's modifyOtherKeys), or undefined. */
function codeKey(code: number, mods: Mods): Key | undefined {
  const special: Record<number, SpecialKeyName> = { 13: 'enter', 9: 'tab', 27: 'escape', 127: 'backspace', 8: 'backspace', 32: 'space' };
  if (special[code]) return code === 32 && !mods.ctrl && !mods.alt ? { name: 'text', text: ' ' } : key(special[code], mods);
  if (!Number.isInteger(code) || code < 33 || code > 0x10ffff || (code >= 0x7f && code < 0xa0) || (code >= 0xd800 && code < 0xe000)) return undefined;
  const ch = String.fromCodePoint(code);
  if (!mods.ctrl && !mods.alt) return { name: 'text', text: mods.shift ? ch.toUpperCase() : ch };
  const lower = ch.toLowerCase();
  if (!CHAR_NAME.test(lower)) return undefined;
  return key(lower as CharName, { ...mods, shift: mods.shift || lower !== ch });
}

/** The key a complete CSI sequence stands for: `params` its parameter bytes, `final` its last byte. */
function csiKey(params: string, final: string): Key | undefined {
  if (/^[<=>?]/.test(params)) return undefined; // private sequences: mouse reports, query replies
  const nums = params.split(';').map((p) => Number.parseInt(p, 10));
  const first = Number.isNaN(nums[0]) ? 1 : nums[0];
  if (CSI_LETTER[final]) return first === 1 || nums.length === 1 ? key(CSI_LETTER[final], modifiers(nums[1])) : undefined;
  if (RXVT_ARROW[final] && params === '') return key(RXVT_ARROW[final], { shift: true });
  if (final === 'Z') return key('tab', { shift: true });
  if (final === 'u') return codeKey(first, modifiers(nums[1]));
  if (final === '~' && first === 27) return codeKey(nums[2], modifiers(nums[1]));
  const rxvt: Record<string, Mods> = { '~': modifiers(nums[1]), '^': { ctrl: true }, $: { shift: true }, '@': { ctrl: true, shift: true } };
  return rxvt[final] && TILDE[first] ? key(TILDE[first], rxvt[final]) : undefined;
}

/** One parsed escape sequence: where it ends, and its key (none when it is unknown and dropped). */
interface Parsed {
  end: number;
  key?: Key;
  pasteStart?: true;
}

/** The CSI sequence whose parameters start at `j` (after "ESC ["), or null when it is unfinished. */
function parseCsi(s: string, j: number): Parsed | null {
  if (j >= s.length) return null;
  if (s[j] === '[') return j + 1 < s.length ? { end: j + 2, key: LINUX_F[s[j + 1]] && key(LINUX_F[s[j + 1]]) } : null;
  if (s[j] === 'M') return j + 3 < s.length ? { end: j + 4 } : null; // an X10 mouse report: three bytes follow
  let k = j;
  while (k < s.length && s.charCodeAt(k) >= 0x30 && s.charCodeAt(k) <= 0x3f) k++;
  const params = s.slice(j, k);
  if (s[k] === '$' && /^[\d;]*$/.test(params)) return { end: k + 1, key: csiKey(params, '$') }; // rxvt Shift+Home and the like
  while (k < s.length && s.charCodeAt(k) >= 0x20 && s.charCodeAt(k) <= 0x2f) k++;
  if (k >= s.length) return k - j > MAX_SEQUENCE ? { end: k } : null;
  const f = s.charCodeAt(k);
  if (f < 0x40 || f > 0x7e) return { end: k }; // malformed: drop what was read, go on from the odd byte
  if (params === '200' && s[k] === '~' && k === j + 3) return { end: k + 1, pasteStart: true };
  return { end: k + 1, key: csiKey(params, s[k]) };
}

/** The SS3 sequence whose body starts at `j` (after "ESC O"), or null when it is unfinished. */
function parseSs3(s: string, j: number): Parsed | null {
  let k = j;
  while (k < s.length && s.charCodeAt(k) >= 0x30 && s.charCodeAt(k) <= 0x39) k++;
  if (k >= s.length) return k - j > MAX_SEQUENCE ? { end: k } : null;
  const f = s[k];
  if (f.charCodeAt(0) < 0x40 || f.charCodeAt(0) > 0x7e) return k === j ? { end: j, key: key('o', { alt: true, shift: true }) } : { end: k };
  const mods = modifiers(k > j ? Number.parseInt(s.slice(j, k), 10) : undefined);
  if (f === 'M') return { end: k + 1, key: key('enter', mods) };
  if (CSI_LETTER[f]) return { end: k + 1, key: key(CSI_LETTER[f], mods) };
  if (RXVT_ARROW[f]) return { end: k + 1, key: key(RXVT_ARROW[f], { ctrl: true }) };
  if (KEYPAD_TEXT[f]) return { end: k + 1, key: { name: 'text', text: KEYPAD_TEXT[f] } };
  return { end: k + 1 };
}

/** The key of ESC followed by the character at `j`: Alt with that key, or Escape itself. */
function altKey(s: string, j: number): Parsed {
  const c = s.charCodeAt(j);
  if (c === 0x0d || c === 0x0a) return { end: j + 1, key: key('enter', { alt: true }) };
  if (c < 0x20 || c === 0x7f) return { end: j + 1, key: { ...controlKey(c), alt: true } };
  if (c === 0x20) return { end: j + 1, key: key('space', { alt: true }) };
  const lower = s[j].toLowerCase();
  if (c < 0x7f && CHAR_NAME.test(lower)) return { end: j + 1, key: key(lower as CharName, { alt: true, shift: lower !== s[j] }) };
  return { end: j, key: key('escape') }; // ESC then something no terminal sends as Alt+key: an Escape press
}

/** The escape sequence at `i` (s[i] is ESC), or null when it is unfinished. */
function parseEscape(s: string, i: number): Parsed | null {
  if (i + 1 >= s.length) return null;
  const next = s[i + 1];
  if (next === '[') return parseCsi(s, i + 2);
  if (next === 'O') return parseSs3(s, i + 2);
  if (next !== ESC) return altKey(s, i + 1);
  if (i + 2 >= s.length) return null;
  if (s[i + 2] !== '[' && s[i + 2] !== 'O') return { end: i + 1, key: key('escape') };
  const inner = parseEscape(s, i + 1); // ESC before a sequence: Alt with that key (macOS terminals)
  if (inner === null) return null;
  return { ...inner, key: inner.key && inner.key.name !== 'text' && inner.key.name !== 'paste' ? { ...inner.key, alt: true } : undefined };
}

const isPrintable = (c: number) => c >= 0x20 && c !== 0x7f && (c < 0x80 || c > 0x9f);
const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const normalizeNewlines = (text: string) => text.replace(/\r\n?/g, '\n');
/** The text with each lone surrogate (half a pair) made U+FFFD. */
const wellFormed = (text: string) => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/**
 * Whether a chunk is a paste from a terminal without bracketed paste: text after a line break, no
 * escape sequence. A line and its Enter in one chunk, however long, are keys: that is what a busy
 * process reads when the user typed a line while it was drawing (or a script typed it), and taking
 * it for a paste would put a line break into the editor instead of sending the line.
 */
function looksLikePaste(chunk: string): boolean {
  return chunk.length >= 3 && !chunk.includes(ESC) && /[\r\n][^\r\n]/.test(chunk);
}

/** How many characters at the end of s (from `from`) are the start of `marker`. */
function partialSuffix(s: string, from: number, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length - from); n > 0; n--) if (s.endsWith(marker.slice(0, n))) return n;
  return 0;
}

export class KeyParser {
  /** Input carried to the next chunk: an unfinished sequence, half a surrogate pair, or the possible start of the paste's end marker. */
  private pending = '';
  /** The parts of the bracketed paste being read, or null outside a paste. */
  private paste: string[] | null = null;
  private readonly unbracketedPaste: boolean;

  constructor(options: KeyParserOptions = {}) {
    this.unbracketedPaste = options.unbracketedPaste ?? true;
  }

  /** True when input is waiting to be completed: the caller should call flush() after a short quiet time (about 30 ms). */
  get hasPending(): boolean {
    return this.paste === null && this.pending !== '';
  }

  /** True inside a bracketed paste whose end marker has not arrived yet. */
  get inPaste(): boolean {
    return this.paste !== null;
  }

  /** The key events in this chunk (with what earlier chunks left unfinished). */
  feed(chunk: string): Key[] {
    const out: Key[] = [];
    if (this.unbracketedPaste && this.paste === null && this.pending === '' && looksLikePaste(chunk)) {
      out.push({ name: 'paste', text: normalizeNewlines(chunk) });
      return out;
    }
    const s = this.pending + chunk;
    this.pending = '';
    let i = 0;
    while (i < s.length) {
      if (this.paste !== null) {
        i = this.readPaste(s, i, out);
        continue;
      }
      const c = s.charCodeAt(i);
      if (c === 0x1b) {
        const parsed = parseEscape(s, i);
        if (parsed === null) {
          this.pending = s.slice(i);
          break;
        }
        if (parsed.pasteStart) this.paste = [];
        else if (parsed.key) out.push(parsed.key);
        i = parsed.end;
      } else if (!isPrintable(c)) {
        if (c < 0x80) out.push(controlKey(c)); // C1 controls are dropped
        i++;
      } else {
        let j = i + 1;
        while (j < s.length && isPrintable(s.charCodeAt(j))) j++;
        if (j === s.length && isHighSurrogate(s.charCodeAt(j - 1))) this.pending = s.slice(--j);
        if (j > i) out.push({ name: 'text', text: wellFormed(s.slice(i, j)) });
        i = this.pending ? s.length : j;
      }
    }
    return out;
  }

  /**
   * Ends what waits for more input, as it stands: a lone ESC is the Escape key ("ESC [" is
   * Alt+[, "ESC O" Alt+Shift+O), an unfinished sequence is dropped. An open paste stays open
   * (a slow link may deliver it in pieces) unless `endPaste`: then what arrived of it is one paste.
   */
  flush({ endPaste = false }: { endPaste?: boolean } = {}): Key[] {
    if (this.paste !== null) {
      if (!endPaste) return [];
      const text = normalizeNewlines(this.paste.join('') + this.pending);
      this.paste = null;
      this.pending = '';
      return text ? [{ name: 'paste', text }] : [];
    }
    const out: Key[] = [];
    let rest = this.pending;
    this.pending = '';
    while (rest.startsWith(ESC)) {
      if (rest === ESC || rest[1] === ESC) out.push(key('escape'));
      else if (rest === '\x1b[') out.push(key('[', { alt: true }));
      else if (rest === '\x1bO') out.push(key('o', { alt: true, shift: true }));
      if (rest[1] !== ESC) break; // anything else unfinished is dropped, as is half a surrogate pair
      rest = rest.slice(1);
    }
    return out;
  }

  /** Reads the open paste from `i`: the index to go on from (s.length when the end marker has not come). */
  private readPaste(s: string, i: number, out: Key[]): number {
    const parts = this.paste!;
    const end = s.indexOf(PASTE_END, i);
    if (end < 0) {
      const keep = partialSuffix(s, i, PASTE_END);
      parts.push(s.slice(i, s.length - keep));
      this.pending = s.slice(s.length - keep);
      return s.length;
    }
    parts.push(s.slice(i, end));
    const text = normalizeNewlines(parts.join(''));
    if (text) out.push({ name: 'paste', text });
    this.paste = null;
    return end + PASTE_END.length;
  }
}

export { PASTE_START, PASTE_END };
